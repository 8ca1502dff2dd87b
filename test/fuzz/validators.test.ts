// Issue 7, "Validators against an oracle": for every schema of every valid fixture's document,
// random JSON values (near the schema, mutated, or anything at all) are judged by the generated
// validator (runtime/validate.gen.ts over the table src/model/schema-code.ts builds) and by ajv
// (JSON Schema 2020-12, with ajv-formats); the two must agree on every value.

import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { fullFormats } from "ajv-formats/dist/formats.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { schemaNode } from "../../src/model/schema-code.js";
import type { JsonSchema } from "../../src/model/schema-code.js";
import { hasFormat, validateValue } from "../../templates/runtime/validate.gen.js";
import type { SchemaNode, SchemaTable } from "../../templates/runtime/validate.gen.js";
import { ROOT, fixtureCases } from "../support/fixtures.js";

/** Scale of the runs: 1 in npm test; scripts/fuzz.js raises it (FUZZ_SCALE, FUZZ_SEED). */
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
/** Values tried per schema. */
const RUNS = 300 * SCALE;
/**
 * The seed: FUZZ_SEED when given (to replay a failure); in CI a fixed one, so a landing never
 * depends on luck (locally and in scripts/fuzz.js every run explores new values).
 */
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : process.env.CI ? 20261122 : undefined;
/** fast-check's parameters: `numRuns`, and the seed when one is given (to replay a failure). */
const runs = (numRuns: number): { numRuns: number; seed?: number } => (SEED === undefined ? { numRuns } : { numRuns, seed: SEED });

type Json = { [key: string]: unknown };

/**
 * ajv with ajv-formats, except where ajv-formats is at odds with the RFCs JSON Schema 2020-12
 * section 7.3 names; there the generated validator follows the RFC and the oracle is told so:
 * - `uuid`: ajv-formats also accepts the URN form `urn:uuid:...`, which is not RFC 4122's string
 *   representation (and no path id a client would send);
 * - `date-time`: ajv-formats also accepts a space for the `T`, and offsets without their colon
 *   (`+0530`) or minutes (`+05`); RFC 3339 section 5.6 allows neither.
 */
function oracleAjv(): Ajv2020 {
  // Not strict: the document's annotations (x-codegen-*, readOnly, examples) are no keywords of ajv's.
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats.default(ajv);
  ajv.addFormat("password", true);
  const full = fullFormats as unknown as { uuid: RegExp; "date-time": { validate: (text: string) => boolean } };
  ajv.addFormat("uuid", (text: string) => !text.toLowerCase().startsWith("urn:uuid:") && full.uuid.test(text));
  ajv.addFormat("date-time", (text: string) => /^.{10}[Tt][^ ]*(?:[Zz]|[+-]\d\d:\d\d)$/s.test(text) && full["date-time"].validate(text));
  return ajv;
}

/** A fixture's schemas: ajv's validator per name, and the generated validator's table. */
function load(name: string): { schemas: Json; table: SchemaTable; ajv: Ajv2020 } {
  const document = parse(readFileSync(path.join(ROOT, "fixtures/valid", name, "expected/openapi.yaml"), "utf8")) as Json;
  const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Json;
  const table = Object.fromEntries(Object.entries(schemas).map(([key, schema]) => [key, schemaNode(schema as JsonSchema)])) as SchemaTable;
  const ajv = oracleAjv();
  ajv.addSchema({ $id: "urn:codegen:fixture", components: { schemas } });
  return { schemas, table, ajv };
}

/** Values near a schema: mostly valid, sometimes just outside a bound; `anything` stands in for the rest. */
function near(node: SchemaNode, table: SchemaTable, depth: number): fc.Arbitrary<unknown> {
  if (node.ref !== undefined) return depth > 3 ? fc.jsonValue({ maxDepth: 1 }) : near(table[node.ref] ?? {}, table, depth + 1);
  const options: fc.Arbitrary<unknown>[] = [fc.jsonValue({ maxDepth: 2 })];
  if (node.enum) options.push(fc.constantFrom(...node.enum));
  for (const type of node.types ?? []) options.push(ofType(type, node, table, depth));
  return fc.oneof(...options);
}

function ofType(type: string, node: SchemaNode, table: SchemaTable, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "string":
      return fc.oneof(
        fc.string({ minLength: Math.max(0, (node.minLength ?? 0) - 1), maxLength: (node.maxLength ?? 8) + 1, unit: "grapheme" }),
        fc.string({ unit: "binary", maxLength: 10 }),
        ...formatted(node.format),
      );
    case "integer":
    case "number": {
      const low = node.minimum ?? -1000;
      const high = node.maximum ?? 1000;
      return fc.oneof(
        fc.integer({ min: Math.floor(low) - 2, max: Math.ceil(high) + 2 }),
        fc.double({ min: low - 1, max: high + 1, noNaN: true }),
        fc.constantFrom(low, high, 0, -0, 1.5, 2 ** 53, -(2 ** 53), 1e308),
      );
    }
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const item = node.items && depth < 4 ? near(node.items, table, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      return fc.array(item, { minLength: Math.max(0, (node.minItems ?? 0) - 1), maxLength: (node.maxItems ?? 3) + 1 });
    }
    case "object": {
      const properties = Object.entries(node.properties ?? {});
      if (depth >= 4 || properties.length === 0) return fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
      const record = Object.fromEntries(properties.map(([key, child]) => [key, near(child, table, depth + 1)]));
      const required = (node.required ?? []).filter((key) => Object.hasOwn(record, key));
      return fc.tuple(
        fc.record(record, { requiredKeys: required }),
        fc.option(fc.constantFrom(...Object.keys(record)), { nil: undefined }),
        fc.option(fc.tuple(fc.constantFrom("__proto__", "constructor", "extra", "x"), fc.jsonValue({ maxDepth: 1 })), { nil: undefined }),
      ).map(([value, drop, extra]) => {
        const copy: Json = { ...value };
        if (drop !== undefined) delete copy[drop];
        if (extra !== undefined) Object.defineProperty(copy, extra[0], { value: extra[1], enumerable: true, writable: true, configurable: true });
        return copy;
      });
    }
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

/** Strings in and near a format, and the edge cases of each. */
function formatted(format: string | undefined): fc.Arbitrary<string>[] {
  switch (format) {
    case "email":
      return [fc.emailAddress(), fc.constantFrom("a@b", "a@b.c", "a b@c.d", "@c.d", "a@.d", "a@b..c", "\"a\"@b.c", "a@[127.0.0.1]", "é@b.c", "a@b.c\n")];
    case "uuid":
      return [fc.uuid(), fc.constantFrom("00000000-0000-0000-0000-000000000000", "urn:uuid:00000000-0000-0000-0000-000000000000", "0000000000000000000000000000000", "G0000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-00000000000\n")];
    case "date":
      return [
        fc.date({ min: new Date(-1e14), max: new Date(3e13), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
        fc.constantFrom("2024-02-29", "2023-02-29", "2024-13-01", "2024-00-10", "2024-1-1", "20240101", "2024-01-01T00:00:00Z", "2024-01-01\n", "0000-01-01"),
      ];
    case "date-time":
      return [
        fc.date({ min: new Date(-1e14), max: new Date(3e13), noInvalidDate: true }).map((d) => d.toISOString()),
        fc.constantFrom("2024-01-01T00:00:00Z", "2024-01-01t00:00:00z", "2024-01-01 00:00:00Z", "2024-01-01T00:00:00", "2024-01-01T24:00:00Z", "2016-12-31T23:59:60Z", "2024-01-01T12:59:60Z", "2024-01-01T00:00:00+25:00", "2024-01-01T00:00:00.123456789-05:30", "2024-01-01T00:00Z"),
      ];
    case "uri":
      return [fc.webUrl(), fc.constantFrom("a:b", "http://x y", "//host/path", "/relative", "mailto:a@b.c", "http://[::1]/", "urn:isbn:0451450523", "http://example.com/%zz", "http://a.b/\u00e9", "HTTP://EXAMPLE.COM", "1http://x")];
    default:
      return [];
  }
}

/** The generated validator's verdict. */
function generated(table: SchemaTable, name: string, value: unknown): boolean {
  return validateValue({ ref: name }, value, "", {}, table);
}

describe("the generated validator agrees with ajv (JSON Schema 2020-12)", () => {
  const cases = fixtureCases("valid").flatMap((fixture) => {
    const { schemas } = load(fixture);
    return Object.keys(schemas).map((schema) => [fixture, schema] as const);
  });
  const loaded = new Map<string, ReturnType<typeof load>>();

  it.each(cases)("%s: %s", (fixture, name) => {
    if (!loaded.has(fixture)) loaded.set(fixture, load(fixture));
    const { table, ajv } = loaded.get(fixture)!;
    const oracle = ajv.getSchema(`urn:codegen:fixture#/components/schemas/${name}`);
    if (!oracle) throw new Error(`ajv cannot resolve ${name}`);
    fc.assert(
      fc.property(near({ ref: name }, table, 0), (value) => {
        const expected = oracle(value);
        expect(generated(table, name, value), `${JSON.stringify(value)}: ajv says ${String(expected)} ${JSON.stringify(oracle.errors)}`).toBe(expected);
      }),
      runs(RUNS),
    );
  }, 20_000 * SCALE);

  it("formats: the edge cases alone, against ajv-formats", () => {
    const ajv = oracleAjv();
    for (const format of ["email", "uuid", "date", "date-time", "uri"]) {
      const check = ajv.compile({ type: "string", format });
      fc.assert(
        fc.property(fc.oneof(...formatted(format), fc.string({ maxLength: 12 })), (text) => {
          expect(hasFormat(format, text), `${format} ${JSON.stringify(text)}`).toBe(check(text));
        }),
        runs(RUNS),
      );
    }
  }, 20_000 * SCALE);
});
