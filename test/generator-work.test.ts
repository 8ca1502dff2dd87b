// Issues 14 and 16 (item 7): the generator's own work on large inputs is bounded: counted here,
// not timed (figures are in bench/run.mjs and the README's Performance section).
import { describe, expect, it, vi } from "vitest";
import { type Diagnostic, formatDiagnostics } from "../src/diagnostics/index.js";

describe("formatDiagnostics", () => {
  it("splits each file into lines once, however many diagnostics point into it", () => {
    const text = `${"x".repeat(10_000)}\nsecond line\n`;
    const diagnostics: Diagnostic[] = Array.from({ length: 50 }, (_, i) => ({
      code: "openapi/nullable-without-type",
      severity: "warning",
      message: `warning ${i}`,
      location: { file: "big.json", line: 1 + (i % 2), column: 1 + i, length: 1 },
    }));
    const split = vi.spyOn(String.prototype, "split");
    try {
      const out = formatDiagnostics(diagnostics, { sources: new Map([["big.json", text]]), colour: false });
      expect(out).toContain("big.json:2:50: warning: warning 49");
      expect(out).toContain("  2 | second line\n");
      expect(split.mock.contexts.filter((context) => String(context) === text)).toHaveLength(1);
    } finally {
      split.mockRestore();
    }
  });
});
