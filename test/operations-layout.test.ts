// Issue 16 item 7: the files of a large document written by others (GitHub Enterprise's: long
// operationIds, allOf of a reference and an object, oneOf in allOf, many tags) skip prettier: an
// interface method, a binder's arrow, ResourceHandlers' Omit<...> and the intersections of
// types.gen.ts are laid out as prettier lays them out. Prettier (pinned, PRETTIER_OPTIONS) is the oracle.

import fc from "fast-check";
import * as prettier from "prettier";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { PRETTIER_OPTIONS, filepathFor } from "../src/format/format.js";
import { generateFiles } from "../src/run.js";
import { ROOT } from "./support/fixtures.js";

/** A document of `groups` tags, each with operations named `ids`, whose bodies intersect a reference, an object and a oneOf. */
function documentOf(ids: readonly string[], groups: number, members: number, description = "An operation."): unknown {
  const fields = Object.fromEntries(Array.from({ length: members }, (_, i) => [`field_number_${i}`, { type: "string" }]));
  const paths: Record<string, unknown> = {};
  ids.forEach((id, i) => {
    paths[`/p${i}/{owner}`] = {
      post: {
        operationId: id,
        description,
        tags: [`group ${i % groups}`],
        parameters: [{ name: "owner", in: "path", required: true, schema: { type: "string" } }],
        requestBody: {
          content: {
            "application/json": {
              schema: {
                allOf: [
                  { $ref: "#/components/schemas/Base" },
                  { type: "object", properties: fields },
                  {
                    oneOf: [
                      { type: "object", properties: { status: { enum: ["completed"] } }, required: ["status"] },
                      { type: "array", items: { type: "string" } },
                    ],
                  },
                ],
              },
            },
          },
        },
        responses: {
          "201": {
            description: "Created",
            content: { "application/json": { schema: { allOf: [{ $ref: "#/components/schemas/Base" }, { type: "object", properties: fields }] } } },
          },
        },
      },
    };
  });
  return {
    openapi: "3.0.3",
    info: { title: "Long names", version: "1" },
    paths,
    components: { schemas: { Base: { type: "object", properties: { id: { type: "integer" } }, allOf: [{ type: "object", properties: fields }] } } },
  };
}

describe("the files of long operation names and intersections", () => {
  it("skip prettier and are what prettier makes of them", async () => {
    // Names of 23 to 74 characters (GHES's longest operationId is 70 in camel case); longer ones
    // break after `key:` in prettier's layout, not built: those files go to prettier.
    const id = fc.integer({ min: 20, max: 71 }).map((n) => `get${"Long".repeat(n >> 2)}${"x".repeat(n & 3)}`);
    let final = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(id, { minLength: 2, maxLength: 5 }),
        fc.integer({ min: 1, max: 14 }),
        fc.integer({ min: 1, max: 6 }),
        async (ids, groups, members) => {
          const result = (await generateFiles({ cwd: ROOT }, "api.yaml", stringify(documentOf(ids, groups, members)), { outDir: "out" })) as Awaited<
            ReturnType<typeof generateFiles>
          > & { renderedKeys?: ReadonlyMap<string, string> };
          expect(result.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
          for (const file of result.value!) {
            if (!/^(operations\/|types\.gen|handlers\.gen)/.test(file.path)) continue;
            // Every such file skips prettier (before issue 16 item 7 each with a long name went to it).
            expect(result.renderedKeys?.has(file.path), file.path).toBe(false);
            const formatted = await prettier.format(file.contents, { ...PRETTIER_OPTIONS, filepath: filepathFor(file.path, file.contents) });
            expect(file.contents, file.path).toBe(formatted);
            final++;
          }
        },
      ),
      { numRuns: 25 },
    );
    expect(final).toBeGreaterThan(50);
  }, 300_000);

  it("generate where a line holds a character of unknown width (an emoji in a long description)", async () => {
    const ids = [`get${"Long".repeat(15)}`, "getShort"];
    const result = await generateFiles({ cwd: ROOT }, "api.yaml", stringify(documentOf(ids, 1, 2, `Green 🟢 ${"word ".repeat(30)}`)), { outDir: "out" });
    const operations = result.value!.find((f) => f.path.startsWith("operations/"))!;
    expect(operations.contents).toContain("🟢");
    expect(operations.contents).toBe(
      await prettier.format(operations.contents, { ...PRETTIER_OPTIONS, filepath: filepathFor(operations.path, operations.contents) }),
    );
  });
});
