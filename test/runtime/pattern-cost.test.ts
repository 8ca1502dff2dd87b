// What a text costs the pattern matcher (runtime/pattern.gen.ts), counted rather than timed: the
// steps its automata take (a code point read by a DFA is one, an instruction visited is one) and
// its passes over the text. Whatever the pattern the generator takes and whatever the text's
// alphabet, a code point costs a bounded number of steps: lookaheads of the password rule's
// `(?=.*X)` family are read in one pass together, a DFA's table is keyed by classes of code points
// (250,000 distinct ones cost what one does), a DFA that outgrows its table is counted instead,
// and a pattern that would still cost too much is refused at generation, at its place.

import { describe, expect, it } from "vitest";
import { generate } from "../../src/index.js";
import { LOOK_LIMIT, SLOW_STEPS_LIMIT, compilePattern, linearPatternProblem } from "../../runtime/pattern.gen.js";
import type { LinearPattern } from "../../runtime/pattern.gen.js";
import { ROOT } from "../support/fixtures.js";

type Counted = LinearPattern & { readonly work: number; readonly passes: number };
const counted = (pattern: string): Counted => compilePattern(pattern) as Counted;

const PASSWORD = "^(?=.*[a-z])(?=.*[A-Z])(?=.*\\d)(?=.*[@$!%*?&])[A-Za-z\\d@$!%*?&]{8,}$";

/** `count` distinct code points from U+00A1 on (surrogates, white space, `<` and `>` aside), each once: about 440,000 units for 250,000. */
function distinct(count: number): string {
  const points: string[] = [];
  for (let codePoint = 0xa1; points.length < count; codePoint++) {
    const char = String.fromCodePoint(codePoint);
    if ((codePoint < 0xd800 || codePoint > 0xdfff) && !/[\s<>]/u.test(char)) points.push(char);
  }
  return points.join("");
}

let seed = 11;
/** `length` code points drawn from `alphabet` (a fixed seed). */
function drawn(alphabet: string, length: number): string {
  const chars = [...alphabet];
  let text = "";
  for (let i = 0; i < length; i++) text += chars[(seed = (seed * 1103515245 + 12345) % 2147483648) % chars.length];
  return text;
}

const codePoints = (text: string): number => [...text].length;
const WIDE = distinct(250_000);
const HALF = distinct(125_000);
const OWN = `aA1@${drawn("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@$!%*?&", 200_000)}`;

/**
 * Patterns and texts, with the DFAs that read each code point (the pattern's and its lookarounds')
 * and the passes a text takes. What a code point costs beyond its steps is a DFA's states made
 * once (SETUP, whatever the text's length or alphabet).
 */
const CASES: [pattern: string, text: string, half: string, dfas: number, passes: number][] = [
  [PASSWORD, OWN, OWN.slice(0, 100_000), 5, 2],
  [PASSWORD, `aA1@${WIDE}`, `aA1@${HALF}`, 5, 2],
  ["^[^<>]*$", WIDE, HALF, 1, 1],
  ["^\\S+$", WIDE, HALF, 1, 1],
  ["^[\\p{L}\\p{N}\\p{P}\\p{S}\\p{M}\\P{Cc}]+$", WIDE, HALF, 1, 1],
  ["^(?!.*<script)(?=.*\\p{Lu})(?<!\\s)\\P{Cc}{1,}$", WIDE, HALF, 4, 3],
];
const SETUP = 20_000;

describe("the matcher's work on a text", () => {
  it.each(CASES)("is bounded per code point for %s, whatever the alphabet, and grows linearly", (pattern, text, half, dfas, passes) => {
    const native = new RegExp(pattern, "u");
    const whole = counted(pattern);
    expect(whole.test(text)).toBe(native.test(text));
    expect(whole.passes).toBe(passes);
    expect(whole.work).toBeLessThanOrEqual(dfas * codePoints(text) + SETUP);
    // Twice the text, twice the work (a fresh matcher each, so that neither reuses the other's states).
    const part = counted(pattern);
    expect(part.test(half)).toBe(native.test(half));
    expect(whole.work).toBeLessThanOrEqual((2 * part.work * codePoints(text)) / codePoints(half) / 2 + SETUP);
  });

  it("reads all the lookaheads of one direction in one pass", () => {
    // Eight lookaheads, one pass for them all and one for the pattern.
    const looks = Array.from({ length: 8 }, (_, i) => `(?=.*${String.fromCharCode(97 + i)})`).join("");
    const matcher = counted(`^${looks}[a-z]{8,64}$`);
    const text = `${drawn("abcdefghijklmnopqrstuvwxyz", 100_000)}abcdefgh`;
    expect(matcher.test(text)).toBe(false);
    expect(matcher.test(text.slice(-64))).toBe(true);
    expect(matcher.passes).toBe(4);
    expect(matcher.work).toBeLessThanOrEqual(9 * codePoints(text) + SETUP);
    // A lookahead reading another's answer is a pass after it.
    const nested = counted("^(?=.*(?=.*b)a)(?=.*c)");
    expect(nested.test("xaybc")).toBe(true);
    expect(nested.test("xbyac")).toBe(false);
    expect(nested.passes).toBe(2 * 3);
    // Twelve at one place: still one pass for them all, and the pattern's DFA (its context the
    // twelve answers at a position) still fits its table.
    const source = `^${Array.from({ length: 12 }, (_, i) => `(?=.*${String.fromCharCode(97 + i)})`).join("")}[a-z]+$`;
    expect(linearPatternProblem(source)).toBeUndefined();
    const most = counted(source);
    const all = `${drawn("abcdefghijklmnopqrstuvwxyz", 100_000)}abcdefghijkl`;
    expect(most.test(all)).toBe(true);
    expect(most.passes).toBe(2);
    expect(most.work).toBeLessThanOrEqual(13 * codePoints(all) + SETUP);
  });

  it("counts repetitions where a DFA outgrows its table, or reads on without one: a bounded number of steps per code point", () => {
    // Unanchored, `a.{30}` has 2^31 states (where the last 31 `a`s were); counted, 6 instructions.
    // `a[ab][ab]...c` has no repetition to count: it is read without a table, its 15 instructions
    // at most per code point. Each case's text reaches far more states than a table keeps.
    const cases: [pattern: string, steps: number][] = [
      ["a.{30}", 8],
      ["a[ab]{20}c", 8],
      ["(?<=a[ab]{20})c", 8],
      [`a${"[ab]".repeat(12)}c`, SLOW_STEPS_LIMIT + 1],
    ];
    for (const [pattern, steps] of cases) {
      expect(linearPatternProblem(pattern), pattern).toBeUndefined();
      const text = `${drawn("ab", 200_000)}`;
      const native = new RegExp(pattern, "u");
      const whole = counted(pattern);
      expect(whole.test(text), pattern).toBe(native.test(text));
      expect(whole.test(`${text}x`), pattern).toBe(native.test(`${text}x`));
      // The first text fills a table once (at most 4,096 states, each at most the program's size).
      expect(whole.work, pattern).toBeLessThanOrEqual(2 * steps * text.length + 4096 * 40);
    }
  });
});

describe("patterns refused at generation for their cost", () => {
  const refused: [pattern: string, reason: RegExp][] = [
    ["(?:a|b)*a(?:a|b){30}", /automaton too large to keep .* at \d+ steps per character \(at most 16\)/],
    ["(?:x|yz?)*x(?:x|y){12}$", /automaton too large to keep/],
    [`a${"[ab]".repeat(16)}c`, /automaton too large to keep .* at 19 steps per character/],
    [Array.from({ length: LOOK_LIMIT + 1 }, (_, i) => `(?=.*${i % 10})`).join(""), /more than 16 lookarounds/],
    [`^${Array.from({ length: LOOK_LIMIT }, (_, i) => `(?=.*${String.fromCharCode(97 + i)})`).join("")}[a-z]+$`, /more than about 12 lookarounds at one place/],
  ];
  it.each(refused)("refuses %s", (pattern, reason) => {
    expect(linearPatternProblem(pattern)).toMatch(reason);
  });

  it("takes what is linear with a small constant, counted or kept", () => {
    for (const pattern of [PASSWORD, "a[ab]{20}c", ".*a.{30}", "\\b\\w{30}\\b", "^[a-z]{1,64}(\\.[a-z]{1,64}){0,5}$", "(?:a|b)*a(?:a|b){3}"]) {
      expect(linearPatternProblem(pattern), pattern).toBeUndefined();
    }
  });

  it("is the located schema/unsafe-pattern diagnostic in a declaration", async () => {
    const yaml = `codegen: 1\ninfo: { title: T, version: "1" }\nresources:\n  words:\n    fields:\n      word: { type: string, pattern: "(?:a|b)*a(?:a|b){30}" }\n`;
    const result = await generate({ input: "api.yaml", text: yaml, cwd: ROOT, format: false });
    expect(result.diagnostics.map((d) => d.code)).toEqual(["schema/unsafe-pattern"]);
    const line = yaml.split("\n")[5]!;
    expect(result.diagnostics[0]!.location).toMatchObject({ file: "api.yaml", line: 6, column: line.indexOf('"(?:') + 1 });
    expect(result.diagnostics[0]!.message).toContain("steps per character");
  });
});
