// Issue 14: the files codegen lays out itself (view.finalFiles) skip prettier, so each must be
// byte for byte what prettier (pinned, PRETTIER_OPTIONS) makes of it. Every fixture, and
// declarations fuzzed around the line width (long names, long descriptions, quotes, non-ASCII).

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import * as prettier from "prettier";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { PRETTIER_OPTIONS, filepathFor } from "../src/format/format.js";
import { generateFiles } from "../src/run.js";
import { baseDeclaration } from "./support/declare.js";
import { ROOT, declarationOf, fixtureCases } from "./support/fixtures.js";

/** Why inputs were refused (shown when a check finds too few inputs accepted). */
const refusals: string[] = [];

/**
 * The files of one input that skipped prettier (the .ts files outside runtime/ that the run did
 * not format: it records a formatting key for each file it formats), each with what prettier
 * makes of it; undefined when the input is refused.
 */
async function finalFiles(file: string, text: string): Promise<{ path: string; contents: string; formatted: string }[] | undefined> {
  const generated = (await generateFiles({ cwd: ROOT }, file, text, { outDir: "out", allowUnsafePatterns: true })) as Awaited<
    ReturnType<typeof generateFiles>
  > & {
    renderedKeys?: ReadonlyMap<string, string>;
  };
  if (!generated.value) {
    refusals.push(generated.diagnostics.map((d) => d.message).join("; "));
    return undefined;
  }
  const out = [];
  for (const one of generated.value) {
    if (!one.path.endsWith(".ts") || one.path.startsWith("runtime/") || generated.renderedKeys?.has(one.path)) continue;
    const formatted = await prettier.format(one.contents, { ...PRETTIER_OPTIONS, filepath: filepathFor(one.path, one.contents) });
    out.push({ path: one.path, contents: one.contents, formatted });
  }
  return out;
}

const openapiFixtures = readdirSync(path.join(ROOT, "fixtures/openapi")).map((name) => path.join("fixtures/openapi", name, "openapi.yaml"));
const inputs = [...fixtureCases("valid").map((name) => declarationOf("valid", name)), ...openapiFixtures];

describe("files in their final layout", () => {
  it.each(inputs)("%s: prettier leaves every final file as it is", async (file) => {
    const files = await finalFiles(file, readFileSync(path.join(ROOT, file), "utf8"));
    expect(files).toBeDefined();
    for (const one of files!) expect(one.contents, one.path).toBe(one.formatted);
  });

  it("lays out every file of the blog itself (the check above is not vacuous)", async () => {
    const files = await finalFiles(declarationOf("valid", "blog"), readFileSync(path.join(ROOT, declarationOf("valid", "blog")), "utf8"));
    // Every file of the blog's code, runtime aside: its run never loads prettier.
    expect(files!.map((f) => f.path).sort()).toEqual(
      [
        "api.gen.ts",
        "document.gen.ts",
        "handlers.gen.ts",
        "index.gen.ts",
        "postgres.gen.ts",
        "server.gen.ts",
        "store.gen.ts",
        "types.gen.ts",
        "resources/articles.gen.ts",
        "resources/authors.gen.ts",
      ].sort(),
    );
  });

  it("holds for declarations fuzzed around the line width", async () => {
    const word = fc.oneof(
      fc.integer({ min: 1, max: 70 }).map((n) => "n".repeat(n)),
      fc.constantFrom("title", "constructor", "toString", "status", "x"),
      fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,40}$/),
    );
    const description = fc.oneof(
      fc.integer({ min: 0, max: 120 }).map((n) => "d".repeat(n)),
      fc.string({ maxLength: 60 }),
      fc.constantFrom('say "hi" it\'s', "naïve café", "漢字", "😀", "a\u2028b", "*/ end", "back\\slash"),
    );
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(word, word, description, fc.boolean(), async (collection, field, text, required) => {
        const declaration = baseDeclaration() as { resources: Record<string, unknown> };
        declaration.resources = {
          [`${collection}items`]: {
            description: text,
            fields: { [field]: { type: "string", required, description: text, maxLength: 10 + text.length }, price: { type: "number", minimum: 0 } },
            access: { read: "public", write: ["products:write"] },
          },
        };
        const files = await finalFiles("api.yaml", stringify(declaration));
        for (const one of files ?? []) {
          expect(one.contents, one.path).toBe(one.formatted);
          checked++;
        }
      }),
      { numRuns: 40 },
    );
    expect(checked, refusals.slice(-3).join("\n")).toBeGreaterThan(10);
  }, 300_000);
});

/**
 * An OpenAPI 3.1 document of `schemas` named schemas, `paths` GET operations and, if `webhook`,
 * one webhook; the shapes the corpus sweep found final but not prettier's (no schemas: rentcast.io;
 * no operations, webhooks only: adyen.com's notification documents).
 */
function documentOf(schemas: readonly string[], paths: readonly string[], webhook: boolean): string {
  const schema = { type: "object", properties: { id: { type: "string" } } };
  return JSON.stringify({
    openapi: "3.1.0",
    info: { title: "Shapes", version: "1.0.0" },
    paths: Object.fromEntries(
      paths.map((name, i) => [
        `/${name}${i}`,
        {
          get: {
            operationId: `get${name}${i}`,
            responses: {
              "200": {
                description: "ok",
                content: { "application/json": { schema: schemas.length > 0 ? { $ref: `#/components/schemas/${schemas[0]}` } : schema } },
              },
            },
          },
        },
      ]),
    ),
    ...(webhook
      ? { webhooks: { note: { post: { requestBody: { content: { "application/json": { schema } } }, responses: { "200": { description: "ok" } } } } } }
      : {}),
    components: { schemas: Object.fromEntries(schemas.map((name) => [name, schema])) },
  });
}

describe("files in their final layout, APIs without types or handlers", () => {
  it("an API without schemas or operations: types.gen.ts, handlers.gen.ts and server.gen.ts final and as prettier prints them", async () => {
    const files = await finalFiles("openapi.json", documentOf([], [], true));
    expect(files).toBeDefined();
    // The shapes are laid out by codegen (not left to prettier), so the comparison below is not vacuous.
    expect(files!.map((f) => f.path)).toEqual(expect.arrayContaining(["types.gen.ts", "handlers.gen.ts", "server.gen.ts"]));
    for (const one of files!) expect(one.contents, one.path).toBe(one.formatted);
  });

  it("holds for documents fuzzed with and without schemas, operations and webhooks", async () => {
    const name = fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,30}$/);
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(name, { maxLength: 3 }), fc.array(name, { maxLength: 3 }), fc.boolean(), async (schemas, paths, webhook) => {
        const files = await finalFiles("openapi.json", documentOf(schemas, paths, webhook));
        for (const one of files ?? []) {
          expect(one.contents, one.path).toBe(one.formatted);
          checked++;
        }
      }),
      {
        numRuns: 30,
        examples: [
          [[], [], true],
          [[], ["items"], false],
          [["Thing"], [], true],
        ],
      },
    );
    expect(checked, refusals.slice(-3).join("\n")).toBeGreaterThan(30);
  }, 300_000);
});
