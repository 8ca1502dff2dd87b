// A document written by others is not refused whole for a pattern the generated validator's
// linear-time matcher cannot take (a lookaround, a backreference): each such pattern is a warning
// at its place, the served document keeps it, and the server, spoken to over real HTTP on
// 127.0.0.1, leaves it unchecked (the handler must check it) rather than run it on V8's
// backtracking engine, where one short request could stall it; every other keyword of the same
// schema is checked as before (docs/openapi.md, "What is handed raw, and what is left out").
// With --strict it stays an error; with --allow-unsafe-patterns the validator runs it, as before.

import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { nodeHost } from "../../src/host.js";
import { generateFiles } from "../../src/pipeline.js";
import type { Diagnostic } from "../../src/diagnostics/index.js";
import { ROOT } from "../support/fixtures.js";
import { START_TIMEOUT, call, closeLocal, compileText, expectError, listenLocal, obj } from "./support.js";
import type { Json } from "./support.js";

const FILE = "fixtures/openapi/unsafe-patterns/openapi.yaml";
const TEXT = readFileSync(path.join(ROOT, FILE), "utf8");
const REPEATED = "^(\\w+)+:\\1$";
const NAMES = "^(\\w)\\1";
const BACKREFERENCE = "^(\\w)\\1$";

/** What this test reads of the emitted document. */
type DocumentShape = {
  paths: { "/codes": { post: { parameters: { schema: { pattern: string } }[] } } };
  components: { schemas: { Code: { properties: { code: { pattern: string }; labels: { patternProperties: Json } } } } };
};

/** The text at a diagnostic's place. */
const textAt = (d: Diagnostic) => TEXT.split("\n")[d.location!.line - 1]!.slice(d.location!.column - 1);
const generate = (options: { strict?: boolean; allowUnsafePatterns?: boolean } = {}) =>
  generateFiles({ ...nodeHost(), cwd: ROOT }, FILE, TEXT, { outDir: "out", format: false, ...options });
const contentsOf = (files: readonly { path: string; contents: string }[] | undefined, name: string) => files?.find((f) => f.path === name)?.contents ?? "";

describe("patterns the linear-time matcher cannot take, in a document written by others", () => {
  it("are each a warning at the pattern, and the rest generates; the emitted document keeps them", async () => {
    const result = await generate();
    expect(result.value, JSON.stringify(result.diagnostics)).toBeDefined();
    expect(result.diagnostics.every((d) => d.code === "openapi/rendered-otherwise" && d.severity === "warning" && d.location?.file === FILE)).toBe(true);
    expect(result.diagnostics.map((d) => [d.location!.line, textAt(d)])).toEqual([
      [18, "'^(\\w)\\1$' }"],
      [36, "'^(\\w+)+:\\1$' }"],
      // (A name's place is its value's, on the name's line.)
      [44, "{ type: string }"],
      [48, "'^(\\w)\\1' } }"],
      [50, "'^(\\w)\\1' }"],
      [54, "'^(a)\\1$' }"],
      [58, "'^(\\w)\\1' }"],
    ]);
    const [pair, repeated, labels] = result.diagnostics.slice(0, 3).map((d) => d.message);
    expect(pair).toContain("a backreference");
    expect(repeated).toContain("does not check this pattern (the handler must)");
    expect(labels).toContain("checks neither the properties whose names it matches nor which properties are additional");
    const openapi = parse(contentsOf(result.value, "openapi.yaml")) as DocumentShape;
    expect(openapi.paths["/codes"].post.parameters[0]!.schema.pattern).toBe(BACKREFERENCE);
    const code = openapi.components.schemas.Code.properties;
    expect([code.code.pattern, Object.keys(code.labels.patternProperties)]).toEqual([REPEATED, [NAMES]]);
    // The validator's nodes (all but the served document) hold none of them, only the pattern the matcher takes.
    const nodes = (result.value ?? [])
      .filter((f) => f.path !== "openapi.yaml" && f.path !== "document.gen.ts")
      .map((f) => f.contents)
      .join("\n");
    expect(nodes).toContain('"^[A-Z]{3}$"');
    for (const pattern of [REPEATED, BACKREFERENCE, NAMES]) expect(nodes).not.toContain(JSON.stringify(pattern));
  });

  it("are errors with --strict (nothing generated), and checked on V8's engine with --allow-unsafe-patterns", async () => {
    const strict = await generate({ strict: true });
    expect(strict.value).toBeUndefined();
    expect(strict.diagnostics.map((d) => [d.code, d.severity, d.location?.line])).toEqual([
      ["schema/unsafe-pattern", "error", 18],
      ["schema/unsafe-pattern", "error", 36],
      ["schema/unsafe-pattern", "error", 44],
      ["schema/unsafe-pattern", "error", 48],
      ["schema/unsafe-pattern", "error", 50],
      ["schema/unsafe-pattern", "error", 54],
      ["schema/unsafe-pattern", "error", 58],
    ]);
    const allowed = await generate({ allowUnsafePatterns: true });
    expect(allowed.diagnostics).toEqual([]);
    const code = allowed.value!.map((f) => f.contents).join("\n");
    for (const pattern of [REPEATED, BACKREFERENCE, NAMES]) expect(code).toContain(JSON.stringify(pattern));
  });
});

describe("a server from a document with patterns the linear-time matcher cannot take", () => {
  let server: Server;
  let at = "";
  let dispose = async () => {};
  let calls = 0;

  beforeAll(async () => {
    const compiled = await compileText(TEXT);
    dispose = compiled.dispose;
    server = compiled.api.createServer({
      handlers: {
        codes: {
          createCode: (input: Json) => {
            calls++;
            return { status: 201, body: { query: input.query, body: input.body } };
          },
        },
      },
      verifyToken: () => undefined,
    });
    at = await listenLocal(server);
  }, START_TIMEOUT);
  afterAll(async () => {
    await closeLocal(server);
    await dispose();
  });

  it("hands a value the pattern refuses to the handler: the pattern is not checked", async () => {
    const reply = await call(at, "POST", "/codes?pair=ab", { json: { code: "ab:cd", labels: { aa: 1 } } });
    expect(reply.status, reply.text).toBe(201);
    expect(obj(reply)).toEqual({ query: { pair: "ab" }, body: { code: "ab:cd", labels: { aa: 1 } } });
  });

  it("answers a value that would stall V8's backtracking engine at once", async () => {
    // `(\w+)+:` on 30 word characters and a `!` is some 2^30 steps for V8's engine: far past the
    // requests' two-second limit (test/http/support.ts) had the server run it.
    const hostile = `${"a".repeat(30)}!`;
    const before = calls;
    for (let i = 0; i < 3; i++) expect((await call(at, "POST", "/codes", { json: { code: hostile } })).status).toBe(201);
    expect(calls - before).toBe(3);
  });

  it("refuses no more than the document under `not`, `if` and `oneOf`: those are widened, never narrowed", async () => {
    // The document accepts each of these; had the pattern been dropped alone, `not: {}` would
    // refuse every tag (and every twin, through its reference), `if: { type: string }` hold every
    // size to 2 characters, and both branches of the `oneOf` match "abc".
    const reply = await call(at, "POST", "/codes", { json: { code: "a1", tag: "ab", size: "abcd", kind: "abc", twin: "ab" } });
    expect(reply.status, reply.text).toBe(201);
    // Their other keywords, and the branches' types, are checked.
    expectError(await call(at, "POST", "/codes", { json: { code: "a1", tag: "abcdefghi" } }), 400, ["tag"]);
    expectError(await call(at, "POST", "/codes", { json: { code: "a1", kind: 5 } }), 400, ["kind"]);
  });

  it("checks every other keyword of the same schemas", async () => {
    const before = calls;
    expectError(await call(at, "POST", "/codes?pair=abc", { json: { code: "a1" } }), 400, ["pair"]);
    expectError(await call(at, "POST", "/codes", { json: { code: "a".repeat(41) } }), 400, ["code"]);
    expectError(await call(at, "POST", "/codes", { json: { code: "a1", region: "abc" } }), 400, ["region"]);
    expectError(await call(at, "POST", "/codes", { json: { code: "a1", extra: 1 } }), 400, ["extra"]);
    expectError(await call(at, "POST", "/codes", { json: { code: "a1", labels: { a: "1", b: "2", c: "3", d: "4" } } }), 400, ["labels"]);
    expectError(await call(at, "POST", "/codes", { json: {} }), 400, ["code"]);
    expect(calls).toBe(before);
    const region = await call(at, "POST", "/codes", { json: { code: "a1", region: "ABC" } });
    expect(region.status, region.text).toBe(201);
  });
});
