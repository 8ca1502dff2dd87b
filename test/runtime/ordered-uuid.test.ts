// The ids of `uuid` and `string` resources (runtime/resources.gen.ts, orderedUuid): UUIDs of
// version 7 (RFC 9562 section 5.7) that grow with each one made, so that an order by id is the
// order of creation (http-behaviour "Lists").
import { afterEach, describe, expect, it, vi } from "vitest";
import { orderedUuid } from "#runtime/resources.gen.js";

const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(() => {
  vi.restoreAllMocks();
});

describe("orderedUuid", () => {
  it("makes version 7 UUIDs whose first 48 bits are the milliseconds of their making", () => {
    const before = Date.now();
    const id = orderedUuid();
    const after = Date.now();
    expect(id).toMatch(UUID7);
    const ms = Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16);
    // (Not below `before`: an id made in an earlier millisecond of this process may have borrowed ahead.)
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after + 1);
  });

  it("grows strictly with each id, many in one millisecond and past the counter's 4096", () => {
    vi.spyOn(Date, "now").mockReturnValue(Date.UTC(2030, 0, 1));
    const ids = Array.from({ length: 10_000 }, () => orderedUuid());
    for (const id of ids) expect(id).toMatch(UUID7);
    const sorted = [...ids].sort();
    expect(sorted).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("keeps growing when the clock steps back", () => {
    const now = vi.spyOn(Date, "now").mockReturnValue(Date.UTC(2031, 0, 1));
    const first = orderedUuid();
    now.mockReturnValue(Date.UTC(2020, 0, 1));
    const second = orderedUuid();
    expect(second > first).toBe(true);
  });
});
