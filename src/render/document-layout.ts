import type { DocumentView } from "../model/view.js";
import { stringLiteral } from "../model/escape.js";
import { YamlUnsupported, yamlOfData } from "../runtime/yaml.js";
import { collectGarbageOf } from "../memory.js";
import { laidOut, printDoc, stringPropertyDoc } from "./layout.js";

/**
 * What document.gen.ts holds of the served document (`json`: its JSON text, `yaml`: openapi.yaml's
 * text): the JSON text, and the YAML text only where the generated server's writer
 * (templates/runtime/yaml.gen.ts) would not make exactly it from the JSON at its first request.
 * Why (issue 16 item 7): a 5 MB document was held twice, as both texts, in the generated file and
 * in codegen's memory while writing it (20 MB of literals for GitHub Enterprise's document).
 */
export function servedDocument(basePath: string, data: unknown, json: string, yaml: string): Omit<DocumentView, "members"> {
  const literal = stringLiteral(json);
  // Why between the two (issue 14): each makes and drops several times its text in garbage (src/memory.ts).
  collectGarbageOf(json);
  const served = servesYaml(data, yaml);
  collectGarbageOf(json);
  return { basePath: stringLiteral(basePath), json: literal, ...(served ? {} : { yaml: stringLiteral(yaml) }) };
}

/**
 * Whether the server's YAML writer makes exactly `yaml` from the JSON text of `data` (yamlOfData
 * refuses what that text would not keep, so the data is checked, not a copy parsed from the text).
 */
function servesYaml(data: unknown, yaml: string): boolean {
  try {
    return yamlOfData(data) === yaml;
  } catch (error) {
    if (error instanceof YamlUnsupported) return false;
    throw error;
  }
}

/**
 * The members of document.gen.ts's `document` (its object is broken: one member per line), as
 * prettier prints them, and whether that layout is sure (else the file is left to prettier).
 */
export function documentMembers(document: Omit<DocumentView, "members">): { readonly text: string; readonly sure: boolean } {
  const entries = [["basePath", document.basePath], ["json", document.json], ...(document.yaml === undefined ? [] : [["yaml", document.yaml]])] as const;
  return laidOut(
    () =>
      entries
        .map(([key, literal]) => {
          const printed = `  ${printDoc([stringPropertyDoc(key, literal), ","], { indentation: 2 })}`;
          // Why (issue 14): printing a literal of megabytes leaves several copies of it as garbage (src/memory.ts).
          collectGarbageOf(literal);
          return printed;
        })
        .join("\n"),
    () => entries.map(([key, literal]) => `  ${key}: ${literal},`).join("\n"),
  );
}
