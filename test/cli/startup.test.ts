// `codegen generate` into a folder already current for the declaration's text
// tells so before it loads the stages (src/write/fresh.ts), and every other run still goes through them.
// Run as the installed command (bin/ over dist/), in child processes: what a process loads is the point.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ROOT } from "../support/fixtures.js";

const BIN = path.join(ROOT, "bin/codegen.js");
const PRELOAD = path.join(ROOT, "test/support/loaded-packages.cjs");
const scratch = mkdtempSync(path.join(tmpdir(), "codegen-startup-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Run the installed command in `cwd`; `packages`: the packages the process loaded. Unbundled: the
 * bundle's own packages (yaml) do not show in require.cache (test/bundle.test.ts checks the bundle).
 */
function codegen(cwd: string, ...args: string[]) {
  const run = spawnSync(process.execPath, ["--require", PRELOAD, BIN, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", CODEGEN_UNBUNDLED: "1" },
  });
  const packages = JSON.parse(/^LOADED (.*)$/m.exec(run.stderr)?.[1] ?? "[]") as string[];
  return { code: run.status, stdout: run.stdout, stderr: run.stderr.replace(/^LOADED .*\n/m, ""), packages };
}

/** A project folder holding `api.yaml` with this text. */
function project(name: string, text: string): string {
  const dir = path.join(scratch, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "api.yaml"), text);
  return dir;
}

const BLOG = readFileSync(path.join(ROOT, "fixtures/valid/blog/declaration.yaml"), "utf8");

describe("codegen generate with nothing changed", () => {
  it("answers from the folder's manifest without loading YAML, the renderer or the formatter", () => {
    const dir = project("current", BLOG);
    const first = codegen(dir, "generate", "api.yaml", "-o", "out");
    expect(first.code, first.stderr).toBe(0);
    expect(first.packages).toContain("yaml");
    const again = codegen(dir, "generate", "api.yaml", "-o", "out");
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^wrote 0, unchanged \d+, removed 0 in \d+ ms\n$/);
    // (prettier's package.json is read, for its version in the key: not prettier.)
    for (const name of ["yaml", "handlebars", "pluralize", "@apidevtools/swagger-parser"]) expect(again.packages).not.toContain(name);
  });

  it("goes through the stages after any edit of the text, even one that changes no file", () => {
    const dir = project("comment", BLOG);
    expect(codegen(dir, "generate", "api.yaml", "-o", "out").code).toBe(0);
    writeFileSync(path.join(dir, "api.yaml"), `# a comment\n${BLOG}`);
    const again = codegen(dir, "generate", "api.yaml", "-o", "out");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^wrote 0, unchanged \d+, removed 0/);
    expect(again.packages).toContain("yaml");
  });

  it("is not taken when an option that changes the files differs (--openapi-version)", () => {
    const dir = project("version", BLOG);
    expect(codegen(dir, "generate", "api.yaml", "-o", "out").code).toBe(0);
    const again = codegen(dir, "generate", "api.yaml", "-o", "out", "--openapi-version", "3.0");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^wrote [1-9]/);
    expect(readFileSync(path.join(dir, "out/openapi.yaml"), "utf8")).toMatch(/^openapi: 3\.0\.\d+$/m);
  });

  it("is not taken when an option that decides what is accepted differs (--allow-unsafe-patterns)", () => {
    const dir = project(
      "patterns",
      'codegen: 1\ninfo: { title: Shop, version: 1.0.0 }\nresources:\n  products:\n    fields:\n      name: { type: string, pattern: "^(a)\\\\1$" }\n',
    );
    const allowed = codegen(dir, "generate", "api.yaml", "-o", "out", "--allow-unsafe-patterns");
    expect(allowed.code, allowed.stderr).toBe(0);
    const refused = codegen(dir, "generate", "api.yaml", "-o", "out");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("[schema/unsafe-pattern]");
  });

  it("is not taken when a generated file was edited, which the full run then reports", () => {
    const dir = project("edited", BLOG);
    expect(codegen(dir, "generate", "api.yaml", "-o", "out").code).toBe(0);
    writeFileSync(path.join(dir, "out/types.gen.ts"), "export type Edited = 1;\n");
    const again = codegen(dir, "generate", "api.yaml", "-o", "out");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("[output/edited-by-hand]");
  });

  it("still refuses an output folder that holds the working folder, for the same input path", () => {
    // The same text, options and input path as the header names it: only the working folder differs.
    const dir = project("unsafe", BLOG);
    expect(codegen(dir, "generate", "api.yaml", "-o", "out").code).toBe(0);
    const inside = codegen(path.join(dir, "out"), "generate", "../api.yaml", "-o", ".");
    expect(inside.code).toBe(1);
    expect(inside.stderr).toContain("[output/unsafe-folder]");
  });

  it("--check still compares the files, whatever the manifest says", () => {
    const dir = project("check", BLOG);
    expect(codegen(dir, "generate", "api.yaml", "-o", "out").code).toBe(0);
    const check = codegen(dir, "generate", "api.yaml", "-o", "out", "--check");
    expect(check.code, check.stderr).toBe(0);
    expect(check.packages).toContain("yaml");
  });
});

describe("codegen generate into a folder that is not current", () => {
  it("loads the differ (src/write/report.js, the diff package) only when --check finds differences", async () => {
    vi.resetModules();
    const loads = { differ: 0 };
    vi.doMock("../../src/write/report.js", async () => {
      loads.differ++;
      return await vi.importActual("../../src/write/report.js");
    });
    try {
      const { declarationOf, runCli } = await import("../support/fixtures.js");
      const out = path.join(scratch, "differ");
      const generated = await runCli(["generate", declarationOf("valid", "blog"), "-o", out, "--quiet"]);
      expect(generated.code, generated.stderr).toBe(0);
      expect((await runCli(["generate", declarationOf("valid", "blog"), "-o", out, "--check"])).code).toBe(0);
      expect(loads.differ).toBe(0);
      rmSync(path.join(out, "types.gen.ts"));
      const stale = await runCli(["generate", declarationOf("valid", "blog"), "-o", out, "--check"]);
      expect(stale.code).toBe(1);
      expect(stale.stdout).toContain("types.gen.ts");
      expect(loads.differ).toBe(1);
    } finally {
      vi.doUnmock("../../src/write/report.js");
    }
  });
});
