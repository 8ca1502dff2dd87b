// The user's own formatter over the generated folder: a file that prettier reformatted,
// whatever its options, is no file edited by hand, and the next run leaves it as it is; a real
// edit still is one.

import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import * as prettier from "prettier";
import { afterAll, describe, expect, it } from "vitest";
import { shapeHashOf } from "../../src/write/plan.js";
import { ROOT } from "../support/fixtures.js";

const BIN = path.join(ROOT, "bin/codegen.js");
const scratch = mkdtempSync(path.join(tmpdir(), "codegen-shape-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Option sets unlike codegen's own (src/format), each changing what prettier lets a project choose. */
const STYLES: prettier.Options[] = [
  { printWidth: 40, tabWidth: 4, semi: false, singleQuote: true, trailingComma: "none", arrowParens: "avoid", bracketSpacing: false, quoteProps: "consistent" },
  { printWidth: 200, useTabs: true, endOfLine: "crlf", trailingComma: "es5", objectWrap: "collapse" },
  { printWidth: 60, experimentalTernaries: true, experimentalOperatorPosition: "start", quoteProps: "preserve", singleQuote: true },
];

/** The files of a golden tree: path inside it and text. */
function tree(fixture: string): { path: string; text: string }[] {
  const root = path.join(ROOT, "fixtures/valid", fixture, "expected");
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((file) => /\.(ts|yaml)$/.test(file))
    .map((file) => ({ path: file.split(path.sep).join("/"), text: readFileSync(path.join(root, file), "utf8") }));
}

/** The files (path and text) an earlier case checked already: the runtime copies are the same bytes in every golden tree. */
const checked = new Set<string>();

describe("shapeHashOf", () => {
  it.each(["blog", "hostile-strings"])(
    "is the same for every generated file of %s after prettier with other options",
    async (fixture) => {
      const files = tree(fixture).filter((file) => !checked.has(`${file.path}\n${file.text}`));
      for (const file of files) checked.add(`${file.path}\n${file.text}`);
      expect(files.length).toBeGreaterThan(5);
      for (const style of STYLES) {
        let reformatted = 0;
        for (const file of files) {
          const formatted = await prettier.format(file.text, { ...style, filepath: file.path });
          if (formatted !== file.text) reformatted++;
          expect(shapeHashOf(file.path, formatted), `${file.path} with ${JSON.stringify(style)}`).toBe(shapeHashOf(file.path, file.text));
        }
        // Each style does reformat: the comparison above is of different texts.
        expect(reformatted, JSON.stringify(style)).toBeGreaterThan(files.length / 2);
      }
    },
    120_000,
  );

  it.each([
    ["a changed string", 'export const a = "one";\n', 'export const a = "two";\n'],
    ["a changed operator", "export const a = b + c;\n", "export const a = b - c;\n"],
    ["a changed name", "export function f(x: number) {}\n", "export function f(y: number) {}\n"],
    ["a removed statement", "f();\ng();\n", "f();\n"],
    ["a changed number", "export const a = 10;\n", "export const a = 100;\n"],
    ["an edited comment", "// generated\nf();\n", "// mine\nf();\n"],
  ])("changes with %s", (_what, before, after) => {
    expect(shapeHashOf("x.ts", after)).not.toBe(shapeHashOf("x.ts", before));
  });

  it("compares YAML by its data: quotes and layout do not count, a value does", () => {
    const yaml = 'openapi: 3.1.0\ninfo:\n  title: "Blog"\n  tags: [a, b]\n';
    expect(shapeHashOf("openapi.yaml", "openapi: 3.1.0\ninfo:\n    title: 'Blog'\n    tags:\n        - a\n        - b\n")).toBe(
      shapeHashOf("openapi.yaml", yaml),
    );
    expect(shapeHashOf("openapi.yaml", yaml.replace("Blog", "Blag"))).not.toBe(shapeHashOf("openapi.yaml", yaml));
  });
});

describe("prettier over the generated folder", () => {
  it("is no edit by hand: the next generate and --check pass and keep the formatting; an edit after it still stops the run", async () => {
    const dir = path.join(scratch, "project");
    cpSync(path.join(ROOT, "fixtures/valid/blog/declaration.yaml"), path.join(dir, "api.yaml"), { recursive: true });
    const codegen = (...args: string[]) => {
      try {
        return { code: 0, output: execFileSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: "utf8", stdio: "pipe" }) };
      } catch (error) {
        const failed = error as { status: number; stdout: string; stderr: string };
        return { code: failed.status, output: failed.stdout + failed.stderr };
      }
    };
    expect(codegen("api.yaml", "-o", "out").code).toBe(0);
    const out = path.join(dir, "out");
    const files = readdirSync(out, { recursive: true, encoding: "utf8" }).filter((file) => /\.(ts|yaml)$/.test(file));
    for (const file of files) {
      const full = path.join(out, file);
      writeFileSync(full, await prettier.format(readFileSync(full, "utf8"), { ...STYLES[0], filepath: full }));
    }
    const server = path.join(out, "server.gen.ts");
    const reformatted = readFileSync(server, "utf8");
    expect(reformatted).toContain("'./api.gen.js'");

    expect(codegen("api.yaml", "-o", "out", "--check")).toMatchObject({ code: 0 });
    const again = codegen("api.yaml", "-o", "out");
    expect(again.output).toMatch(/^wrote 0, unchanged \d+, removed 0/);
    expect(readFileSync(server, "utf8")).toBe(reformatted);
    // A declaration change rewrites the files it changes, in codegen's formatting.
    writeFileSync(path.join(dir, "api.yaml"), readFileSync(path.join(dir, "api.yaml"), "utf8").replace("title: Blog", "title: Journal"));
    expect(codegen("api.yaml", "-o", "out")).toMatchObject({ code: 0 });

    writeFileSync(server, `${readFileSync(server, "utf8")}export const mine = 1;\n`);
    const stopped = codegen("api.yaml", "-o", "out");
    expect(stopped.code).toBe(1);
    expect(stopped.output).toContain("out/server.gen.ts");
    expect(stopped.output).toMatch(/edited-by-hand/);
  }, 120_000);
});
