// The generator's own work on large inputs is bounded: counted here,
// not timed (figures are in bench/run.mjs and the README's Performance section).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { type Diagnostic, formatDiagnostics } from "../../src/diagnostics/index.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { OpenAPIV3_1 } from "openapi-types";
import { inlineReferences, prepareDocument } from "../../src/compile/api/foreign.js";
import { compileSchemas } from "../../src/compile/verify/verify.js";
// @ts-expect-error: the benchmark's generator is plain JavaScript.
import { declarationText } from "../../bench/make-declarations.js";
import { nodeHost } from "../../src/host.js";
import { generateIntoFolder, openapiFromText } from "../../src/pipeline.js";
import { ROOT } from "../support/fixtures.js";

/** Every text yaml's parse was given. */
const parsed = vi.hoisted(() => [] as unknown[]);
vi.mock("yaml", async (original) => {
  const real = await original<typeof import("yaml")>();
  return {
    ...real,
    parse: (...args: Parameters<typeof real.parse>) => {
      parsed.push(args[0]);
      return real.parse(...args);
    },
  };
});
// src/write/plan.ts requires yaml at first use (a run with nothing changed loads no YAML,
// src/write/fresh.ts): its parses go through the CommonJS module, which no ESM mock sees.
const yamlRequired = createRequire(path.join(ROOT, "src/write/plan.ts"))("yaml") as typeof import("yaml");
const requiredParse = yamlRequired.parse;
yamlRequired.parse = ((...args: Parameters<typeof requiredParse>) => {
  parsed.push(args[0]);
  return requiredParse(...args);
}) as typeof requiredParse;
afterAll(() => void (yamlRequired.parse = requiredParse));
const scratch = mkdtempSync(path.join(tmpdir(), "codegen-work-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("formatDiagnostics", () => {
  it("splits each file into lines once, however many diagnostics point into it", () => {
    const text = `${"x".repeat(10_000)}\nsecond line\n`;
    const diagnostics: Diagnostic[] = Array.from({ length: 50 }, (_, i) => ({
      code: "openapi/nullable-without-type",
      severity: "warning",
      message: `warning ${i}`,
      location: { file: "big.json", line: 1 + (i % 2), column: 1 + i, length: 1 },
    }));
    const split = vi.spyOn(String.prototype, "split");
    try {
      const out = formatDiagnostics(diagnostics, { sources: new Map([["big.json", text]]), colour: false });
      expect(out).toContain("big.json:2:50: warning: warning 49");
      expect(out).toContain("  2 | second line\n");
      expect(split.mock.contexts.filter((context) => String(context) === text)).toHaveLength(1);
    } finally {
      split.mockRestore();
    }
  });
});

describe("the document walk (src/compile/api/foreign.ts)", () => {
  it("builds no JSON pointer for a value it finds no problem in", async () => {
    const { value: document } = await openapiFromText("api.yaml", (declarationText as (size: number) => string)(20));
    expect(document).toBeDefined();
    const replace = vi.spyOn(String.prototype, "replace");
    try {
      expect(inlineReferences(document!).problems).toEqual([]);
      expect(prepareDocument(document!).problems).toEqual([]);
      // A pointer token is escaped with two replaces: one pointer per entry was 45,000 calls at 20
      // resources; what is left is a few per distinct ref (decoded and walked at its own place once).
      expect(replace.mock.calls.length).toBeLessThan(5000);
    } finally {
      replace.mockRestore();
    }
  });

  it("still names the place of a problem deep in the document", () => {
    const document = {
      openapi: "3.1.0",
      paths: { "/a/{b}": { get: { responses: { "200": { description: "x", content: { "a/b~c": { schema: { $ref: "#/components/schemas/Gone" } } } } } } } },
    };
    expect(inlineReferences(document).problems.map((p) => p.pointer)).toEqual(["#/paths/~1a~1{b}/get/responses/200/content/a~1b~0c/schema"]);
  });
});

describe("regeneration", () => {
  it("tells the files still as written by a hash of their bytes, never parsing the OpenAPI document it wrote", async () => {
    const host = { ...nodeHost(), cwd: scratch };
    const blog = readFileSync(path.join(ROOT, "fixtures/valid/blog/declaration.yaml"), "utf8");
    const run = (text: string) => generateIntoFolder(host, "api.yaml", text, { outDir: "out", check: false, force: false, format: false });
    expect((await run(blog)).summary?.written).toBeGreaterThan(5);
    const written = readFileSync(path.join(scratch, "out/openapi.yaml"), "utf8");
    parsed.length = 0;
    // Nothing changed: every file is checked as written.
    expect(await run(blog)).toMatchObject({ diagnostics: [], summary: { written: 0 } });
    // A one-field edit: openapi.yaml changes, and the old one is known unedited by its bytes.
    const edited = blog.replace("title: Blog", "title: Journal");
    expect(edited).not.toBe(blog);
    expect(await run(edited)).toMatchObject({ diagnostics: [] });
    expect(readFileSync(path.join(scratch, "out/openapi.yaml"), "utf8")).toContain("Journal");
    expect(parsed).not.toContain(written);
  });
});

describe("module loading", () => {
  const preload = path.join(ROOT, "test/support/loaded-packages.cjs");
  const loaded = (...args: string[]): string[] => {
    const run = spawnSync(process.execPath, ["--require", preload, path.join(ROOT, "bin/codegen.js"), ...args], {
      cwd: ROOT,
      encoding: "utf8",
      // Why unbundled: packages inside dist/codegen.cjs (commander, yaml) do not show in require.cache (test/bundle.test.ts checks the bundle).
      env: { ...process.env, CODEGEN_UNBUNDLED: "1" },
    });
    expect(run.status).toBe(0);
    return JSON.parse(/^LOADED (.*)$/m.exec(run.stderr)![1]!) as string[];
  };
  const heavy = ["handlebars", "ajv", "@apidevtools/swagger-parser", "prettier"];

  it.each([["--version"], ["openapi", "fixtures/valid/blog/declaration.yaml", "-o", path.join(scratch, "blog.yaml")]])(
    "`codegen %s` loads no renderer or validator",
    (...args) => {
      const packages = loaded(...args);
      expect(packages).toContain("commander");
      for (const name of heavy) expect(packages).not.toContain(name);
    },
  );

  it("`codegen generate` renders with the templates precompiled by the build: no Handlebars compiler, no source-map", () => {
    const packages = loaded("generate", "fixtures/valid/blog/declaration.yaml", "-o", path.join(scratch, "blog-precompiled"), "--quiet");
    expect(packages).toContain("handlebars");
    expect(packages).not.toContain("source-map");
  });

  it("sees what a command does load (`codegen generate` renders with handlebars)", () => {
    expect(loaded("generate", "fixtures/valid/blog/declaration.yaml", "-o", path.join(scratch, "blog-out"), "--no-format", "--quiet")).toContain("handlebars");
  });
});

describe("the schemas of a document written by others", () => {
  /** A document whose components are these schemas. */
  const documentOf = (schemas: Record<string, unknown>) =>
    ({ openapi: "3.1.0", info: { title: "t", version: "1" }, paths: {}, components: { schemas } }) as unknown as OpenAPIV3_1.Document;

  it("are checked without compiling a validator for each, when ajv's meta-schema and the u flag accept them", () => {
    const schemas = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [`S${i}`, { type: "object", properties: { [`p${i}`]: { type: "string", pattern: `^a{${i}}$`, maxLength: i } } }]),
    );
    const compile = vi.spyOn(Ajv2020.prototype, "compile");
    try {
      expect(compileSchemas(documentOf(schemas), "input")).toEqual([]);
      expect(compile).not.toHaveBeenCalled();
    } finally {
      compile.mockRestore();
    }
  });

  it.each([
    ["a keyword of the wrong type", { type: "object", required: "name" }, /required value must be \["array"\]/],
    ["a pattern the u flag refuses", { type: "string", pattern: "\\:" }, /Invalid regular expression|invalid/i],
    ["a pattern property the u flag refuses", { type: "object", patternProperties: { "\\_": {} } }, /Invalid regular expression|invalid/i],
  ])("are still refused with ajv's own message: %s", (_what, schema, message) => {
    const found = compileSchemas(documentOf({ Bad: schema }), "input");
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toMatch(message);
  });
});
