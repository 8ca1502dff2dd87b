// A very large map is read in linear time (the YAML parser's own
// duplicate-key check compared every key with every earlier one: 400,000 fields took minutes),
// and a duplicate key at its end is still reported at its place.

import { describe, expect, it } from "vitest";
import { loadDocument } from "../../src/compile/declaration/load.js";

describe("a declaration with a very large map", () => {
  it("60,000 fields load in a few seconds; the duplicate at the end is reported with its line", () => {
    const lines = ["codegen: 1", "resources:", "  records:", "    fields:"];
    for (let i = 0; i < 60_000; i++) lines.push(`      field${i}: string`);
    lines.push("      field7: string");
    const started = Date.now();
    const result = loadDocument("big.yaml", lines.join("\n") + "\n");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.diagnostics.map((d) => [d.code, d.location?.line, d.location?.column])).toEqual([["yaml/duplicate-key", 60_005, 7]]);
  });
});
