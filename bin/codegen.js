#!/usr/bin/env node
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import vm from "node:vm";

// Why (issue 14): V8 compiles a function with its optimizing compiler (TurboFan, on background
// threads) once it has run a while. A run of codegen lasts about a second: at 100 resources those
// compiles took some 400 ms of CPU beside the main thread's 600, and on a machine of 2 cores they
// take it from the main thread. With four times V8's default budget (67,584) fewer functions are
// compiled, those that run longest: `generate` of 100 resources 0.70 -> 0.65 s, of 1000 resources
// 3.97 -> 3.59 s (median wall time, quiet 2-core machine; README, Performance). Set before the
// bundle is compiled, so its code cache is made and read under the same flags.
setFlagsFromString("--interrupt-budget=270336");

const BUNDLE = fileURLToPath(new URL("../dist/codegen.cjs", import.meta.url));
const CACHE = `${BUNDLE}.cache`;

/**
 * dist/ as one file (scripts/bundle.js), compiled with V8's code cache when it is there and was
 * made by this Node (V8 refuses a cache of another version or flags, and then compiles as usual).
 */
function loadBundle() {
  let cachedData;
  try {
    cachedData = readFileSync(CACHE);
  } catch {
    // No cache: compiled from the source.
  }
  // CommonJS's wrapper, and `__codegenImport`: this module's import() (scripts/bundle.js).
  const source = `(function (exports, require, module, __filename, __dirname, __codegenImport) {${readFileSync(BUNDLE, "utf8")}\n})`;
  const script = new vm.Script(source, { filename: BUNDLE, cachedData });
  // The build's warm-up run writes the cache with what it compiled (scripts/bundle.js).
  if (process.env.CODEGEN_WRITE_CODE_CACHE === "1") process.once("exit", () => writeFileSync(CACHE, script.createCachedData()));
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, createRequire(BUNDLE), module, BUNDLE, path.dirname(BUNDLE), (specifier) => import(specifier));
  return module.exports;
}

// Why: a reader that stops early (`codegen openapi api.yaml | head`) closes the pipe; the next
// write fails with EPIPE, which Node raises as an unhandled error with a stack trace. A command
// whose output nobody reads any more ends quietly instead, as `cat` does (exit code 0).
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}

/**
 * Whether the bundle is there and not older than dist/ (a contributor's `tsc` or `tsc --watch`
 * after the last `npm run build` rewrites dist/cli.js: a stale bundle would run yesterday's code).
 * An installed package's files all carry one date, so its bundle is used.
 */
function bundleIsCurrent() {
  try {
    return statSync(BUNDLE).mtimeMs >= statSync(fileURLToPath(new URL("../dist/cli.js", import.meta.url))).mtimeMs;
  } catch {
    return false;
  }
}

// Without a current bundle (a build by tsc alone), or with CODEGEN_UNBUNDLED=1 (the tests that
// compare both, or look at which modules a command loaded), the modules of dist/ as they are.
const bundled = process.env.CODEGEN_UNBUNDLED !== "1" && bundleIsCurrent();
const { main, nodeHost } = bundled ? loadBundle() : { ...(await import("../dist/cli.js")), ...(await import("../dist/host.js")) };
process.exitCode = await main(process.argv.slice(2), nodeHost());
