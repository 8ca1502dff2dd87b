#!/usr/bin/env node
// The real-document sweep: every document of the corpus (fixtures/openapi-corpus/documents.json) is
// generated with the built codegen (dist/), the generated trees are type-checked in one tsc
// program, and the figures are printed. `npm run sweep:corpus` (builds first); `--sample` takes
// the CI sample only; `--out FILE` writes each document's outcome as JSON; `--final` also
// generates each document formatted and compares every file the run laid out itself (it skipped
// prettier) with prettier.format of it (`finalDiffersFromPrettier`: each must be 0).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The pinned corpus; the CI sample (test/compile/openapi/corpus.test.ts) is every fourth document and every 2.0 one. */
const corpus = (sample) =>
  JSON.parse(readFileSync(path.join(ROOT, "fixtures/openapi-corpus/documents.json"), "utf8"))
    .filter((d, i) => !sample || i % 4 === 0 || d.version === "2.0")
    .map((d) => ({ ...d, file: path.join(ROOT, d.file) }));

const sample = process.argv.includes("--sample");
const outAt = process.argv.indexOf("--out");
const checkFinal = process.argv.includes("--final");
const { generateFiles } = await import(path.join(ROOT, "dist/pipeline.js"));
const { nodeHost } = await import(path.join(ROOT, "dist/host.js"));
// Why loaded only for --final: the module of the formatter's options is gone from dist/ since the
// compile/emit split, and the plain sweep (the figures) needs none of it.
const { PRETTIER_OPTIONS, filepathFor } = checkFinal ? await import(path.join(ROOT, "dist/format/format.js")) : {};

/**
 * The paths of the files of one document, generated formatted, that skipped prettier (a .ts file
 * outside runtime/ the run recorded no formatting key for) and that prettier would change.
 */
async function finalDiffering(file, text, outDir) {
  const prettier = await import("prettier");
  const result = await generateFiles({ ...nodeHost(), cwd: ROOT }, file, text, { outDir });
  const differing = [];
  for (const generated of result.value ?? []) {
    if (!generated.path.endsWith(".ts") || generated.path.startsWith("runtime/") || result.renderedKeys?.has(generated.path)) continue;
    const options = { ...PRETTIER_OPTIONS, filepath: filepathFor(generated.path, generated.contents) };
    if ((await prettier.format(generated.contents, options)) !== generated.contents) differing.push(generated.path);
  }
  return differing;
}

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-sweep-"));
const outcomes = {};
const started = performance.now();
for (const { name, file, version } of corpus(sample)) {
  const outDir = path.join(scratch, name.replace(/[^a-zA-Z0-9]/g, "_"));
  const t = performance.now();
  let outcome;
  try {
    const result = await generateFiles({ ...nodeHost(), cwd: ROOT }, file, readFileSync(file, "utf8"), { outDir, format: false });
    if (result.value) {
      for (const generated of result.value) {
        mkdirSync(path.dirname(path.join(outDir, generated.path)), { recursive: true });
        writeFileSync(path.join(outDir, generated.path), generated.contents);
      }
      outcome = { version, outcome: "generates", warnings: result.diagnostics.length };
      if (checkFinal) outcome.finalDiffers = await finalDiffering(file, readFileSync(file, "utf8"), outDir);
    } else {
      const codes = [...new Set(result.diagnostics.map((d) => d.code))];
      const unlocated = result.diagnostics.filter((d) => !(d.location?.line > 0)).length;
      outcome = { version, outcome: "refused", codes, unlocated, first: result.diagnostics[0]?.message.slice(0, 200) };
    }
  } catch (error) {
    outcome = { version, outcome: "crash", message: String(error?.stack ?? error).slice(0, 500) };
  }
  outcome.ms = Math.round(performance.now() - t);
  outcomes[name] = outcome;
  process.stderr.write(`${outcome.outcome.padEnd(9)} ${String(outcome.ms).padStart(6)} ms ${name}\n`);
}

// One tsc program for every generated tree; the errors are attributed to their trees.
const config = JSON.parse(readFileSync(path.join(ROOT, "test/support/tsconfig.generated.json"), "utf8"));
const compilerOptions = { ...config.compilerOptions, skipLibCheck: true, typeRoots: [path.join(ROOT, "node_modules/@types")] };
writeFileSync(path.join(scratch, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["**/*.ts"] }));
writeFileSync(path.join(scratch, "package.json"), JSON.stringify({ type: "module" }));
let tscOutput = "";
try {
  execFileSync(path.join(ROOT, "node_modules/.bin/tsc"), ["-p", path.join(scratch, "tsconfig.json")], {
    cwd: scratch,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
} catch (error) {
  tscOutput = String(error.stdout);
  // Why: a tsc that died (out of memory, a signal) reported nothing, and no tree may then count as compiling.
  if (error.status !== 1 && error.status !== 2) {
    throw new Error(`tsc did not finish (status ${String(error.status)}, signal ${String(error.signal)}): ${String(error.stderr).slice(0, 300)}`);
  }
}
for (const [name, outcome] of Object.entries(outcomes)) {
  const dir = name.replace(/[^a-zA-Z0-9]/g, "_") + "/";
  const errors = tscOutput.split("\n").filter((line) => line.startsWith(dir));
  if (outcome.outcome === "generates") outcome.compiles = errors.length === 0;
  if (errors.length > 0) outcome.tsc = errors.slice(0, 3);
}

const all = Object.values(outcomes);
const count = (f) => all.filter(f).length;
const figures = {
  documents: all.length,
  byVersion: Object.fromEntries(["2.0", "3.0", "3.1"].map((v) => [v, count((o) => o.version === v)])),
  compiles: count((o) => o.compiles === true),
  generatesButDoesNotCompile: count((o) => o.outcome === "generates" && o.compiles === false),
  refused: count((o) => o.outcome === "refused"),
  refusedWithUnlocatedDiagnostics: count((o) => o.outcome === "refused" && o.unlocated > 0),
  crashes: count((o) => o.outcome === "crash"),
  ...(checkFinal ? { finalDiffersFromPrettier: all.reduce((n, o) => n + (o.finalDiffers?.length ?? 0), 0) } : {}),
  seconds: Math.round((performance.now() - started) / 1000),
};
console.log(JSON.stringify(figures, null, 2));
if (outAt > 0) writeFileSync(process.argv[outAt + 1], JSON.stringify({ figures, outcomes }, null, 2) + "\n");
rmSync(scratch, { recursive: true, force: true });
