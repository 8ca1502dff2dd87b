// The `pattern` keyword is matched by a linear
// automaton (runtime/pattern.gen.ts), never by V8's backtracking engine. It answers as RegExp's
// test() with the `u` flag on every pattern it takes (a table, then random patterns and texts),
// refuses what it cannot match in linear time, and reads a hostile text in bounded work.

import { Worker } from "node:worker_threads";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PATTERN_LIMIT, REPEAT_LIMIT, compilePattern, linearPatternProblem } from "../../runtime/pattern.gen.js";
import type { LinearPattern } from "../../runtime/pattern.gen.js";

/** Patterns and texts where V8's engine and an automaton could part ways. */
const TABLE: [pattern: string, texts: string[]][] = [
  ["^[a-z]+$", ["", "abc", "abC", "a\n"]],
  ["^\\d{3}-\\d{4}$", ["555-1234", "555-123", "5555-1234", "٣٣٣-١٢٣٤"]],
  ["^(a+)+$", ["a", "aaaa", "aaaa!", ""]],
  ["(a|a)*b", ["aaab", "aaa", "b"]],
  ["a\\w+b", ["xaxxbx", "ab", "a b"]],
  ["^$", ["", "a"]],
  ["", ["", "x"]],
  ["^(?:[a-z0-9]+(?:-[a-z0-9]+)*)$", ["my-slug", "my--slug", "-x", "x-"]],
  ["^\\p{L}+$", ["héllo", "日本", "a1"]],
  ["^\\P{L}$", ["1", "a"]],
  ["^.$", ["a", "😀", "\n", "\r", "\u2028", "ab"]],
  ["^😀{2}$", ["😀😀", "😀", "\ud83d\ude00\ud83d"]],
  ["^[😀-😂]$", ["😁", "😃"]],
  ["^\\u{1F600}$", ["😀", "u"]],
  ["^\\ud83d\\ude00$", ["😀", "\ud83d"]],
  ["^\\u0041\\u0042$", ["AB", "A"]],
  ["^\\x41\\u0042\\cJ$", ["AB\n", "AB"]],
  ["^[\\]\\-\\\\]+$", ["]-\\", "a"]],
  ["^[^\\s]*$", ["abc", "a b"]],
  ["\\bword\\b", ["a word.", "swordfish", "word"]],
  ["\\Bor\\B", ["word", "or"]],
  ["^a{2,3}$", ["a", "aa", "aaa", "aaaa"]],
  ["^a{2,}$", ["a", "aa", "aaaaaa"]],
  ["^(ab){0,2}c$", ["c", "abc", "ababc", "abababc"]],
  ["^a*?b+?$", ["aab", "abb", "ba"]],
  ["^(?<year>\\d{4})-(\\d{2})$", ["2024-01", "2024-1"]],
  ["^(|a)+$", ["", "aaa", "b"]],
  ["^(a*)*$", ["", "aaa", "ab"]],
  ["x|^y$|z$", ["ax", "y", "ay", "az", "za"]],
  ["^\\0$", ["\0", "0"]],
  ["^\\/\\.\\*$", ["/.*", "/a"]],
  ["^[\\d\\-]{1,3}$", ["1-2", "12345"]],
  // Lookarounds (AWS, Azure) and repetitions counted past what is spelled out.
  ["^[0-9a-z\\.\\-_]*(?!\\.)$", ["abc", "abc.", "", "a.b"]],
  ["^(?!aws:)[a-zA-Z+-=._:/]+$", ["aws:x", "awsx", "x"]],
  ["(?=[/\\.\\-_A-Za-z0-9]+)((?!aws\\.).*)|(\\$(\\.[\\w/_-]+(\\[(\\d+|\\*)\\])*)*)", ["aws.x", "x", "", "$.a[1]", "aws."]],
  [
    "^(?=.*[a-z])(?=.*[A-Z])(?=.*[!@#$%\\^&\\*\\(\\)])[a-zA-Z\\d!@#$%\\^&\\*\\(\\)]{12,123}$",
    ["aaaaaaaaaaaA!", "aaaaaaaaaaaa!", "aA!", `A!${"a".repeat(122)}`],
  ],
  ["(?<=\\$)\\d+", ["$1", "1", "a$"]],
  ["(?<!-)\\d+$", ["-1", "1", "-12"]],
  ["^(?=(?!a)b)b$", ["b", "a"]],
  ["(?<=(?<!x)a)b", ["ab", "xab", "b"]],
  ["(?<=^|,)x(?=,|$)", ["x", "a,x", "ax", "x,", "xa"]],
  ["(?<=😀)a(?=😀)", ["😀a😀", "a😀", "\ude00a\ud83d"]],
  ["\\b(?=\\w)", ["", " ", "a"]],
  ["^.{0,262144}$", ["", "abc", "a".repeat(262_144), "a".repeat(262_145), "😀".repeat(262_144)]],
  ['["][ -~]{1000}["]', [`"${"x".repeat(1000)}"`, `"${"x".repeat(999)}"`, `""${"x".repeat(1000)}"`]],
  ["^[A-Za-z0-9][A-Za-z0-9:_/+=,@.-]{0,2048}$", ["a", "a".repeat(2049), "a".repeat(2050), "a b"]],
  ["^a{2,200}b$", ["aab", "ab", `${"a".repeat(200)}b`, `${"a".repeat(201)}b`]],
  ["^(?:a{150}|b)*$", ["", "a".repeat(300), "a".repeat(301), `${"a".repeat(150)}b${"a".repeat(150)}`]],
  ["a{101,}$", ["a".repeat(100), "a".repeat(101), `b${"a".repeat(500)}`]],
  ["^\\S+@\\S+\\.\\S+$", ["a@b.c", "a@b", "a b@c.d"]],
];

/**
 * The oracle's code, run in a worker: RegExp's answer (0 no match, 1 a match, 2 no answer: with
 * the `u` flag, V8 may start a match of assertions alone (`\\B`) inside a surrogate pair, where
 * ECMA-262 never tries one).
 */
const ORACLE_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const cell = new Int32Array(workerData);
parentPort.on("message", ({ pattern, text }) => {
  const found = new RegExp(pattern, "u").exec(text);
  const inPair = found !== null && found.index > 0 && /[\\ud800-\\udbff]/.test(text[found.index - 1]) && /[\\udc00-\\udfff]/.test(text[found.index] ?? "");
  Atomics.store(cell, 1, found === null ? 0 : inPair ? 2 : 1);
  Atomics.store(cell, 0, 1);
  Atomics.notify(cell, 0);
});
Atomics.store(cell, 0, 1);
Atomics.notify(cell, 0);
`;

/** How long V8 may take for one pattern and text before the case is left out (ms). */
const ORACLE_BUDGET_MS = 2000;

/**
 * V8's RegExp as the oracle, in a worker the test waits for with a time budget. Why: V8 backtracks,
 * and a random pattern such as `((a{0,150})*)*` on a few hundred letters can keep it busy for
 * hours, synchronously, where no test timeout can stop it (a CI run hung so). Past the budget the
 * worker is terminated (V8 interrupts a running RegExp) and a fresh one is started.
 */
class NativeOracle {
  private readonly cell = new Int32Array(new SharedArrayBuffer(8));
  private worker: Worker | undefined;
  /** Cases V8 did not answer within the budget. */
  timedOut = 0;
  /** Cases asked. */
  asked = 0;

  private ready(): Worker {
    if (this.worker) return this.worker;
    Atomics.store(this.cell, 0, 0);
    const worker = new Worker(ORACLE_WORKER, { eval: true, workerData: this.cell.buffer });
    worker.unref();
    if (Atomics.wait(this.cell, 0, 0, 30_000) === "timed-out") throw new Error("the RegExp oracle's worker did not start");
    return (this.worker = worker);
  }

  /** RegExp's answer, or undefined where V8 strays from ECMA-262 or takes too long. */
  test(pattern: string, text: string): boolean | undefined {
    const worker = this.ready();
    this.asked++;
    Atomics.store(this.cell, 0, 0);
    worker.postMessage({ pattern, text });
    if (Atomics.wait(this.cell, 0, 0, ORACLE_BUDGET_MS) === "timed-out") {
      this.timedOut++;
      void worker.terminate();
      this.worker = undefined;
      return undefined;
    }
    const answer = Atomics.load(this.cell, 1);
    return answer === 2 ? undefined : answer === 1;
  }

  close(): void {
    void this.worker?.terminate();
    this.worker = undefined;
  }
}

/**
 * Asserts that the linear matcher answers as V8's RegExp (in a worker, with a time budget) on
 * random patterns and texts; a case V8 cannot answer in time is left out, and those are few.
 */
function agreesWithRegExp(pattern: fc.Arbitrary<string>, texts: fc.Arbitrary<string[]>, numRuns: number): void {
  const oracle = new NativeOracle();
  try {
    fc.assert(
      fc.property(pattern, texts, (source, cases) => {
        // A pattern past the matcher's limits (more than 16 lookarounds, too many instructions)
        // never reaches it: generation refuses it (schema/unsafe-pattern), so there is nothing to compare.
        if (linearPatternProblem(source) !== undefined) return;
        const linear = compilePattern(source);
        for (const text of cases) {
          const expected = oracle.test(source, text);
          if (expected !== undefined) expect(linear.test(text), `${source} on ${JSON.stringify(text)}`).toBe(expected);
        }
      }),
      { numRuns },
    );
  } finally {
    oracle.close();
  }
  expect(oracle.timedOut).toBeLessThanOrEqual(oracle.asked / 20);
}

describe("compilePattern", () => {
  it.each(TABLE)("answers as RegExp for %s", (pattern, texts) => {
    const linear = compilePattern(pattern);
    const native = new RegExp(pattern, "u");
    for (const text of texts) expect(linear.test(text), `${pattern} on ${JSON.stringify(text)}`).toBe(native.test(text));
  });

  it("leaves out a case V8 cannot answer in time, instead of hanging (the random tests' oracle)", () => {
    const oracle = new NativeOracle();
    try {
      expect(oracle.test("^(a+)+$", `${"a".repeat(40)}!`)).toBeUndefined();
      expect(oracle.timedOut).toBe(1);
      // A fresh worker answers the next case.
      expect(oracle.test("^(a+)+$", "aaa")).toBe(true);
      expect(oracle.test("^a$", "b")).toBe(false);
    } finally {
      oracle.close();
    }
  });

  it("answers as RegExp on random patterns and texts", () => {
    const letters = fc.constantFrom("a", "b", "-", "😀", " ");
    const atom = fc.constantFrom("a", "b", ".", "\\d", "\\w", "\\s", "[ab]", "[^a]", "[a-c]", "\\p{L}", "-", "😀", "\\u0061");
    const pattern: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        atom,
        fc.constantFrom("^", "$", "\\b", "\\B"),
        fc.tuple(tie("node"), tie("node")).map(([a, b]) => a + b),
        fc.tuple(tie("node"), tie("node")).map(([a, b]) => `(?:${a}|${b})`),
        fc.tuple(tie("node"), fc.constantFrom("*", "+", "?", "{2}", "{1,3}", "{0,}", "*?", "{2,}?")).map(([a, q]) => `(${a})${q}`),
      ),
    })).node;
    agreesWithRegExp(pattern, fc.array(fc.string({ unit: letters, maxLength: 8 }), { maxLength: 6 }), 500);
  });

  it("answers as RegExp on random patterns with lookarounds and long counted repetitions", () => {
    // Texts are runs of one letter, up to 260 long, so that counts past the spelled-out ones (100) are met.
    const run = fc.tuple(fc.constantFrom("a", "b", "-", "😀", " ", "_"), fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 95, max: 260 })));
    const text = fc.array(run, { maxLength: 4 }).map((runs) => runs.map(([letter, n]) => letter.repeat(n)).join(""));
    const atom = fc.constantFrom("a", "b", ".", "\\w", "\\W", "[ab]", "[^a]", "-", "😀", "\\s");
    const pattern: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        atom,
        fc.constantFrom("^", "$", "\\b", "\\B"),
        fc.tuple(atom, fc.constantFrom("{101}", "{0,150}", "{100,120}", "{101,}", "{2,300}", "{0,101}?")).map(([a, q]) => a + q),
        fc.tuple(fc.constantFrom("(?=", "(?!", "(?<=", "(?<!"), tie("node")).map(([look, body]) => `${look}${body})`),
        fc.tuple(tie("node"), tie("node")).map(([a, b]) => a + b),
        fc.tuple(tie("node"), tie("node")).map(([a, b]) => `(?:${a}|${b})`),
        fc.tuple(tie("node"), fc.constantFrom("*", "+", "?", "{2}", "{1,3}")).map(([a, q]) => `(${a})${q}`),
      ),
    })).node;
    agreesWithRegExp(pattern, fc.array(text, { maxLength: 6 }), 1000);
  });

  it("admits the code points RegExp does, atom by atom, over the whole range of code points", () => {
    // The DFA reads classes of code points made from each atom's ranges (read from its syntax, or
    // asked of V8 for a property): any code point, BMP or not, a lone surrogate too, must agree.
    const codePoint = fc.oneof(
      fc.integer({ min: 0, max: 0x10ffff }),
      fc.integer({ min: 0, max: 0x7f }),
      fc.integer({ min: 0xd800, max: 0xdfff }),
      fc.constantFrom(0x5f, 0x2028, 0x2029, 0xa0, 0xfeff, 0x3000, 0x10000, 0x10ffff, 0xffff),
    );
    const single = codePoint.map((c) => `\\u{${c.toString(16)}}`);
    const member = fc.oneof(
      single,
      fc.tuple(codePoint, codePoint).map(([a, b]) => `\\u{${Math.min(a, b).toString(16)}}-\\u{${Math.max(a, b).toString(16)}}`),
      fc.constantFrom(
        "a-z",
        "\\d",
        "\\W",
        "\\s",
        "\\S",
        "\\p{L}",
        "\\P{Lu}",
        "\\p{Script=Greek}",
        "\\-",
        "\\]",
        "\\b",
        "\\x41",
        "\\u0041",
        "\\cJ",
        "\\0",
        "😀-😂",
        "\\ud83d\\ude00",
      ),
    );
    const atom = fc.oneof(
      fc.tuple(fc.boolean(), fc.array(member, { minLength: 0, maxLength: 4 })).map(([negate, members]) => `[${negate ? "^" : ""}${members.join("")}]`),
      fc.constantFrom(".", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\p{N}", "\\P{L}", "\\t", "\\/", "\\u{1F600}", "\\x7f", "a", "😀", "é"),
      single,
    );
    fc.assert(
      fc.property(atom, fc.array(codePoint, { minLength: 1, maxLength: 20 }), (source, points) => {
        const linear = compilePattern(`^${source}$`);
        const native = new RegExp(`^${source}$`, "u");
        for (const point of points) {
          const text = String.fromCodePoint(point);
          expect(linear.test(text), `${source} on U+${point.toString(16)}`).toBe(native.test(text));
        }
      }),
      { numRuns: 400 },
    );
  });

  it("answers as RegExp on random patterns over large alphabets, lookaheads of the (?=.*X) family among them", () => {
    // Texts of code points from anywhere (lone surrogates and pairs too), patterns of classes
    // that cut the range in many places, and the password rules' conjunction of lookaheads.
    const codePoint = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0, max: 0x10ffff }), fc.integer({ min: 0xd800, max: 0xdfff }));
    const text = fc.array(codePoint, { maxLength: 24 }).map((points) => points.map((c) => String.fromCodePoint(c)).join(""));
    const atom = fc.constantFrom(
      "[a-z]",
      "[A-Z]",
      "\\d",
      "[@$!%*?&]",
      "[^<>]",
      "\\S",
      "\\s",
      ".",
      "\\p{L}",
      "\\P{L}",
      "[\\u{100}-\\u{10ffff}]",
      "[^\\u{d800}-\\u{dfff}]",
      "😀",
      "\\w",
    );
    const body: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        atom,
        fc.constantFrom("^", "$", "\\b"),
        fc.tuple(tie("node"), tie("node")).map(([a, b]) => a + b),
        fc.tuple(tie("node"), tie("node")).map(([a, b]) => `(?:${a}|${b})`),
        fc.tuple(tie("node"), fc.constantFrom("*", "+", "?", "{2}", "{1,3}", "{3,}")).map(([a, q]) => `(?:${a})${q}`),
      ),
    })).node;
    const look = fc.tuple(fc.constantFrom("(?=.*", "(?!.*", "(?=", "(?<=", "(?<!.*", "(?!"), body).map(([open, inner]) => `${open}${inner})`);
    const pattern = fc
      .tuple(fc.boolean(), fc.array(look, { minLength: 1, maxLength: 5 }), body, fc.boolean())
      .map(([start, looks, rest, end]) => `${start ? "^" : ""}${looks.join("")}${rest}${end ? "$" : ""}`);
    agreesWithRegExp(pattern, fc.array(text, { minLength: 1, maxLength: 6 }), 500);
  });

  it("answers as RegExp where a DFA outgrows its table, on long texts (counted instead, or read without a table)", () => {
    // Unanchored, `a.{30}` and `a[ab]{20}c` have millions of states (where the last 30 `a`s were)
    // and are counted (Scanner) once the table is outgrown; `a[ab][ab]...c` has no repetition to
    // count and is read without a table. V8 takes linear time on each (a fixed length per start).
    const random = fc.sample(fc.string({ unit: fc.constantFrom("a", "b", "c"), minLength: 30_000, maxLength: 30_000 }), { numRuns: 2, seed: 5 });
    const cases = ["a.{30}", "a[ab]{20}c", `a${"[ab]".repeat(12)}c`, "^(?=.*a[ab]{20}c)", "(?<=a[ab]{20})c"];
    for (const pattern of cases) {
      expect(linearPatternProblem(pattern), pattern).toBeUndefined();
      const linear = compilePattern(pattern);
      for (const text of [...random, "b".repeat(30_000), `${"b".repeat(29_000)}a${"b".repeat(20)}c`]) {
        for (const part of [text, text.slice(0, 40), text.slice(7_000)])
          expect(linear.test(part), `${pattern} on ${part.slice(0, 40)}...`).toBe(new RegExp(pattern, "u").test(part));
      }
    }
  });

  it("reads hostile texts through lookarounds and counters in work linear in their length", () => {
    // Work is the instructions visited; a text costs at most the program's size per code point
    // and per lookaround pass. V8 takes exponential time on the first two shapes.
    const cases: [pattern: string, text: string, matching: string][] = [
      ["^(?=(a|a)*!)(a|a)*!", "a".repeat(100_000), "a!"],
      ["^(?!(a+)+b)(\\w+\\s?)*$", `${"a".repeat(100_000)}!`, "a a"],
      ["(?<=(a|aa)*)b", "a".repeat(100_000), "aab"],
      ["^(?:a{0,1000}){1,10}$", `${"a".repeat(100_000)}!`, "a".repeat(5000)],
      ["^(?:[ab]{0,4096}a{101,}|.{2048})*$", `${"ab".repeat(50_000)}!`, `${"b".repeat(4096)}${"a".repeat(101)}`],
    ];
    for (const [pattern, text, matching] of cases) {
      const linear = compilePattern(pattern) as LinearPattern & { readonly work: number };
      expect(linear.test(matching), pattern).toBe(true);
      expect(linear.test(text), pattern).toBe(false);
      // At most 50 instructions per code point for these small programs (and their passes).
      expect(linear.work, pattern).toBeLessThan(50 * (text.length + matching.length));
    }
  });

  it("answers as RegExp on long texts, when the automaton's states are kept and when they overflow its table", () => {
    // `^[ab]*a[ab]{14}$` has 2^15 states: past the table's bounds the rest of a text is read without one.
    const random = fc.sample(fc.string({ unit: fc.constantFrom("a", "b"), minLength: 20_000, maxLength: 20_000 }), { numRuns: 3, seed: 11 });
    for (const pattern of ["^[ab]*a[ab]{14}$", "a[ab]{14}b$", "^(?:ab|ba|a)+$", "\\bb{3}", "[ab]{3}a$"]) {
      const linear = compilePattern(pattern);
      for (const text of [...random, "ab".repeat(10_000), `${"a".repeat(19_999)}b`]) {
        for (const part of [text, text.slice(0, 15), text.slice(5_000)])
          expect(linear.test(part), `${pattern} on ${part.slice(0, 40)}...`).toBe(new RegExp(pattern, "u").test(part));
      }
    }
  });

  it("reads a text that makes V8 backtrack for seconds in bounded time", () => {
    // V8 takes seconds on 30 characters of this, twice as long with each one more; here, microseconds.
    const text = "a".repeat(100_000) + "!";
    for (const pattern of ["^(a+)+$", "^(a|a)*$", "(a*)*b", "^(\\w+\\s?)*$", "a.*b.*c"]) {
      // The test's time limit is the guard against a hang (V8's engine takes longer than the age
      // of the universe on this text); the matcher's work is counted above.
      expect(compilePattern(pattern).test(text)).toBe(false);
    }
  });
});

describe("linearPatternProblem", () => {
  const refused: [string, RegExp][] = [
    ["^(a+)\\1$", /backreference/],
    ["^(?<x>a)\\k<x>$", /backreference/],
    ["^(?=(a)\\1)", /backreference/],
    [`^(ab){${REPEAT_LIMIT + 1}}$`, /repetition/],
    [`^(a{90}){${Math.ceil(PATTERN_LIMIT / 90)}}$`, /steps/],
    [`${"(".repeat(101)}a${")".repeat(101)}`, /nested more than 100 deep/],
  ];
  it.each(refused)("refuses %s", (pattern, reason) => {
    expect(linearPatternProblem(pattern)).toMatch(reason);
    expect(() => compilePattern(pattern)).toThrow(reason);
  });

  it.each(TABLE.map(([pattern]) => pattern))("takes %s", (pattern) => {
    expect(linearPatternProblem(pattern)).toBeUndefined();
  });
});
