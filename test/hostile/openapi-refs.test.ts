// The `$ref`s of an OpenAPI document written by others. They may read
// only regular .yaml/.yml/.json files inside the document's folder (or --ref-root), of bounded
// size, never a URL: anything else is a diagnostic at the `$ref`, and nothing is written. And a
// few kilobytes of refs that fan out (each level using the previous one twice) are answered in
// seconds, with code or a diagnostic, where the old code ran for minutes and gigabytes.

import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { generate } from "../../src/index.js";
import { MAX_REF_FILE_BYTES } from "../../src/compile/openapi/ref-files.js";
import { ROOT, runCli } from "../support/fixtures.js";

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-refs-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// The folder of the document: api/ beside a file outside it, a link out, an oversize file.
const api = path.join(scratch, "api");
mkdirSync(path.join(api, "parts"), { recursive: true });
writeFileSync(path.join(scratch, "outside.yaml"), "type: string\ndescription: a secret outside the folder\n");
symlinkSync(path.join(scratch, "outside.yaml"), path.join(api, "link.yaml"));
writeFileSync(path.join(api, "big.yaml"), `type: string\ndescription: "${"x".repeat(MAX_REF_FILE_BYTES)}"\n`);
writeFileSync(path.join(api, ".secrets.yaml"), "type: string\n");
writeFileSync(path.join(api, "notes.txt"), "not a document\n");
writeFileSync(path.join(api, "parts", "pet.yaml"), "type: object\nproperties:\n  name: { type: string }\n");

/** A document whose one response schema is `$ref: <ref>`, on line 15 of its text. */
function documentWith(ref: string): string {
  const text = stringify(
    {
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      paths: { "/p": { get: { operationId: "p", responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: ref } } } } } } } },
    },
    { lineWidth: 0 },
  );
  expect(text.split("\n")[14]).toContain("$ref:");
  return text;
}

describe("$refs of an OpenAPI document reach only files of its folder", () => {
  const refused: [string, string, RegExp][] = [
    ["/etc/passwd", "a file outside the folder", /outside `.*api`/],
    ["/proc/self/environ", "the environment (a CI token)", /outside `.*api`/],
    ["/dev/zero", "a device that never ends", /outside `.*api`/],
    ["../outside.yaml", "a path that leaves the folder", /outside `.*api`/],
    ["link.yaml", "a link inside the folder to a file outside it", /a link to a place outside/],
    ["big.yaml", "a file over the size bound", /larger than 10 MiB/],
    [".secrets.yaml", "a hidden file", /hidden/],
    ["notes.txt", "a file that is not YAML or JSON", /only \.yaml, \.yml and \.json/],
    ["missing.yaml", "a file that does not exist", /no such file/],
    ["http://127.0.0.1:9/api.yaml", "an http URL (SSRF)", /fetches no URLs/],
    ["https://example.com/api.yaml#/Pet", "an https URL", /fetches no URLs/],
  ];
  it.each(refused)("refuses %s (%s) at the $ref, and writes nothing", async (ref, _what, reason) => {
    const file = path.join(api, "openapi.yaml");
    writeFileSync(file, documentWith(ref));
    const out = path.join(scratch, "out");
    const result = await runCli(["generate", file, "-o", out]);
    expect(result.code).toBe(1);
    // FILE:LINE:COLUMN of the `$ref`'s value, the reason, the code.
    expect(result.stderr).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:15:\\d+: error: the reference \`[^\`]+\` is not followed: `));
    expect(result.stderr).toMatch(reason);
    expect(result.stderr).toContain("[openapi/ref-refused]");
    expect(existsSync(out)).toBe(false);
    // validate and openapi refuse it the same way, and openapi prints nothing.
    const validated = await runCli(["validate", file]);
    expect([validated.code, validated.stderr.split("\n")[0]]).toEqual([1, result.stderr.split("\n")[0]]);
    const printed = await runCli(["openapi", file]);
    expect([printed.code, printed.stdout]).toEqual([1, ""]);
  });

  it("refuses a file that holds a $ref out of the folder, at that $ref in that file", async () => {
    writeFileSync(path.join(api, "parts", "leak.yaml"), "type: object\nproperties:\n  env:\n    $ref: '../../outside.yaml'\n");
    const file = path.join(api, "openapi.yaml");
    writeFileSync(file, documentWith("parts/leak.yaml"));
    const result = await runCli(["validate", file]);
    expect(result.code).toBe(1);
    const shown = path
      .relative(ROOT, path.join(api, "parts", "leak.yaml"))
      .split(path.sep)
      .join("/");
    expect(result.stderr).toContain(`${shown}:4:11: error: the reference \`../../outside.yaml\` is not followed`);
  });

  it("reads a document in parts: files of its folder and a subfolder (fixtures/openapi/multi-file)", async () => {
    const result = await runCli(["openapi", "fixtures/openapi/multi-file/openapi.yaml"]);
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(/tag:\n\s+type: string\n\s+enum:\n\s+- cat\n\s+- dog\n/);
    const generated = await generate({ input: "fixtures/openapi/multi-file/openapi.yaml", cwd: ROOT, format: false });
    expect(generated.diagnostics).toEqual([]);
    const types = generated.files.find((f) => f.path === "types.gen.ts")!.contents;
    expect(types).toContain('export type Pet = { name: string; tag?: "cat" | "dog" };');
  });

  it("--ref-root names the folder $refs may reach: a file beside the document's folder, and no further", async () => {
    const project = path.join(scratch, "project");
    cpSync(path.join(ROOT, "fixtures/openapi/multi-file"), path.join(project, "spec"), { recursive: true });
    mkdirSync(path.join(project, "shared"));
    writeFileSync(path.join(project, "shared", "error.yaml"), "type: object\nproperties:\n  message: { type: string }\n");
    const file = path.join(project, "spec", "openapi.yaml");
    writeFileSync(file, documentWith("../shared/error.yaml"));
    expect((await runCli(["validate", file])).stderr).toMatch(/is not followed: it is outside `.*spec`/);
    expect(await runCli(["validate", file, "--ref-root", project])).toEqual({ code: 0, stdout: "", stderr: "" });
    const generated = await generate({ input: file, cwd: ROOT, format: false, refRoot: project });
    expect(generated.diagnostics).toEqual([]);
    // Not further than the root it names.
    writeFileSync(file, documentWith("../../outside.yaml"));
    expect((await runCli(["validate", file, "--ref-root", project])).stderr).toMatch(/is not followed: it is outside `.*project`/);
  });
});

/**
 * Ref graphs that fan out: level n refers to level n-1 twice, 30 levels, through refs to named
 * schemas, to parts of schemas, to parameters, to responses, and through parts of other files.
 */
function bomb(kind: "schemas" | "parts" | "parameters" | "responses", levels = 30): object {
  const schemas: Record<string, object> = { L0: { type: "object", properties: { x: { type: "string" } } } };
  const parameters: Record<string, object> = { P0: { name: "p", in: "query", schema: { type: "string" } } };
  const responses: Record<string, object> = { R0: { description: "ok", content: { "application/json": { schema: { type: "string" } } } } };
  for (let n = 1; n <= levels; n++) {
    const to = (ref: string) => ({ a: { $ref: ref }, b: { $ref: ref } });
    if (kind === "schemas") schemas[`L${n}`] = { type: "object", properties: to(`#/components/schemas/L${n - 1}`) };
    if (kind === "parts")
      schemas[`L${n}`] = { type: "object", properties: { x: { type: "object", properties: to(`#/components/schemas/L${n - 1}/properties/x`) } } };
    if (kind === "parameters")
      parameters[`P${n}`] = { name: "p", in: "query", schema: { type: "object", properties: to(`#/components/parameters/P${n - 1}/schema`) } };
    if (kind === "responses") {
      responses[`R${n}`] = {
        description: "ok",
        content: { "application/json": { schema: { type: "object", properties: to(`#/components/responses/R${n - 1}/content/application~1json/schema`) } } },
      };
    }
  }
  const operation =
    kind === "parameters"
      ? { parameters: [{ $ref: `#/components/parameters/P${levels}` }], responses: { "200": { description: "ok" } } }
      : kind === "responses"
        ? { responses: { "200": { $ref: `#/components/responses/R${levels}` } } }
        : {
            requestBody: { content: { "application/json": { schema: { $ref: `#/components/schemas/L${levels}` } } } },
            responses: { "200": { description: "ok" } },
          };
  return {
    openapi: "3.0.3",
    info: { title: "bomb", version: "1" },
    paths: { "/p": { post: { operationId: "p", ...operation } } },
    components: { schemas, parameters, responses },
  };
}

describe("$ref graphs that fan out are answered in seconds, with code or a diagnostic", () => {
  // Refs to named schemas stay refs (each schema is a type of its own); other refs are inlined,
  // one shared copy for all uses, and past the bound a diagnostic says where.
  const cases: [string, "code" | "refused", object][] = [
    ["named schemas", "code", bomb("schemas")],
    ["named schemas in 3.1", "code", { ...bomb("schemas"), openapi: "3.1.0" }],
    ["parts of schemas", "refused", bomb("parts")],
    ["parameters", "refused", bomb("parameters")],
    ["responses", "refused", bomb("responses")],
  ];
  it.each(cases)(
    "%s: %s",
    async (name, outcome, document) => {
      const text = JSON.stringify(document);
      expect(text.length).toBeLessThan(10 * 1024);
      const input = `${name.replace(/\W+/g, "-")}.json`;
      writeFileSync(path.join(scratch, input), text);
      const result = await generate({ input, cwd: scratch, format: false });
      // The test's time limit is the guard against a hang (no clock read here: the machine is shared).
      if (outcome === "refused") {
        expect(result.files).toEqual([]);
        expect(result.diagnostics.map((d) => d.code)).toEqual(["openapi/ref-expansion"]);
        expect(result.diagnostics[0]!.location?.line).toBeGreaterThan(0);
      } else {
        expect(result.diagnostics).toEqual([]);
        const types = result.files.find((f) => f.path === "types.gen.ts")!.contents;
        expect(types).toContain("export type L30 = { a?: L29; b?: L29 };");
        expect(types.length).toBeLessThan(10_000);
      }
    },
    30_000,
  );

  it("a fan-out through parts of another file is bundled and answered the same way", async () => {
    const dir = path.join(scratch, "bomb-files");
    mkdirSync(dir);
    const parts = bomb("parts") as { components: { schemas: object } };
    writeFileSync(
      path.join(dir, "schemas.json"),
      JSON.stringify({ components: { schemas: parts.components.schemas } }).replace(/#\/components/g, "schemas.json#/components"),
    );
    const text = JSON.stringify({
      openapi: "3.0.3",
      info: { title: "bomb", version: "1" },
      paths: {
        "/p": {
          post: {
            operationId: "p",
            requestBody: { content: { "application/json": { schema: { $ref: "schemas.json#/components/schemas/L30" } } } },
            responses: { "200": { description: "ok" } },
          },
        },
      },
    });
    writeFileSync(path.join(dir, "api.json"), text);
    const result = await generate({ input: "bomb-files/api.json", cwd: scratch, format: false });
    expect(result.diagnostics.map((d) => d.code)).toContain("openapi/ref-expansion");
  }, 30_000);

  it("a document that inlines as real ones do (a parameter and a response used by every operation) generates", async () => {
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 300; i++) {
      paths[`/p${i}`] = {
        get: { operationId: `get${i}`, parameters: [{ $ref: "#/components/parameters/Limit" }], responses: { "200": { $ref: "#/components/responses/Page" } } },
      };
    }
    const components = {
      parameters: { Limit: { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100, default: 20 } } },
      responses: {
        Page: {
          description: "A page",
          content: {
            "application/json": { schema: { type: "object", properties: { items: { type: "array", items: { type: "string" } }, next: { type: "string" } } } },
          },
        },
      },
    };
    const text = JSON.stringify({ openapi: "3.1.0", info: { title: "many", version: "1" }, paths, components });
    writeFileSync(path.join(scratch, "many.json"), text);
    const result = await generate({ input: "many.json", cwd: scratch, format: false });
    expect(result.diagnostics.map((d) => d.message)).toEqual([]);
  }, 30_000);
});
