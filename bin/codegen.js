#!/usr/bin/env node
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";

const BUNDLE = fileURLToPath(new URL("../dist/codegen.cjs", import.meta.url));
const CACHE = `${BUNDLE}.cache`;

/**
 * dist/ as one file (scripts/bundle.js), compiled with V8's code cache when it is there and was
 * made by this Node (V8 refuses a cache of another version, and then compiles as usual).
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
