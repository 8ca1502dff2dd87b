// The benchmark harness at its smallest (10 resources, one run, a second of load, no TypeSpec;
// the PostgreSQL rounds too, a second each, when PostgreSQL's binaries are installed),
// so that `npm run bench` cannot rot; the full benchmark never runs inside `npm test`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { postgresBinaries } from "./postgres/server.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const scratch = mkdtempSync(path.join(os.tmpdir(), "codegen-bench-smoke-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("npm run bench", () => {
  it("runs at 10 resources and prints every figure with its target", () => {
    const out = path.join(scratch, "result.json");
    const run = spawnSync(
      process.execPath,
      ["bench/run.mjs", "--quick", "--sizes", "10", "--load-seconds", "1", "--no-tsp", "--work", path.join(scratch, "work"), "--out", out],
      { cwd: ROOT, encoding: "utf8", timeout: 90_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    for (const figure of [
      "`codegen --version`",
      "blog fixture, full `codegen generate` into an empty folder",
      "blog fixture, full `codegen generate` / `node -e 0`",
      "blog fixture, `--watch` re-run after a one-field edit",
      "full `codegen generate`, 10 resources",
      "regeneration, nothing changed, 10 resources",
      "generated server, GET",
      "generated server, POST",
    ]) {
      expect(run.stdout).toContain(figure);
    }
    expect(run.stdout).toMatch(/\| (met|NOT MET) \|/);
    // Every target is printed beside the peer it is measured against.
    expect(run.stdout).toMatch(/\| `codegen --version` \| \d+ ms \| `node -e 0` \d+ ms \| <= 2x `node -e 0` \| (met|NOT MET) \|/);
    expect(run.stdout).toMatch(/\| blog fixture, `--watch` re-run after a one-field edit \| \d+ ms \|/);
    // Request validation's worst cases (bench/validation.mjs) print in the same run.
    expect(run.stdout).toMatch(/\| recursive oneOf, 20 deep, valid \| \d+ B \| [\d.]+ (µs|ms) \|/);
    const result = JSON.parse(readFileSync(out, "utf8")) as { rows: { figure: string; measured: string }[]; samples: Record<string, number[]> };
    expect(result.rows.length).toBeGreaterThan(5);
    expect(result.samples["server.get.generated.rps"]![0]).toBeGreaterThan(0);
    expect(result.samples["server.post.hand.rps"]![0]).toBeGreaterThan(0);
    // Each round's own ratio is the target's figure; each server's CPU per request is shown beside it (Linux).
    expect(run.stdout).toMatch(
      /\| generated server, GET .* \| \d+ req\/s; [\d.]+x \(median of 1 rounds' ratios\) \| hand-written \d+ req\/s \| >= 0\.9x \| (met|NOT MET) \|/,
    );
    expect(result.samples["server.get.ratio"]).toHaveLength(1);
    if (process.platform === "linux") {
      expect(run.stdout).toMatch(/\| {3}CPU per request, GET \| [\d.]+ µs \(hand-written's [\d.]+x\) \| hand-written [\d.]+ µs \|/);
      expect(result.samples["server.post.generated.cpu"]![0]).toBeGreaterThan(0);
    }
    // The PostgreSQL rounds: both servers measured on a real server, or the reason they were not.
    if (postgresBinaries() === undefined) expect(run.stdout).toMatch(/\| generated server on PostgreSQL \| skipped: PostgreSQL's binaries/);
    else {
      expect(run.stdout).toMatch(
        /\| generated server on PostgreSQL, GET .* \| \d+ req\/s; [\d.]+x \(median of 1 rounds' ratios\) \| hand-written node:http \+ pg \d+ req\/s \| >= 0\.9x \| (met|NOT MET) \|/,
      );
      expect(run.stdout).toMatch(
        /\| generated server on PostgreSQL, POST .* \| \d+ req\/s; [\d.]+x \(median of 1 rounds' ratios\) \| hand-written node:http \+ pg \d+ req\/s \| >= 0\.9x \| (met|NOT MET) \|/,
      );
      for (const key of ["pg.get.generated.rps", "pg.get.hand.rps", "pg.post.generated.rps", "pg.post.hand.rps"])
        expect(result.samples[key]![0], key).toBeGreaterThan(0);
    }
  }, 90_000);

  it("--no-server measures the generator's rows only: no server rounds, no validation bench", () => {
    const out = path.join(scratch, "no-server.json");
    const run = spawnSync(
      process.execPath,
      ["bench/run.mjs", "--quick", "--sizes", "10", "--no-tsp", "--no-server", "--work", path.join(scratch, "work-no-server"), "--out", out],
      { cwd: ROOT, encoding: "utf8", timeout: 90_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\| regeneration, nothing changed, 10 resources \| \d+ ms \(\d+% of full\) \|/);
    expect(run.stdout).toContain("| generated server | skipped (--no-server) |");
    expect(run.stdout).not.toContain("recursive oneOf");
    const result = JSON.parse(readFileSync(out, "utf8")) as { samples: Record<string, number[]> };
    expect(Object.keys(result.samples).filter((key) => key.startsWith("server.") || key.startsWith("pg."))).toEqual([]);
  }, 90_000);
});
