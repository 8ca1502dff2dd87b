// The manifest hashes the shape of the OpenAPI document codegen writes from the data it
// wrote it from, never by parsing its own openapi.yaml back (6 of 16 s at 1000 resources). The
// hash must stay the one the text gives (old manifests, and the user's reformatted file, compare
// with it): proven here on every fixture, in both versions, and on random data (src/emit/yaml.ts
// writes only text that reads back as the data).
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { nodeHost } from "../../src/host.js";
import { generateFiles } from "../../src/pipeline.js";
import type { DataFile } from "../../src/emit/render.js";
import { entryOf, manifestTextOf, shapeHashOf, shapeHashOfFile } from "../../src/write/plan.js";
import { jsonToYaml } from "../../src/emit/yaml.js";
import { ROOT } from "../support/fixtures.js";

/** Every text yaml's parse was given. */
const parsed = vi.hoisted(() => [] as unknown[]);
vi.mock("yaml", async (original) => {
  const real = await original<typeof import("yaml")>();
  return {
    ...real,
    parse: (...args: Parameters<typeof real.parse>) => {
      parsed.push(args[0]);
      return real.parse(...args);
    },
  };
});

const FIXTURES = readdirSync(path.join(ROOT, "fixtures/valid"));

/** Strings made of what makes YAML quote, fold, block or retype a scalar. */
const text = fc
  .array(
    fc.constantFrom(
      "a",
      " ",
      "\n",
      ":",
      ": ",
      " #",
      "- ",
      "'",
      '"',
      "\\",
      "\t",
      "{",
      "[",
      "*",
      "&",
      "|",
      ">",
      "%",
      "null",
      "true",
      "1",
      "0x1",
      "1.5",
      "-0",
      "é",
      "\u0085",
      "\u2028",
      "\r",
      "~",
      "<<",
    ),
    {
      maxLength: 6,
    },
  )
  .map((parts) => parts.join(""));
const data = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    text,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(text, fc.constantFrom("__proto__", "constructor", "0", "1e3")), tie("value"), { maxKeys: 4 }),
  ),
})).value;

describe("the shape of a generated YAML or JSON file", () => {
  it("is hashed from its data as from its text, for any JSON data", () => {
    fc.assert(
      fc.property(data, (value) => {
        const yaml = jsonToYaml(value);
        expect(shapeHashOfFile({ path: "openapi.yaml", contents: yaml, data: value })).toBe(shapeHashOf("openapi.yaml", yaml));
        const json = JSON.stringify(value, null, 2) + "\n";
        expect(shapeHashOfFile({ path: "a.json", contents: json, data: value })).toBe(shapeHashOf("a.json", json));
      }),
      { numRuns: 2000 },
    );
  });

  it.each(FIXTURES.flatMap((fixture) => (["3.1", "3.0"] as const).map((version) => [fixture, version] as const)))(
    "%s (OpenAPI %s): openapi.yaml's manifest hash is the text's, and nothing parses it back",
    async (fixture, openapiVersion) => {
      const dir = path.join("fixtures/valid", fixture);
      const file = path.join(
        dir,
        readdirSync(path.join(ROOT, dir)).find((name) => name.startsWith("declaration."))!,
      );
      const result = await generateFiles({ ...nodeHost(), cwd: ROOT }, file, readFileSync(path.join(ROOT, file), "utf8"), {
        outDir: path.join("fixtures/valid", fixture, "expected"),
        format: false,
        openapiVersion,
        migration: { name: "initial" },
      });
      const openapi = result.value?.find((f) => f.path === "openapi.yaml") as DataFile | undefined;
      // Its data's shape, hashed from the data's compact JSON text (shapeOfJson).
      expect(openapi?.dataShape).toBeDefined();
      parsed.length = 0;
      const manifest = JSON.parse(manifestTextOf(result.value!.map((file) => entryOf(file)))) as { files: Record<string, string> };
      expect(parsed).not.toContain(openapi!.contents);
      expect(manifest.files["openapi.yaml"]).toBe(shapeHashOf("openapi.yaml", openapi!.contents));
      // The PostgreSQL snapshot likewise, where the API has resources.
      const snapshot = result.value?.find((f) => f.path === "migrations/schema.json") as DataFile | undefined;
      if (snapshot) {
        expect(snapshot.data).toBeDefined();
        expect(parsed).not.toContain(snapshot.contents);
        expect(manifest.files["migrations/schema.json"]).toBe(shapeHashOf("migrations/schema.json", snapshot.contents));
      }
    },
    60_000,
  );
});
