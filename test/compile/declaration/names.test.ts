import { describe, expect, it } from "vitest";
import { camelCase, pascalCase, withArticle } from "../../../src/compile/declaration/names.js";

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

describe("withArticle", () => {
  // Summaries read "Create a user": the article follows the noun's first sound, not its letter.
  const rows: [noun: string, expected: string][] = [
    ["article", "an article"],
    ["order", "an order"],
    ["update", "an update"],
    ["umbrella", "an umbrella"],
    ["user", "a user"],
    ["unit", "a unit"],
    ["usage", "a usage"],
    ["uuid record", "a uuid record"],
    ["euro price", "a euro price"],
    ["one time code", "a one time code"],
    ["hour", "an hour"],
    ["hotel", "a hotel"],
    ["book", "a book"],
    ["User", "a User"],
  ];
  it.each(rows)("%s -> %s", (noun, expected) => {
    expect(withArticle(noun)).toBe(expected);
  });
});
