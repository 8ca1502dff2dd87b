#!/usr/bin/env node
// The linear-time pattern matcher's costs per KiB of text (issue 16): its worst case at the
// 1,000-instruction limit (random text that overflows the table of states), and patterns with a
// counter or lookarounds (run without the table, one pass per lookaround plus one). Medians of 5
// runs after a warm-up. Needs `npm run build` (it reads dist/runtime/pattern.gen.js).
//
//   node bench/patterns.mjs
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { compilePattern } = await import(path.join(ROOT, "dist/runtime/pattern.gen.js"));

let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const ab = (n) => Array.from({ length: n }, () => (random() < 0.5 ? "a" : "b")).join("");
const cases = [
  ["[ab]*a[ab]{400}c", ab(65536)],
  ["[ab]*a(?:[ab]{99}){10}c", ab(65536)],
  ["^[0-9a-z\\.\\-_]*(?!\\.)$", "abc-def_".repeat(131072)],
  ["^(?!(a|a)*$)(?=.*\\d).{8,4096}$", `${"a".repeat(1 << 20)}!`],
  ["^.{0,262144}$", "a".repeat(262144)],
];
for (const [pattern, text] of cases) {
  const matcher = compilePattern(pattern);
  matcher.test(text.slice(0, 4096));
  const times = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    matcher.test(text);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const kib = text.length / 1024;
  console.log(`${pattern} on ${kib.toFixed(0)} KiB: ${((times[2] / kib) * 1000).toFixed(1)} µs per KiB`);
}
