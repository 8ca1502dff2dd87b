#!/usr/bin/env node
// What the linear-time pattern matcher costs on 1 MiB texts (UTF-16 units), medians of the CPU
// time of 5 runs after a warm-up: the common password rule (four lookaheads), classes read on 250,000 distinct
// code points (a DFA keyed by code point would outgrow its table), patterns whose DFA is too large
// to keep and is read without one (the most the generator takes, SLOW_STEPS_LIMIT), and a counter.
// The baseline is JSON.parse of the same text as a body ({"f": text}): what any request carrying
// it costs, a field without a pattern. Each case runs once to warm up. Needs `npm run build` (it reads dist/runtime/pattern.gen.js).
// With --before <file>, an older build of the matcher (an ES module) is timed beside it, text by text.
//
//   node bench/patterns.mjs [--before /tmp/old/pattern.js]
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const after = await import(path.join(ROOT, "dist/runtime/pattern.gen.js"));
const beforeAt = process.argv.indexOf("--before");
const before = beforeAt > 0 ? await import(pathToFileURL(path.resolve(process.argv[beforeAt + 1])).href) : undefined;

const LENGTH = 1 << 20;
let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const of = (alphabet) => {
  let text = "";
  while (text.length < LENGTH) text += alphabet[Math.floor(random() * alphabet.length)];
  return text;
};
/** 250,000 distinct code points from U+00A1 on (surrogates, white space, `<` and `>` aside), each once, then again. */
const distinct = (() => {
  const points = [];
  for (let codePoint = 0xa1; points.length < 250_000; codePoint++) {
    const char = String.fromCodePoint(codePoint);
    if ((codePoint < 0xd800 || codePoint > 0xdfff) && !/\s/u.test(char)) points.push(char);
  }
  let text = points.join("");
  while (text.length < LENGTH) text += text;
  // Cut between code points, never inside a pair.
  const cut = /[\ud800-\udbff]/.test(text[LENGTH - 1]) ? LENGTH - 1 : LENGTH;
  return text.slice(0, cut);
})();
const password = "^(?=.*[a-z])(?=.*[A-Z])(?=.*\\d)(?=.*[@$!%*?&])[A-Za-z\\d@$!%*?&]{8,}$";
const passwordText = `aA1@${of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@$!%*?&").slice(4)}`;

const cases = [
  [password, passwordText, "its own characters"],
  [password, distinct, "250,000 distinct code points"],
  ["^[^<>]*$", distinct, "250,000 distinct code points"],
  ["^\\S+$", distinct, "250,000 distinct code points"],
  ["^[\\p{L}\\p{N}\\p{P}\\p{S}\\p{M}\\P{Cc}]+$", distinct, "250,000 distinct code points"],
  ["a[ab]{20}c", of("ab"), "a and b at random (a DFA outgrown: counted)"],
  [`a${"[ab]".repeat(12)}c`, of("ab"), "a and b at random (a DFA outgrown: no table)"],
  ["^(?!(a|a)*$)(?=.*\\d).{8,4096}$", `${"a".repeat(LENGTH - 1)}!`, "a counter and lookaheads"],
];

/** The median CPU time of 5 runs (ms; user and system, so that other processes on the machine count less). */
function median(matcher, text) {
  matcher.test(text);
  const times = [];
  for (let i = 0; i < 5; i++) {
    const started = process.cpuUsage();
    matcher.test(text);
    const { user, system } = process.cpuUsage(started);
    times.push((user + system) / 1000);
  }
  return times.sort((a, b) => a - b)[2];
}

const body = JSON.stringify({ f: distinct });
const parse = { test: (text) => JSON.parse(text) !== null };
console.log(`baseline: JSON.parse of a ${(body.length / 1024).toFixed(0)} KiB body, a field without a pattern: ${median(parse, body).toFixed(1)} ms`);
for (const [pattern, text, what] of cases) {
  const now = median(after.compilePattern(pattern), text);
  const then = before ? ` (before: ${median(before.compilePattern(pattern), text).toFixed(1)} ms)` : "";
  console.log(`${pattern} on ${(text.length / 1024).toFixed(0)} KiB of ${what}: ${now.toFixed(1)} ms${then}`);
}
