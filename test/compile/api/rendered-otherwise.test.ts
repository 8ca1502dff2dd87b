// A document written by others is never refused whole for one construct codegen cannot render as
// written: each such construct is a warning at its place (file, line, column) saying what the
// server does instead, and the rest generates (docs/openapi.md, "What is handed raw, and what is
// left out"). With --strict, and in codegen's own declarations, they stay errors. The warnings are
// printed again by a run that finds the folder current and skips modelling. The server's
// behaviour is checked over HTTP by test/http/rendered-otherwise.test.ts.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildApiModel } from "../../../src/compile/api/build.js";
import { nodeHost } from "../../../src/host.js";
import { generateFiles } from "../../../src/pipeline.js";
import type { Diagnostic } from "../../../src/diagnostics/index.js";
import { ROOT, runCli } from "../../support/fixtures.js";

const FILE = "fixtures/openapi/rendered-otherwise/openapi.yaml";
const TEXT = readFileSync(path.join(ROOT, FILE), "utf8");
const CODE = "openapi/rendered-otherwise";

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-rendered-otherwise-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The text at a diagnostic's place. */
const textAt = (d: Diagnostic) => TEXT.split("\n")[d.location!.line - 1]!.slice(d.location!.column - 1);

const generated = generateFiles({ ...nodeHost(), cwd: ROOT }, FILE, TEXT, { outDir: "out", format: false });

describe("constructs of a document written by others that codegen cannot render as written", () => {
  it("are each one warning at the construct, saying what the server does instead; the rest generates", async () => {
    const result = await generated;
    expect(result.value, JSON.stringify(result.diagnostics)).toBeDefined();
    expect(result.diagnostics.every((d) => d.code === CODE && d.severity === "warning" && d.location?.file === FILE)).toBe(true);
    const found = result.diagnostics.map((d) => [textAt(d), /Instead, the server (\w+ \w+)/.exec(d.message)?.[1]]);
    expect(found).toEqual([
      ["name: filter", "hands the"],
      ["{ text/plain: { schema: { type: string } } }", "hands the"],
      ["name: X-Trace", "hands the"],
      ["name: prefs", "hands the"],
      ["{ const: a } }", "checks the"],
      ["name: key", "hands the"],
      ["{ note: { required: [amount] } }", "checks the"],
      // Each place is the construct's value (a path's, its path item on the line after its key).
      ["get:", "leaves this"],
      ["{ odd: [] }]", "leaves out"],
      ["{ description: no status code }", "ignores this"],
    ]);
    const guarded = result.diagnostics.find((d) => d.message.includes("leaves out"))!;
    expect(guarded.message).toContain("GET /guarded");
    expect(guarded.message).toContain("never let in unchecked");
  });

  it("types a raw parameter as RawParameter, documented as unchecked, and checks the others by their schema", async () => {
    const items = (await generated).value!.find((f) => f.path === "operations/items.gen.ts")!.contents;
    expect(items).toContain('import type { OperationHandler, RawParameter } from "../runtime/requests.gen.js";');
    for (const member of ["filter?: RawParameter;", "q: RawParameter;", '"X-Trace"?: RawParameter;', "prefs?: RawParameter;", "key: RawParameter;"])
      expect(items).toContain(member);
    expect(items).toContain("limit?: number;");
    // (The doc comment's words, its lines joined: a comment is wrapped within 100 columns.)
    expect(items.replace(/\n\s*\* /g, " ")).toMatch(
      /Unchecked: handed as sent, as codegen cannot read it as declared \(the query parameter "q" must have exactly one media type/,
    );
  });

  it("names a selector path's untagged group after the path and its selector, without its `#`", async () => {
    const files = (await generated).value!.map((f) => f.path);
    expect(files.filter((f) => f.startsWith("operations/"))).toEqual([
      "operations/items.gen.ts",
      "operations/analyze.gen.ts",
      "operations/analyze-overload-stream.gen.ts",
    ]);
    const model = buildApiModel(parse(TEXT) as never, { inputPath: "x", fromOthers: true });
    expect(model.operationGroups.map((g) => [g.property, g.fileName, g.operations.map((o) => o.operationId)])).toEqual([
      ["items", "items", ["listItems", "getItem", "createOrder"]],
      ["analyze", "analyze", ["analyze"]],
      ["analyzeOverloadStream", "analyze-overload-stream", ["analyzeStream"]],
    ]);
  });

  it("a document-wide requirement codegen cannot check is one warning, at it, naming the operations left out", async () => {
    const paths = ["a", "b", "c", "d", "e"]
      .map((p) => `  /${p}:\n    get:\n      operationId: get${p}\n      responses: { "204": { description: none } }`)
      .join("\n");
    const text = `openapi: 3.1.0\ninfo: { title: t, version: "1" }\nsecurity:\n  - nowhere: []\npaths:\n${paths}\n  /open:\n    get:\n      operationId: open\n      security: []\n      responses: { "204": { description: none } }\n`;
    const result = await generateFiles({ ...nodeHost(), cwd: ROOT }, "wide.yaml", text, { outDir: "out", format: false });
    expect(result.value).toBeDefined();
    expect(result.diagnostics.map((d) => [d.code, d.location?.line, d.location?.column])).toEqual([[CODE, 4, 5]]);
    expect(result.diagnostics[0]!.message).toContain('the security scheme "nowhere" is not defined');
    expect(result.diagnostics[0]!.message).toContain("leaves out the operations that need it (GET /a, GET /b, GET /c and 2 more)");
    // The operation that needs no requirement is served.
    const api = result.value!.find((f) => f.path === "api.gen.ts")!.contents;
    expect(api).toContain('operationId: "open"');
    expect(api).not.toContain('operationId: "geta"');
  });

  it("are errors with --strict, and in a document from a declaration (nothing generated)", async () => {
    const strict = await runCli(["generate", FILE, "-o", path.join(scratch, "strict"), "--strict"]);
    expect(strict.code).toBe(1);
    const errors = strict.stderr.split("\n").filter((line) => line.includes(" error: "));
    // (And the keyword of `filter`'s schema, which is not warned of where `filter` is handed raw.)
    expect(errors).toHaveLength(11);
    for (const line of errors) expect(line).toMatch(/\[openapi\/unsupported\]$/);
    // What a declaration's expansion is modelled as (fromOthers unset): refused, every construct at once.
    expect(() => buildApiModel(parse(TEXT) as never, { inputPath: "x" })).toThrow(/no request can tell apart/);
  });

  it("are printed again, the same, by a run that finds the folder current", async () => {
    const out = path.join(scratch, "again");
    const warningsOf = (stderr: string) => stderr.split("\n").filter((line) => line.includes(" warning: "));
    const first = await runCli(["generate", FILE, "-o", out]);
    expect(first.code, first.stderr).toBe(0);
    expect(warningsOf(first.stderr)).toHaveLength(10);
    const second = await runCli(["generate", FILE, "-o", out]);
    expect(second.stdout).toMatch(/^wrote 0, unchanged \d+, removed 0/);
    expect(second.stderr).toBe(first.stderr);
  });

  it("likewise the warning for an error schema the server cannot build its refusals in", async () => {
    const warningsOf = (stderr: string) => stderr.split("\n").filter((line) => line.includes(" warning: "));
    const shapes = "fixtures/openapi/error-shapes/openapi.yaml";
    const before = await runCli(["generate", shapes, "-o", path.join(scratch, "shapes")]);
    expect(warningsOf(before.stderr)).toHaveLength(1);
    const after = await runCli(["generate", shapes, "-o", path.join(scratch, "shapes")]);
    expect(after.stdout).toMatch(/^wrote 0, /);
    expect(after.stderr).toBe(before.stderr);
  });
});
