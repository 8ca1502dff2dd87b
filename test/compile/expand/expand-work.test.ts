// The expansion's own work per operation is bounded: counted here, not timed (the figures are
// in bench/run.mjs and the README's Performance section).
import { describe, expect, it, vi } from "vitest";
// @ts-expect-error: the benchmark's generator is plain JavaScript.
import { declarationText } from "../../../bench/make-declarations.js";
import { expandDeclaration } from "../../../src/compile/expand/expand.js";
import { checkDeclaration } from "../../../src/pipeline.js";

describe("the expansion's work", () => {
  it("sorts no list of statuses per operation: its responses' keys come out in numeric order as they are set", () => {
    const checked = checkDeclaration("api-20.yaml", declarationText(20) as string);
    if (!checked.value) throw new Error("the benchmark's declaration does not validate");
    const sort = vi.spyOn(Array.prototype, "sort");
    try {
      const document = expandDeclaration(checked.value) as unknown as { paths: Record<string, Record<string, { responses?: object }>> };
      // One sort per operation before: 121 (six per resource, and the index).
      expect(sort.mock.calls.length).toBe(0);
      const keys = Object.values(document.paths).flatMap((item) => Object.values(item).flatMap((operation) => Object.keys(operation.responses ?? {})));
      expect(keys.length).toBeGreaterThan(121 * 5);
      for (const item of Object.values(document.paths)) {
        for (const operation of Object.values(item)) {
          const statuses = Object.keys(operation.responses ?? {}).map(Number);
          expect(statuses).toEqual([...statuses].sort((a, b) => a - b));
        }
      }
    } finally {
      sort.mockRestore();
    }
  });
});
