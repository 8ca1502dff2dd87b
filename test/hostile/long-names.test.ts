// Names cost time linear in their length, and have a limit (docs/declaration.md, "Names"): a
// declaration name longer than 128 characters is refused with a located diagnostic before any
// name is derived from it. The PostgreSQL identifier of a long name was cut one character per
// pass over the whole name (a 20 KB field name took 25 s, 60 KB 218 s; a 20,000-character
// collection name 45 s, then a stack trace for the file name it made). A name at the limit
// works end to end: generated, served, and stored in PostgreSQL (PGlite) under a 63-byte column.

import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeHost } from "../../src/host.js";
import { main } from "../../src/cli.js";
import { NAME_LIMIT } from "../../src/compile/declaration/schema.js";
import { OPENAPI_NAME_LIMIT } from "../../src/compile/api/names.js";
import { checkDeclaration, generateFiles } from "../../src/pipeline.js";
import { serveFiles, type RunningServer } from "../../src/serve/serve.js";
import { call, list, obj } from "../http/support.js";
import { pgliteDatabase } from "../postgres/store.js";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "codegen-long-names-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs the CLI in-process in `dir`, with real files. */
async function cli(argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = "";
  const real = nodeHost();
  const host = { ...real, cwd: dir, colour: false, readFile: (file: string) => real.readFile(path.resolve(dir, file)) };
  const code = await main(argv, { ...host, stdout: () => {}, stderr: (text) => void (stderr += text) });
  return { code, stderr };
}

const declaration = (resources: Record<string, unknown>) => JSON.stringify({ codegen: 1, info: { title: "Notes", version: "1.0.0" }, resources });

describe("an over-long name is refused at its place, quickly, by every command", () => {
  // Why a generous timeout and no clock in the test: the old code took minutes on these inputs.
  const CASES = [
    { name: "a 60 KB field name", text: declaration({ notes: { fields: { ["f".repeat(60_000)]: "string" } } }), what: "a field name" },
    { name: "a 20,000-character collection name", text: declaration({ [`${"a".repeat(19_999)}s`]: { fields: { text: "string" } } }), what: "a resource name" },
  ];

  it.each(CASES)(
    "$name: `generate` and `validate` answer one located diagnostic, exit 1, no stack, nothing written",
    async ({ text, what }) => {
      await writeFile(path.join(dir, "big.json"), text);
      for (const argv of [
        ["generate", "big.json", "-o", "out"],
        ["validate", "big.json"],
      ]) {
        const result = await cli(argv);
        expect(result.code).toBe(1);
        const headings = result.stderr.split("\n").filter((line) => / error: /.test(line));
        expect(headings).toHaveLength(1);
        expect(headings[0]).toMatch(
          new RegExp(`^big\\.json:1:\\d+: error: ${what} in .* is \\d+ characters long .*; a name may have at most 128 characters \\[decl/name-too-long\\]$`),
        );
        expect(result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
        // The message and its code frame show the name's start, not all of it.
        expect(result.stderr.length).toBeLessThan(2_000);
      }
      expect(await readdir(dir)).not.toContain("out");
    },
    20_000,
  );

  it("every kind of declaration name has the limit, at its place", () => {
    const cases: [string, (name: string) => Record<string, unknown>][] = [
      ["resources", (n) => ({ resources: { [`${n}s`]: { fields: { a: "string" } } } })],
      ["singular", (n) => ({ resources: { notes: { singular: n, fields: { a: "string" } } } })],
      ["fields", (n) => ({ resources: { notes: { fields: { [n]: "string" } } } })],
      ["nested fields", (n) => ({ resources: { notes: { fields: { a: { type: "object", fields: { [n]: "string" } } } } } })],
      ["states", (n) => ({ resources: { notes: { fields: { a: "string" }, status: { values: ["draft", n] } } } })],
      ["actions", (n) => ({ resources: { notes: { fields: { a: "string" }, status: { values: ["a"] }, actions: { [n]: { to: "a" } } } } })],
      ["links", (n) => ({ resources: { notes: { fields: { a: "string" }, links: { [n]: { method: "GET" } } } } })],
      ["query parameters", (n) => ({ resources: { notes: { fields: { a: "string" }, operations: { list: { query: { [n]: "string" } } } } } })],
      ["scopes", (n) => ({ auth: [{ guard: "password", tokenUrl: "/token", scopes: { [n]: "s" } }], resources: { notes: { fields: { a: "string" } } } })],
      ["guard names", (n) => ({ auth: [{ guard: "password", tokenUrl: "/token", name: n }], resources: { notes: { fields: { a: "string" } } } })],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...cases), fc.integer({ min: NAME_LIMIT + 1, max: 5_000 }), ([, make], length) => {
        const name = "z".repeat(length - 1) + "a";
        const codes = codesOf({ codegen: 1, info: { title: "T", version: "1" }, ...make(name.slice(0, length)) });
        expect(codes).toContain("decl/name-too-long");
        expect(codes.filter((c) => c !== "decl/name-too-long")).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});

/** The diagnostic codes of a declaration given as a value (written as JSON: YAML keys stop at 1024 characters), each located. */
function codesOf(value: unknown): string[] {
  const { diagnostics } = checkDeclaration("api.json", JSON.stringify(value));
  for (const d of diagnostics) expect(d.location?.line, d.message).toBe(1);
  return diagnostics.map((d) => d.code);
}

describe("names at the limit work end to end", () => {
  const collection = `${"n".repeat(NAME_LIMIT - 1)}s`;
  const field = `f${"i".repeat(NAME_LIMIT - 1)}`;
  const other = `f${"i".repeat(NAME_LIMIT - 2)}x`;
  const state = `s${"t".repeat(NAME_LIMIT - 1)}`;
  const action = `a${"c".repeat(NAME_LIMIT - 1)}`;
  const text = [
    "codegen: 1",
    'info: { title: Long, version: "1.0.0" }',
    "resources:",
    `  ${collection}:`,
    "    fields:",
    `      ${field}: { type: string, filter: true }`,
    `      ${other}: integer`,
    "    status:",
    `      values: [draft, ${state}]`,
    `      transitions: { draft: [${state}] }`,
    "    actions:",
    `      ${action}: { when: [draft], to: ${state} }`,
    "",
  ].join("\n");

  for (const store of ["memory", "pglite"] as const) {
    describe(`on the ${store} store`, () => {
      let server: RunningServer;
      beforeAll(async () => {
        await writeFile(path.join(dir, "api.yaml"), text);
        const result = await generateFiles({ ...nodeHost(), cwd: dir }, "api.yaml", text, { outDir: "generated" });
        expect(result.diagnostics).toEqual([]);
        const database = store === "pglite" ? await pgliteDatabase() : undefined;
        server = await serveFiles(result.value!, { port: 0, host: "127.0.0.1", users: [], ...(database ? { database } : {}) });
        if (database) {
          const close = server.close;
          server = { ...server, close: async () => (await close(), await database.close()) };
        }
      }, 60_000);
      afterAll(() => server?.close());

      it("creates, filters, reads back both long fields and runs the long action to the long state", async () => {
        const created = await call(server.url, "POST", `/${collection}`, { json: { [field]: "one", [other]: 2 } });
        expect(created.status, created.text).toBe(201);
        const id = obj(created).id as number;
        expect(obj(created)).toMatchObject({ [field]: "one", [other]: 2, status: "draft" });
        await call(server.url, "POST", `/${collection}`, { json: { [field]: "two", [other]: 3 } });
        const filtered = await call(server.url, "GET", `/${collection}?${field}=one`);
        expect(filtered.status, filtered.text).toBe(200);
        expect(list(filtered).map((o) => o[other])).toEqual([2]);
        const moved = await call(server.url, "POST", `/${collection}/${id}/${action}`, { json: {} });
        expect(moved.status, moved.text).toBe(200);
        expect(obj(moved).status).toBe(state);
        const read = await call(server.url, "GET", `/${collection}/${id}`);
        expect(obj(read)).toMatchObject({ [field]: "one", [other]: 2, status: state });
      });
    });
  }
});

describe("names of an OpenAPI document have a limit of 1024 characters", () => {
  /** A document with one operation whose name of `kind` is `name` (the others short). */
  const openapi = (kind: string, name: string) => {
    const n = (k: string, short: string) => (kind === k || kind === "all" ? name : short);
    const schema = n("schema", "Pet");
    return JSON.stringify({
      openapi: "3.1.0",
      info: { title: "T", version: "1" },
      paths: {
        "/pets": {
          get: {
            operationId: n("operationId", "listPets"),
            tags: [n("tag", "pets")],
            parameters: [{ name: n("parameter", "limit"), in: "query", schema: { type: "integer" } }],
            responses: {
              "200": {
                description: "ok",
                content: { "application/json": { schema: { type: "array", items: { $ref: `#/components/schemas/${schema}` } } } },
              },
            },
          },
        },
      },
      components: { schemas: { [schema]: { type: "object", properties: { [n("property", "name")]: { type: "string" } } } } },
    });
  };
  const KINDS = ["schema", "property", "operationId", "parameter", "tag"] as const;
  const WHAT = { schema: "schema name", property: "property name", operationId: "operationId", parameter: "parameter name", tag: "tag" } as const;

  it("a longer schema, property or parameter name, operationId or tag is refused at its place", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...KINDS), fc.integer({ min: OPENAPI_NAME_LIMIT + 1, max: 20_000 }), async (kind, length) => {
        const name = `P${"a".repeat(length - 1)}`;
        await writeFile(path.join(dir, "doc.json"), openapi(kind, name));
        const result = await cli(["generate", "doc.json", "-o", "doc-out"]);
        expect(result.code).toBe(1);
        const headings = result.stderr.split("\n").filter((line) => / error: /.test(line));
        expect(headings.length, result.stderr.slice(0, 500)).toBeGreaterThan(0);
        for (const line of headings) expect(line.slice(0, 40)).toMatch(/^doc\.json:1:\d+: error: /);
        expect(headings.join("\n")).toContain(`the ${WHAT[kind]} "Paaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…" is ${length} characters long`);
        expect(result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
      }),
      { numRuns: 12 },
    );
  }, 120_000);

  it("names of 1024 characters are generated, every file name within 255 bytes", async () => {
    await writeFile(path.join(dir, "doc.json"), openapi("all", `P${"a".repeat(OPENAPI_NAME_LIMIT - 1)}`));
    const result = await cli(["generate", "doc.json", "-o", "doc-out"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const names = await readdir(path.join(dir, "doc-out"), { recursive: true });
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) expect(Buffer.byteLength(path.basename(name))).toBeLessThanOrEqual(255);
  }, 60_000);
});
