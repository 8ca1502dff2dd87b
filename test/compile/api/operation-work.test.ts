// The operation model's own work per operation is bounded: counted here, not timed (the figures
// are in bench/run.mjs and the README's Performance section).
import { describe, expect, it, vi } from "vitest";
// @ts-expect-error: the benchmark's generator is plain JavaScript.
import { declarationText } from "../../../bench/make-declarations.js";
import { Findings } from "../../../src/compile/api/names.js";
import { buildOperations } from "../../../src/compile/api/operation.js";
import type { Json } from "../../../src/model/json.js";
import { openapiFromText } from "../../../src/pipeline.js";

/** How many keys were escaped as JSON Pointer tokens. */
const escaped = vi.hoisted(() => ({ count: 0 }));
vi.mock("../../../src/compile/pointer.js", async (original) => {
  const real = await original<typeof import("../../../src/compile/pointer.js")>();
  return {
    ...real,
    escapeToken: (key: string) => {
      escaped.count++;
      return real.escapeToken(key);
    },
  };
});

describe("the operation model's work", () => {
  it("escapes a path once for the pointers of all its operations and parameters", async () => {
    const { value: document } = await openapiFromText("api-20.yaml", declarationText(20) as string);
    if (!document) throw new Error("the benchmark's declaration does not expand");
    const resources = Object.values((document.components?.schemas ?? {}) as Record<string, Json>).flatMap((schema) => {
      const resource = schema["x-codegen-resource"] as { collection: string; singular: string } | undefined;
      return resource ? [[resource.collection, resource.singular] as const] : [];
    });
    escaped.count = 0;
    const findings = new Findings();
    const paths = buildOperations(document as unknown as Json, new Map(resources), findings);
    expect(findings.problems).toEqual([]);
    const operations = paths.flatMap((path) => path.operations);
    expect(operations).toHaveLength(122);
    expect(operations.find((o) => o.operationId === "getR1Order")?.pointer).toBe("#/paths/~1r1-orders~1{id}/get");
    // Two tokens per path (`paths` and the path; 42 paths); 1,254 before: three per operation and per parameter, four for each extension pointer.
    expect(escaped.count).toBe(2 * paths.length);
  });
});
