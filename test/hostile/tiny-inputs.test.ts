// Small inputs that took minutes and gigabytes (an alias bomb, aliases by the
// thousand, scopes by the thousand), nesting that overflowed the stack, and a large object that
// overflowed ajv. Each runs the installed command in a child process with a hang guard and a
// heap limit, so a regression fails (killed, or out of memory) instead of hanging the suite.

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../support/fixtures.js";

const BIN = path.join(ROOT, "bin/codegen.js");
const scratch = mkdtempSync(path.join(tmpdir(), "codegen-tiny-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Run the command on files written into a fresh folder; killed after `seconds`, with a 512 MB heap. */
function run(name: string, files: Record<string, string>, args: string[], seconds = 10) {
  const dir = path.join(scratch, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
  const result = spawnSync(process.execPath, ["--max-old-space-size=512", BIN, ...args], {
    cwd: dir,
    encoding: "utf8",
    timeout: seconds * 1000,
    env: { ...process.env, NO_COLOR: "1" },
  });
  // Not killed by the guard, not out of memory: answered.
  expect(result.signal, `${name}: ${result.stderr.slice(0, 500)}`).toBeNull();
  return { code: result.status, stderr: result.stderr };
}

/** Nine levels of nine aliases, under `indent`, as `x-` keys (extensions are allowed everywhere). */
function bomb(indent: string): string {
  const lines = [`${indent}x-a: &a [x, x, x, x, x, x, x, x, x]`];
  const names = "abcdefghi";
  for (let i = 1; i < names.length; i++)
    lines.push(
      `${indent}x-${names[i]}: &${names[i]} [${Array(9)
        .fill(`*${names[i - 1]}`)
        .join(", ")}]`,
    );
  return lines.join("\n") + "\n";
}

const declarationHead = 'codegen: 1\ninfo: { title: T, version: "1" }\n';
const openapiHead = 'openapi: 3.1.0\ninfo: { title: T, version: "1" }\n';
const path200 = 'get:\n  responses:\n    "200":\n      description: ok\n';

describe("an alias bomb is refused at the alias that crosses the budget", () => {
  it("in a declaration", () => {
    const text = `${declarationHead}resources:\n  things:\n    fields:\n      name: string\n${bomb("      ")}`;
    expect(text.length).toBeLessThan(700);
    const result = run("bomb-declaration", { "api.yaml": text }, ["validate", "api.yaml"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^api\.yaml:12:16: error: the aliases of this document expand to more than \d+ values .*\[yaml\/alias-expansion\]$/m);
  });

  it("in an OpenAPI document", () => {
    const text = `${openapiHead}paths:\n  /a:\n${path200.replace(/^/gm, "    ")}${bomb("")}`;
    const result = run("bomb-openapi", { "openapi.yaml": text }, ["generate", "openapi.yaml", "-o", "out"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^openapi\.yaml:\d+:\d+: error: the aliases of this document expand .*\[yaml\/alias-expansion\]$/m);
  });

  it("in a file an OpenAPI document refers to (read by codegen's loader, not js-yaml)", () => {
    const main = `${openapiHead}paths:\n  /a:\n    $ref: ./path.yaml\n`;
    const result = run("bomb-referenced", { "openapi.yaml": main, "path.yaml": path200 + bomb("") }, ["generate", "openapi.yaml", "-o", "out"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/path\.yaml:\d+:\d+: error: the aliases of this document expand .*\[yaml\/alias-expansion\]/);
  });
});

describe("nesting 100,000 levels deep is a diagnostic, not a stack overflow", () => {
  const deep = 100_000;
  it.each([
    ["a flow list", "api.yaml", "[".repeat(deep) + "]".repeat(deep)],
    ["a JSON list", "api.json", "[".repeat(deep) + "]".repeat(deep)],
    ["flow maps", "api.yaml", "{a: ".repeat(deep) + "1" + "}".repeat(deep)],
    ["compact block lists", "api.yaml", "- ".repeat(deep) + "x"],
    ["explicit keys", "api.yaml", "? ".repeat(deep) + "x"],
  ])("%s", (name, file, text) => {
    const result = run(`deep-${name.replace(/\W/g, "-")}`, { [file]: text + "\n" }, ["validate", file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`^${file.replace(".", "\\.")}:1:\\d+: error: the document nests more than 64 levels deep \\[input/too-deep\\]$`, "m"),
    );
  });

  it("in a JSON file an OpenAPI document refers to", () => {
    const main = `${openapiHead}paths:\n  /a:\n    $ref: ./path.json\n`;
    const referenced = `{"get": {"responses": {"200": {"description": "ok"}}}, "x-deep": ${"[".repeat(deep)}${"]".repeat(deep)}}`;
    const result = run("deep-referenced", { "openapi.yaml": main, "path.json": referenced }, ["validate", "openapi.yaml"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/path\.json:1:\d+: error: the document nests more than 64 levels deep \[input\/too-deep\]/);
  });
});

describe("inputs whose cost grew faster than their size are answered", () => {
  it("30,000 aliases of one anchor (each alias walked the whole document)", () => {
    const aliases = Array.from({ length: 30_000 }, () => "  - *note").join("\n");
    const text = `${declarationHead}x-notes:\n  - &note { text: a note }\n${aliases}\nresources:\n  things:\n    fields: { name: string }\n`;
    const result = run("many-aliases", { "api.yaml": text }, ["openapi", "api.yaml", "-o", "openapi.json"], 30);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  it("8,000 scopes, all required by one resource (each check rebuilt and searched the guard's list)", () => {
    const scopes = Array.from({ length: 8_000 }, (_, i) => `s${i}`);
    const text =
      `${declarationHead}auth:\n  - guard: password\n    tokenUrl: /token\n    scopes:\n${scopes.map((s) => `      ${s}: d\n`).join("")}` +
      `resources:\n  things:\n    fields: { name: string }\n    access: { read: [${scopes.join(", ")}], write: [${scopes.join(", ")}] }\n`;
    const result = run("many-scopes", { "api.yaml": text }, ["validate", "api.yaml"], 30);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  it("an object of 6,000 fields verifies (ajv's nested code for it overflowed the stack: reported as a codegen bug)", () => {
    const fields = Array.from({ length: 6_000 }, (_, i) => `      f${i}: string`);
    const text = `${declarationHead}resources:\n  things:\n    fields:\n${fields.join("\n")}\n`;
    const result = run("many-fields", { "api.yaml": text }, ["validate", "api.yaml"], 60);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });
});
