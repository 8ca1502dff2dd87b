// `codegen serve` on a document written by others answers each operation with the document's
// example when it fits the response's schema, else with a value made from the schema, else 501,
// and says at start which examples it did not use. Every answer is checked against the document
// with ajv (JSON Schema 2020-12 and ajv-formats), over real HTTP on 127.0.0.1.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { nodeHost } from "../../src/host.js";
import { generateFiles } from "../../src/pipeline.js";
import { type RunningServer, serveFiles } from "../../src/serve/serve.js";
import { START_TIMEOUT, call } from "../http/support.js";

const counted = { type: "object", properties: { n: { type: "integer", minimum: 3 }, mail: { type: "string", format: "email" } }, required: ["n", "mail"] };
const json = (media: Record<string, unknown>) => ({ "200": { description: "ok", content: { "application/json": media } } });
const get = (operationId: string, responses: unknown) => ({ get: { operationId, responses } });

const DOCUMENT = {
  openapi: "3.1.0",
  info: { title: "examples", version: "1" },
  paths: {
    "/null-example": get("nullExample", json({ schema: counted, example: null })),
    "/external-only": get("externalOnly", json({ schema: counted, examples: { one: { externalValue: "https://x.example/one.json" } } })),
    "/wrong-example": get("wrongExample", json({ schema: counted, example: { n: "three", mail: "a@b.example" } })),
    "/fitting-example": get("fittingExample", json({ schema: counted, example: { n: 7, mail: "ann@example.com" } })),
    "/nullable": get("nullable", json({ schema: { type: ["object", "null"] }, example: null })),
    "/shared": get("shared", { "201": { $ref: "#/components/responses/Made" } }),
    "/no-example": get("noExample", json({ schema: { $ref: "#/components/schemas/Pet" } })),
    "/impossible": get("impossible", json({ schema: { type: "string", pattern: "^[0-9]{4}$" } })),
    // 100 items of 100 items of ... 8 deep: 10^16 values if made whole; serve makes at most a bounded number.
    "/nested-arrays": get("nestedArrays", json({ schema: { $ref: "#/components/schemas/Deep" } })),
    // Polymorphism written both ways (Animal one of Cat, Cat all of Animal): ajv checks it without end.
    "/animal": get("animal", json({ schema: { $ref: "#/components/schemas/Animal" }, example: { kind: "cat", meows: true } })),
    "/text": get("text", { "200": { description: "ok", content: { "text/plain": { schema: { type: "string" }, example: "hello" } } } }),
  },
  components: {
    schemas: {
      Deep: ((): unknown => {
        let schema: unknown = { type: "integer" };
        for (let i = 0; i < 8; i++) schema = { type: "array", items: schema, minItems: 100 };
        return schema;
      })(),
      Animal: {
        type: "object",
        properties: { kind: { type: "string" } },
        required: ["kind"],
        discriminator: { propertyName: "kind" },
        oneOf: [{ $ref: "#/components/schemas/Cat" }],
      },
      Cat: { allOf: [{ $ref: "#/components/schemas/Animal" }, { type: "object", properties: { meows: { type: "boolean" } } }] },
      Pet: {
        type: "object",
        properties: {
          id: { type: "string", format: "uuid" },
          born: { type: "string", format: "date" },
          tags: { type: "array", items: { type: "string", minLength: 2 }, minItems: 2 },
          kind: { enum: ["cat", "dog"] },
          weight: { type: "number", exclusiveMinimum: 0, multipleOf: 0.5 },
          owner: { allOf: [{ type: "object", properties: { name: { type: "string", minLength: 3 } }, required: ["name"] }] },
          note: { type: "string" },
        },
        required: ["id", "born", "tags", "kind", "weight", "owner"],
        additionalProperties: false,
      },
    },
    examples: { Made: { value: { n: 5, mail: "made@example.com" } } },
    responses: {
      Made: { description: "made", content: { "application/json": { schema: counted, examples: { first: { $ref: "#/components/examples/Made" } } } } },
    },
  },
};

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-serve-examples-"));
let server: RunningServer;
let base: string;
beforeAll(async () => {
  const file = path.join(scratch, "openapi.yaml");
  const text = stringify(DOCUMENT);
  writeFileSync(file, text);
  const result = await generateFiles({ ...nodeHost(), cwd: scratch }, file, text, { outDir: "out" });
  if (!result.value) throw new Error(result.diagnostics.map((d) => d.message).join("\n"));
  server = await serveFiles(result.value, { port: 0, host: "127.0.0.1", users: [] });
  base = server.url + server.basePath;
}, START_TIMEOUT);
afterAll(async () => {
  await server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** The response schema an answer must fit, checked by ajv with the document as the root of its refs. */
function fits(pointer: string, value: unknown): boolean {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...(JSON.parse(JSON.stringify(DOCUMENT).replaceAll('"#/', '"urn:codegen:test-document#/')) as object), $id: "urn:codegen:test-document" });
  return ajv.validate({ $ref: `urn:codegen:test-document#${pointer}` }, value);
}
const schemaOf = (route: string, status = "200") => `/paths/${route.replaceAll("/", "~1")}/get/responses/${status}/content/application~1json/schema`;

describe("serve's answers for a document's operations", () => {
  it.each(["/null-example", "/external-only", "/wrong-example", "/no-example"])("%s: JSON that fits the declared schema", async (route) => {
    const reply = await call(base, "GET", route);
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
    expect(fits(schemaOf(route), reply.body), `${route}: ${reply.text}`).toBe(true);
  });

  it("answers a fitting example as the document gives it, null too where the schema allows it", async () => {
    expect((await call(base, "GET", "/fitting-example")).body).toEqual({ n: 7, mail: "ann@example.com" });
    const nullable = await call(base, "GET", "/nullable");
    expect([nullable.status, nullable.headers.get("content-type"), nullable.text]).toEqual([200, "application/json", "null"]);
  });

  it("follows a shared response and a referenced Example Object", async () => {
    const reply = await call(base, "GET", "/shared");
    expect([reply.status, reply.body]).toEqual([201, { n: 5, mail: "made@example.com" }]);
  });

  it("answers 501 with an error body where no value fits, and a text example as text", async () => {
    expect((await call(base, "GET", "/nested-arrays")).status).toBe(501);
    const impossible = await call(base, "GET", "/impossible");
    expect(impossible.status).toBe(501);
    expect(impossible.body).toMatchObject({ error: "Not implemented" });
    const text = await fetch(`${base}/text`);
    expect([text.status, text.headers.get("content-type"), await text.text()]).toEqual([200, "text/plain", "hello"]);
  });

  it("answers the example of a schema that applies to itself without end as given, and says it is unchecked", async () => {
    expect((await call(base, "GET", "/animal")).body).toEqual({ kind: "cat", meows: true });
    expect(server.notes.join("\n")).toContain("animal: its response schema refers to itself without end, so its example is answered unchecked");
  });

  it("names, at start, each operation whose example it did not use and what it answers instead", () => {
    const notes = server.notes.join("\n");
    for (const operationId of ["nullExample", "wrongExample", "impossible"]) expect(notes).toContain(`${operationId}:`);
    expect(notes).toMatch(/wrongExample: .*\/n must be integer/);
    expect(notes).toMatch(/impossible: .*501/);
    expect(notes).not.toContain("fittingExample:");
  });

  it("lists, at start, the operations without a handler: answered with examples, or 501", () => {
    // The first note, before those of single operations.
    const first = server.notes[0]!;
    expect(first).toMatch(/^no handler of yours runs under serve: of all \d+ operations of the document, \d+ answer with examples \(/);
    expect(first).toContain("fittingExample");
    expect(first).toMatch(/; 2 answer 501 Not Implemented \(impossible, nestedArrays\)$/);
  });
});
