// A very large map is read in linear time (the YAML parser's own
// duplicate-key check compared every key with every earlier one: 400,000 fields took minutes),
// and a duplicate key at its end is still reported at its place.

import { describe, expect, it } from "vitest";
import { loadDocument } from "../../src/compile/declaration/load.js";

describe("a declaration with a very large map", () => {
  // Why the time limit and no clock: the quadratic check took minutes here; a loaded machine may
  // take several seconds for the linear one, and the limit is what fails a regression.
  it("60,000 fields load in linear time; the duplicate at the end is reported with its line", () => {
    const lines = ["codegen: 1", "resources:", "  records:", "    fields:"];
    for (let i = 0; i < 60_000; i++) lines.push(`      field${i}: string`);
    lines.push("      field7: string");
    const result = loadDocument("big.yaml", lines.join("\n") + "\n");
    expect(result.diagnostics.map((d) => [d.code, d.location?.line, d.location?.column])).toEqual([["yaml/duplicate-key", 60_005, 7]]);
  }, 60_000);
});
