// Deep chains of references (docs/hostile-input.md, "depth of references"). A document of 5,000
// named schemas, each referring to the next, crashed `generate` with "Maximum call stack size
// exceeded" (a recursive walk over the references); chains of schemas that each apply to the same
// value (`oneOf: [next, string]`) crashed TypeScript on the generated types; chains of references
// to parts of the document, to parameters or to files crashed the bundler or the inlining with the
// same message. Now a chain of named schemas is generated whatever its length (the walks keep a
// stack of their own), and the rest is bounded, with a diagnostic at its place. The generated
// server answers bodies nested far deeper than its limit with 400, never a stack trace.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMPOSITION_LIMIT } from "../../src/compile/api/chains.js";
import { INLINE_DEPTH_LIMIT, REF_CHAIN_PLACE } from "../../src/compile/openapi/depth.js";
import { MAX_FILE_CHAIN } from "../../src/compile/openapi/ref-files.js";
import { compileToJavaScript } from "../../src/serve/compile.js";
import { START_TIMEOUT, call, expectError } from "../http/support.js";
import { runCli } from "../support/fixtures.js";
import { generatedOptions, tsFilesUnder, typeCheck } from "../support/type-check.js";

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-deep-refs-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const CHAIN = 5_000;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * Each schema refers to the next through another keyword: a property (and an anyOf beside null),
 * array items, a property and additional properties, a tuple's first item, an allOf. The last has
 * a property left out of requests (readOnly), one left out of responses (writeOnly) and a default:
 * every schema of the chain has a variant for each use, and the server looks for defaults down
 * the whole chain when it takes a body.
 */
function chainLink(i: number): object {
  if (i === CHAIN - 1) {
    return {
      type: "object",
      properties: { id: { type: "string", readOnly: true }, secret: { type: "string", writeOnly: true }, note: { type: "string", default: "none" } },
    };
  }
  const next = ref(`S${i + 1}`);
  return [
    { type: "object", properties: { n: next, o: { anyOf: [next, { type: "null" }] } } },
    { type: "array", items: next },
    { type: "object", properties: { m: next }, additionalProperties: next },
    { type: "array", prefixItems: [next] },
    { allOf: [next] },
  ][i % 5]!;
}

/** 200 schemas, each one of the next or an integer: a chain TypeScript resolves at once. */
/** The length of the chain of references to parts of the document (`#/x-defs/D<i>`). */
const INLINED = 40;

const CHOICES = 200;

const operation = (id: string, schema: object) => ({
  post: {
    operationId: id,
    tags: ["deep"],
    requestBody: { required: true, content: { "application/json": { schema } } },
    responses: { "200": { description: "ok", content: { "application/json": { schema } } } },
  },
});

const chainDocument = {
  openapi: "3.1.0",
  info: { title: "Deep", version: "1" },
  paths: {
    "/things": operation("createThing", ref("S0")),
    "/loops": operation("createLoop", ref("Loop")),
    "/choices": operation("createChoice", ref("A0")),
    "/cycles": operation("createCycle", ref("C2")),
    "/pets": operation("createPet", ref("Pet")),
    "/inlined": operation("createInlined", { $ref: "#/x-defs/D0" }),
  },
  // Parts of the document each referring to the next: inlined where used, 40 objects deep (as deep
  // as INLINE_DEPTH_LIMIT lets them be), a body TypeScript took no more inline in a route.
  "x-defs": Object.fromEntries(
    Array.from({ length: INLINED }, (_, i) => [
      `D${i}`,
      i === INLINED - 1 ? { type: "string" } : { type: "object", properties: { n: { $ref: `#/x-defs/D${i + 1}` } } },
    ]),
  ),
  components: {
    schemas: {
      ...Object.fromEntries(Array.from({ length: CHAIN }, (_, i) => [`S${i}`, chainLink(i)])),
      Loop: { type: "object", properties: { n: ref("Loop") } },
      ...Object.fromEntries(
        Array.from({ length: CHOICES }, (_, i) => [`A${i}`, i === CHOICES - 1 ? { type: "string" } : { oneOf: [ref(`A${i + 1}`), { type: "integer" }] }]),
      ),
      // A cycle that never goes into the value: `type C1 = C2; type C2 = C1 | string` does not compile.
      C1: { allOf: [ref("C2")] },
      C2: { anyOf: [ref("C1"), { type: "string" }] },
      // Polymorphism written both ways: a Cat is all of Pet, and a Pet is one of its kinds. What a
      // kind inherits is Pet's own part, not the choice among the kinds again: no cycle.
      Pet: {
        type: "object",
        properties: { kind: { type: "string" } },
        required: ["kind"],
        discriminator: { propertyName: "kind" },
        oneOf: [ref("Cat"), ref("Dog")],
      },
      Cat: { allOf: [ref("Pet"), { type: "object", properties: { meows: { type: "boolean" } }, required: ["meows"] }] },
      Dog: { allOf: [ref("Pet"), { type: "object", properties: { barks: { type: "boolean" } }, required: ["barks"] }] },
    },
  },
};

/** The line and column of a schema's value (`"Name": {`) in the text, as diagnostics give them. */
function placeOf(text: string, name: string): string {
  const lines = text.split("\n");
  const line = lines.findIndex((l) => l.trimStart() === `"${name}": {`);
  return `${line + 1}:${lines[line]!.indexOf("{") + 1}`;
}

/** The schemas where the chain of A's is cut: counted from its end, every COMPOSITION_LIMIT + 1 schemas. */
function cutChoices(): string[] {
  const cut: string[] = [];
  for (let i = CHOICES - 1 - COMPOSITION_LIMIT; i >= 0; i -= COMPOSITION_LIMIT + 1) cut.unshift(`A${i}`);
  return cut;
}

const SERVER = `
const api = await import(process.argv[1]);
const echo = ({ body }) => ({ status: 200, body });
const handlers = { deep: { createThing: echo, createLoop: echo, createChoice: echo, createCycle: echo, createInlined: echo, createPet: echo } };
const server = api.createServer({ handlers, verifyToken: () => undefined, onError: (error) => process.stderr.write(String(error?.stack ?? error) + "\\n") });
server.listen(0, "127.0.0.1", () => process.stdout.write(server.address().port + "\\n"));
`;

/** A declaration whose field nests `depth` objects deep. */
function nestedDeclaration(depth: number): string {
  let field: unknown = "string";
  for (let i = 0; i < depth; i++) field = { type: "object", fields: { [`f${i}`]: field } };
  return JSON.stringify({ codegen: 1, info: { title: "Deep", version: "1" }, resources: { notes: { fields: { deep: field } } } }, null, 1);
}

describe(`a chain of ${CHAIN} named schemas, each referring to the next`, () => {
  const file = path.join(scratch, "chain", "openapi.json");
  const out = path.join(scratch, "chain", "out");
  const text = JSON.stringify(chainDocument, null, 1);
  let generated = { code: -1, stdout: "", stderr: "" };
  let child: ChildProcess | undefined;
  let stderr = "";
  let base = "";

  beforeAll(async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    generated = await runCli(["generate", file, "-o", out]);
    if (generated.code !== 0) return;
    const files = tsFilesUnder(out).map((target) => ({ path: path.relative(out, target), contents: readFileSync(target, "utf8") }));
    const js = path.join(scratch, "chain", "js");
    for (const compiled of await compileToJavaScript(files)) {
      await mkdir(path.dirname(path.join(js, compiled.path)), { recursive: true });
      await writeFile(path.join(js, compiled.path), compiled.contents);
    }
    const started = spawn(process.execPath, ["--input-type=module", "-e", SERVER, pathToFileURL(path.join(js, "index.gen.js")).href], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = started;
    started.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
    const port = await new Promise<string>((resolve, reject) => {
      let printed = "";
      started.stdout.on("data", (chunk: Buffer) => {
        printed += chunk.toString();
        if (printed.includes("\n")) resolve(printed.trim());
      });
      started.on("exit", () => reject(new Error(`the server exited: ${stderr}`)));
    });
    base = `http://127.0.0.1:${port}`;
  }, START_TIMEOUT);

  afterAll(() => void child?.kill());

  it(`generates, with a warning only where a chain of schemas of one value passes ${COMPOSITION_LIMIT}`, () => {
    expect(generated.stderr).not.toMatch(/RangeError|call stack|\n\s+at /);
    expect(generated.code, generated.stderr).toBe(0);
    const warnings = generated.stderr.split("\n").filter((line) => line.includes("warning:"));
    expect(warnings.map((line) => line.split(": warning:")[0])).toEqual([...cutChoices(), "C1"].map((name) => `${file}:${placeOf(text, name)}`));
    for (const warning of warnings.slice(0, -1)) {
      expect(warning).toContain(`it begins a chain of more than ${COMPOSITION_LIMIT} named schemas that each apply to the same value as the next`);
    }
    expect(warnings.at(-1)).toContain("it applies to the same value as itself, through a cycle of $ref, allOf, anyOf, oneOf, not or if/then/else");
    for (const warning of warnings) expect(warning).toContain("its type is `unknown` and the validator does not check it");
    const types = readFileSync(path.join(out, "types.gen.ts"), "utf8");
    // A variant for each use along the whole chain: the last schema's readOnly and writeOnly reach the first.
    expect(types).toContain("export type S0Request = { n?: S1Request; o?: S1Request | null };");
    expect(types).toContain("export type S0Response = { n?: S1Response; o?: S1Response | null };");
    expect(types).toContain(`export type ${cutChoices()[0]} = unknown;`);
    expect(types).toContain("export type C1 = unknown;");
    expect(types).toContain("export type Pet = { kind: string } & (Cat | Dog);");
    expect(types).toContain("export type Cat = { kind: string } & { meows: boolean };");
  });

  it("type-checks, with the deepest declaration codegen takes beside it", async () => {
    expect(generated.code).toBe(0);
    const declaration = path.join(scratch, "declaration", "api.json");
    mkdirSync(path.dirname(declaration), { recursive: true });
    writeFileSync(declaration, nestedDeclaration(30));
    const fromDeclaration = path.join(scratch, "declaration", "out");
    const result = await runCli(["generate", declaration, "-o", fromDeclaration]);
    expect(result.stderr).toBe("");
    writeFileSync(path.join(scratch, "package.json"), JSON.stringify({ type: "module" }));
    expect(typeCheck([...tsFilesUnder(out), ...tsFilesUnder(fromDeclaration)], generatedOptions({ skipLibCheck: true }))).toEqual([]);
  }, 120_000);

  it("validates bodies along the chain, a default declared at its end", async () => {
    const valid = { n: [{ m: [{ n: [{ m: [{ o: null }] }], o: null }] }] };
    expect((await call(base, "POST", "/things", { json: valid })).body).toEqual(valid);
    expectError(await call(base, "POST", "/things", { json: { n: [{ m: ["text"] }] } }), 400, ["n[0].m[0]"]);
    // Each oneOf of the A's can match the schema left unchecked at the cut: checked as an anyOf, it
    // takes what one branch takes (a oneOf would refuse a number both branches then match).
    expect((await call(base, "POST", "/choices", { json: 7 })).body).toBe(7);
    expect((await call(base, "POST", "/cycles", { json: "text" })).body).toBe("text");
    expect((await call(base, "POST", "/pets", { json: { kind: "cat", meows: true } })).body).toEqual({ kind: "cat", meows: true });
    expectError(await call(base, "POST", "/pets", { json: { meows: true } }), 400, ["body", "kind"]);
    expectError(await call(base, "POST", "/pets", { json: { kind: "dog", barks: "loud" } }), 400, ["body"]);
    const inlined = { n: { n: { n: {} } } };
    expect((await call(base, "POST", "/inlined", { json: inlined })).body).toEqual(inlined);
    expectError(await call(base, "POST", "/inlined", { json: { n: { n: 5 } } }), 400, ["n.n"]);
  });

  it("answers a body nested 100,000 deep against a schema that refers to itself with 400, at once", async () => {
    const deepObject = '{"n":'.repeat(100_000) + "{}" + "}".repeat(100_000);
    expectError(await call(base, "POST", "/loops", { body: deepObject, headers: { "Content-Type": "application/json" } }), 400, ["body"]);
    expectError(await call(base, "POST", "/loops", { body: "[".repeat(100_000) + "]".repeat(100_000), headers: { "Content-Type": "application/json" } }), 400, [
      "body",
    ]);
    // As deep as the limit allows (bodyDepthLimit, 128): checked through every level.
    const allowed = '{"n":'.repeat(127) + "{}" + "}".repeat(127);
    expect((await call(base, "POST", "/loops", { body: allowed, headers: { "Content-Type": "application/json" } })).status).toBe(200);
    expect(stderr).toBe("");
  });
});

describe("chains that nest what they point at are bounded, with a diagnostic at their place", () => {
  /** Runs `generate` on a document (and files beside it) written to a folder of its own; nothing may be written. */
  async function generateIn(name: string, document: object, files: Record<string, object> = {}) {
    const dir = path.join(scratch, name);
    mkdirSync(dir, { recursive: true });
    for (const [file, value] of Object.entries(files)) writeFileSync(path.join(dir, file), JSON.stringify(value));
    const file = path.join(dir, "openapi.json");
    const text = JSON.stringify(document, null, 1);
    writeFileSync(file, text);
    const result = await runCli(["generate", file, "-o", path.join(dir, "out")]);
    expect(result.stderr).not.toMatch(/RangeError|call stack|\n\s+at /);
    expect(result.code).toBe(1);
    const located = new RegExp(`^(.*):(\\d+):(\\d+): error: `).exec(result.stderr);
    expect(located, result.stderr).not.toBeNull();
    return { stderr: result.stderr, file: located![1]!, line: text.split("\n")[Number(located![2]) - 1]! };
  }
  const document = (extra: object) => ({ openapi: "3.1.0", info: { title: "Deep", version: "1" }, ...extra });

  it(`refuses a schema inlined from 2,000 references to parts of the document, nested past ${INLINE_DEPTH_LIMIT} levels`, async () => {
    const defs = Object.fromEntries(
      Array.from({ length: 2_000 }, (_, i) => [
        `D${i}`,
        i === 1_999 ? { type: "string" } : { type: "object", properties: { n: { $ref: `#/x-defs/D${i + 1}` } } },
      ]),
    );
    const { stderr, line } = await generateIn("parts", document({ paths: { "/things": operation("createThing", { $ref: "#/x-defs/D0" }) }, "x-defs": defs }));
    expect(stderr).toContain(`the document nests more than ${INLINE_DEPTH_LIMIT} levels deep here once its references are followed`);
    expect(stderr).toContain("[openapi/too-deep]");
    expect(line).toMatch(/^ {2}"D\d+": \{$/);
  });

  it("refuses a chain of 5,000 parameters, each a reference to the next, that swagger-parser cannot bundle, at a place of the chain", async () => {
    const parameters = Object.fromEntries(
      Array.from({ length: 5_000 }, (_, i) => [
        `P${i}`,
        i === 4_999 ? { name: "q", in: "query", schema: { type: "string" } } : { $ref: `#/components/parameters/P${i + 1}` },
      ]),
    );
    const paths = {
      "/things": { get: { operationId: "listThings", parameters: [{ $ref: "#/components/parameters/P0" }], responses: { "204": { description: "none" } } } },
    };
    const { stderr, line } = await generateIn("parameters", document({ paths, components: { parameters } }));
    expect(stderr).toContain(`a chain of them ran out of its stack. The chain passes here, ${REF_CHAIN_PLACE} levels down`);
    expect(stderr).toContain("[openapi/ref-chain]");
    expect(line).toMatch(/^ {3}"P\d+": \{$/);
  });

  it(`refuses a chain of 1,000 files, each referring to the next, at the reference to file ${MAX_FILE_CHAIN + 1}`, async () => {
    const files = Object.fromEntries(
      Array.from({ length: 999 }, (_, i) => [
        `f${i + 1}.json`,
        i === 998 ? { type: "string" } : { type: "object", properties: { n: { $ref: `f${i + 2}.json` } } },
      ]),
    );
    const { stderr, file } = await generateIn("files", document({ paths: { "/things": operation("createThing", { $ref: "f1.json" }) } }), files);
    expect(path.basename(file)).toBe(`f${MAX_FILE_CHAIN}.json`);
    expect(stderr).toContain(`the reference \`f${MAX_FILE_CHAIN + 1}.json\` is not followed: it is the ${MAX_FILE_CHAIN + 1}th file of a chain`);
    expect(stderr).toContain("[openapi/ref-refused]");
  });

  it(`refuses 40 files in a row that nest past ${INLINE_DEPTH_LIMIT} levels once pulled in, at the reference that begins them`, async () => {
    const files = Object.fromEntries(
      Array.from({ length: 39 }, (_, i) => [
        `f${i + 1}.json`,
        i === 38 ? { type: "string" } : { type: "object", properties: { n: { type: "object", properties: { m: { $ref: `f${i + 2}.json` } } } } },
      ]),
    );
    const { stderr, line } = await generateIn("nested-files", document({ paths: { "/things": operation("createThing", { $ref: "f1.json" }) } }), files);
    expect(stderr).toContain(`the document nests more than ${INLINE_DEPTH_LIMIT} levels deep here once its references are followed`);
    expect(line.trim()).toBe('"schema": {');
  });

  it("refuses a declaration nested deeper than 64 levels, at its place", async () => {
    const declaration = path.join(scratch, "too-deep.json");
    const text = nestedDeclaration(31);
    writeFileSync(declaration, text);
    const result = await runCli(["generate", declaration, "-o", path.join(scratch, "too-deep")]);
    expect(result.code).toBe(1);
    const [, line] = /:(\d+):\d+: error: the document nests more than 64 levels deep \[input\/too-deep\]/.exec(result.stderr) ?? [];
    expect(text.split("\n")[Number(line) - 1]).toMatch(/"type": "object"/);
  });
});
