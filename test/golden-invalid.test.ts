import { describe, expect, it } from "vitest";
import { declarationOf, expectGolden, fixtureCases, runCli } from "./support/fixtures.js";

const cases = fixtureCases("invalid");

describe("invalid fixtures are refused with their golden diagnostics", () => {
  it("has at least 30 cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(cases)("%s", async (name) => {
    const file = declarationOf("invalid", name);
    const result = await runCli(["validate", file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    // Every problem is reported as FILE:LINE:COLUMN, and nothing looks like a stack trace.
    const headings = result.stderr.split("\n").filter((line) => / error: /.test(line));
    expect(headings.length).toBeGreaterThan(0);
    for (const line of headings) expect(line.startsWith(`${file}:`) && /^[^:]+:\d+:\d+: error: /.test(line), line).toBe(true);
    expect(result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
    expectGolden(result.stderr, `fixtures/invalid/${name}/expected.txt`);
  });
});
