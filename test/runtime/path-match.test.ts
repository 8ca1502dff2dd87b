// The router's matching of path templates (runtime/dispatch.gen.ts, matchRoute): which route wins, how text between parameters splits a segment, and that matching stays
// linear in the request whatever it holds (no regular expression, so no backtracking).

import { describe, expect, it } from "vitest";
import { matchRoute } from "../../runtime/dispatch.gen.js";
import type { OperationSpec, RouteSegment, RouteSpec } from "../../runtime/dispatch.gen.js";

const route = (name: string, ...segments: RouteSegment[]): RouteSpec => ({ segments, methods: { GET: { operationId: name } as OperationSpec } });
const ROUTES: readonly RouteSpec[] = [
  route("anyFile", "files", null),
  route("fileJson", "files", ["", ".json"]),
  route("fileDot", "files", ["", ".", ""]),
  route("latest", "files", "latest.json"),
  route("report", ["report-", "-", ".", ""]),
  route("cancel", "v1", ["", ":cancel"]),
];
const match = (path: string) => {
  const raw = path.slice(1).split("/");
  const found = matchRoute(ROUTES, raw.map(decodeURIComponent), "GET", raw);
  return found && { operation: found.route.methods.GET!.operationId, values: found.values };
};

describe("matchRoute over path templates", () => {
  it.each<[string, string, string[]]>([
    ["/files/latest.json", "latest", []],
    ["/files/a.json", "fileJson", ["a"]],
    ["/files/a.b.json", "fileJson", ["a.b"]],
    ["/files/a.tar.gz", "fileDot", ["a", "tar.gz"]],
    ["/files/abc", "anyFile", ["abc"]],
    ["/files/.json", "anyFile", [".json"]],
    ["/report-2024-05.csv", "report", ["2024", "05", "csv"]],
    ["/report-2024-05-01.tar.gz", "report", ["2024", "05-01", "tar.gz"]],
    ["/v1/a%3Ab:cancel", "cancel", ["a%3Ab"]],
    ["/files/a%2Ejson", "anyFile", ["a%2Ejson"]],
  ])("%s is %s with the values as sent %j", (path, operation, values) => {
    expect(match(path)).toEqual({ operation, values });
  });

  it.each(["/report-2024.csv", "/report--05.csv", "/report-2024-.csv", "/v1/:cancel", "/files/a/b.json"])(
    "%s matches no template with an empty value",
    (path) => {
      expect(match(path)?.operation ?? "none").not.toMatch(/^(report|cancel|fileJson)$/);
    },
  );

  it("matches a megabyte segment of separators in one pass (a backtracking matcher would not finish)", () => {
    // `report-{a}-{b}.{c}` against a megabyte of `-` and `.`: a regular expression with lazy groups
    // may try every split (cubic work); the router looks for each text once, left to right.
    const long = `report-${"-.".repeat(500_000)}`;
    const found = match(`/${long}`);
    expect(found?.operation).toBe("report");
    expect(found?.values.slice(0, 2)).toEqual(["-.", ".-"]);
    expect(found?.values[2]).toHaveLength(long.length - 13);
    // No split fits: the trailing text is missing, found before any split is tried.
    expect(match(`/files/${"a.".repeat(500_000)}`)?.operation).toBe("fileDot");
    // The test's time limit is the guard against a hang (no clock read here: the machine is shared).
  });
});
