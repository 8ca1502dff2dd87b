// The view model's own work on large inputs is bounded: counted here, not timed (the
// figures are in bench/run.mjs and the README's Performance section).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { OpenAPIV3_1 } from "openapi-types";
// @ts-expect-error: the benchmark's generator is plain JavaScript.
import { declarationText } from "../../../bench/make-declarations.js";
import { buildApiModel } from "../../../src/compile/api/build.js";
import { responseObjects } from "../../../src/compile/api/document.js";
import { SchemaTypeNames } from "../../../src/compile/api/names.js";
import { ambiguousPaths, pathTemplate } from "../../../src/compile/api/path-template.js";
import { objectTypeExpression } from "../../../src/compile/api/schema-code.js";
import { openapiFromText } from "../../../src/pipeline.js";
import { ROOT } from "../../support/fixtures.js";

/** How many doc comments the model made (each member text with a description makes one). */
const docComments = vi.hoisted(() => ({ count: 0 }));
/** How many names were checked as identifiers. */
const identifiers = vi.hoisted(() => ({ count: 0 }));
vi.mock("../../../src/model/escape.js", async (original) => {
  const real = await original<typeof import("../../../src/model/escape.js")>();
  return {
    ...real,
    docLines: (...args: Parameters<typeof real.docLines>) => {
      docComments.count++;
      return real.docLines(...args);
    },
    isIdentifier: (name: string) => {
      identifiers.count++;
      return real.isIdentifier(name);
    },
  };
});

/** How many Parameter Objects of the document were read. */
const parameterReads = vi.hoisted(() => ({ count: 0 }));
vi.mock("../../../src/compile/api/document.js", async (original) => {
  const real = await original<typeof import("../../../src/compile/api/document.js")>();
  return {
    ...real,
    parameterObject: (...args: Parameters<typeof real.parameterObject>) => {
      parameterReads.count++;
      return real.parameterObject(...args);
    },
  };
});

/** How many validator nodes of schemas the model asked for (each schema's own, not its subschemas'). */
const nodes = vi.hoisted(() => ({ count: 0 }));
vi.mock("../../../src/compile/api/schema-code.js", async (original) => {
  const real = await original<typeof import("../../../src/compile/api/schema-code.js")>();
  return {
    ...real,
    schemaNode: (...args: Parameters<typeof real.schemaNode>) => {
      nodes.count++;
      return real.schemaNode(...args);
    },
  };
});

/** The expanded document of a declaration. */
async function documentOf(file: string, text: string): Promise<OpenAPIV3_1.Document> {
  const { value } = await openapiFromText(file, text);
  if (!value) throw new Error(`${file} does not expand`);
  return value;
}

describe("the view model's work", () => {
  it("makes no type text of codegen's own operations for the dispatcher's table (their handler types come from the resource)", async () => {
    const document = await documentOf("api-20.yaml", declarationText(20) as string);
    docComments.count = 0;
    const view = buildApiModel(structuredClone(document), { inputPath: "api-20.yaml" });
    expect(view.resources).toHaveLength(20);
    // Per resource: its schemas' and handlers' doc comments (70), not also one per parameter and
    // response of each of its six operations (the dispatcher's entries made those: 128 in all).
    expect(docComments.count / 20).toBeLessThan(80);
  });

  it("asks for the type of a response's schema once for the dispatcher's entries, not at every operation that shares the response", async () => {
    const document = await documentOf("api-20.yaml", declarationText(20) as string);
    const asked = vi.spyOn(SchemaTypeNames.prototype, "typeNameFor");
    try {
      buildApiModel(structuredClone(document), { inputPath: "api-20.yaml" });
      // Per resource 34: its handlers' and types' references, its operations' own responses, and the
      // shared error responses' once in all (64 when each operation asked for each of them again).
      expect(asked.mock.calls.length / 20).toBeLessThan(40);
    } finally {
      asked.mockRestore();
    }
  });

  it("asks for the variants of the schemas in the same order, so types.gen.ts declares the same types", async () => {
    // guard-password's task input has a writeOnly field and its tasks readOnly ones: variants of both.
    const file = path.join(ROOT, "fixtures/valid/guard-password/declaration.yaml");
    const view = buildApiModel(await documentOf(file, readFileSync(file, "utf8")), { inputPath: "declaration.yaml" });
    const expected = readFileSync(path.join(ROOT, "fixtures/valid/guard-password/expected/types.gen.ts"), "utf8");
    expect(view.types.map((type) => type.name)).toEqual([...expected.matchAll(/^export type (\w+)/gm)].map((match) => match[1]));
    expect(view.types.map((type) => type.name)).toContain("TaskInputRequest");
  });

  it("makes each property's type once in an object type (its index signatures read the same text)", () => {
    const schemas = { A: { type: "object" }, B: { type: "object" } };
    const names = new SchemaTypeNames(schemas);
    const asked = vi.spyOn(names, "typeNameFor");
    const schema = { type: "object", properties: { a: { $ref: "#/components/schemas/A" }, b: { $ref: "#/components/schemas/B" } } };
    expect(objectTypeExpression(schema, "T.", names).text).toBe("{ a?: T.A; b?: T.B }");
    expect(asked).toHaveBeenCalledTimes(2);
  });

  it("answers the variants asked for as one list that grows as they are asked (not a copy per read: quadratic in 2,000 variants)", () => {
    const names = new SchemaTypeNames({ A: { properties: { id: { readOnly: true } } }, B: { properties: { secret: { writeOnly: true } } } });
    const variants = names.variants();
    names.typeNameFor("A", "request");
    names.typeNameFor("B", "response");
    expect(variants).toEqual([
      { name: "ARequest", schema: "A", use: "request" },
      { name: "BResponse", schema: "B", use: "response" },
    ]);
  });

  it("compares a path only with earlier paths of its shape (each beside every earlier one of its length was quadratic)", () => {
    const route = (path: string) => ({ path, segments: pathTemplate(path).segments, operations: [{ method: "get" }] });
    const paths = Array.from({ length: 2000 }, (_, i) => route(`/r${i}-orders/{id}`));
    // Two that tie, far apart among them: the later is refused, naming the first.
    paths.splice(10, 0, route("/r5-orders/{key}"));
    const find = vi.spyOn(Array.prototype, "find");
    try {
      const problems = ambiguousPaths(paths);
      expect([...problems.keys()]).toEqual([10]);
      expect(problems.get(10)).toContain('GET "/r5-orders/{key}" may match the same requests as GET "/r5-orders/{id}"');
      // One look at the methods per pair compared: the one pair of one shape, not two million.
      expect(find.mock.calls.length).toBeLessThan(100);
    } finally {
      find.mockRestore();
    }
  });

  it("reads a response shared by many operations once (components/responses, one object after prepareDocument)", () => {
    const unauthorized = { description: "No credential", content: { "application/json, application/problem+json": { schema: { type: "object" } } } };
    const split = vi.spyOn(String.prototype, "split");
    try {
      // One reading of a document: its operations' responses.
      const known = new Map();
      const read = Array.from({ length: 500 }, (_, i) =>
        responseObjects({ "200": { content: { "text/plain": {} } }, "401": unauthorized, [`${400 + (i % 2)}`]: unauthorized }, known),
      );
      expect(read[0]!.map((r) => [r.status, r.content.map((c) => c.type)])).toEqual([
        ["200", ["text/plain"]],
        ["400", ["application/json", "application/problem+json"]],
        ["401", ["application/json", "application/problem+json"]],
      ]);
      // Per operation its own response's media ranges (a split of the key, one of each range); the shared one's once.
      expect(split.mock.calls.length).toBeLessThan(500 * 2 + 10);
    } finally {
      split.mockRestore();
    }
  });

  it("hands out a shared response read at its status as the one object read, not a copy per operation", () => {
    const shared = { description: "Failed", content: { "application/json": { schema: { type: "object" } } } };
    const known = new Map();
    const [first, second, third] = [0, 1, 2].map(() => responseObjects({ "500": shared, "503": shared }, known));
    expect(second![0]).toBe(first![0]);
    expect(third![0]).toBe(first![0]);
    // The same object under another status is read under that status.
    expect(third!.map((r) => r.status)).toEqual(["500", "503"]);
    expect(third![1]).not.toBe(third![0]);
    expect(third![1]!.types).toBe(third![0]!.types);
  });

  it("lists no operation's responses as pairs: a response already read costs its status alone", () => {
    const shared = { description: "Failed", content: { "application/json": { schema: { type: "object" } } } };
    const known = new Map();
    const entries = vi.spyOn(Object, "entries");
    try {
      const read = Array.from({ length: 500 }, () => responseObjects({ "400": shared, "500": shared }, known));
      expect(read[499]!.map((r) => [r.status, r.types])).toEqual([
        ["400", ["application/json"]],
        ["500", ["application/json"]],
      ]);
      // The shared response's media ranges once; none per operation (500 when each listed its responses).
      expect(entries.mock.calls.length).toBeLessThan(10);
    } finally {
      entries.mockRestore();
    }
  });

  it("checks each schema name once, and asks for the type of a named schema once per use, not at every reference to it", async () => {
    const document = await documentOf("api-20.yaml", declarationText(20) as string);
    identifiers.count = 0;
    const asked = vi.spyOn(SchemaTypeNames.prototype, "typeNameFor");
    try {
      buildApiModel(structuredClone(document), { inputPath: "api-20.yaml" });
      // Per resource its operations' and handlers' names and its schemas' once (35; 70 when each
      // reference to a schema checked its name again).
      expect(identifiers.count / 20).toBeLessThan(50);
      // A `$ref` to the error schema at each operation's own error responses asks once in all (34 when each asked).
      expect(asked.mock.calls.length / 20).toBeLessThan(30);
    } finally {
      asked.mockRestore();
    }
  });

  it("reads a path item's parameter and makes its validator node once, not at each of its operations", async () => {
    const document = await documentOf("api-20.yaml", declarationText(20) as string);
    nodes.count = 0;
    parameterReads.count = 0;
    buildApiModel(structuredClone(document), { inputPath: "api-20.yaml" });
    // Per resource: its schemas' nodes (6), its bodies' (3), its list's query parameters' (2) and
    // its `id` once (13: at each of its four operations).
    expect(nodes.count / 20).toBeLessThan(12);
    // Per resource its list's two query parameters and its `id` once (6: at each of its four
    // operations), and the conditional headers, each its operation's own: `If-None-Match` of the
    // read, `If-Match` of the replace, update and delete.
    expect(parameterReads.count / 20).toBe(7);
  });
});
