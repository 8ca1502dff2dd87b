// The manifest's shape of a code file (src/write/plan.ts: what tells a user's reformatting from an
// edit by hand) and the renderer's tidy are computed in fewer passes over the text than the rules
// read. Both must give what the rules as written give, on texts made of the very characters those
// rules are about.

import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tidy } from "../../src/emit/render.js";
import { shapeHashOf } from "../../src/write/plan.js";

/** The shape rule of src/write/plan.ts as the rule reads: eight passes. */
const eightPasses = (text: string) =>
  text
    .replace(/([:=<(,[{]|=>|\bas|\bsatisfies|\bextends)\s*[|&](?![|&=])/g, "$1")
    .replace(/\s+/g, "")
    .replace(/\\(["'`])/g, "$1")
    .replace(/['`]/g, '"')
    .replace(/;/g, "")
    .replace(/,(?=[)\]}>])/g, "")
    .replace(/[()]/g, "")
    .replace(/"([A-Za-z_$][\w$]*)":/g, "$1:");

/** tidy's rule: trailing spaces and tabs, and blank lines at the start, go. */
const tidyByRegExp = (text: string) => text.replace(/(?<![ \t])[ \t]+$/gm, "").replace(/^\n+/, "");

/** Texts of the characters the rules look at, code-like words among them. */
const code = fc
  .array(
    fc.oneof(
      fc.constantFrom("\\", '"', "'", "`", ";", ",", "(", ")", "[", "]", "{", "}", "<", ">", ":", "=", "|", "&", " ", "\t", "\n", "\r", "\u2028", "\u00a0"),
      fc.constantFrom("as", "satisfies", "extends", "=>", "a", "_x", "$", "1", "x-y", "bas"),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(""));
/** Short texts dense in the characters whose neighbours the rules look at. */
const dense = fc
  .array(fc.constantFrom("\\", '"', "'", "`", ";", ",", ")", "(", "]", "|", "&", "=", ":", " ", "\n", "a", "as"), { maxLength: 10 })
  .map((parts) => parts.join(""));

describe("the shape of a code file", () => {
  it("is the eight passes' shape", () => {
    fc.assert(
      fc.property(fc.oneof(code, dense), (text) => {
        expect(shapeHashOf("x.ts", text)).toBe(`shape1-${createHash("sha256").update(eightPasses(text)).digest("hex")}`);
      }),
      { numRuns: 20000 },
    );
  });

  it("is the same hashed in pieces (each ending after a character no pass looks at) as whole", () => {
    // Why the characters a piece may end after, pairs of surrogates (hashed as UTF-8 each piece
    // on its own) and lone ones: the pieces' boundaries must fall between them as in a real file.
    const pieces = fc
      .array(fc.oneof(code, dense, fc.constantFrom(".", "/", "-", "#", "\u00e9", "\ud83d\ude00", "\ud83d", "\ude00", "x.y", "a/ b")), { maxLength: 30 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(pieces, fc.integer({ min: 1, max: 12 }), (text, size) => {
        expect(shapeHashOf("x.ts", text, size)).toBe(`shape1-${createHash("sha256").update(eightPasses(text)).digest("hex")}`);
      }),
      { numRuns: 20000 },
    );
  });
});

describe("the shape of a code file, on denser texts", () => {
  const eightHash = (text: string) => `shape1-${createHash("sha256").update(eightPasses(text)).digest("hex")}`;

  // Why these pieces: white space of every kind `\s` knows, next to what the other passes look at
  // across it (`|`/`&` after a keyword, `,` before a closer past `;`, `\` before a quote, quoted
  // keys split by what later passes drop), other letters beside ASCII ones, surrogate halves.
  const pieces = [
    "\\",
    '"',
    "'",
    "`",
    ";",
    ",",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    ":",
    "=",
    "|",
    "&",
    " ",
    "\n",
    "\t",
    "\r",
    "\v",
    "\f",
    "\u00a0",
    "\u0085",
    "\u00ff",
    "\u2028",
    "\ufeff",
    "\u3000",
    "\u200b",
    "as",
    "satisfies",
    "extends",
    "=>",
    "$as",
    "bas",
    "1as",
    "a",
    "$",
    "_",
    "9",
    "key",
    "\ud83d",
    "\ude00",
    "\ud83d\ude00",
    "\u00e9",
    "\u4e2d",
    "\u0080",
    "\u07ff",
    "\uffff",
    "x.y",
    "-",
  ];
  const textOf = (parts: readonly string[]) => fc.array(fc.constantFrom(...parts), { maxLength: 24 }).map((chosen) => chosen.join(""));
  // Why ASCII-only texts too: a faster shape for the common case (generated code is ASCII) would
  // take another path for them; both must give the eight passes' shape.
  const mixed = fc.oneof(textOf(pieces), textOf(pieces.filter((piece) => /^[\u0000-\u007f]*$/.test(piece))));

  it("is the eight passes' shape, whole and in pieces", () => {
    fc.assert(
      fc.property(mixed, fc.integer({ min: 1, max: 16 }), (text, size) => {
        expect(shapeHashOf("x.ts", text, size)).toBe(eightHash(text));
        expect(shapeHashOf("x.ts", text)).toBe(eightHash(text));
      }),
      { numRuns: 20000 },
    );
  });

  it("reads white space as `\\s` does, for every UTF-16 code unit", () => {
    for (let unit = 0; unit < 0x10000; unit++) {
      for (const text of [`a${String.fromCharCode(unit)}b; c`, `"k${String.fromCharCode(unit)}": (a,${String.fromCharCode(unit)};)`]) {
        expect(shapeHashOf("x.ts", text), unit.toString(16)).toBe(eightHash(text));
      }
    }
  });
});

describe("tidy", () => {
  it("drops the spaces and tabs that end a line, and blank lines at the start, as the regexp did", () => {
    fc.assert(
      fc.property(fc.oneof(code, dense), (text) => {
        expect(tidy(text)).toBe(tidyByRegExp(text));
      }),
      { numRuns: 20000 },
    );
  });

  it("reads a long run of spaces inside a line once, not once from each of its spaces", () => {
    // Tried from each space, each try backtracking through the rest of the run: 2 * 10^10 steps here.
    const line = `${" ".repeat(200_000)}x`;
    expect(tidy(`${line}  \n${line}\t`)).toBe(`${line}\n${line}`);
  });

  it("does the same where `\\n` is the only line end (the texts it finds line ends in by indexOf)", () => {
    const lines = fc.array(fc.constantFrom(" ", "\t", "\n", "a", ";", "\u00a0", "  \n"), { maxLength: 30 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(lines, (text) => {
        expect(tidy(text)).toBe(tidyByRegExp(text));
      }),
      { numRuns: 20000 },
    );
    expect(tidy("\n\nconst a = 1;  \n\t\n  b; \t")).toBe("const a = 1;\n\n  b;");
  });
});
