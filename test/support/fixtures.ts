import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import type { Host } from "../../src/host.js";
import { nodeHost } from "../../src/host.js";
import { main } from "../../src/cli.js";

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Goldens are rewritten, not compared, under `npm run test:update` (which refuses in CI). */
export const UPDATING = process.env.UPDATE_GOLDENS === "1" && !process.env.CI;

/** The case folders under fixtures/<kind>/, sorted by code unit. */
export function fixtureCases(kind: "valid" | "invalid"): string[] {
  const dir = path.join(ROOT, "fixtures", kind);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

/** The declaration file of a case: declaration.yaml, .yml or .json (relative to ROOT). */
export function declarationOf(kind: "valid" | "invalid", name: string): string {
  const dir = path.join("fixtures", kind, name);
  for (const candidate of ["declaration.yaml", "declaration.yml", "declaration.json"]) {
    if (existsSync(path.join(ROOT, dir, candidate))) return path.join(dir, candidate);
  }
  // An invalid case may name its input in input.txt (a missing file, a directory).
  const named = path.join(ROOT, dir, "input.txt");
  if (existsSync(named)) return path.join(dir, readFileSync(named, "utf8").trim());
  throw new Error(`no declaration in ${dir}`);
}

/** Compare text with a golden file, or rewrite the golden when updating. */
export function expectGolden(actual: string, goldenPath: string): void {
  const file = path.join(ROOT, goldenPath);
  if (UPDATING) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  expect(existsSync(file), `golden ${goldenPath} is missing: run npm run test:update`).toBe(true);
  expect(actual).toBe(readFileSync(file, "utf8"));
}

/** Run the CLI in-process from the repository root, with real files and captured output. */
export async function runCli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const real = nodeHost();
  let stdout = "";
  let stderr = "";
  const host: Host = {
    ...real,
    cwd: ROOT,
    colour: false,
    readFile: (file) => real.readFile(path.resolve(ROOT, file)),
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
  };
  const code = await main(argv, host);
  return { code, stdout, stderr };
}
