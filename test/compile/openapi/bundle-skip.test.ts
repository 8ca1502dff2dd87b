import { readFileSync } from "node:fs";
import path from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it, vi } from "vitest";
import { needsBundling } from "../../../src/compile/openapi/ref-files.js";
import { ROOT } from "../../support/fixtures.js";

// Counts swagger-parser's bundlings: a document whose refs are all plain local pointers needs none
// (the walk took 1 s of GitHub's 5 MB document and changed nothing).
const bundles = vi.hoisted(() => ({ made: 0 }));
vi.mock("@apidevtools/swagger-parser", async (original) => {
  const { default: parser } = await original<{ default: typeof SwaggerParser }>();
  const counted = Object.create(parser) as typeof SwaggerParser;
  counted.bundle = ((...args: Parameters<typeof parser.bundle>) => {
    bundles.made++;
    return parser.bundle(...args);
  }) as typeof parser.bundle;
  return { default: counted };
});

const { documentFromText } = await import("../../../src/pipeline.js");

const schema = (extra: Record<string, unknown> = {}) => ({
  openapi: "3.0.3",
  info: { title: "t", version: "1" },
  paths: {
    "/pets/{id}": {
      get: {
        parameters: [{ $ref: "#/components/parameters/id" }],
        responses: { "200": { $ref: "#/components/responses/pet" } },
      },
    },
  },
  components: {
    parameters: { id: { name: "id", in: "path", required: true, schema: { type: "string" } } },
    responses: { pet: { description: "a pet", content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } } } },
    schemas: {
      Pet: { type: "object", properties: { name: { type: "string" }, kids: { type: "array", items: { $ref: "#/components/schemas/Pet" } } } },
      ...extra,
    },
  },
});

/** What swagger-parser's bundle gives for a document read from a .json file beside the fixtures. */
const bundled = async (document: object) =>
  JSON.parse(
    JSON.stringify(await SwaggerParser.bundle(path.join(ROOT, "x.json"), structuredClone(document) as never, { resolve: { external: false } })),
  ) as unknown;

describe("bundling skipped where it changes nothing", () => {
  it("a document of plain local refs (recursive ones too) is not bundled, and bundling it would give it back", async () => {
    expect(needsBundling(schema())).toBe(false);
    expect(await bundled(schema())).toEqual(schema());
  });

  it("the real documents the gate lets through come back from bundling unchanged", async () => {
    const corpus = JSON.parse(readFileSync(path.join(ROOT, "fixtures/openapi-corpus/documents.json"), "utf8")) as { file: string; version: string }[];
    let skipped = 0;
    for (const { file } of corpus.filter((d, i) => i % 8 === 0 && /\.json$/.test(d.file))) {
      const document = JSON.parse(readFileSync(path.join(ROOT, file), "utf8")) as object;
      if (needsBundling(document)) continue;
      skipped++;
      expect(await bundled(document), file).toEqual(document);
    }
    expect(skipped).toBeGreaterThan(3);
  });

  const changed: [string, object][] = [
    ["a percent-escaped pointer", { ...schema(), x: { $ref: "#/paths/~1pets~1%7Bid%7D/get" } }],
    ["a ref through a ref", schema({ Name: { $ref: "#/components/responses/pet/content/application~1json/schema/properties/name" } })],
    ["a pointer through a ref in an array", { ...schema(), x: { $ref: "#/paths/~1pets~1{id}/get/parameters/0/name" } }],
  ];
  it.each(changed)("%s is bundled: bundling rewrites it", async (_, document) => {
    expect(needsBundling(document)).toBe(true);
    expect(await bundled(document)).not.toEqual(document);
  });

  const others: [string, object][] = [
    ["a ref to another file", { ...schema(), x: { $ref: "other.yaml#/a" } }],
    ["a ref to a ref", schema({ Alias: { $ref: "#/components/schemas/Pet" }, Uses: { $ref: "#/components/schemas/Alias" } })],
    ["a ref to nothing", schema({ Lost: { $ref: "#/components/schemas/Nowhere" } })],
    ["a ref that is not a string", schema({ Odd: { $ref: 7 } })],
    ["an $id", schema({ Scoped: { $id: "https://example.com/s", type: "string" } })],
  ];
  it.each(others)("%s is bundled as before", (_, document) => {
    expect(needsBundling(document)).toBe(true);
  });

  it("reading a document of plain local refs does not bundle it; one with a ref through a ref is", async () => {
    bundles.made = 0;
    const plain = await documentFromText("api.json", JSON.stringify(schema()), ROOT);
    expect(plain.diagnostics).toEqual([]);
    expect(bundles.made).toBe(0);
    const through = await documentFromText("api.json", JSON.stringify(changed[1]![1]), ROOT);
    expect(through.diagnostics).toEqual([]);
    expect(bundles.made).toBe(1);
  });
});
