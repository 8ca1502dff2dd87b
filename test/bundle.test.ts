// The bin runs dist/ bundled into dist/codegen.cjs (scripts/bundle.js), compiled
// through V8's code cache dist/codegen.cjs.cache. The bundle must write what dist/ writes, keep the
// heavy packages unloaded where a command does not need them, and survive a cache it cannot use.
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./support/fixtures.js";

const PRELOAD = path.join(ROOT, "test/support/loaded-packages.cjs");
const scratch = mkdtempSync(path.join(tmpdir(), "codegen-bundle-"));
afterAll(() => {
  chmodTree(path.join(scratch, "install"), 0o755, 0o644);
  rmSync(scratch, { recursive: true, force: true });
});

/** Run `bin` (the checkout's by default); `packages`: the packages the process loaded. */
function codegen(args: string[], env: Record<string, string> = {}, bin = path.join(ROOT, "bin/codegen.js")) {
  const run = spawnSync(process.execPath, ["--require", PRELOAD, bin, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...env },
  });
  const packages = JSON.parse(/^LOADED (.*)$/m.exec(run.stderr)?.[1] ?? "[]") as string[];
  return { code: run.status, stdout: run.stdout, stderr: run.stderr.replace(/^LOADED .*\n/m, ""), packages };
}

/** Every file under `dir`, relative path -> bytes. */
function tree(dir: string, prefix = ""): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const relative = path.join(prefix, entry.name);
    if (entry.isDirectory()) for (const [name, text] of tree(dir, relative)) files.set(name, text);
    else files.set(relative, readFileSync(path.join(dir, relative), "latin1"));
  }
  return files;
}

/** Set the modes of a tree (directories, files). */
function chmodTree(dir: string, dirMode: number, fileMode: number): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const child = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) chmodTree(child, dirMode, fileMode);
    else chmodSync(child, fileMode);
  }
  chmodSync(dir, dirMode);
}

describe("the bundled bin", () => {
  it("is what the build made, with its code cache", () => {
    expect(existsSync(path.join(ROOT, "dist/codegen.cjs"))).toBe(true);
    expect(existsSync(path.join(ROOT, "dist/codegen.cjs.cache"))).toBe(true);
    // Bundled, commander is inside dist/codegen.cjs; unbundled, it is loaded from node_modules.
    expect(codegen(["--version"]).packages).not.toContain("commander");
    expect(codegen(["--version"], { CODEGEN_UNBUNDLED: "1" }).packages).toContain("commander");
  });

  it("is not used when dist/ was compiled after it (a contributor's tsc after the last npm run build)", () => {
    const copy = path.join(scratch, "stale");
    for (const part of ["bin", "dist", "runtime", "templates", "package.json"]) cpSync(path.join(ROOT, part), path.join(copy, part), { recursive: true });
    symlinkSync(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"));
    const bin = path.join(copy, "bin/codegen.js");
    const built = new Date("2026-01-01T00:00:00Z");
    utimesSync(path.join(copy, "dist/codegen.cjs"), built, built);
    utimesSync(path.join(copy, "dist/cli.js"), built, built);
    expect(codegen(["--version"], {}, bin).packages).not.toContain("commander");
    const later = new Date("2026-01-01T00:00:01Z");
    utimesSync(path.join(copy, "dist/cli.js"), later, later);
    const stale = codegen(["--version"], {}, bin);
    expect(stale.code, stale.stderr).toBe(0);
    expect(stale.packages).toContain("commander");
  });

  it("has a code cache this Node accepts, and one that V8 rejects under other flags", () => {
    // The bin's own wrapping of the bundle (bin/codegen.js), compiled with the cache in this Node
    // as the bin runs it (no V8 flags) and in one with other flags.
    const check = `const fs = require("node:fs"), vm = require("node:vm"); const file = ${JSON.stringify(path.join(ROOT, "dist/codegen.cjs"))};
      const source = "(function (exports, require, module, __filename, __dirname, __codegenImport) {" + fs.readFileSync(file, "utf8") + "\\n})";
      process.stdout.write(String(new vm.Script(source, { filename: file, cachedData: fs.readFileSync(file + ".cache") }).cachedDataRejected));`;
    expect(spawnSync(process.execPath, ["-e", check], { encoding: "utf8" }).stdout).toBe("false");
    expect(spawnSync(process.execPath, ["--no-opt", "-e", check], { encoding: "utf8" }).stdout).toBe("true");
  });

  it.each([["--version"], ["openapi", "fixtures/valid/blog/declaration.yaml", "-o", path.join(scratch, "blog.yaml")]])(
    "keeps lazy loading: `codegen %s` loads no renderer, validator or formatter",
    (...args) => {
      const run = codegen(args);
      expect(run.code, run.stderr).toBe(0);
      for (const name of ["handlebars", "ajv", "@apidevtools/swagger-parser", "prettier", "typescript"]) expect(run.packages).not.toContain(name);
    },
  );

  const fixtures = readdirSync(path.join(ROOT, "fixtures/valid")).filter((name) => existsSync(path.join(ROOT, "fixtures/valid", name, "declaration.yaml")));
  it.each(fixtures)("writes the same files as the unbundled dist/ for fixtures/valid/%s", (fixture) => {
    const declaration = path.join(ROOT, "fixtures/valid", fixture, "declaration.yaml");
    const bundled = codegen(["generate", declaration, "-o", path.join(scratch, fixture, "bundled"), "--quiet"]);
    expect(bundled.code, bundled.stderr).toBe(0);
    const unbundled = codegen(["generate", declaration, "-o", path.join(scratch, fixture, "unbundled"), "--quiet"], { CODEGEN_UNBUNDLED: "1" });
    expect(unbundled.code, unbundled.stderr).toBe(0);
    const a = tree(path.join(scratch, fixture, "bundled"));
    expect(a.size).toBeGreaterThan(3);
    expect(a).toEqual(tree(path.join(scratch, fixture, "unbundled")));
  });

  it("writes the same project for `codegen init` as the unbundled dist/ (its templates hold code such as import() in strings)", () => {
    for (const [name, env] of [
      ["init-bundled", {}],
      ["init-unbundled", { CODEGEN_UNBUNDLED: "1" }],
    ] as const) {
      const run = codegen(["init", path.join(scratch, name, "app")], env);
      expect(run.code, run.stderr).toBe(0);
    }
    const bundled = tree(path.join(scratch, "init-bundled"));
    expect(bundled.size).toBeGreaterThan(3);
    expect(bundled).toEqual(tree(path.join(scratch, "init-unbundled")));
  });

  it("runs, read-only, with a corrupted code cache and one made under other V8 flags, and never writes the cache", () => {
    // An installed copy: bin/, dist/, runtime/, templates/, package.json, and the checkout's node_modules.
    const install = path.join(scratch, "install");
    for (const part of ["bin", "dist", "runtime", "templates", "package.json"]) cpSync(path.join(ROOT, part), path.join(install, part), { recursive: true });
    symlinkSync(path.join(ROOT, "node_modules"), path.join(install, "node_modules"));
    // As npm installs a package: every file with one date (so the bundle counts as current).
    const npmDate = new Date("1985-10-26T08:15:00Z");
    for (const file of ["dist/cli.js", "dist/codegen.cjs"]) utimesSync(path.join(install, file), npmDate, npmDate);
    const cache = path.join(install, "dist/codegen.cjs.cache");
    const bin = path.join(install, "bin/codegen.js");
    expect(codegen(["--version"], {}, bin).packages).not.toContain("commander");
    const declaration = path.join(ROOT, "fixtures/valid/blog/declaration.yaml");
    const reference = codegen(["generate", declaration, "-o", path.join(scratch, "cache", "reference"), "--quiet"], { CODEGEN_UNBUNDLED: "1" });
    expect(reference.code, reference.stderr).toBe(0);
    const expected = tree(path.join(scratch, "cache", "reference"));

    // A cache of another V8 configuration: V8 checks a flag hash and rejects it.
    const other = spawnSync(process.execPath, ["--no-opt", "--max-lazy", bin, "--version"], {
      encoding: "utf8",
      env: { ...process.env, CODEGEN_WRITE_CODE_CACHE: "1" },
    });
    expect(other.status, other.stderr).toBe(0);
    const corrupted = Buffer.from(readFileSync(cache));
    for (let index = 64; index < corrupted.length; index += 97) corrupted[index] = corrupted[index]! ^ 0xff;
    for (const bytes of [readFileSync(cache), corrupted, Buffer.from("not a code cache")]) {
      writeFileSync(cache, bytes);
      chmodTree(install, 0o555, 0o444);
      const out = path.join(scratch, "cache", `${bytes.length}`);
      const run = codegen(["generate", declaration, "-o", out, "--quiet"], {}, bin);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toBe("");
      // The run never rewrites the installed cache.
      expect(readFileSync(cache).equals(bytes)).toBe(true);
      expect(tree(out)).toEqual(expected);
      chmodTree(install, 0o755, 0o644);
    }
  });
});
