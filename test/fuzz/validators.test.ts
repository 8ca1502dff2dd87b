// For every schema of every valid fixture's document,
// random JSON values (near the schema, mutated, or anything at all) are judged by the generated
// validator (runtime/validate.gen.ts over the table src/compile/api/schema-code.ts builds) and by ajv
// (JSON Schema 2020-12, with ajv-formats); the two must agree on every value. Hand-written schemas
// do the same for the keywords our own documents never use (allOf, oneOf, const, multipleOf...).

import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { fullFormats } from "ajv-formats/dist/formats.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { schemaNode } from "../../src/compile/api/schema-code.js";
import type { JsonSchema } from "../../src/compile/api/schema-code.js";
import { hasFormat, validateValue } from "../../runtime/validate.gen.js";
import type { FieldErrors, SchemaNode, SchemaPart, SchemaTable } from "../../runtime/validate.gen.js";
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

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** Valid values of the schemas below that random values rarely hit; near them, many stay valid. */
const KEYWORD_EXAMPLES: { [name: string]: unknown[] } = {
  Cat: [{ kind: "cat", lives: 9, name: "tom" }],
  Scores: [{ a: 2, b: -4 }],
  Order: [
    { id: "me", pets: [{ kind: "cat", lives: 3 }], price: 2.5 },
    { id: 7, pets: [{ kind: "dog", name: "rex", good: false }, null], note: "hi", origin: { y: [1, "two", null], x: 0 } },
    { id: "00000000-0000-0000-0000-000000000000", pets: [null], note: "secret" },
  ],
  Expr: [{ op: "add", args: [1, { op: "mul", args: [2, { op: "add", args: [] }] }] }, { op: "add", args: [{ op: "add", args: [1] }] }, 5],
  Word: ["aaa", "aa!", "xb12y", "b123", "b1234", ""],
  Headers: [{ id: 1, "x-a": "ab", n1: 2.5 }, { "x-": "" }],
  Shipping: [
    { country: "US", zip: "12345" },
    { country: "CA", postal: "K1A" },
  ],
  Card: [{ name: "a", card: 1, billing: "b" }, { name: "a" }],
  Strict: [
    { kind: "cat", tag: "t", owner: "o" },
    { kind: "dog", chip: 3, color: "red" },
  ],
  Tree: [{ v: 1, kids: [{ v: 2 }, { v: 3, kids: [] }] }],
  Point: [
    [1, 2],
    [1.5, -2, "km"],
  ],
};

/**
 * Schemas as documents written by others have them: every keyword the fixtures do not use,
 * nested, through references, and as boolean schemas (2020-12 section 4.3.2).
 */
const KEYWORD_SCHEMAS: Json = {
  Name: { type: "string", minLength: 1, maxLength: 6, not: { const: "admin" } },
  Even: { type: "integer", multipleOf: 2, exclusiveMinimum: -6, exclusiveMaximum: 10 },
  Price: { type: "number", multipleOf: 0.25, exclusiveMinimum: 0, maximum: 100 },
  Ratio: { type: "number", multipleOf: 0.1, minimum: 0, exclusiveMaximum: 1 },
  Id: { anyOf: [{ type: "string", format: "uuid" }, { type: "integer", minimum: 1 }, { const: "me" }] },
  Pet: { type: "object", required: ["kind"], properties: { kind: { enum: ["cat", "dog"] }, name: ref("Name") } },
  Cat: { allOf: [ref("Pet"), { properties: { kind: { const: "cat" }, lives: { type: "integer", minimum: 1, maximum: 9 } }, required: ["lives"] }] },
  Dog: { allOf: [ref("Pet"), { properties: { kind: { const: "dog" }, good: { type: "boolean", default: true } }, not: { required: ["lives"] } }] },
  AnyPet: { oneOf: [ref("Cat"), ref("Dog"), { type: "null" }] },
  Either: { oneOf: [{ type: "integer" }, { type: "number", multipleOf: 0.5 }] },
  Tags: { type: "array", uniqueItems: true, maxItems: 4, items: { anyOf: [ref("Name"), { type: "object", maxProperties: 1 }] } },
  Scores: { type: "object", minProperties: 1, maxProperties: 3, additionalProperties: ref("Even") },
  Origin: { const: { x: 0, y: [1, "two", null] } },
  Choice: { enum: [{ x: 0 }, [1, 2], "x", null] },
  NotNull: { not: { type: "null" } },
  Booleans: { type: "object", properties: { never: false, always: true }, allOf: [true], anyOf: [false, { type: "object", maxProperties: 2 }] },
  // A recursive oneOf (every branch tried at every level; verdicts of references are
  // kept per value), with branches that overlap (`add` with arguments matches both)...
  Expr: { oneOf: [ref("Sum"), ref("Product"), { type: "number" }] },
  Sum: {
    type: "object",
    required: ["op", "args"],
    properties: { op: { const: "add" }, args: { type: "array", items: ref("Expr") } },
    additionalProperties: false,
  },
  Product: { type: "object", required: ["op", "args"], properties: { op: { enum: ["mul", "add"] }, args: { type: "array", minItems: 1, items: ref("Expr") } } },
  // ... and a pattern V8 backtracks on, matched by the linear automaton, with assertions.
  Word: { type: "string", pattern: "^(a+)+$|\\bb\\d{2,3}\\B" },
  // The 2020-12 keywords real documents use.
  Headers: {
    type: "object",
    properties: { id: { type: "integer" }, "x-id": { type: "string" } },
    patternProperties: { "^x-": { type: "string", maxLength: 3 }, "^n\\d": { type: "number" }, "(a+)+b": { type: "null" } },
    additionalProperties: false,
  },
  Labels: { type: "object", propertyNames: { pattern: "^[a-z]{1,3}$" }, additionalProperties: { type: "string" }, maxProperties: 3 },
  Named: { type: "object", propertyNames: { enum: ["a", "b", "x-a"] }, patternProperties: { "^x-": { type: "integer" } } },
  Point: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }, { enum: ["m", "km"] }], items: false, minItems: 2 },
  Row: { type: "array", prefixItems: [{ type: "string" }, ref("Even")], items: { type: "boolean" }, maxItems: 4 },
  Shipping: {
    type: "object",
    properties: { country: { enum: ["US", "CA"] }, zip: { type: "string" }, postal: { type: "string" } },
    required: ["country"],
    if: { properties: { country: { const: "US" } } },
    then: { required: ["zip"], properties: { zip: { pattern: "^[0-9]{5}$" } } },
    else: { required: ["postal"] },
  },
  OnlyThen: { if: { type: "string" }, then: { minLength: 2 } },
  Card: {
    type: "object",
    properties: { name: { type: "string" }, card: { type: "integer" }, billing: { type: "string" } },
    dependentRequired: { card: ["billing"], billing: ["name"] },
  },
  Strict: {
    allOf: [ref("Pet")],
    properties: { owner: { type: "string" } },
    anyOf: [{ properties: { tag: { type: "string" } }, required: ["tag"] }, { properties: { chip: { type: "integer" } } }],
    if: { properties: { kind: { const: "dog" } } },
    then: { properties: { color: { type: "string" } } },
    unevaluatedProperties: false,
  },
  Tagged: {
    type: "object",
    properties: { kind: { type: "string" } },
    patternProperties: { "^t": { type: "string" } },
    unevaluatedProperties: { type: "integer" },
  },
  Tree: {
    type: "object",
    properties: { v: { type: "integer" } },
    anyOf: [{ properties: { kids: { type: "array", items: ref("Tree") } } }, { required: ["leaf"], properties: { leaf: { const: true } } }],
    unevaluatedProperties: false,
  },
  Order: {
    type: "object",
    required: ["id", "pets"],
    additionalProperties: false,
    properties: {
      id: ref("Id"),
      pets: { type: "array", minItems: 1, maxItems: 2, uniqueItems: true, items: ref("AnyPet") },
      price: ref("Price"),
      note: { type: ["string", "null"], not: { enum: ["", null] }, maxLength: 8 },
      origin: { allOf: [ref("Origin"), { type: "object" }] },
    },
    anyOf: [{ required: ["price"] }, { required: ["note"] }],
    not: { required: ["note"], properties: { note: { const: "secret" } } },
  },
};

/**
 * ajv with ajv-formats, except where ajv-formats is at odds with the RFCs JSON Schema 2020-12
 * section 7.3 names; there the generated validator follows the RFC and the oracle is told so:
 * - `uuid`: ajv-formats also accepts the URN form `urn:uuid:...`, which is not RFC 4122's string
 *   representation (and no path id a client would send);
 * - `date-time`: ajv-formats also accepts a space for the `T`, and offsets without their colon
 *   (`+0530`) or minutes (`+05`); RFC 3339 section 5.6 allows neither. And the generated server
 *   takes only instants of the years 0001 to 9999 in UTC, which its stores can hold
 *   (docs/http-behaviour.md): `0000-12-31T23:59:59Z` is refused, `0000-12-31T23:00:00-05:00` taken.
 */
function oracleAjv(): Ajv2020 {
  // Not strict: the document's annotations (x-codegen-*, readOnly, examples) are no keywords of ajv's.
  // ownProperties: by default ajv takes an inherited member (`{}.constructor`) for a property that
  // is present; the generated validator looks at own properties only, as JSON data has no others.
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true, ownProperties: true });
  addFormats.default(ajv);
  overrideMultipleOf(ajv);
  ajv.addFormat("password", true);
  const full = fullFormats as unknown as { uuid: RegExp; "date-time": { validate: (text: string) => boolean } };
  ajv.addFormat("uuid", (text: string) => !text.toLowerCase().startsWith("urn:uuid:") && full.uuid.test(text));
  ajv.addFormat("date-time", (text: string) => {
    const year = instantYear(text);
    return /^.{10}[Tt][^ ]*(?:[Zz]|[+-]\d\d:\d\d)$/s.test(text) && full["date-time"].validate(text) && year >= 1 && year <= 9999;
  });
  return ajv;
}

/** The year in UTC of an RFC 3339 date-time's instant (a leap second read as second 59), NaN for another text. */
function instantYear(text: string): number {
  const m = /^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(?:\.\d+)?(?:[Zz]|([+-])(\d\d):(\d\d))$/.exec(text);
  if (m === null) return NaN;
  const offset = (m[7] === "-" ? -1 : 1) * (Number(m[8] ?? 0) * 60 + Number(m[9] ?? 0));
  // Why setUTCFullYear and not Date.UTC: Date.UTC reads the years 0 to 99 as 1900 to 1999.
  const instant = new Date(0);
  instant.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  instant.setUTCHours(Number(m[4]), Number(m[5]) - offset, Math.min(Number(m[6]), 59));
  return instant.getUTCFullYear();
}

/**
 * `multipleOf`: ajv tests the quotient with parseInt(), which reads 1e21 and above in exponent
 * notation (`parseInt("1e+21")` is 1) and so refuses every quotient from there up, integers all;
 * 2020-12 section 6.2.1 asks only for an integer quotient, as the generated validator does. Below
 * 1e21 the oracle is ajv's own keyword, from a second, untouched instance.
 */
function overrideMultipleOf(ajv: Ajv2020): void {
  const plain = new Ajv2020();
  const byDivisor = new Map<number, (n: number) => boolean>();
  const ajvMultipleOf = (divisor: number): ((n: number) => boolean) => {
    if (!byDivisor.has(divisor)) byDivisor.set(divisor, plain.compile({ multipleOf: divisor }));
    return byDivisor.get(divisor)!;
  };
  ajv.removeKeyword("multipleOf");
  ajv.addKeyword({
    keyword: "multipleOf",
    type: "number",
    schemaType: "number",
    validate: (divisor: number, n: number) => (Math.abs(n / divisor) >= 1e21 ? Number.isInteger(n / divisor) : ajvMultipleOf(divisor)(n)),
  });
}

/** Named schemas as both validators take them: the generated validator's table, and ajv with them under `id`. */
function compileBoth(schemas: Json, id: string): { table: SchemaTable; ajv: Ajv2020 } {
  const table = Object.fromEntries(Object.entries(schemas).map(([key, schema]) => [key, schemaNode(schema as JsonSchema)])) as SchemaTable;
  const ajv = oracleAjv();
  ajv.addSchema({ $id: id, components: { schemas } });
  return { table, ajv };
}

/** A fixture's schemas: ajv's validator per name, and the generated validator's table. */
function load(name: string): { schemas: Json; table: SchemaTable; ajv: Ajv2020 } {
  const document = parse(readFileSync(path.join(ROOT, "fixtures/valid", name, "expected/openapi.yaml"), "utf8")) as Json;
  const schemas = forRequests(((document.components as Json | undefined)?.schemas ?? {}) as Json) as Json;
  return { schemas, ...compileBoth(schemas, "urn:codegen:fixture") };
}

/**
 * The schemas as they apply to requests, which is what the generated validator checks: a
 * required property that is readOnly is required in responses only (OpenAPI 3.1 section 4.8.24).
 */
function forRequests(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(forRequests);
  if (typeof value !== "object" || value === null) return value;
  const copy = Object.fromEntries(Object.entries(value).map(([key, item]) => [key, forRequests(item)])) as Json;
  const properties = copy.properties as Record<string, Json> | undefined;
  if (Array.isArray(copy.required) && properties) copy.required = copy.required.filter((name: string) => properties[name]?.readOnly !== true);
  return copy;
}

/**
 * unevaluatedProperties: ajv looks a name up in a plain object of the names evaluated
 * (`!props[key]`), where `__proto__`, `constructor`, `toString`... find Object.prototype's
 * members, and so takes such properties for evaluated. For schemas with that keyword the oracle
 * is given the value with such keys suffixed by `~`, which no schema here names and which keeps
 * what their prefix patterns match (the generated validator judges the value itself).
 */
function withoutProtoKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutProtoKeys);
  if (typeof value !== "object" || value === null) return value;
  const copy: Json = {};
  for (const [key, child] of Object.entries(value)) {
    const name = key in Object.prototype ? `${key}~` : key;
    Object.defineProperty(copy, name, { value: withoutProtoKeys(child), enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** How deep values follow their schema (through references, which may be recursive); below, anything. */
const MAX_DEPTH = 6;

/**
 * Values near a schema: mostly valid, sometimes just outside a bound; `anything` stands in for
 * the rest, at a third of the weight, so that objects of several fields are sometimes all valid.
 */
function near(node: SchemaPart, table: SchemaTable, depth: number): fc.Arbitrary<unknown> {
  if (node.ref !== undefined) return depth >= MAX_DEPTH ? fc.jsonValue({ maxDepth: 1 }) : near(table[node.ref] ?? {}, table, depth + 1);
  if (node.allOf !== undefined) {
    // The parts as one node (the keywords beyond the first ones live in parts); and a value near
    // each referenced part merged with one near the rest, the referring schema's own keys last.
    const flat = flattened(node);
    const refs = node.allOf.filter((part) => part.ref !== undefined);
    if (refs.length === 0 || depth >= MAX_DEPTH) return near(flat, table, depth);
    return fc.oneof(near(flat, table, depth), fc.tuple(...refs.map((part) => near(part, table, depth + 1)), near(flat, table, depth)).map(merged));
  }
  const options: fc.Arbitrary<unknown>[] = [];
  if (node.enum) options.push(fc.constantFrom(...node.enum), ...node.enum.map(reordered));
  if (node.const !== undefined) options.push(fc.constant(node.const), reordered(node.const));
  // A schema without `type` but with `properties` describes objects (an allOf part, mostly).
  for (const type of node.types ?? (node.properties ? ["object"] : [])) options.push(ofType(type, node, table, depth));
  if (depth < MAX_DEPTH) {
    // A branch such as `{ required: [...] }` describes no values of its own: the node's do.
    for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? [])]) if (describesValues(branch)) options.push(near(branch, table, depth + 1));
    // Values near `if` and `then` at once, and near `else`.
    if (node.if !== undefined && describesValues(node.if)) {
      options.push(fc.tuple(near(node.if, table, depth + 1), near(node.then ?? {}, table, depth + 1)).map(merged));
      if (node.else !== undefined && describesValues(node.else)) options.push(near(node.else, table, depth + 1));
    }
  }
  const anything = fc.jsonValue({ maxDepth: 2 });
  return options.length === 0 ? anything : fc.oneof({ arbitrary: anything, weight: 1 }, ...options.map((arbitrary) => ({ arbitrary, weight: 3 })));
}

/** Whether near() has more than `anything` to offer for a node. */
function describesValues(node: SchemaPart): boolean {
  const flat = flattened(node);
  return (
    node.allOf?.some((part) => part.ref !== undefined) === true ||
    [flat.ref, flat.types, flat.properties, flat.enum, flat.const, flat.anyOf, flat.oneOf].some((keyword) => keyword !== undefined)
  );
}

/** A node's keywords and those of its allOf parts (at any depth) as one node, referenced parts left out; for generating values only. */
function flattened(node: SchemaPart): SchemaPart {
  const { allOf, ...own } = node;
  return Object.assign({}, ...(allOf ?? []).filter((part) => part.ref === undefined).map(flattened), own) as SchemaPart;
}

/** The same JSON value with its object keys in reverse order (equal as JSON Schema compares values). */
function reordered(value: unknown): fc.Arbitrary<unknown> {
  const reverse = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(reverse);
    if (typeof v !== "object" || v === null) return v;
    const copy: Json = {};
    for (const [key, child] of Object.entries(v).reverse())
      Object.defineProperty(copy, key, { value: reverse(child), enumerable: true, writable: true, configurable: true });
    return copy;
  };
  return fc.constant(reverse(value));
}

/** The objects among `values` merged into one (as own properties, whatever the keys); else the first value. */
function merged(values: unknown[]): unknown {
  const objects = values.filter((v): v is Json => typeof v === "object" && v !== null && !Array.isArray(v));
  if (objects.length === 0) return values[0];
  const copy: Json = {};
  for (const object of objects) {
    for (const [key, child] of Object.entries(object)) Object.defineProperty(copy, key, { value: child, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

function ofType(type: string, node: SchemaPart, table: SchemaTable, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "string":
      return fc.oneof(
        fc.string({ minLength: Math.max(0, (node.minLength ?? 0) - 1), maxLength: (node.maxLength ?? 8) + 1, unit: "grapheme" }),
        fc.string({ unit: "binary", maxLength: 10 }),
        ...formatted(node.format),
      );
    case "integer":
    case "number": {
      const low = node.minimum ?? node.exclusiveMinimum ?? -1000;
      const high = node.maximum ?? node.exclusiveMaximum ?? 1000;
      const step = node.multipleOf;
      return fc.oneof(
        fc.integer({ min: Math.floor(low) - 2, max: Math.ceil(high) + 2 }),
        fc.double({ min: low - 1, max: high + 1, noNaN: true }),
        fc.constantFrom(low, high, 0, -0, 1.5, 2 ** 53, -(2 ** 53), 1e308, 1e21),
        ...(step === undefined
          ? []
          : [fc.integer({ min: Math.floor(low / step) - 2, max: Math.ceil(high / step) + 2 }).map((k) => k * step), fc.constantFrom(step / 2, step * 1e21)]),
      );
    }
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const item = node.items && depth < MAX_DEPTH ? near(node.items, table, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      if (node.prefixItems !== undefined && depth < MAX_DEPTH) {
        // The prefix, cut anywhere (arrays may be shorter than prefixItems), or followed by items.
        const head = fc.tuple(...node.prefixItems.map((prefix) => near(prefix, table, depth + 1)));
        return fc
          .tuple(head, fc.array(item, { maxLength: 2 }), fc.nat({ max: node.prefixItems.length }))
          .map(([first, rest, cut]) => (cut < first.length ? first.slice(0, cut) : [...first, ...rest]));
      }
      const items = fc.array(item, { minLength: Math.max(0, (node.minItems ?? 0) - 1), maxLength: (node.maxItems ?? 3) + 1 });
      if (!node.uniqueItems) return items;
      // A copy of an item, its keys reordered: a duplicate only a deep comparison finds.
      return fc
        .tuple(items, fc.boolean())
        .chain(([list, duplicate]) => (duplicate && list.length > 0 ? reordered(list[0]).map((copy) => [...list, copy]) : fc.constant(list)));
    }
    case "object": {
      const properties = Object.entries(node.properties ?? {});
      const extras = extraProperties(node, table, depth);
      if (extras !== undefined) {
        const { patternProperties: _patterns, propertyNames: _names, ...rest } = node;
        return fc.tuple(ofType("object", rest as SchemaPart, table, depth), extras).map(merged);
      }
      if (depth >= MAX_DEPTH || properties.length === 0) {
        const extra =
          typeof node.additionalProperties === "object" && depth < MAX_DEPTH
            ? near(node.additionalProperties, table, depth + 1)
            : fc.jsonValue({ maxDepth: 1 });
        // Objects as JSON.parse makes them: a null prototype is a difference ajv's deep equality sees.
        const sizes = { minKeys: Math.max(0, (node.minProperties ?? 0) - 1), maxKeys: Math.max(3, (node.maxProperties ?? 0) + 1), noNullPrototype: true };
        return fc.dictionary(fc.string({ maxLength: 4 }), extra, sizes);
      }
      const record = Object.fromEntries(properties.map(([key, child]) => [key, near(child, table, depth + 1)]));
      const required = (node.required ?? []).filter((key) => Object.hasOwn(record, key));
      return fc
        .tuple(
          fc.record(record, { requiredKeys: required }),
          fc.option(fc.constantFrom(...Object.keys(record)), { nil: undefined, freq: 2 }),
          fc.option(fc.tuple(fc.constantFrom("__proto__", "constructor", "extra", "x"), fc.jsonValue({ maxDepth: 1 })), { nil: undefined, freq: 2 }),
        )
        .map(([value, drop, extra]) => {
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

/**
 * Properties the names of patternProperties and propertyNames ask for: names a prefix pattern
 * (`^x-`) or an enum of names gives, with values near their pattern's schema; undefined without
 * those keywords.
 */
function extraProperties(node: SchemaPart, table: SchemaTable, depth: number): fc.Arbitrary<Json> | undefined {
  const patterns = Object.entries(node.patternProperties ?? {});
  const names = (node.propertyNames?.enum ?? []).filter((name): name is string => typeof name === "string");
  if ((patterns.length === 0 && names.length === 0) || depth >= MAX_DEPTH) return undefined;
  const entries: fc.Arbitrary<[string, unknown]>[] = patterns.map(([pattern, schema]) => {
    const prefix = /^\^([^\\()[\]+*?{|.$]*)/.exec(pattern)?.[1] ?? "";
    return fc.tuple(
      fc.oneof(
        fc.string({ maxLength: 2 }).map((rest) => prefix + rest),
        fc.constantFrom("ab", "aab", "n1"),
      ),
      near(schema, table, depth + 1),
    );
  });
  if (names.length > 0) entries.push(fc.tuple(fc.constantFrom(...names), fc.jsonValue({ maxDepth: 1 })));
  return fc.array(fc.oneof(...entries), { maxLength: 3 }).map((list) => merged([Object.fromEntries(list)]) as Json);
}

/** Strings in and near a format, and the edge cases of each. */
function formatted(format: string | undefined): fc.Arbitrary<string>[] {
  switch (format) {
    case "email":
      return [fc.emailAddress(), fc.constantFrom("a@b", "a@b.c", "a b@c.d", "@c.d", "a@.d", "a@b..c", '"a"@b.c', "a@[127.0.0.1]", "é@b.c", "a@b.c\n")];
    case "uuid":
      return [
        fc.uuid(),
        fc.constantFrom(
          "00000000-0000-0000-0000-000000000000",
          "urn:uuid:00000000-0000-0000-0000-000000000000",
          "0000000000000000000000000000000",
          "G0000000-0000-0000-0000-000000000000",
          "00000000-0000-0000-0000-00000000000\n",
        ),
      ];
    case "date":
      return [
        fc.date({ min: new Date(-1e14), max: new Date(3e13), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
        fc.constantFrom("2024-02-29", "2023-02-29", "2024-13-01", "2024-00-10", "2024-1-1", "20240101", "2024-01-01T00:00:00Z", "2024-01-01\n", "0000-01-01"),
      ];
    case "date-time":
      return [
        fc.date({ min: new Date(-1e14), max: new Date(3e13), noInvalidDate: true }).map((d) => d.toISOString()),
        fc.constantFrom(
          "2024-01-01T00:00:00Z",
          "2024-01-01t00:00:00z",
          "2024-01-01 00:00:00Z",
          "2024-01-01T00:00:00",
          "2024-01-01T24:00:00Z",
          "2016-12-31T23:59:60Z",
          "2024-01-01T12:59:60Z",
          "2024-01-01T00:00:00+25:00",
          "2024-01-01T00:00:00.123456789-05:30",
          "2024-01-01T00:00Z",
          "0000-12-31T23:59:59.999Z",
          "0000-12-31T23:00:00-05:00",
          "9999-12-31T23:59:59Z",
          "9999-12-31T23:00:00-05:00",
        ),
      ];
    case "uri":
      return [
        fc.webUrl(),
        fc.constantFrom(
          "a:b",
          "http://x y",
          "//host/path",
          "/relative",
          "mailto:a@b.c",
          "http://[::1]/",
          "urn:isbn:0451450523",
          "http://example.com/%zz",
          "http://a.b/\u00e9",
          "HTTP://EXAMPLE.COM",
          "1http://x",
        ),
      ];
    default:
      return [];
  }
}

/**
 * A hand-written example with one of its top-level properties replaced by a value near that
 * property's schema: where the schema asks too much at once for random values to be valid often.
 */
function nearExample(examples: readonly unknown[], node: SchemaNode, table: SchemaTable): fc.Arbitrary<unknown> {
  const properties = Object.entries(node.properties ?? {});
  return fc.constantFrom(...examples).chain((example) => {
    if (properties.length === 0 || typeof example !== "object" || example === null || Array.isArray(example)) return fc.constant(example);
    return fc.oneof(
      fc.constant(example),
      fc.constantFrom(...properties).chain(([key, child]) => near(child, table, 1).map((value) => merged([example, { [key]: value }]))),
    );
  });
}

/**
 * The generated validator's verdict, checked against its errors: a value is valid exactly when no
 * field has a message (so no failed anyOf/oneOf branch leaks one into a valid request's errors).
 */
function generated(table: SchemaTable, name: string, value: unknown): boolean {
  const errors: FieldErrors = {};
  const valid = validateValue({ ref: name }, value, "", errors, table);
  expect(Object.keys(errors).length === 0, `${JSON.stringify(value)}: valid ${String(valid)} with errors ${JSON.stringify(errors)}`).toBe(valid);
  return valid;
}

/** Whether some object within `value` has an own `constructor` key whose value is an object or array. */
function hasObjectConstructorKey(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return value.some(hasObjectConstructorKey);
  const record = value as { readonly [key: string]: unknown };
  if (Object.hasOwn(record, "constructor") && typeof record["constructor"] === "object" && record["constructor"] !== null) return true;
  return Object.values(record).some(hasObjectConstructorKey);
}

/** fast-check's property: on values near the schema `name`, the generated validator says what ajv says. */
function agreesWithAjv(
  table: SchemaTable,
  ajv: Ajv2020,
  id: string,
  name: string,
  examples: readonly unknown[] = [],
  oracleInput: (value: unknown) => unknown = (value) => value,
): fc.IPropertyWithHooks<[unknown]> {
  const compiled = ajv.getSchema(`${id}#/components/schemas/${name}`);
  if (!compiled) throw new Error(`ajv cannot resolve ${name}`);
  const oracle = Object.assign((value: unknown) => compiled(oracleInput(value)), {
    get errors() {
      return compiled.errors;
    },
  });
  const values =
    examples.length === 0 ? near({ ref: name }, table, 0) : fc.oneof(near({ ref: name }, table, 0), nearExample(examples, flattened(table[name] ?? {}), table));
  return fc.property(values, (value) => {
    // ajv's deep equality (fast-deep-equal) first compares two objects' `constructor`: an own
    // `constructor` key holding an object or array makes equal JSON objects unequal to it
    // (`{"constructor":[]}` twice passes its uniqueItems). The oracle has no verdict there; the
    // generated validator still runs (what it answers is checked against its errors above).
    if (hasObjectConstructorKey(value)) {
      generated(table, name, value);
      return;
    }
    let expected: boolean;
    try {
      expected = oracle(value) as boolean;
    } catch {
      // ajv's deep equality (const, enum, uniqueItems) calls an object's own `toString` or
      // `valueOf`, which in JSON is no function, and throws: the oracle has no verdict here.
      generated(table, name, value);
      return;
    }
    expect(generated(table, name, value), `${JSON.stringify(value)}: ajv says ${String(expected)} ${JSON.stringify(oracle.errors)}`).toBe(expected);
  });
}

describe("the generated validator agrees with ajv (JSON Schema 2020-12)", () => {
  const cases = fixtureCases("valid").flatMap((fixture) => {
    const { schemas } = load(fixture);
    return Object.keys(schemas).map((schema) => [fixture, schema] as const);
  });
  const loaded = new Map<string, ReturnType<typeof load>>();

  it.each(cases)(
    "%s: %s",
    (fixture, name) => {
      if (!loaded.has(fixture)) loaded.set(fixture, load(fixture));
      const { table, ajv } = loaded.get(fixture)!;
      fc.assert(agreesWithAjv(table, ajv, "urn:codegen:fixture", name), runs(RUNS));
    },
    20_000 * SCALE,
  );

  describe("hand-written schemas with the keywords the fixtures do not use", () => {
    const { table, ajv } = compileBoth(KEYWORD_SCHEMAS, "urn:codegen:keywords");
    it.each(Object.keys(KEYWORD_SCHEMAS))(
      "%s",
      (name) => {
        const unevaluated = JSON.stringify(KEYWORD_SCHEMAS[name]).includes("unevaluatedProperties");
        fc.assert(agreesWithAjv(table, ajv, "urn:codegen:keywords", name, KEYWORD_EXAMPLES[name], unevaluated ? withoutProtoKeys : undefined), runs(3 * RUNS));
      },
      20_000 * SCALE,
    );
  });

  it(
    "formats: the edge cases alone, against ajv-formats",
    () => {
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
    },
    20_000 * SCALE,
  );
});
