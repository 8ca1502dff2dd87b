// Every OpenAPI 3.0 and 3.1 document of @readme/oas-examples (written
// by others, a dev dependency) either generates server code that compiles under tsc --strict, or
// fails with diagnostics that each name a place of the input. The outcome of every document is a
// golden (fixtures/openapi-examples/outcomes.json), reviewed like code: a document that stops
// generating, or a diagnostic that changes, shows in the diff.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nodeHost } from "../../../src/host.js";
import { generateFiles } from "../../../src/pipeline.js";
import { ROOT, expectGolden } from "../../support/fixtures.js";
import { payloadInCode } from "../../support/generated-code.js";
import { generatedOptions, tsFilesUnder, typeCheck } from "../../support/type-check.js";

const PACKAGE = "node_modules/@readme/oas-examples";
/** Every 3.x document of the package: its YAML files, and the JSON files (in folders too) that have no YAML twin. */
const documents = ["3.0", "3.1"].flatMap((version) => {
  const yaml = readdirSync(path.join(ROOT, PACKAGE, version, "yaml")).filter((name) => name.endsWith(".yaml"));
  const twins = new Set(yaml.map((name) => name.replace(/\.yaml$/, "")));
  const json = readdirSync(path.join(ROOT, PACKAGE, version, "json"), { recursive: true, encoding: "utf8" })
    .map((name) => name.split(path.sep).join("/"))
    .filter((name) => name.endsWith(".json") && !twins.has(name.replace(/\.json$/, "")));
  return [...yaml.sort().map((name) => `${version}/yaml/${name}`), ...json.sort().map((name) => `${version}/json/${name}`)];
});
/** codegen's own documents of this kind: the HTTP tests' shop, names that try to escape, and one of each construct rendered otherwise. */
const ownDocuments = ["fixtures/openapi/shop/openapi.yaml", "fixtures/openapi/hostile/openapi.yaml", "fixtures/openapi/rendered-otherwise/openapi.yaml"];

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-oas-examples-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Each document's outcome: "generates" or its diagnostics (code, place and message). */
const outcomes: Record<string, string | string[]> = {};

describe("OpenAPI documents written by others (@readme/oas-examples)", () => {
  it.each([...documents, ...ownDocuments])("%s generates, or fails with diagnostics at places of the input", async (name) => {
    const file = name.startsWith("fixtures/") ? name : `${PACKAGE}/${name}`;
    const outDir = path.join(scratch, name.replace(/[/.]/g, "_"));
    const result = await generateFiles({ ...nodeHost(), cwd: ROOT }, file, readFileSync(path.join(ROOT, file), "utf8"), { outDir });
    if (result.value) {
      for (const generated of result.value) {
        const target = path.join(outDir, generated.path);
        mkdirSync(path.dirname(target), { recursive: true });
        writeFileSync(target, generated.contents);
      }
      outcomes[name] = "generates";
      return;
    }
    expect(result.diagnostics.length).toBeGreaterThan(0);
    for (const d of result.diagnostics) {
      expect(d.code, d.message).toMatch(/^openapi\//);
      // Every diagnostic is at a place of a file, so an editor can jump to it.
      expect(d.location?.line ?? 0, d.message).toBeGreaterThan(0);
    }
    outcomes[name] = result.diagnostics.map(
      (d) => `${d.code} ${d.location?.file === file ? "" : `${d.location?.file} `}${d.location?.line}:${d.location?.column} ${d.message}`,
    );
  });

  it("every generated tree compiles under tsc --strict (noUncheckedIndexedAccess, exactOptionalPropertyTypes, noUnused*)", () => {
    const generated = Object.entries(outcomes).filter(([, outcome]) => outcome === "generates");
    expect(generated.length).toBeGreaterThan(0);
    // The generated code is ES modules, as in a project with "type": "module".
    writeFileSync(path.join(scratch, "package.json"), JSON.stringify({ type: "module" }));
    // One program over every tree, its runtime checked once (test/support/type-check.ts).
    const errors = typeCheck(tsFilesUnder(scratch), generatedOptions());
    if (errors.length > 0) throw new Error(`tsc failed:\n${errors.join("\n").slice(0, 20_000)}`);
  }, 600_000);

  it("names and texts of the hostile document stay inside the strings and comments they are put in", () => {
    expect(outcomes["fixtures/openapi/hostile/openapi.yaml"]).toBe("generates");
    const dir = path.join(scratch, "fixtures/openapi/hostile/openapi.yaml".replace(/[/.]/g, "_"));
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".ts") && !name.startsWith("runtime"));
    expect(files.length).toBeGreaterThan(5);
    // The payloads call console.log, process.exit, import('x'), evil() and throw: scanned as
    // TypeScript, none of their words may be code (an identifier or a keyword token).
    const escaped = files.flatMap((name) => payloadInCode(readFileSync(path.join(dir, name), "utf8")).map((word) => `${name}: ${word}`));
    expect(escaped).toEqual([]);
    // The tag `../../../../tmp/evil` names a file inside operations/, nowhere else.
    expect(files.filter((name) => name.startsWith("operations")).every((name) => /^operations[/\\][a-z0-9-]+\.gen\.ts$/.test(name))).toBe(true);
  });

  it("the outcomes match their golden (fixtures/openapi-examples/outcomes.json)", () => {
    expect(Object.keys(outcomes).sort()).toEqual([...documents, ...ownDocuments].sort());
    const ordered = Object.fromEntries([...documents, ...ownDocuments].map((name) => [name, outcomes[name]]));
    expectGolden(`${JSON.stringify(ordered, null, 2)}\n`, "fixtures/openapi-examples/outcomes.json");
  });
});
