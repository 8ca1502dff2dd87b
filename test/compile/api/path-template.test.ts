import { describe, expect, it } from "vitest";
import { pathTemplate } from "../../../src/compile/api/path-template.js";

// The router compares literal segments with the request's decoded segments, and template texts
// with the request's as sent: a path written percent-encoded (a URI reference, as a declaration's
// `tokenUrl: /auth/t%C3%B6ken` must be) is read as the characters it stands for.
describe("pathTemplate reads percent-encoded literal text", () => {
  const rows: { path: string; segments: unknown[] }[] = [
    { path: "/auth/t%C3%B6ken", segments: ["auth", "töken"] },
    { path: "/a%2Fb/c", segments: ["a/b", "c"] },
    { path: "/100%/x", segments: ["100%", "x"] },
    { path: "/t%C3%B6{id}.json", segments: [["t%C3%B6", ".json"]] },
    { path: "/t%c3%b6{id}", segments: [["t%C3%B6", ""]] },
  ];
  it.each(rows)("$path", ({ path, segments }) => {
    expect(pathTemplate(path).segments).toEqual(segments);
  });
});
