#!/usr/bin/env node
// Rewrites every golden file by running the test suite in update mode. Refused in CI, where a
// golden must only ever be compared, never written.
import { spawnSync } from "node:child_process";

if (process.env.CI) {
  console.error("test:update rewrites golden files and is refused when CI is set.");
  process.exit(2);
}
const result = spawnSync("npx", ["vitest", "run", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, UPDATE_GOLDENS: "1" },
});
process.exit(result.status ?? 1);
