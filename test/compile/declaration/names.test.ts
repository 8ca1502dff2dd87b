import { describe, expect, it } from "vitest";
import { camelCase, pascalCase } from "../../../src/compile/declaration/names.js";

describe("pascalCase and camelCase", () => {
  const rows: [given: string, pascal: string, camel: string][] = [
    ["blog-posts", "BlogPosts", "blogPosts"],
    ["article", "Article", "article"],
    ["r1-orders", "R1Orders", "r1Orders"],
    ["a--b__c", "ABC", "aBC"],
    ["-lead_and-trail_", "LeadAndTrail", "leadAndTrail"],
    ["x_y-z", "XYZ", "xYZ"],
    ["straße-ßig", "StraßeSSig", "straßeSSig"],
    ["élan-vital", "ÉlanVital", "élanVital"],
    ["", "", ""],
    ["-_-", "", ""],
  ];
  it.each(rows)("%s -> %s, %s", (given, pascal, camel) => {
    expect(pascalCase(given)).toBe(pascal);
    expect(camelCase(given)).toBe(camel);
  });
});
