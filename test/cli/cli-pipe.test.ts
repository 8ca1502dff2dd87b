// A reader that stops early (`codegen openapi api.yaml | head -1`) closes the pipe codegen writes
// to: the command ends quietly (exit code 0, nothing on stderr), not with an EPIPE stack trace.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error: the benchmark's generator is plain JavaScript.
import { declarationText } from "../../bench/make-declarations.js";
import { ROOT } from "../support/fixtures.js";

const BIN = path.join(ROOT, "bin/codegen.js");
const scratch = mkdtempSync(path.join(tmpdir(), "codegen-pipe-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
// 100 resources: an OpenAPI document of megabytes, far more than a pipe holds, so a write does fail.
const large = path.join(scratch, "api.yaml");
writeFileSync(large, (declarationText as (size: number) => string)(100));

/** Run codegen with its stdout read until `bytes` arrived, then closed; its exit code and stderr. */
function readThenClose(args: string[], bytes: number): Promise<{ code: number | null; signal: string | null; stderr: string; read: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    let read = 0;
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on("data", (chunk: Buffer) => {
      read += chunk.length;
      if (read >= bytes) child.stdout.destroy();
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stderr, read }));
  });
}

describe("a closed stdout", () => {
  it.each([
    ["openapi", ["openapi", large]],
    ["openapi --format json", ["openapi", large, "--format", "json"]],
    ["--help", ["--help"]],
  ])(
    "ends `codegen %s` quietly",
    async (_name, args) => {
      const result = await readThenClose(args, 1);
      expect(result.stderr).toBe("");
      expect(result).toMatchObject({ code: 0, signal: null });
      expect(result.read).toBeGreaterThan(0);
    },
    60_000,
  );
});
