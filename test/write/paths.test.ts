// One rule for every path inside the output folder, obeyed by the files codegen
// generates and required of every path a manifest names (a manifest is input: anyone may write it).

import { describe, expect, it } from "vitest";
import { isFolderPath, parseManifest } from "../../src/write/plan.js";
import { fixtureCases } from "../support/fixtures.js";
import { generateFixture } from "../support/generated.js";

const OUTSIDE = [
  "",
  "/",
  "/etc/passwd",
  "../x",
  "a/../../x",
  "a/./b",
  "./a",
  "a//b",
  "a/",
  "..",
  ".",
  "a\\..\\x",
  "C:x",
  "c:/x",
  "a\u0000b",
  "a\nb",
  "x".repeat(256),
  `a/${"b/".repeat(600)}c`,
];

describe("isFolderPath", () => {
  it.each(OUTSIDE)("refuses %j", (candidate) => {
    expect(isFolderPath(candidate)).toBe(false);
  });

  it.each(["index.gen.ts", "runtime/http.gen.ts", "resources/blog-posts.gen.ts", ".codegen-manifest.json", "a/b.c/d..e"])("accepts %j", (candidate) => {
    expect(isFolderPath(candidate)).toBe(true);
  });

  it("holds for every file generated from every valid fixture", async () => {
    for (const name of fixtureCases("valid")) {
      for (const file of await generateFixture(name)) expect(isFolderPath(file.path), `${name}: ${file.path}`).toBe(true);
    }
  }, 60_000);
});

describe("parseManifest", () => {
  it("drops entries whose paths break the rule, and keys every entry in a map", () => {
    const files = Object.fromEntries([...OUTSIDE, "constructor", "ok.ts"].map((p) => [p, "sha256-x"]));
    const text = JSON.stringify({ generator: "codegen", files }).replace('"ok.ts"', '"__proto__":"sha256-y","ok.ts"');
    const manifest = parseManifest(text);
    expect([...manifest.files.keys()].sort()).toEqual(["__proto__", "constructor", "ok.ts"]);
    expect(manifest.files.get("toString")).toBeUndefined();
  });

  it.each(["", "null", "[]", '{"files": []}', '{"files": "x"}', "{", '{"files": {"a": 1}}'])("reads %j as an empty manifest", (text) => {
    expect(parseManifest(text).files.size).toBe(0);
  });
});
