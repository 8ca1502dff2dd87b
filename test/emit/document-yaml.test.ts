// Document.gen.ts holds the served document once, as JSON; the generated server
// makes `/openapi.yaml` from it at the first request (runtime/yaml.gen.ts), byte for byte
// the openapi.yaml codegen writes, and codegen keeps the YAML text too wherever that writer would not.

import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { nodeHost } from "../../src/host.js";
import { generateFiles } from "../../src/pipeline.js";
import { YamlUnsupported, yamlOfJson } from "../../runtime/yaml.gen.js";
import { documentYaml, jsonToYaml } from "../../src/emit/yaml.js";
import { serveWithTestStore } from "../support/generated.js";
import { ROOT, declarationOf, fixtureCases } from "../support/fixtures.js";

/** The server's YAML of a value (through its JSON text, as document.gen.ts holds it), or undefined where unsupported. */
const served = (value: unknown): string | undefined => {
  try {
    return yamlOfJson(JSON.stringify(value, null, 2) + "\n");
  } catch (error) {
    if (error instanceof YamlUnsupported) return undefined;
    throw error;
  }
};

/** Generated files of an input text (`file` names its kind: .yaml, .json). */
async function generate(file: string, text: string) {
  const result = await generateFiles({ ...nodeHost(), cwd: ROOT }, file, text, { outDir: "out", allowUnsafePatterns: true });
  if (!result.value) throw new Error(result.diagnostics.map((d) => d.message).join("\n"));
  return result.value;
}
const contentsOf = (files: readonly { path: string; contents: string }[], name: string) => files.find((f) => f.path === name)!.contents;

const openapiFixtures = readdirSync(path.join(ROOT, "fixtures/openapi")).map((name) => path.join("fixtures/openapi", name, "openapi.yaml"));
const inputs = [...fixtureCases("valid").map((name) => declarationOf("valid", name)), ...openapiFixtures];

describe("the served document held once", () => {
  it.each(inputs)("%s: document.gen.ts holds the JSON only, and the server's writer makes openapi.yaml of it", async (file) => {
    const files = await generate(file, readFileSync(path.join(ROOT, file), "utf8"));
    const documentFile = contentsOf(files, "document.gen.ts");
    expect(documentFile).toMatch(/^ {2}json:/m);
    expect(documentFile).not.toMatch(/^ {2}yaml:/m);
    const openapi = contentsOf(files, "openapi.yaml");
    const data = parse(openapi) as unknown;
    expect(yamlOfJson(JSON.stringify(data, null, 2) + "\n")).toBe(openapi);
    // The JSON is laid out a member per line where a value does not fit in 100 columns (a diff
    // shows the lines a change touches); only a long string makes a line longer.
    const literal = /^ {2}json: (`(?:[^`\\]|\\.)*`),$/ms.exec(documentFile)![1]!;
    const json = new Function(`return ${literal};`)() as string;
    expect(JSON.parse(json)).toEqual(data);
    expect(json.split("\n").length).toBeGreaterThan(20);
    for (const line of json.split("\n")) expect(line.replace(/"(?:[^"\\]|\\.)*"/g, '""').length, line).toBeLessThanOrEqual(100);
  });

  it("is the writer of `yaml` for JSON values fuzzed with YAML's awkward texts, else codegen keeps the YAML", () => {
    const text = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({
        unit: fc.constantFrom("a", " ", "\n", "\t", ":", "#", "-", "'", '"', "%", "?", "|", ">", "\\", "\u0085", "\u2028", "é", "\u0000"),
        maxLength: 12,
      }),
      fc.constantFrom(
        "",
        "true",
        "Null",
        "~",
        "0x1F",
        "0o17",
        "1e3",
        "-.5",
        ".inf",
        ".NaN",
        "12",
        "+3",
        "---",
        "...",
        "--- x",
        "a\n---\nb",
        "%x",
        "- a",
        "? a",
      ),
      fc.constantFrom("\n", " \n", "\n\n", "a\n", "a\n\n", " a\nb", "\na", "a\n ", "a \nb", "x".repeat(50) + "\n" + "y"),
    );
    const value = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        text,
        fc.integer(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("node"), { maxLength: 3 }),
        fc.dictionary(text, tie("node"), { maxKeys: 3 }),
      ),
    }));
    let same = 0;
    let runs = 0;
    fc.assert(
      fc.property(fc.dictionary(text, value.node, { minKeys: 1, maxKeys: 4 }), (document) => {
        runs++;
        const { text: yaml, servedAsIs } = documentYaml(document);
        expect(yaml).toBe(jsonToYaml(document));
        // Written by the server's writer exactly where it makes the same text of the JSON text.
        expect(servedAsIs).toBe(served(document) === yaml);
        if (servedAsIs) {
          // Not kept (pipeline.ts): the server's answer, made from the JSON text, is openapi.yaml.
          same++;
          expect(served(document)).toBe(yaml);
        }
      }),
      { numRuns: 1500 },
    );
    // Most of these hostile documents need no second copy (else the check above is vacuous); those
    // that do hold a key of U+2028 before `%`/`---`, or a -0 (JSON has none).
    expect(same / runs).toBeGreaterThan(0.8);
  });

  it("answers /openapi.yaml with openapi.yaml's bytes, made from the JSON or kept where the writer cannot", { timeout: 120_000 }, async () => {
    const declaration = readFileSync(path.join(ROOT, declarationOf("valid", "hostile-strings")), "utf8");
    // A key of more than 1000 characters: the server's writer leaves it to `yaml` (which may write `? key`).
    const longKey = stringify({ openapi: "3.1.0", info: { title: "T", version: "1", "x-long": { ["k".repeat(1001)]: 1 } }, paths: {} });
    for (const [file, text, kept] of [
      [declarationOf("valid", "hostile-strings"), declaration, false],
      ["api.yaml", longKey, true],
    ] as const) {
      const files = await generate(file, text);
      expect(/^ {2}yaml:/m.test(contentsOf(files, "document.gen.ts")), file).toBe(kept);
      const server = await serveWithTestStore(files, []);
      try {
        const base = server.url + server.basePath;
        for (let i = 0; i < 2; i++) {
          const reply = await fetch(`${base}/openapi.yaml`);
          expect(reply.headers.get("content-type")).toBe("application/yaml");
          expect(await reply.text()).toBe(contentsOf(files, "openapi.yaml"));
        }
        // /openapi.json is the document's compact JSON.
        expect(await (await fetch(`${base}/openapi.json`)).text()).toBe(JSON.stringify(parse(contentsOf(files, "openapi.yaml")) as unknown));
      } finally {
        await server.close();
      }
    }
  });
});
