// The shape of data hashed a member at a time (src/write/json-shape.ts) is the shape of its whole
// JSON text (src/write/plan.ts, shapeOfJson), whatever the data holds.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { shapeOfData } from "../../src/write/json-shape.js";
import { shapeOfJson } from "../../src/write/plan.js";

/** JSON data with what JSON.stringify leaves out or writes as null: undefined, functions, symbols; and odd strings and numbers. */
const member = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(undefined, () => 1, Symbol("s"), -0, Number.NaN, Infinity, "\ud800", "\ud83d\ude00", "\u2028", "__proto__", 'a"b\\c'),
);
const data = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, member, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 6 }),
  object: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("__proto__", "toString", "")), tie("value"), { maxKeys: 6 }),
})).value;

describe("shapeOfData", () => {
  it("is shapeOfJson of JSON.stringify's text, at every depth", () => {
    fc.assert(
      fc.property(fc.oneof(fc.array(data), fc.dictionary(fc.string(), data)), (value) => {
        expect(shapeOfData(value)).toBe(shapeOfJson(JSON.stringify(value)));
      }),
      { numRuns: 3000 },
    );
  });

  it("calls a value's toJSON as JSON.stringify does, and spans texts longer than one batch", () => {
    const dated = { at: new Date(0), nested: { deeper: { still: { toJSON: () => ({ made: [1, 2] }) } } } };
    expect(shapeOfData(dated)).toBe(shapeOfJson(JSON.stringify(dated)));
    const large = { paths: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`/r${i}`, { get: { summary: "x".repeat(50), tags: [`r${i}`] } }])) };
    expect(shapeOfData(large)).toBe(shapeOfJson(JSON.stringify(large)));
  });
});
