// Validation that blocks the event loop, and hostile requests answered 500: the
// generated server of fixtures/openapi/validation, over real HTTP on 127.0.0.1. A pattern V8
// backtracks on, a recursive oneOf nested deep, bodies nested deeper than the stack allows and
// uniqueItems over such items are each answered at once with their verdict (every request is
// bounded: test/http/support's call() gives up after 2 s, where the old code took seconds to
// forever or answered 500); a pattern only V8's engine can run is refused at generation, at its
// place, unless the user opts in.

import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeHost } from "../../src/host.js";
import { generate } from "../../src/index.js";
import { generateFiles } from "../../src/pipeline.js";
import { compileToJavaScript } from "../../src/serve/compile.js";
import { START_TIMEOUT, call, expectError } from "../http/support.js";
import { ROOT, runCli } from "../support/fixtures.js";

const DOCUMENT = "fixtures/openapi/validation/openapi.yaml";
const UNSAFE_DECLARATION = "fixtures/invalid/unsafe-pattern/declaration.yaml";
const text = readFileSync(path.join(ROOT, DOCUMENT), "utf8");

/** A sum of sums `depth` deep around a number (or around `leaf`, to make it invalid). */
const expression = (depth: number, leaf: unknown = 1): unknown =>
  depth === 0 ? leaf : { op: depth % 2 === 0 ? "add" : "mul", args: [expression(depth - 1, leaf)] };
const nested = (depth: number, open: string, close: string, inner = "1"): string => open.repeat(depth) + inner + close.repeat(depth);

describe("patterns at generation", () => {
  it("refuses a pattern only V8's backtracking engine can run, at its place, with --strict; else warns and leaves it unchecked", async () => {
    const result = await runCli(["validate", "--strict", DOCUMENT]);
    expect(result.code).toBe(1);
    const line = text.split("\n").findIndex((l) => l.includes("\\\\1+$")) + 1;
    const column = text.split("\n")[line - 1]!.indexOf('"^(?!') + 1;
    expect(result.stderr).toContain(`${DOCUMENT}:${line}:${column}: error: the pattern \`^(?!(\\d)\\1+$)\\d{6}$\` has a backreference (\\1),`);
    expect(result.stderr).toContain("--allow-unsafe-patterns");
    expect(result.stderr).toContain("[schema/unsafe-pattern]");
    // Only that one: `^(a+)+$` and the lookarounds of /codes are safe on the linear matcher.
    expect(result.stderr.match(/error:/g)).toHaveLength(1);
    // A document written by others is not refused whole for it (test/http/unsafe-patterns.test.ts).
    const lenient = await runCli(["validate", DOCUMENT]);
    expect(lenient.code, lenient.stderr).toBe(0);
    expect(lenient.stderr).toContain(
      `${DOCUMENT}:${line}:${column}: warning: this cannot be rendered as written (the pattern "^(?!(\\\\d)\\\\1+$)\\\\d{6}$" has a backreference`,
    );
  });

  it("takes it with --allow-unsafe-patterns, or allowUnsafePatterns in the programmatic API", async () => {
    expect((await runCli(["validate", "--allow-unsafe-patterns", DOCUMENT])).code).toBe(0);
    expect((await runCli(["validate", "--allow-unsafe-patterns", UNSAFE_DECLARATION])).code).toBe(0);
    const refused = await generate({ input: UNSAFE_DECLARATION, cwd: ROOT, format: false });
    expect(refused.diagnostics.map((d) => d.code)).toEqual(Array(4).fill("schema/unsafe-pattern"));
    const allowed = await generate({ input: UNSAFE_DECLARATION, cwd: ROOT, format: false, allowUnsafePatterns: true });
    expect(allowed.diagnostics).toEqual([]);
    expect(allowed.files.map((f) => f.path)).toContain("runtime/pattern.gen.ts");
  });

  it("checks a declaration's default against its pattern in linear time", async () => {
    const yaml = `codegen: 1\ninfo: { title: T, version: "1" }\nresources:\n  words:\n    fields:\n      word: { type: string, pattern: "^(a+)+$", default: "${"a".repeat(40)}!" }\n`;
    const result = await generate({ input: "api.yaml", text: yaml, cwd: ROOT, format: false });
    expect(result.diagnostics.map((d) => d.code)).toEqual(["decl/default-invalid"]);
  });
});

/**
 * The generated server runs in a child process, so that a request that blocks its event loop
 * cannot block the test's: every request gives up after 2 s (call()), and the test fails there.
 * It prints its two ports (the default body depth limit, and one raised to 2,000), and every error
 * a handler or the server throws to stderr.
 */
const SERVER = `
const api = await import(process.argv[1]);
const ok = () => ({ status: 200, body: { valid: true } });
const handlers = { expressions: { evaluate: ok }, words: { checkWord: ok }, sets: { checkSet: ok }, passwords: { checkPassword: ok }, codes: { checkCode: ok } };
const start = (limits) => new Promise((resolve) => {
  const server = api.createServer({ handlers, verifyToken: () => undefined, onError: (error) => process.stderr.write(String(error?.stack ?? error) + "\\n"), ...limits });
  server.listen(0, "127.0.0.1", () => resolve(server.address().port));
});
process.stdout.write(JSON.stringify(await Promise.all([start({}), start({ bodyDepthLimit: 2000 })])) + "\\n");
`;

describe("bodies that made validation block the server or overflow its stack", () => {
  let dir = "";
  let child: ChildProcess | undefined;
  let stderr = "";
  let base = "";
  let deepBase = "";

  beforeAll(async () => {
    const result = await generateFiles({ ...nodeHost(), cwd: ROOT }, DOCUMENT, text, { outDir: "generated", allowUnsafePatterns: true });
    if (!result.value) throw new Error(result.diagnostics.map((d) => d.message).join("\n"));
    dir = await mkdtemp(path.join(tmpdir(), "codegen-limits-"));
    for (const file of await compileToJavaScript(result.value)) {
      await mkdir(path.dirname(path.join(dir, file.path)), { recursive: true });
      await writeFile(path.join(dir, file.path), file.contents);
    }
    const started = spawn(process.execPath, ["--input-type=module", "-e", SERVER, pathToFileURL(path.join(dir, "index.gen.js")).href], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = started;
    started.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
    const [port, deepPort] = await new Promise<number[]>((resolve, reject) => {
      let out = "";
      started.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("\n")) resolve(JSON.parse(out) as number[]);
      });
      started.on("exit", () => reject(new Error(`the server exited: ${stderr}`)));
    });
    base = `http://127.0.0.1:${String(port)}`;
    deepBase = `http://127.0.0.1:${String(deepPort)}`;
  }, START_TIMEOUT);

  afterAll(async () => {
    child?.kill();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("matches a pattern V8 backtracks on in linear time (`^(a+)+$` on 30 a and a !)", async () => {
    expectError(await call(base, "POST", "/words", { json: { word: `${"a".repeat(30)}!` } }), 400, ["word"]);
    expectError(await call(base, "POST", "/words", { json: { word: `${"a".repeat(500_000)}!` } }), 400, ["word"]);
    expect((await call(base, "POST", "/words", { json: { word: "a".repeat(30) } })).status).toBe(200);
  });

  it("matches lookarounds and a counted repetition in linear time (`^(?!(a|a)*$)(?=.*\\d).{8,4096}$`)", async () => {
    // V8 takes exponential time in the negative lookahead on the first; each is answered at once.
    expectError(await call(base, "POST", "/codes", { json: { code: `${"a".repeat(30)}!` } }), 400, ["code"]);
    expectError(await call(base, "POST", "/codes", { json: { code: `${"a".repeat(500_000)}!` } }), 400, ["code"]);
    expectError(await call(base, "POST", "/codes", { json: { code: `${"a".repeat(4096)}1` } }), 400, ["code"]);
    expectError(await call(base, "POST", "/codes", { json: { code: "aaaaaaaa" } }), 400, ["code"]);
    expect((await call(base, "POST", "/codes", { json: { code: `${"a".repeat(4095)}!1` } })).status).toBe(400);
    expect((await call(base, "POST", "/codes", { json: { code: `${"a".repeat(4094)}!1` } })).status).toBe(200);
    expect((await call(base, "POST", "/codes", { json: { code: "abcd1234" } })).status).toBe(200);
  });

  it("runs an opted-in pattern the linear matcher cannot take on V8's engine", async () => {
    expect((await call(base, "GET", "/passwords/123456")).status).toBe(200);
    expectError(await call(base, "GET", "/passwords/111111"), 400, ["password"]);
    expectError(await call(base, "GET", "/passwords/abcdef"), 400, ["password"]);
  });

  it.each([20, 40])("judges a recursive oneOf %i deep at once", async (depth) => {
    expect((await call(base, "POST", "/expressions", { json: expression(depth) })).status).toBe(200);
    expectError(await call(base, "POST", "/expressions", { json: expression(depth, "x") }), 400, ["body"]);
  });

  it("judges a recursive oneOf 200 deep at once where the depth limit allows it", async () => {
    expect((await call(deepBase, "POST", "/expressions", { json: expression(200) })).status).toBe(200);
    expectError(await call(deepBase, "POST", "/expressions", { json: expression(200, "x") }), 400, ["body"]);
  });

  it("answers 400, not 500, when a limit raised far above the default admits a body deeper than the stack", async () => {
    const detail = expectError(await call(deepBase, "POST", "/expressions", { json: expression(999) }), 400, ["body"]);
    expect(detail.body).toBe("is nested too deeply to be checked");
  });

  it.each([
    ["a recursive oneOf 200 deep (400 levels of JSON)", "/expressions", JSON.stringify(expression(200))],
    ["a recursive oneOf 1000 deep", "/expressions", JSON.stringify(expression(1_000))],
    ["arrays 1000 deep", "/expressions", nested(1_000, '{"op":"add","args":[', "]}")],
    ["arrays 100,000 deep", "/expressions", nested(100_000, "[", "]")],
    ["objects 100,000 deep", "/expressions", nested(100_000, '{"a":', "}")],
    ["uniqueItems over an item 10,000 deep", "/sets", `[${nested(10_000, "[", "]")},${nested(10_000, "[", "]")}]`],
    ["uniqueItems over an item 129 deep", "/sets", `[${nested(128, "[", "]")}]`],
  ])("refuses %s: 400 naming body, before validation", async (_name, target, body) => {
    const detail = expectError(await call(base, "POST", target, { body, headers: { "Content-Type": "application/json" } }), 400, ["body"]);
    expect(detail.body).toBe("must not nest arrays and objects more than 128 levels deep");
  });

  it("takes a body exactly as deep as the limit, and counts no bracket inside a string", async () => {
    const json = { "Content-Type": "application/json" };
    expect((await call(base, "POST", "/sets", { body: `[${nested(127, "[", "]")}]`, headers: json })).status).toBe(200);
    expect((await call(base, "POST", "/sets", { body: `["${"[".repeat(1_000)}\\"[{", "\\\\"]`, headers: json })).status).toBe(200);
    expectError(await call(base, "POST", "/sets", { body: `[${nested(1, "[", "]")},${nested(1, "[", "]")}]`, headers: json }), 400, ["body"]);
  });

  it("compares uniqueItems over deep items without overflowing the stack where the limit allows them", async () => {
    const item = nested(1_500, "[", "]");
    expectError(await call(deepBase, "POST", "/sets", { body: `[${item},${item}]`, headers: { "Content-Type": "application/json" } }), 400, ["body"]);
    expect(
      (await call(deepBase, "POST", "/sets", { body: `[${item},${nested(1_499, "[", "]")}]`, headers: { "Content-Type": "application/json" } })).status,
    ).toBe(200);
  });

  it("still answers afterwards, and nothing was thrown", async () => {
    expect((await call(base, "POST", "/expressions", { json: expression(3) })).status).toBe(200);
    expect(stderr).toBe("");
  });
});
