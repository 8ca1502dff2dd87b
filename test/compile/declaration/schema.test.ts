import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { declarationJsonSchema } from "../../../src/compile/declaration/schema.js";
import { ROOT, declarationOf, fixtureCases, runCli } from "../../support/fixtures.js";

/** Diagnostic codes that only say the declaration's shape is wrong: the JSON Schema must catch them too. */
const SHAPE_CODES = new Set([
  "decl/unknown-key",
  "decl/missing-key",
  "decl/wrong-type",
  "decl/bad-value",
  "decl/bad-pattern",
  "decl/name-too-long",
  "decl/too-few",
  "decl/extension-as-name",
  "decl/reserved-extension",
]);

/**
 * Codes of rules the validator checks after the shape, with their own message, that the JSON
 * Schema states too (`schemaOnly`), so an editor flags them as well.
 */
const STATED_CODES = new Set([
  "decl/reserved-field",
  "decl/items-required",
  "decl/fields-required",
  "decl/key-not-for-type",
  "decl/list-only",
  "decl/duplicate-operation",
  "decl/duplicate-state",
  "decl/access-without-auth",
  "decl/when-without-status",
  "decl/filter-not-scalar",
  "decl/filter-write-only",
  "decl/license-identifier-or-url",
]);

const schema = declarationJsonSchema();
const ajv = new Ajv2020({ strict: true, allErrors: true });
const validate = ajv.compile(schema);

function readDeclaration(file: string): unknown {
  return parse(readFileSync(path.join(ROOT, file), "utf8"));
}

describe("the JSON Schema of the format agrees with the validator", () => {
  it("is what `codegen schema` prints", async () => {
    const result = await runCli(["schema"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(schema);
  });

  it.each(fixtureCases("valid"))("accepts the valid fixture %s", (name) => {
    const ok = validate(readDeclaration(declarationOf("valid", name)));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  // A case without its golden yet is the golden test's to report.
  const casesWhose = (known: (code: string) => boolean) =>
    fixtureCases("invalid").filter((name) => {
      const golden = path.join(ROOT, "fixtures/invalid", name, "expected.txt");
      if (!existsSync(golden)) return false;
      const expected = readFileSync(golden, "utf8");
      const codes = [...expected.matchAll(/ error: .* \[([a-z-]+\/[a-z-]+)\]$/gm)].map((m) => m[1]!);
      return codes.length > 0 && codes.every(known);
    });
  const shapeCases = casesWhose((code) => SHAPE_CODES.has(code));
  const statedCases = casesWhose((code) => SHAPE_CODES.has(code) || STATED_CODES.has(code)).filter((name) => !shapeCases.includes(name));

  it("has shape-error fixtures to compare", () => {
    expect(shapeCases.length).toBeGreaterThan(0);
  });

  it.each(shapeCases)("refuses the shape-error fixture %s", (name) => {
    expect(validate(readDeclaration(declarationOf("invalid", name)))).toBe(false);
  });

  it("has fixtures of the rules it states beyond the shape", () => {
    expect(statedCases.length).toBeGreaterThanOrEqual(STATED_CODES.size);
  });

  it.each(statedCases)("refuses the fixture %s, whose rule it states too", (name) => {
    expect(validate(readDeclaration(declarationOf("invalid", name)))).toBe(false);
  });

  it("refuses a query parameter named like the list's own", () => {
    const declaration = (name: string) => ({
      codegen: 1,
      info: { title: "t", version: "1" },
      resources: { items: { fields: { a: "string" }, operations: { list: { query: { [name]: "string" } } } } },
    });
    expect(validate(declaration("q"))).toBe(true);
    for (const name of ["limit", "cursor", "sort", "status"]) expect(validate(declaration(name)), name).toBe(false);
  });
});
