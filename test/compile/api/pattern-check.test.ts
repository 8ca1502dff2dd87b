// patternCheck judges a document's named schemas in work linear in the document: a chain of
// references whose last schema holds a pattern left unchecked marks every schema of the chain,
// whatever order the schemas stand in (a fixed point over the schemas took a pass per link).

import { describe, expect, it, vi } from "vitest";
import { patternCheck } from "../../../src/compile/api/schema-code.js";
import type { JsonSchema } from "../../../src/compile/api/schema-code.js";

const UNSAFE = "^(a+)+$";

/** N schemas, each with a safe pattern of its own and a reference to the next; the last's pattern is unsafe. */
function chain(n: number): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  for (let i = 0; i < n; i++)
    schemas[`S${i}`] =
      i < n - 1
        ? { type: "object", properties: { a: { type: "string", pattern: `^s${i}$` }, next: { $ref: `#/components/schemas/S${i + 1}` } } }
        : { type: "string", pattern: UNSAFE };
  return schemas;
}

describe("patternCheck", () => {
  it("marks every schema of a chain of references to an unchecked pattern, asking about each pattern a bounded number of times", () => {
    const n = 2000;
    let asked = 0;
    const check = patternCheck(chain(n), (pattern) => {
      asked++;
      return pattern !== UNSAFE;
    });
    expect(Array.from({ length: n }, (_, i) => check?.uncheckedIn(`S${i}`)).every(Boolean)).toBe(true);
    expect(asked).toBeLessThanOrEqual(2 * n);
  });

  it("leaves unmarked the schemas that refer to none", () => {
    const schemas = { ...chain(3), Other: { type: "string", pattern: "^o$" }, Refers: { $ref: "#/components/schemas/Other" } };
    const check = patternCheck(schemas, (pattern) => pattern !== UNSAFE);
    expect(["S0", "S1", "S2", "Other", "Refers"].map((name) => check?.uncheckedIn(name))).toEqual([true, true, true, false, false]);
  });

  it("lists no object's keys on its walk, but those of a patternProperties", () => {
    // A schema of 2,000 properties, each nested two levels: the walk meets 6,000 objects.
    const properties: Record<string, JsonSchema> = {};
    for (let i = 0; i < 2000; i++) properties[`p${i}`] = { type: "object", properties: { q: { type: "string", pattern: "^q$" } } };
    const schemas = { Wide: { type: "object", properties, patternProperties: { "^x-": { type: "string" } } } };
    const keys = vi.spyOn(Object, "keys");
    try {
      const check = patternCheck(schemas, (pattern) => pattern !== UNSAFE);
      expect(check?.uncheckedIn("Wide")).toBe(false);
      expect(keys.mock.calls.length).toBeLessThan(10);
    } finally {
      keys.mockRestore();
    }
  });
});
