import { parse, stringify } from "yaml";
import { YamlUnsupported, yamlOfData } from "#runtime/yaml.gen.js";

/** The options codegen writes YAML with where the server's writer does not: no anchors, no folding. */
export const YAML_OPTIONS = { aliasDuplicateObjects: false, lineWidth: 0 } as const;

/**
 * openapi.yaml's text, and whether the generated server's own writer (runtime/yaml.gen.ts) makes
 * it: written by that writer, which lays out JSON data byte for byte as the `yaml` package does
 * (test/emit/yaml-writer.test.ts holds it to `yaml`), so the server can make `/openapi.yaml` from
 * the JSON it holds. Where that writer refuses (a key of over 1000 characters, a key starting like
 * a document marker, a value JSON would not keep), `yaml` writes it (`servedAsIs` false: the
 * server then keeps this text).
 */
export function documentYaml(value: unknown): { readonly text: string; readonly servedAsIs: boolean } {
  try {
    return { text: yamlOfData(value), servedAsIs: true };
  } catch (error) {
    if (!(error instanceof YamlUnsupported)) throw error;
  }
  return { text: faithfully(value), servedAsIs: false };
}

/** JSON data as YAML: openapi.yaml's text (documentYaml). */
export function jsonToYaml(value: unknown): string {
  return documentYaml(value).text;
}

/**
 * `yaml`'s text of a value, as `stringify` writes it when that reads back as the value; else with
 * double-quoted strings instead of block scalars, and else with JSON's double quotes on one line.
 * Why: `yaml` writes a string whose first line is only spaces (`" \n"`) as a block scalar that
 * reads back without them (or not at all), and a line of one space in a long double-quoted string
 * as `\\ `, read back as a backslash: the document served would not be the API's, and the
 * manifest, which hashes the data written (src/write/plan.ts), would not match the file.
 */
function faithfully(value: unknown): string {
  const json = JSON.stringify(value);
  let text = "";
  for (const options of [YAML_OPTIONS, { ...YAML_OPTIONS, blockQuote: false }, { ...YAML_OPTIONS, blockQuote: false, doubleQuotedAsJSON: true }]) {
    text = stringify(value, options);
    let back: unknown;
    try {
      back = parse(text, { maxAliasCount: -1 });
    } catch {
      back = undefined;
    }
    if (JSON.stringify(back) === json) break;
  }
  return text;
}
