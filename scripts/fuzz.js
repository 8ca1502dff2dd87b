#!/usr/bin/env node
// The longer fuzz run: the properties of test/fuzz/ (random valid declarations that
// must generate and compile, mutated declarations that must give diagnostics and never an
// internal error, the generated validator against ajv) with SCALE times the runs of npm test.
//
//   node scripts/fuzz.js [SCALE] [--seed N]     (default SCALE 20: about 6,000 values per schema)
//
// Bounded: every property has a fixed number of runs and vitest a time limit per test; a failure
// prints fast-check's seed and path, which `--seed` replays.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const seedAt = args.indexOf("--seed");
const seed = seedAt === -1 ? String(Date.now() % 2 ** 31) : args[seedAt + 1];
const scale = args.find((a, i) => /^\d+$/.test(a) && (seedAt === -1 || i !== seedAt + 1)) ?? "20";

console.log(`fuzz: scale ${scale}, seed ${seed}`);
const started = Date.now();
const run = spawnSync(process.execPath, [path.join(root, "node_modules/vitest/vitest.mjs"), "run", "test/fuzz"], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, FUZZ_SCALE: scale, FUZZ_SEED: seed },
});
console.log(`fuzz: ${run.status === 0 ? "passed" : "FAILED"} in ${Math.round((Date.now() - started) / 1000)} s (scale ${scale}, seed ${seed})`);
process.exit(run.status ?? 1);
