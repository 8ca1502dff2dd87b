// The shape of code scanned (src/write/code-shape.ts, through plan.ts's shapeHashOf, which scans
// a large text and passes a short one through the regular expressions) is the rule the manifest
// has always hashed: the five passes below. A manifest written by any earlier codegen keeps telling
// a user's reformatting from an edit only while the two agree on every text, whole or in pieces.

import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { shapeHashOf } from "../../src/write/plan.js";
import { ROOT } from "../support/fixtures.js";

/** The rule as the passes read (src/write/plan.ts's codeShape before the scan): the oracle. */
const fivePasses = (text: string) =>
  text
    .replace(/[|&](?<=(?:[:=<(,[{]|=>|\bas|\bsatisfies|\bextends)\s*[|&])(?![|&=])/g, "")
    .replace(/\s+/g, "")
    .replace(/\\["'`]|['`]/g, '"')
    .replace(/[;()]|,(?=;*[)\]}>])/g, "")
    .replace(/"([A-Za-z_$][\w$]*)":/g, "$1:");

/** shapeHashOf's `scanFrom` that scans every text, however short. */
const SCAN = 0;

const passesHash = (text: string) => `shape1-${createHash("sha256").update(fivePasses(text)).digest("hex")}`;

// Why these parts: what each pass matches and what it looks at beside a match (white space of
// every kind `\s` knows, the keywords before a `|`, `;` between a comma and a closer, a quoted key
// split by what goes), letters beyond ASCII and surrogates, paired and alone, and characters a
// piece may end after.
const PARTS = [
  ..."\\\"'`;,()[]{}<>:=|&$_9a.-/# \t\n\r\v\f",
  ..."\u00a0\u0085\u1680\u2000\u200a\u200b\u2028\u2029\u202f\u205f\u3000\ufeff\u00e9\u07ff\u0800\u4e2d\uffff",
  "\ud83d",
  "\ude00",
  "\ud83d\ude00",
  "as",
  "satisfies",
  "extends",
  "=>",
  "bas",
  "$as",
  "_as",
  "key",
  '"key":',
  "'k$1' :",
  ", ;)",
  ": |",
  "as &",
];
const texts = fc.array(fc.constantFrom(...PARTS), { maxLength: 40 }).map((parts) => parts.join(""));

describe("the shape of code", () => {
  it("is the five passes', whole and in pieces of any length", () => {
    fc.assert(
      fc.property(texts, fc.integer({ min: 1, max: 20 }), (text, piece) => {
        expect(shapeHashOf("x.ts", text, undefined, SCAN)).toBe(passesHash(text));
        expect(shapeHashOf("x.ts", text, piece, SCAN)).toBe(passesHash(text));
      }),
      { numRuns: 20000 },
    );
  });

  it("is the five passes' for every UTF-16 code unit beside what the passes look at", () => {
    for (let unit = 0; unit < 0x10000; unit++) {
      const c = String.fromCharCode(unit);
      const text = `x: ${c}| a${c}; ("k${c}": [1,${c}]) as${c}& '${c}\\${c}'`;
      expect(shapeHashOf("x.ts", text, undefined, SCAN), unit.toString(16)).toBe(passesHash(text));
    }
  });

  it("is the five passes' for every generated code file of the fixtures, whole and in small pieces", () => {
    for (const fixture of ["blog", "hostile-strings", "lending"]) {
      const root = path.join(ROOT, "fixtures/valid", fixture, "expected");
      for (const file of readdirSync(root, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".ts"))) {
        const text = readFileSync(path.join(root, file), "utf8");
        expect(shapeHashOf(file, text), file).toBe(passesHash(text));
        expect(shapeHashOf(file, text, undefined, SCAN), file).toBe(passesHash(text));
        expect(shapeHashOf(file, text, 1000, SCAN), file).toBe(passesHash(text));
      }
    }
  });
});
