#!/usr/bin/env node
// Request validation's worst cases: the time to parse and validate a JSON body, per
// KiB, as the generated server does it (runtime/http.gen.ts parseJson, then
// runtime/validate.gen.ts), for a plain schema, the recursive oneOf expression of
// fixtures/openapi/validation at depths 5 to 40, and patterns on long strings; and, for contrast
// only, V8's own engine on `^(a+)+$` (what ran before), capped at 24 characters. Medians of
// repeated runs, all in one process. Needs `npm run build` (it generates with dist/).
//
//   node bench/validation.mjs [--quick] [--runs N]
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parse } from "yaml";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const runs = argv.includes("--runs") ? Number(argv[argv.indexOf("--runs") + 1]) : quick ? 3 : 9;
const DOCUMENT = "fixtures/openapi/validation/openapi.yaml";

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The generated runtime of the validation fixture, compiled to JavaScript in a scratch folder. */
async function compiledRuntime(dir) {
  const { generateFiles } = await import(pathToFileURL(path.join(root, "dist", "pipeline.js")).href);
  const { compileToJavaScript } = await import(pathToFileURL(path.join(root, "dist", "serve", "compile.js")).href);
  const text = readFileSync(path.join(root, DOCUMENT), "utf8");
  const result = await generateFiles({ cwd: root }, DOCUMENT, text, { outDir: "generated", format: false, allowUnsafePatterns: true });
  if (!result.value) throw new Error(result.diagnostics.map((d) => d.message).join("\n"));
  for (const file of await compileToJavaScript(result.value)) {
    mkdirSync(path.dirname(path.join(dir, file.path)), { recursive: true });
    writeFileSync(path.join(dir, file.path), file.contents);
  }
  const load = (name) => import(pathToFileURL(path.join(dir, "runtime", name)).href);
  return { ...(await load("http.gen.js")), ...(await load("validate.gen.js")), ...(await load("pattern.gen.js")) };
}

/** Median milliseconds of `work()` over `runs` batches (each long enough to time). */
function timed(work) {
  const started = performance.now();
  work();
  const once = performance.now() - started;
  const repeat = Math.max(1, Math.min(10_000, Math.ceil(20 / Math.max(once, 1e-3))));
  const times = [];
  for (let run = 0; run < runs; run++) {
    const t = performance.now();
    for (let i = 0; i < repeat; i++) work();
    times.push((performance.now() - t) / repeat);
  }
  return median(times);
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "codegen-bench-validation-"));
  try {
    const runtime = await compiledRuntime(dir);
    const { schemaNode } = await import(pathToFileURL(path.join(root, "dist", "compile", "api", "schema-code.js")).href);
    const schemas = parse(readFileSync(path.join(root, DOCUMENT), "utf8")).components.schemas;
    const table = Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, schemaNode(schema)]));
    const rows = [];

    /** Parse and validate `body` against `node` as the server does; the row gives its time per KiB. */
    const body = (name, node, text, expectValid) => {
      const bytes = Buffer.from(text);
      const judge = () => {
        const parsed = runtime.parseJson(bytes);
        if (!parsed.ok) return false;
        return runtime.validateValue(node, parsed.value, "", {}, table);
      };
      if (judge() !== expectValid) throw new Error(`${name}: expected ${expectValid ? "valid" : "invalid"}`);
      const ms = timed(judge);
      rows.push({ name, bytes: bytes.length, ms });
    };

    // A plain schema: an order with typed, bounded and formatted fields, alone and 1,000 in an array.
    const order = {
      type: "object",
      required: ["name", "quantity"],
      additionalProperties: false,
      properties: {
        name: { type: "string", minLength: 1, maxLength: 100 },
        quantity: { type: "integer", minimum: 1 },
        price: { type: "number", minimum: 0 },
        email: { type: "string", format: "email" },
        tags: { type: "array", maxItems: 10, items: { type: "string", pattern: "^[a-z0-9-]+$" } },
      },
    };
    const one = { name: "Widget", quantity: 3, price: 9.5, email: "ann@example.com", tags: ["a-1", "blue", "sale"] };
    body("plain schema, one object", schemaNode(order), JSON.stringify(one), true);
    body("plain schema, 1,000 objects", schemaNode({ type: "array", items: order }), JSON.stringify(Array(1000).fill(one)), true);
    body(
      "plain schema, 1,000 objects, each invalid",
      schemaNode({ type: "array", items: order }),
      JSON.stringify(Array(1000).fill({ ...one, quantity: 0, tags: ["A"] })),
      false,
    );

    // The recursive oneOf (Expr: Sum | Product | number), valid, and invalid at its deepest level.
    const expression = (depth, leaf) => (depth === 0 ? leaf : { op: depth % 2 ? "add" : "mul", args: [expression(depth - 1, leaf), 2] });
    for (const depth of [5, 10, 20, 40]) {
      body(`recursive oneOf, ${depth} deep, valid`, { ref: "Expr" }, JSON.stringify(expression(depth, 1)), true);
      body(`recursive oneOf, ${depth} deep, invalid at the bottom`, { ref: "Expr" }, JSON.stringify(expression(depth, "x")), false);
    }

    // Patterns on long strings (the body is one string): a safe one, `^(a+)+$` and the linear
    // matcher's worst case, an unanchored counted repetition with 64 states alive per character.
    const string = (pattern) => schemaNode({ type: "string", pattern });
    for (const kib of [1, 64, 1024]) {
      const n = kib * 1024 - 3;
      body(`pattern ^[a-z0-9-]+$, ${kib} KiB string`, string("^[a-z0-9-]+$"), JSON.stringify("a".repeat(n)), true);
      body(`pattern ^(a+)+$, ${kib} KiB of a and a !`, string("^(a+)+$"), JSON.stringify(`${"a".repeat(n - 1)}!`), false);
      if (!quick || kib < 1024)
        body(`pattern [a-z]{1,64}X, ${kib} KiB (64 states per character)`, string("[a-z]{1,64}X"), JSON.stringify("a".repeat(n)), false);
    }
    // The matcher's worst case: an ambiguous pattern with 400 states alive per character, whose
    // automaton has 2^400 states, on a text that visits a new one at each character (so none is kept).
    let seed = 7;
    const ab = Array.from({ length: 64 * 1024 - 2 }, () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 1024 ? "a" : "b")).join("");
    body("pattern [ab]*a[ab]{400}c, 64 KiB of random a and b (worst case)", string("[ab]*a[ab]{400}c"), JSON.stringify(ab), false);
    // The depth check alone: a 1 MiB body of numbers in arrays 100 deep, refused as too deep.
    rows.push({
      name: "depth scan, 1 MiB, refused at level 129",
      bytes: 1 << 20,
      ms: timed(() => runtime.parseJson(Buffer.from(`${"[".repeat(200)}${"1,".repeat((1 << 19) - 200)}1${"]".repeat(200)}`))),
    });

    // For contrast only: V8's engine on ^(a+)+$ (what ran before, and what --allow-unsafe-patterns
    // runs a lookaround on), capped at 24 characters; each one more doubles the time.
    const contrast = [];
    const [native, linear] = [new RegExp("^(a+)+$", "u"), runtime.compilePattern("^(a+)+$")];
    for (const n of quick ? [16, 20] : [16, 18, 20, 22, 24]) {
      const text = `${"a".repeat(n)}!`;
      contrast.push({ n, native: timed(() => native.test(text)), linear: timed(() => linear.test(text)) });
    }

    const perKiB = (row) => `${((row.ms * 1000) / (row.bytes / 1024)).toFixed(1)} µs/KiB`;
    const size = (bytes) => (bytes >= 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MiB` : bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes} B`);
    const time = (ms) => (ms >= 1 ? `${ms.toFixed(1)} ms` : `${(ms * 1000).toFixed(1)} µs`);
    const report = [
      "| request validation (parse + validate) | body | median | per KiB |",
      "|---|---|---|---|",
      ...rows.map((row) => `| ${row.name} | ${size(row.bytes)} | ${time(row.ms)} | ${perKiB(row)} |`),
      "",
      "| `^(a+)+$` on n a and a ! | V8's engine (before; opted-in lookarounds) | linear matcher |",
      "|---|---|---|",
      ...contrast.map((c) => `| n = ${c.n} | ${time(c.native)} | ${time(c.linear)} |`),
    ].join("\n");
    process.stdout.write(
      `\n${report}\n\nNode ${process.version}, ${os.availableParallelism()} cores; medians of ${runs} runs; node bench/validation.mjs ${argv.join(" ")}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
