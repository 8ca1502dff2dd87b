// `generate` on every invalid fixture exits 1 and creates or changes
// no file: neither in an output folder that already holds a generated tree and files of the user's,
// nor beside it (no leftover `.DIR.codegen-new`), nor a folder that did not exist. And "nothing
// pasted into code unescaped": every path codegen generates stays inside the output folder.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { declarationOf, fixtureCases, runCli } from "../support/fixtures.js";
import { generateFixture } from "../support/generated.js";

const dir = mkdtempSync(path.join(tmpdir(), "codegen-invalid-out-"));
const out = path.join(dir, "out");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every file under `root` (and the folder's siblings), with its size, mtime and contents. */
function snapshot(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        const stat = statSync(full);
        files.set(path.relative(root, full), `${stat.size}:${stat.mtimeMs}:${readFileSync(full, "base64")}`);
      }
    }
  };
  walk(root);
  return files;
}

beforeAll(async () => {
  // A real generated tree (with its manifest) and a file of the user's, as a project has them.
  const result = await runCli(["generate", declarationOf("valid", "minimal"), "-o", out, "--quiet", "--no-format"]);
  expect(result.code, result.stderr).toBe(0);
  writeFileSync(path.join(out, "mine.ts"), "// the user's own file\n");
}, 60_000);

describe("an invalid declaration creates or changes no file", () => {
  const cases = fixtureCases("invalid");

  it.each(cases)("%s", async (name) => {
    const before = snapshot(dir);
    const result = await runCli(["generate", declarationOf("invalid", name), "-o", out]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^[^\n]+:\d+:\d+: error: /);
    expect(result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
    expect(snapshot(dir)).toEqual(before);

    const fresh = path.join(dir, `fresh-${name}`);
    expect((await runCli(["generate", declarationOf("invalid", name), "-o", fresh])).code).toBe(1);
    expect(existsSync(fresh)).toBe(false);
    expect(readdirSync(dir).filter((entry) => entry.startsWith("."))).toEqual([]);
  });
});

describe("generated paths stay inside the output folder", () => {
  it.each(fixtureCases("valid"))("%s", async (name) => {
    const files = await generateFixture(name);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(path.isAbsolute(file.path), file.path).toBe(false);
      expect(path.normalize(file.path), file.path).toBe(file.path);
      expect(file.path.split(/[\\/]/), file.path).not.toContain("..");
      // Lower-case letters, digits, `-` and `.` in at most two segments: nothing a name could smuggle in.
      // (`operations/` holds the handlers of operations that are not one of a resource's six.)
      expect(file.path, file.path).toMatch(
        /(?:^(?:(?:resources|runtime|operations)\/)?[a-z0-9][a-z0-9.-]*\.(?:gen\.ts|yaml)$)|(?:^migrations\/(?:[0-9]{4}_[a-z0-9_]+\.sql|schema\.json)$)/,
      );
      const target = path.resolve(out, file.path);
      expect(target.startsWith(out + path.sep), file.path).toBe(true);
    }
    expect(new Set(files.map((f) => f.path)).size).toBe(files.length);
  });
});
