// A name from an OpenAPI document written by others never becomes code. The
// attack of the issue (a `$ref` to a schema whose name is TypeScript, under a property named
// `examples`, which the old model took for the keyword and left unrewritten), and random
// documents with hostile strings in every place a name can take: schema names, property names
// (keyword-like ones holding `$ref`s among them), parameter names, operationIds, tags, enum values,
// security schemes, `$defs`. Each generates, compiles under tsc --strict, and no word of a payload
// is code. Bounded: a few documents per run, one tsc run for all (as test/fuzz/declarations.test.ts).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { GeneratedFile } from "../../src/emit/render.js";
import { generateFiles } from "../../src/pipeline.js";
import { ROOT } from "../support/fixtures.js";
import { compileTrees, payloadInCode } from "../support/generated-code.js";

/** The seed: FUZZ_SEED when given (to replay a failure); in CI a fixed one (as test/fuzz/declarations.test.ts). */
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : process.env.CI ? 20261123 : undefined;
const runs = (numRuns: number): { numRuns: number; seed?: number } => (SEED === undefined ? { numRuns } : { numRuns, seed: SEED });
const host = { cwd: ROOT };
const dir = mkdtempSync(path.join(tmpdir(), "codegen-openapi-names-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Json = { [key: string]: unknown };

/** The generated files that hold code made from the document (runtime/ is copied verbatim). */
const ownFiles = (files: readonly GeneratedFile[]) => files.filter((f) => f.path.endsWith(".ts") && !f.path.startsWith("runtime/"));
const escapedWords = (files: readonly GeneratedFile[]) => ownFiles(files).flatMap((f) => payloadInCode(f.contents).map((word) => `${f.path}: ${word}`));

/** A `$ref` to `#/components/schemas/...` parts, each escaped as a JSON pointer token and as a URI fragment. */
const refTo = (...parts: string[]) => "#/components/schemas/" + parts.map((p) => encodeURIComponent(p.replace(/~/g, "~0").replace(/\//g, "~1"))).join("/");

describe("names written to break out of their string into code", () => {
  // A type literal that the name closes, then code, then a type that opens again, so that pasted as
  // `T.<name>` into the operation's input type the output would still compile.
  const payload = "A } }; console.log('pwned'); export type P = { q: { r: T.A";
  const attack = (version: string): Json => ({
    openapi: version,
    info: { title: "t", version: "1" },
    paths: {
      "/p": {
        post: {
          operationId: "make",
          requestBody: {
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: {
                    examples: { $ref: version.startsWith("3.0") ? refTo(payload) : refTo("Holder", "$defs", payload) },
                    example: { $ref: refTo("A") },
                    "x-note": { $ref: refTo("A") },
                  },
                },
              },
            },
          },
          responses: { "200": { description: "ok" } },
        },
      },
    },
    components: {
      schemas: {
        A: { type: "string" },
        // OpenAPI 3.1 allows only letters, digits, `.`, `-` and `_` in component names, but not in `$defs`.
        ...(version.startsWith("3.0") ? { [payload]: { type: "object", properties: { x: { type: "string" } } } } : {}),
        ...(version.startsWith("3.0") ? {} : { Holder: { type: "object", $defs: { [payload]: { type: "object", properties: { x: { type: "string" } } } } } }),
      },
    },
  });

  it.each(["3.0.3", "3.1.0"])(
    "OpenAPI %s: the referenced schema is a type, the name is inert, the output compiles",
    async (version) => {
      const result = await generateFiles(host, "attack.yaml", stringify(attack(version), { aliasDuplicateObjects: false }), {
        outDir: "generated",
        format: false,
      });
      expect(result.diagnostics).toEqual([]);
      const files = result.value!;
      expect(escapedWords(files)).toEqual([]);
      // A property named like a keyword is a property: its `$ref` is followed like any other.
      const operations = files.find((f) => f.path.startsWith("operations/"))!.contents;
      expect(operations).toMatch(/examples\?: (T\.\w+|\{ x\?: string \})/);
      expect(operations).toMatch(/example\?: T\.A\b/);
      expect(operations).toMatch(/"x-note"\?: T\.A\b/);
      compileTrees([files], dir, `attack-${version}`);
    },
    60_000,
  );
});

/**
 * Pieces of hostile names: code, comment and string breakers, and calls of the payload words. A
 * name may rightly become an identifier of its words (`evil(0)` is the method `evil0`), so each
 * payload word is followed by another word: standing alone as code, it escaped.
 */
const PIECES = [
  "}",
  "{",
  ";",
  "(",
  ")",
  "'",
  '"',
  "`",
  "${",
  "/*",
  "*/",
  "//",
  "\\",
  " ",
  "\n",
  "\u2028",
  "\u2029",
  ".",
  "-",
  "<",
  ">",
  "=",
  ",",
  ":",
  "[",
  "]",
  "#",
  "%",
  "~",
  "/",
  "console.log(1)",
  "process.exit(1)",
  "pwned(2)",
  "evil(0)",
  "injected.x",
  "oops.y",
  "throw 1;",
  "export type P = {",
  "A }; console.log('pwned'); export type P = {",
  "__proto__",
  "constructor",
  "toString",
  "examples",
  "x-foo",
  "$ref",
  "default",
  "class",
  "string",
];
const hostile = fc
  .array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 5 })
  .map((parts) => parts.join(""))
  .filter((name) => name.trim() !== "");
/**
 * Names a `$ref` can point at: swagger-parser cannot resolve a pointer to a name with `\\`, `%`, a
 * line break or white space at its end in it (a located diagnostic, not code).
 */
const referable = hostile.filter((name) => !/[\\%\n\r]/.test(name) && name.trim() === name);
/** Names that look like keywords or members of every object, where a name stands. */
const KEYWORD_LIKE = ["examples", "example", "x-foo", "default", "properties", "$ref", "__proto__", "constructor", "enum", "items", "allOf", "toString"];
/** Names OpenAPI 3.1 allows for components (letters, digits, `.`, `-`, `_`), as clashing as they come. */
const COMPONENT_NAMES = [
  "constructor",
  "__proto__",
  "toString",
  "string",
  "class",
  "x-foo",
  "examples",
  "1a",
  "a.b-c",
  "default",
  "Object",
  "T",
  "Principal",
  "hasOwnProperty",
];

/** The names of one document, by the place they take. */
interface Names {
  readonly schemas: string[];
  readonly components: string[];
  readonly properties: string[];
  readonly parameters: string[];
  readonly operationIds: string[];
  readonly tags: string[];
  readonly enums: string[];
  readonly scheme: string;
}

const names: fc.Arbitrary<Names> = fc.record({
  schemas: fc.uniqueArray(referable, { minLength: 2, maxLength: 4 }),
  components: fc.uniqueArray(fc.constantFrom(...COMPONENT_NAMES), { minLength: 2, maxLength: 4 }),
  properties: fc.uniqueArray(hostile, { minLength: 1, maxLength: 4 }),
  parameters: fc.uniqueArray(
    hostile.filter((n) => !["accept", "content-type", "authorization"].includes(n.toLowerCase())),
    { minLength: 1, maxLength: 3 },
  ),
  operationIds: fc.uniqueArray(hostile, { minLength: 2, maxLength: 3 }),
  tags: fc.array(hostile, { minLength: 1, maxLength: 2 }),
  enums: fc.uniqueArray(hostile, { minLength: 1, maxLength: 3 }),
  scheme: hostile,
});

/**
 * A document with the names in every place a name can take. In 3.0, schema and security scheme
 * names are hostile too; in 3.1 (whose schema allows only plain component names) the clashing
 * plain names are, and hostile names stand in `$defs`, referred to by pointer.
 */
function documentOf(version: "3.0.3" | "3.1.0", n: Names): Json {
  const is30 = version === "3.0.3";
  const schemaNames = is30 ? [...n.schemas, ...n.components] : n.components;
  const scheme = is30 ? n.scheme : "api.key-1";
  const target = (i: number) => (is30 ? refTo(schemaNames[i % schemaNames.length]!) : refTo("Holder", "$defs", n.schemas[i % n.schemas.length]!));
  const enumSchema = { type: "string", enum: n.enums };
  const shape = (i: number): Json => ({
    type: "object",
    description: n.schemas[i % n.schemas.length],
    properties: { [n.properties[i % n.properties.length]!]: enumSchema },
  });
  const body: Json = {
    type: "object",
    properties: {
      ...Object.fromEntries(KEYWORD_LIKE.map((key, i) => [key, { $ref: target(i) }])),
      ...Object.fromEntries(n.properties.map((key, i) => [key, i % 2 === 0 ? { $ref: target(i + 1) } : enumSchema])),
    },
  };
  // Path segments: the names without what would make a segment a template or a new segment.
  const segment = (name: string) => name.replace(/[{}/?#%]/g, "_");
  const paths = Object.fromEntries(
    n.operationIds.map((operationId, i) => [
      `/${segment(n.tags[i % n.tags.length]!)}/${i}/{${segment(n.parameters[0]!)}}`,
      {
        post: {
          operationId,
          tags: [n.tags[i % n.tags.length]],
          security: [{ [scheme]: [] }],
          parameters: [
            { name: segment(n.parameters[0]!), in: "path", required: true, schema: { type: "string" } },
            ...n.parameters.map((name) => ({ name, in: "query", schema: enumSchema })),
            ...n.parameters.map((name) => ({ name, in: "header", schema: { type: "integer" } })),
            ...n.parameters.map((name) => ({ name, in: "cookie", schema: { type: "string" } })),
          ],
          requestBody: { required: true, content: { "application/json": { schema: body } } },
          // The example's keys are plain: swagger-parser takes a `$ref` key for a reference even
          // in example data (a name `$ref` there is refused as a reference to a file).
          responses: {
            "200": {
              description: n.schemas[0],
              content: { "application/json": { schema: { $ref: target(i) }, example: { name: n.enums[0], tags: n.properties } } },
            },
            default: { description: "error", content: { "text/plain": { schema: { type: "string" } } } },
          },
        },
      },
    ]),
  );
  return {
    openapi: version,
    info: { title: n.schemas[0], version: "1" },
    tags: n.tags.map((name) => ({ name, description: name })),
    paths,
    components: {
      schemas: {
        ...Object.fromEntries(schemaNames.map((name, i) => [name, shape(i)])),
        ...(is30 ? {} : { Holder: { type: "object", $defs: Object.fromEntries(n.schemas.map((name, i) => [name, shape(i)])) } }),
      },
      securitySchemes: { [scheme]: { type: "apiKey", in: "header", name: `X-${n.parameters[0]!.replace(/[^A-Za-z0-9-]/g, "")}Key` } },
    },
  };
}

const trees: GeneratedFile[][] = [];

describe("random documents with hostile names in every place a name can take", () => {
  it("generate, and no word of a payload is code", async () => {
    await fc.assert(
      fc.asyncProperty(names, async (n) => {
        for (const version of ["3.0.3", "3.1.0"] as const) {
          const text = stringify(documentOf(version, n), { aliasDuplicateObjects: false });
          const result = await generateFiles(host, "api.yaml", text, { outDir: "generated", format: false });
          expect(
            result.diagnostics.map((d) => `${d.location?.line}:${d.location?.column} ${d.code}: ${d.message}`),
            text,
          ).toEqual([]);
          expect(escapedWords(result.value!), text).toEqual([]);
          trees.push(result.value!);
        }
      }),
      runs(6),
    );
  }, 60_000);

  it("every generated tree compiles under tsc --strict", () => {
    expect(trees.length).toBeGreaterThanOrEqual(12);
    compileTrees(trees, dir, "random");
  }, 120_000);
});
