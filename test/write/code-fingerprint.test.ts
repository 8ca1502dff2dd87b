// What codegen hashes of its own code to key a generation (src/write/fresh.ts, codeFiles).
// Where the build's bundle (codegen.cjs) is not older than any module it was made of, it stands for
// them (the modules are not read and hashed a second time); else every module is hashed.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { codeFiles } from "../../src/write/fresh.js";

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-fingerprint-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A dist/ folder: two modules (one nested), their types, the bundle, precompiled templates and a formatted runtime file. */
function dist(name: string): { dir: string; relative: (files: string[]) => string[] } {
  const dir = path.join(scratch, name);
  for (const file of [
    "cli.js",
    "cli.d.ts",
    "write/yaml.js",
    "write/yaml.d.ts",
    "codegen.cjs",
    "precompiled-templates.cjs",
    "formatted-runtime/http.gen.ts",
    "formatted-runtime/index.json",
  ]) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), file);
  }
  return { dir, relative: (files) => files.map((file) => path.relative(dir, file).split(path.sep).join("/")) };
}

const at = (dir: string, file: string, seconds: number) => utimesSync(path.join(dir, file), seconds, seconds);

describe("codeFiles", () => {
  it("is the bundle, the precompiled templates and the runtime files where the bundle is not older than a module", () => {
    const { dir, relative } = dist("current");
    for (const file of ["cli.js", "write/yaml.js"]) at(dir, file, 1000);
    at(dir, "codegen.cjs", 1000);
    expect(relative(codeFiles(dir, false))).toEqual(["codegen.cjs", "formatted-runtime/http.gen.ts", "precompiled-templates.cjs"]);
  });

  it("is every module too where one is newer than the bundle (a `tsc` after the build)", () => {
    const { dir, relative } = dist("stale");
    at(dir, "cli.js", 1000);
    at(dir, "codegen.cjs", 1000);
    at(dir, "write/yaml.js", 2000);
    expect(relative(codeFiles(dir, false))).toEqual(["cli.js", "codegen.cjs", "formatted-runtime/http.gen.ts", "precompiled-templates.cjs", "write/yaml.js"]);
  });

  it("is the bundle's files where the bundle runs, whatever the dates (an installed copy's are the copy's)", () => {
    const { dir, relative } = dist("running");
    at(dir, "codegen.cjs", 1000);
    at(dir, "write/yaml.js", 2000);
    expect(relative(codeFiles(dir, true))).toEqual(["codegen.cjs", "formatted-runtime/http.gen.ts", "precompiled-templates.cjs"]);
  });

  it("is every module where there is no bundle (the sources under test)", () => {
    const { dir, relative } = dist("unbundled");
    rmSync(path.join(dir, "codegen.cjs"));
    expect(relative(codeFiles(dir, false))).toEqual(["cli.js", "formatted-runtime/http.gen.ts", "precompiled-templates.cjs", "write/yaml.js"]);
  });
});
