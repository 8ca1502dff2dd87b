// The JSON Schema keywords beyond our own documents' (allOf, anyOf, oneOf, not, const,
// exclusiveMinimum/Maximum, multipleOf, uniqueItems, min/maxProperties): the runtime validator's
// verdicts and messages, withDefaults through allOf, the TypeScript types schema-code.ts writes for
// them, and the keywords it reports as impossible to validate. test/fuzz/validators.test.ts
// compares the same validator with ajv on random values.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { SchemaTypeNames } from "../../src/compile/api/names.js";
import { schemaNode, typeExpression, unsupportedKeywords } from "../../src/compile/api/schema-code.js";
import type { JsonSchema } from "../../src/compile/api/schema-code.js";
import { validateValue, withDefaults } from "../../runtime/validate.gen.js";
import type { FieldErrors, SchemaNode, SchemaTable } from "../../runtime/validate.gen.js";

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** Named schemas the rows below refer to. */
const SCHEMAS: { [name: string]: JsonSchema } = {
  Pet: { type: "object", required: ["kind"], properties: { kind: { enum: ["cat", "dog"] }, name: { type: "string", minLength: 1 } } },
  Cat: { allOf: [ref("Pet"), { properties: { kind: { const: "cat" }, lives: { type: "integer", default: 9 } } }] },
  Even: { type: "integer", multipleOf: 2 },
};
const TABLE: SchemaTable = Object.fromEntries(Object.entries(SCHEMAS).map(([name, schema]) => [name, schemaNode(schema) as SchemaNode]));

/** The errors validateValue() records for `value` at the top of a body; `{}` when it is valid. */
function errorsOf(schema: JsonSchema, value: unknown): FieldErrors {
  const errors: FieldErrors = {};
  const valid = validateValue(schemaNode(schema) as SchemaNode, value, "", errors, TABLE);
  expect(valid, `verdict and errors agree for ${JSON.stringify(value)}`).toBe(Object.keys(errors).length === 0);
  return errors;
}

describe("validateValue: the added keywords", () => {
  const rows: { name: string; schema: JsonSchema; value: unknown; want: FieldErrors }[] = [
    { name: "const: equal", schema: { const: "a" }, value: "a", want: {} },
    { name: "const: other", schema: { const: "a" }, value: "b", want: { body: 'must be "a"' } },
    { name: "const null", schema: { const: null }, value: 0, want: { body: "must be null" } },
    { name: "const object: keys in any order", schema: { const: { a: 1, b: [true] } }, value: { b: [true], a: 1.0 }, want: {} },
    { name: "const object: an extra key", schema: { const: { a: 1 } }, value: { a: 1, b: 2 }, want: { body: 'must be {"a":1}' } },
    { name: "enum of objects: equal as JSON", schema: { enum: [{ a: 1 }, "x"] }, value: { a: 1 }, want: {} },
    { name: "enum of objects: other", schema: { enum: [{ a: 1 }] }, value: { a: 2 }, want: { body: 'must be one of {"a":1}' } },
    { name: "exclusiveMinimum: the bound", schema: { exclusiveMinimum: 0 }, value: 0, want: { body: "must be greater than 0" } },
    { name: "exclusiveMinimum: above", schema: { exclusiveMinimum: 0 }, value: 0.001, want: {} },
    { name: "exclusiveMaximum: the bound", schema: { exclusiveMaximum: 10 }, value: 10, want: { body: "must be less than 10" } },
    { name: "exclusive bounds apply to numbers only", schema: { exclusiveMaximum: 1 }, value: "zz", want: {} },
    { name: "multipleOf: a multiple", schema: { multipleOf: 0.5 }, value: 7.5, want: {} },
    { name: "multipleOf: not", schema: { multipleOf: 0.5 }, value: 7.25, want: { body: "must be a multiple of 0.5" } },
    { name: "multipleOf: a quotient from 1e21 up is an integer too", schema: { multipleOf: 1 }, value: 1e21, want: {} },
    { name: "uniqueItems: distinct", schema: { uniqueItems: true }, value: [1, "1", [1], { a: 1 }], want: {} },
    {
      name: "uniqueItems: equal objects",
      schema: { uniqueItems: true },
      value: [{ a: 1, b: 2 }, 3, { b: 2, a: 1 }],
      want: { body: "must not have duplicate items (items 0 and 2 are equal)" },
    },
    {
      name: "uniqueItems: 1 and 1.0",
      schema: { uniqueItems: true },
      value: [1, 1.0],
      want: { body: "must not have duplicate items (items 0 and 1 are equal)" },
    },
    { name: "uniqueItems: false allows duplicates", schema: { uniqueItems: false }, value: [1, 1], want: {} },
    { name: "minProperties", schema: { minProperties: 2 }, value: { a: 1 }, want: { body: "must have at least 2 properties" } },
    { name: "maxProperties", schema: { maxProperties: 1 }, value: { a: 1, b: 2 }, want: { body: "must have at most 1 properties" } },
    { name: "maxProperties: not an object", schema: { maxProperties: 0 }, value: [1, 2], want: {} },
    { name: "not: matching", schema: { not: { type: "string" } }, value: "x", want: { body: "must not match the excluded schema" } },
    { name: "not: the excluded schema's own errors stay out", schema: { not: { type: "object", required: ["a"] } }, value: { b: 1 }, want: {} },
    { name: "a false subschema", schema: { properties: { secret: false } }, value: { secret: 1 }, want: { secret: "must not match the excluded schema" } },
    {
      name: "allOf: every part's errors, each on its field",
      schema: { allOf: [ref("Pet"), { required: ["lives"] }] },
      value: { kind: "cow", name: "" },
      want: { kind: 'must be one of "cat", "dog"', name: "must be at least 1 characters long", lives: "is required" },
    },
    {
      name: "allOf beside the node's own keywords",
      schema: { type: "object", required: ["a"], allOf: [{ required: ["b"] }] },
      value: {},
      want: { a: "is required", b: "is required" },
    },
    { name: "allOf through a reference", schema: ref("Cat"), value: { kind: "dog" }, want: { kind: 'must be "cat"' } },
    { name: "anyOf: one branch", schema: { anyOf: [{ type: "string" }, ref("Even")] }, value: 4, want: {} },
    { name: "anyOf: none", schema: { anyOf: [{ type: "string" }, ref("Even")] }, value: 3, want: { body: "must match at least one of the allowed schemas" } },
    { name: "oneOf: exactly one", schema: { oneOf: [{ type: "integer" }, { type: "string" }] }, value: 1, want: {} },
    {
      name: "oneOf: two",
      schema: { oneOf: [{ type: "integer" }, { multipleOf: 1 }] },
      value: 1,
      want: { body: "must match exactly one of the allowed schemas" },
    },
    {
      name: "oneOf: none",
      schema: { oneOf: [{ type: "integer" }, { type: "string" }] },
      value: null,
      want: { body: "must match exactly one of the allowed schemas" },
    },
    {
      name: "a failed branch's errors never reach a nested field",
      schema: { type: "object", properties: { pet: { oneOf: [ref("Cat"), { type: "object", required: ["wings"] }] } } },
      value: { pet: { kind: "dog", wings: 2 } },
      want: {},
    },
    {
      name: "a nested anyOf reports once, on its field",
      schema: { type: "object", properties: { pet: { anyOf: [ref("Cat"), { required: ["wings"] }] } } },
      value: { pet: { kind: "dog" } },
      want: { pet: "must match at least one of the allowed schemas" },
    },
  ];
  it.each(rows)("$name", ({ schema, value, want }) => {
    expect(errorsOf(schema, value)).toEqual(want);
  });

  it("the node's own keyword speaks first on a field; applicators add nothing there", () => {
    expect(errorsOf({ type: "string", anyOf: [{ minLength: 3 }] }, 1)).toEqual({ body: "must be a string" });
  });

  it("uniqueItems reports the first duplicate of a long array in linear time", () => {
    const items = Array.from({ length: 100_000 }, (_, i) => ({ n: i }));
    items.push({ n: 99_999 });
    // (Quadratic, this is 5 billion comparisons: the test's time limit ends it; no clock is read here.)
    expect(errorsOf({ uniqueItems: true }, items)).toEqual({ body: "must not have duplicate items (items 99999 and 100000 are equal)" });
  });
});

// The JSON Schema 2020-12 keywords real documents use (vercel's among them).
describe("validateValue: propertyNames, patternProperties, prefixItems, if/then/else, unevaluatedProperties, dependentRequired", () => {
  const headers: JsonSchema = {
    type: "object",
    properties: { id: { type: "integer" } },
    patternProperties: { "^x-": { type: "string" }, "^n\\d+$": { type: "number", minimum: 0 } },
    additionalProperties: false,
  };
  const rows: { name: string; schema: JsonSchema; value: unknown; want: FieldErrors }[] = [
    { name: "patternProperties: matching names", schema: headers, value: { id: 1, "x-a": "s", n12: 3 }, want: {} },
    {
      name: "patternProperties: each bad value at its path; additionalProperties takes the names no pattern matches",
      schema: { type: "object", properties: { h: headers } },
      value: { h: { "x-a": 1, n1: -1, other: true, n1x: 2 } },
      want: { "h.x-a": "must be a string", "h.n1": "must be at least 0", "h.other": "is not a known field", "h.n1x": "is not a known field" },
    },
    {
      name: "patternProperties: a name in properties and matching a pattern must match both",
      schema: { properties: { "x-id": { type: "string" } }, patternProperties: { "^x-": { maxLength: 2 } } },
      value: { "x-id": "long" },
      want: { "x-id": "must be at most 2 characters long" },
    },
    {
      name: "patternProperties with an additionalProperties schema",
      schema: { patternProperties: { "^a": { type: "string" } }, additionalProperties: { type: "integer" } },
      value: { ab: "s", b: 1, c: "s" },
      want: { c: "must be an integer" },
    },
    {
      name: "propertyNames: each bad name at its path",
      schema: { type: "object", properties: { tags: { propertyNames: { pattern: "^[a-z]+$", maxLength: 4 } } } },
      value: { tags: { ok: 1, Bad: 2, toolong: 3 } },
      want: { "tags.Bad": "is not an allowed field name", "tags.toolong": "is not an allowed field name" },
    },
    { name: "propertyNames false: no property at all", schema: { propertyNames: false }, value: { a: 1 }, want: { a: "is not an allowed field name" } },
    { name: "propertyNames false: an empty object", schema: { propertyNames: false }, value: {}, want: {} },
    {
      name: "prefixItems: each item at its index, items after them",
      schema: { type: "object", properties: { row: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: { type: "boolean" } } } },
      value: { row: [1, "x", true, 3] },
      want: { "row[0]": "must be a string", "row[1]": "must be an integer", "row[3]": "must be true or false" },
    },
    { name: "prefixItems: a shorter array", schema: { prefixItems: [{ type: "string" }, { type: "integer" }] }, value: ["a"], want: {} },
    {
      name: "prefixItems with items false: no more items",
      schema: { prefixItems: [{ type: "string" }], items: false },
      value: ["a", "b"],
      want: { "[1]": "must not match the excluded schema" },
    },
    {
      name: "if/then: then's own errors, at their fields",
      schema: {
        type: "object",
        properties: { country: { type: "string" }, zip: { type: "string" } },
        if: { properties: { country: { const: "US" } } },
        then: { required: ["zip"], properties: { zip: { pattern: "^[0-9]{5}$" } } },
        else: { required: ["postal"] },
      },
      value: { country: "US", zip: "1234" },
      want: { zip: "must match the pattern ^[0-9]{5}$" },
    },
    {
      name: "if/else: else's own errors",
      schema: { if: { properties: { country: { const: "US" } } }, then: { required: ["zip"] }, else: { required: ["postal"] } },
      value: { country: "CA" },
      want: { postal: "is required" },
    },
    { name: "then without if asserts nothing", schema: { then: false }, value: 1, want: {} },
    {
      name: "dependentRequired: the missing properties, at their paths",
      schema: { properties: { card: { type: "object", dependentRequired: { number: ["expiry", "cvc"] } } } },
      value: { card: { number: "4", cvc: "1" } },
      want: { "card.expiry": "is required when number is present" },
    },
    { name: "dependentRequired: absent trigger", schema: { dependentRequired: { number: ["expiry"] } }, value: { cvc: "1" }, want: {} },
    {
      name: "unevaluatedProperties false: what no part, matching branch or then evaluates",
      schema: {
        allOf: [ref("Pet")],
        anyOf: [{ properties: { tag: { type: "string" } }, required: ["tag"] }, { properties: { chip: { type: "integer" } } }],
        if: { properties: { kind: { const: "dog" } } },
        then: { properties: { good: { type: "boolean" } } },
        unevaluatedProperties: false,
      },
      value: { kind: "cat", name: "tom", chip: 1, good: true, tag: 3 },
      want: { good: "is not a known field", tag: "is not a known field" },
    },
    {
      name: "unevaluatedProperties: a schema for the rest, through nested paths",
      schema: { type: "object", properties: { m: { properties: { a: {} }, patternProperties: { "^t": {} }, unevaluatedProperties: { type: "integer" } } } },
      value: { m: { a: "x", to: "y", n: 1, z: "z" } },
      want: { "m.z": "must be an integer" },
    },
    {
      name: "unevaluatedProperties: a name Object.prototype has is no evaluated property",
      schema: { properties: { a: {} }, unevaluatedProperties: false },
      value: JSON.parse('{"a":1,"constructor":2,"__proto__":3}'),
      want: JSON.parse('{"constructor":"is not a known field","__proto__":"is not a known field"}') as FieldErrors,
    },
    {
      name: "unevaluatedProperties: additionalProperties in a part evaluates everything",
      schema: { allOf: [{ additionalProperties: true }], unevaluatedProperties: false },
      value: { a: 1 },
      want: {},
    },
  ];
  it.each(rows)("$name", ({ schema, value, want }) => {
    expect(errorsOf(schema, value)).toEqual(want);
  });

  it("patternProperties and propertyNames patterns run on the linear matcher: `(a+)+$` on a long name answers at once", () => {
    const name = `${"a".repeat(50_000)}!`;
    expect(errorsOf({ patternProperties: { "^(a+)+$": { type: "null" } }, propertyNames: { pattern: "^(a+)+$" } }, { [name]: 1 })).toEqual({
      [name]: "is not an allowed field name",
    });
    // The test's time limit is the guard against a hang: V8's engine takes longer than the
    // universe has on this name.
  });

  it("withDefaults fills prefixItems' defaults at their positions, items' after them", () => {
    const node = schemaNode({ prefixItems: [{ properties: { a: { default: 1 } } }], items: { properties: { b: { default: 2 } } } }) as SchemaNode;
    expect(withDefaults(node, [{}, {}], TABLE)).toEqual([{ a: 1 }, { b: 2 }]);
  });
});

describe("withDefaults through allOf", () => {
  it("fills the defaults an allOf part declares, through references", () => {
    expect(withDefaults({ ref: "Cat" }, { kind: "cat" }, TABLE)).toEqual({ kind: "cat", lives: 9 });
  });
  it("keeps what the client sent, and the node's own default over a part's", () => {
    const node = schemaNode({ properties: { a: { default: 1 } }, allOf: [{ properties: { a: { default: 2 }, b: { default: 3 } } }] }) as SchemaNode;
    expect(withDefaults(node, {}, TABLE)).toEqual({ a: 1, b: 3 });
    expect(withDefaults(node, { a: 5, b: 6 }, TABLE)).toEqual({ a: 5, b: 6 });
  });
  it("reaches objects nested under an allOf part's properties and items", () => {
    const node = schemaNode({ allOf: [{ properties: { list: { items: { allOf: [{ properties: { on: { default: true } } }] } } } }] }) as SchemaNode;
    expect(withDefaults(node, { list: [{}, { on: false }] }, TABLE)).toEqual({ list: [{ on: true }, { on: false }] });
  });
  it("ignores anyOf and oneOf, as ajv's useDefaults does", () => {
    const node = schemaNode({ anyOf: [{ properties: { a: { default: 1 } } }] }) as SchemaNode;
    expect(withDefaults(node, {}, TABLE)).toEqual({});
  });
});

describe("schemaNode", () => {
  it("keeps the nodes of schemas with only the first keywords as they were", () => {
    const schema = { type: "object", required: ["a"], additionalProperties: false, properties: { a: { type: "string", maxLength: 3, default: "x" } } };
    expect(JSON.stringify(schemaNode(schema))).toBe(
      '{"types":["object"],"properties":{"a":{"types":["string"],"maxLength":3,"default":"x"}},"required":["a"],"additionalProperties":false}',
    );
  });
  it("puts the added keywords in allOf parts: the schema's first ones, its allOf, then the rest in a fixed order", () => {
    const schema = {
      maxProperties: 3,
      minProperties: 1,
      uniqueItems: true,
      multipleOf: 2,
      exclusiveMaximum: 9,
      exclusiveMinimum: 0,
      const: 4,
      not: { type: "null" },
      oneOf: [true],
      anyOf: [false],
      allOf: [ref("Even")],
      type: "integer",
      minimum: 1,
    };
    expect(JSON.stringify(schemaNode(schema))).toBe(
      JSON.stringify({
        allOf: [
          { types: ["integer"], minimum: 1 },
          { ref: "Even" },
          {
            anyOf: [{ allOf: [{ not: {} }] }],
            oneOf: [{}],
            not: { types: ["null"] },
            const: 4,
            exclusiveMinimum: 0,
            exclusiveMaximum: 9,
            multipleOf: 2,
            uniqueItems: true,
            minProperties: 1,
            maxProperties: 3,
          },
        ],
      }),
    );
  });
  it("keeps default on the node, where withDefaults looks", () => {
    expect(schemaNode({ type: "integer", default: 2, multipleOf: 2 })).toEqual({ default: 2, allOf: [{ types: ["integer"] }, { multipleOf: 2 }] });
  });
  it("never puts types beside allOf, so the validator need not look for allOf on a typed node", () => {
    const nodes: Record<string, unknown>[] = [];
    const collect = (value: unknown): void => {
      if (typeof value !== "object" || value === null) return;
      if (!Array.isArray(value)) nodes.push(value as Record<string, unknown>);
      for (const child of Object.values(value)) collect(child);
    };
    collect(Object.values(SCHEMAS).map((schema) => schemaNode(schema)));
    collect(
      schemaNode({
        type: "object",
        properties: { a: { type: "string", not: { const: "" } } },
        items: { type: "array", uniqueItems: true },
        oneOf: [{ type: "object", minProperties: 1 }],
      }),
    );
    expect(nodes.filter((node) => node.types !== undefined && node.allOf !== undefined)).toEqual([]);
  });
  it("leaves out what asserts nothing: uniqueItems false, OpenAPI 3.0's boolean exclusive bounds", () => {
    expect(schemaNode({ uniqueItems: false, exclusiveMinimum: true, minimum: 0 })).toEqual({ minimum: 0 });
  });
  it("keeps patternProperties beside additionalProperties and prefixItems beside items; unevaluatedProperties beside the parts", () => {
    expect(
      schemaNode({
        type: "object",
        additionalProperties: false,
        patternProperties: { "^x": { type: "string" } },
        items: { type: "null" },
        prefixItems: [true],
        propertyNames: { maxLength: 3 },
        if: { required: ["a"] },
        then: { required: ["b"] },
        dependentRequired: { a: ["c"], d: [] },
        unevaluatedProperties: { type: "integer" },
      }),
    ).toEqual({
      allOf: [
        { types: ["object"], items: { types: ["null"] }, additionalProperties: false, patternProperties: { "^x": { types: ["string"] } }, prefixItems: [{}] },
        { propertyNames: { maxLength: 3 }, if: { required: ["a"] }, then: { required: ["b"] }, dependentRequired: { a: ["c"] } },
      ],
      unevaluatedProperties: { types: ["integer"] },
    });
  });
  it("keeps a const of null, which is a value", () => {
    expect(schemaNode({ const: null })).toEqual({ allOf: [{ const: null }] });
  });
});

/** The schemas the rows refer to (the gate refuses any other name). */
const typeName = new SchemaTypeNames({ Pet: {}, Even: {}, Cat: {}, Dog: {}, AnyPet: {}, Tags: {}, Odd: {} });
const tsType = (schema: JsonSchema): string => typeExpression(schema, "T.", typeName).text;

describe("typeExpression", () => {
  const rows: { name: string; schema: JsonSchema; want: string }[] = [
    { name: "allOf of references", schema: { allOf: [ref("Pet"), ref("Even")] }, want: "T.Pet & T.Even" },
    { name: "allOf with the schema's own properties", schema: { properties: { a: { type: "string" } }, allOf: [ref("Pet")] }, want: "{ a?: string } & T.Pet" },
    { name: "allOf beside a bare type: object", schema: { type: "object", allOf: [ref("Pet")] }, want: "T.Pet" },
    { name: "allOf parts that say nothing of the type", schema: { type: "object", allOf: [{ required: ["a"] }] }, want: "{ [key: string]: unknown }" },
    { name: "oneOf", schema: { oneOf: [ref("Pet"), { type: "string" }] }, want: "T.Pet | string" },
    { name: "anyOf with a branch that allows all", schema: { anyOf: [ref("Pet"), {}] }, want: "unknown" },
    {
      name: "a union inside an intersection",
      schema: { type: ["string", "null"], allOf: [{ anyOf: [{ const: "a" }, { const: "b" }] }] },
      want: '(string | null) & ("a" | "b")',
    },
    { name: "an intersection inside a union", schema: { oneOf: [{ allOf: [ref("Pet"), ref("Even")] }, { type: "null" }] }, want: "(T.Pet & T.Even) | null" },
    { name: "a union of items", schema: { type: "array", items: { oneOf: [{ type: "string" }, { type: "integer" }] } }, want: "(string | number)[]" },
    { name: "an intersection of items", schema: { type: "array", items: { allOf: [ref("Pet"), ref("Even")] } }, want: "(T.Pet & T.Even)[]" },
    { name: "const", schema: { const: "a|b" }, want: '"a|b"' },
    { name: "const object", schema: { const: { a: [1, null] } }, want: '{"a":[1,null]}' },
    { name: "a | inside a literal is no operator", schema: { allOf: [{ enum: ["x | y"] }, { type: "string" }] }, want: '"x | y" & string' },
    { name: "not is left to the validator", schema: { type: "string", not: { const: "" } }, want: "string" },
    { name: "properties without type", schema: { properties: { "a-b": { type: "integer" } }, required: ["a-b"] }, want: '{ "a-b": number }' },
    { name: "false schemas", schema: { type: "object", properties: { a: false }, additionalProperties: false }, want: "{ a?: never }" },
    { name: "an empty anyOf", schema: { anyOf: [] }, want: "never" },
    {
      name: "prefixItems: a tuple, elements past minItems optional, then items",
      schema: { type: "array", prefixItems: [{ type: "string" }, { type: ["integer", "null"] }], items: ref("Pet"), minItems: 1 },
      want: "[string, (number | null)?, ...T.Pet[]]",
    },
    {
      name: "prefixItems with items false",
      schema: { type: "array", prefixItems: [{ type: "string" }, {}, {}], items: false, maxItems: 2 },
      want: "[string?, unknown?]",
    },
    { name: "prefixItems without items", schema: { type: "array", prefixItems: [ref("Pet")] }, want: "[T.Pet?, ...unknown[]]" },
    {
      name: "patternProperties with a literal prefix: a template literal index signature",
      schema: { type: "object", properties: { "x-id": { type: "integer" }, name: { type: "string" } }, patternProperties: { "^x-": { type: "string" } } },
      want: '{ "x-id"?: number; name?: string; [key: `x-${string}`]: string | number }',
    },
    {
      name: "patternProperties that TypeScript cannot say, closed: a string index signature of every type",
      schema: { type: "object", properties: { id: { type: "integer" } }, patternProperties: { "^[a-z]+$": { type: "boolean" } }, additionalProperties: false },
      want: "{ id?: number; [key: string]: boolean | number }",
    },
    {
      name: "patternProperties that TypeScript cannot say, open: any key",
      schema: { type: "object", properties: { id: { type: "integer" } }, patternProperties: { "a|b": { type: "boolean" } } },
      want: "{ id?: number; [key: string]: unknown }",
    },
    {
      name: "if/then/else: (If & Then) | Else",
      schema: { if: ref("Pet"), then: ref("Even"), else: { type: "null" } },
      want: "(T.Pet & T.Even) | null",
    },
    { name: "if/then without else: anything on the other side", schema: { type: "string", if: { minLength: 2 }, then: { maxLength: 3 } }, want: "string" },
    {
      name: "unevaluatedProperties alone means additionalProperties",
      schema: { type: "object", properties: { a: { type: "string" } }, unevaluatedProperties: { type: "integer" } },
      want: "{ a?: string; [key: string]: number | string }",
    },
    {
      name: "unevaluatedProperties beside allOf: no index signature to clash with the parts",
      schema: { allOf: [ref("Pet")], properties: { a: { type: "string" } }, unevaluatedProperties: { type: "integer" } },
      want: "{ a?: string } & T.Pet",
    },
    {
      name: "propertyNames and dependentRequired are left to the validator",
      schema: { type: "object", propertyNames: { maxLength: 2 }, dependentRequired: { a: ["b"] } },
      want: "{ [key: string]: unknown }",
    },
  ];
  it.each(rows)("$name", ({ schema, want }) => {
    expect(tsType(schema)).toBe(want);
  });

  it("gives types tsc --strict accepts and that mean what the schemas mean", () => {
    const named = (name: string, schema: JsonSchema) => `export type ${name} = ${typeExpression(schema, "", typeName).text};`;
    const source = [
      named("Pet", { type: "object", required: ["kind"], properties: { kind: { enum: ["cat", "dog"] }, name: { type: "string" } } }),
      named("Cat", { allOf: [ref("Pet"), { properties: { kind: { const: "cat" }, lives: { type: "integer" } }, required: ["lives"] }] }),
      named("Dog", { allOf: [ref("Pet"), { type: "object", properties: { good: { type: "boolean" } } }] }),
      named("AnyPet", { oneOf: [ref("Cat"), ref("Dog"), { type: "null" }] }),
      named("Tags", { type: "array", items: { anyOf: [{ type: "string" }, { allOf: [ref("Pet"), { const: { kind: "dog" } }] }] } }),
      named("Odd", { type: ["object", "null"], properties: { "x y": { const: "a | b" } }, allOf: [{ oneOf: [ref("Cat"), ref("Dog")] }] }),
      named("Row", { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: { type: "boolean" }, minItems: 1 }),
      named("Headers", {
        type: "object",
        properties: { "x-id": { type: "integer" }, id: { type: "string" } },
        patternProperties: { "^x-": { type: "string" }, "^[0-9]+$": { type: "null" } },
        additionalProperties: false,
      }),
      named("Shipping", {
        if: { properties: { country: { const: "US" } } },
        then: { type: "object", properties: { zip: { type: "string" } }, required: ["zip"] },
        else: { type: "null" },
      }),
      'export const row: Row = ["a", 1, true, false];',
      'export const headers: Headers = { "x-id": 1, id: "a", "x-b": "b", "12": null };',
      'export const shipping: Shipping = { country: "US", zip: "1" };',
      "export const noShipping: Shipping = null;",
      "// @ts-expect-error: the second item is an integer",
      'export const badRow: Row = ["a", "b"];',
      "// @ts-expect-error: an array may not be empty when minItems is 1",
      "export const emptyRow: Row = [];",
      "// @ts-expect-error: x- headers are strings",
      'export const badHeaders: Headers = { "x-b": true };',
      'export const cat: Cat = { kind: "cat", lives: 9 };',
      'export const pets: AnyPet[] = [cat, { kind: "dog", good: true }, null];',
      'export const tags: Tags = ["a", { kind: "dog" }];',
      'export const odd: Odd = { "x y": "a | b", kind: "cat", lives: 1 };',
      "// @ts-expect-error: null matches neither Cat nor Dog",
      "export const oddNull: Odd = null;",
      "// @ts-expect-error: a cat has lives",
      'export const noLives: Cat = { kind: "cat" };',
      "// @ts-expect-error: a cat is a cat",
      'export const dogCat: Cat = { kind: "dog", lives: 1 };',
      "// @ts-expect-error: no number among the tags",
      "export const badTags: Tags = [1];",
    ].join("\n");
    const dir = mkdtempSync(path.join(os.tmpdir(), "schema-keywords-"));
    try {
      const file = path.join(dir, "types.ts");
      writeFileSync(file, source);
      const options: ts.CompilerOptions = {
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        noUnusedLocals: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ES2022,
        types: [],
        lib: ["lib.es2022.d.ts"],
      };
      const program = ts.createProgram([file], options);
      const messages = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      expect(messages, source).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe("unsupportedKeywords", () => {
  const at = "#/components/schemas/A";
  const rows: { name: string; schema: JsonSchema; want: { pointer: string; keyword: string }[] }[] = [
    {
      name: "every keyword the validator implements, and annotations: nothing",
      schema: {
        type: "object",
        title: "A",
        description: "d",
        required: ["a"],
        minProperties: 1,
        maxProperties: 9,
        additionalProperties: { type: "string" },
        properties: { a: { type: "number", exclusiveMinimum: 0, multipleOf: 2, readOnly: true, example: 2, examples: [2], deprecated: true } },
        allOf: [{ const: { a: 2 } }],
        anyOf: [{ uniqueItems: true }],
        oneOf: [true],
        not: { enum: [1] },
        discriminator: { propertyName: "a" },
        xml: {},
        externalDocs: {},
        "x-anything": { if: {} },
        nullable: true,
        format: "f",
        default: {},
        $comment: "c",
        contentMediaType: "m",
        contentEncoding: "e",
      },
      want: [],
    },
    {
      name: "the 2020-12 keywords: nothing",
      schema: {
        if: {},
        then: {},
        else: {},
        patternProperties: { "^x": {} },
        propertyNames: {},
        prefixItems: [{}],
        dependentRequired: {},
        unevaluatedProperties: false,
      },
      want: [],
    },
    {
      name: "assertions the validator lacks, at their own pointers, inside the added keywords too",
      schema: {
        dependentSchemas: {},
        patternProperties: { "^a/": { contains: {} } },
        prefixItems: [{}, { unevaluatedItems: false }],
        if: { additionalItems: false },
        then: { maxContains: 1 },
        else: { dependencies: {} },
        propertyNames: { $dynamicRef: "#x" },
        unevaluatedProperties: { minContains: 1 },
      },
      want: [
        { pointer: `${at}/dependentSchemas`, keyword: "dependentSchemas" },
        { pointer: `${at}/patternProperties/^a~1/contains`, keyword: "contains" },
        { pointer: `${at}/propertyNames/$dynamicRef`, keyword: "$dynamicRef" },
        { pointer: `${at}/if/additionalItems`, keyword: "additionalItems" },
        { pointer: `${at}/then/maxContains`, keyword: "maxContains" },
        { pointer: `${at}/else/dependencies`, keyword: "dependencies" },
        { pointer: `${at}/unevaluatedProperties/minContains`, keyword: "minContains" },
        { pointer: `${at}/prefixItems/1/unevaluatedItems`, keyword: "unevaluatedItems" },
      ],
    },
    {
      name: "inside properties, items, additionalProperties and the applicators",
      schema: {
        properties: { "a/b~c": { maxContains: 1 } },
        items: { contains: {}, minContains: 1 },
        additionalProperties: { dependentSchemas: {} },
        allOf: [{}, { additionalItems: {} }],
        anyOf: [{ unevaluatedItems: false }],
        oneOf: [{ $dynamicRef: "#x" }],
        not: { contentSchema: {} },
      },
      want: [
        { pointer: `${at}/properties/a~1b~0c/maxContains`, keyword: "maxContains" },
        { pointer: `${at}/items/contains`, keyword: "contains" },
        { pointer: `${at}/items/minContains`, keyword: "minContains" },
        { pointer: `${at}/additionalProperties/dependentSchemas`, keyword: "dependentSchemas" },
        { pointer: `${at}/allOf/1/additionalItems`, keyword: "additionalItems" },
        { pointer: `${at}/anyOf/0/unevaluatedItems`, keyword: "unevaluatedItems" },
        { pointer: `${at}/oneOf/0/$dynamicRef`, keyword: "$dynamicRef" },
        { pointer: `${at}/not/contentSchema`, keyword: "contentSchema" },
      ],
    },
    {
      name: "a $ref is not followed; what stands beside it is not checked",
      schema: { properties: { a: { $ref: "#/components/schemas/B", description: "d", maxLength: 3, if: {} } } },
      want: [
        { pointer: `${at}/properties/a/maxLength`, keyword: "maxLength" },
        { pointer: `${at}/properties/a/if`, keyword: "if" },
      ],
    },
    {
      name: "a $ref outside components/schemas, tuple items, OpenAPI 3.0's boolean bounds",
      schema: { $ref: "#/$defs/B", items: [{}], exclusiveMinimum: true, exclusiveMaximum: 3 },
      want: [
        { pointer: `${at}/$ref`, keyword: "$ref" },
        { pointer: `${at}/items`, keyword: "items" },
        { pointer: `${at}/exclusiveMinimum`, keyword: "exclusiveMinimum" },
      ],
    },
  ];
  it.each(rows)("$name", ({ schema, want }) => {
    expect(unsupportedKeywords(schema, at)).toEqual(want);
  });
});

// A recursive oneOf tried every branch at every level, so a 525-byte body 20 deep took
// 8 s. The work is counted as lookups of named schemas: it must grow with the body, not double
// with each level (and where every branch fails, the messages stay as they were).
describe("validateValue: work on recursive oneOf and anyOf", () => {
  const expressions: { [name: string]: JsonSchema } = {
    Expr: { oneOf: [ref("Sum"), ref("Product"), { type: "number" }] },
    Sum: {
      type: "object",
      required: ["op", "args"],
      properties: { op: { const: "add" }, args: { type: "array", items: ref("Expr") } },
      additionalProperties: false,
    },
    Product: {
      type: "object",
      required: ["op", "args"],
      properties: { op: { const: "mul" }, args: { type: "array", items: ref("AnyExpr") } },
      additionalProperties: false,
    },
    AnyExpr: { anyOf: [ref("Expr"), { type: "string" }] },
  };
  const table = Object.fromEntries(Object.entries(expressions).map(([name, schema]) => [name, schemaNode(schema) as SchemaNode]));
  const expression = (depth: number, leaf: unknown): unknown =>
    depth === 0 ? leaf : { op: depth % 2 === 0 ? "add" : "mul", args: [expression(depth - 1, leaf), 2] };

  /** The verdict, the errors and how many times a named schema was looked up. */
  function judged(value: unknown): { valid: boolean; errors: FieldErrors; lookups: number } {
    let lookups = 0;
    const counting = new Proxy(table, { get: (target, name) => (lookups++, Reflect.get(target, name)) }) as SchemaTable;
    const errors: FieldErrors = {};
    const valid = validateValue({ ref: "Expr" }, value, "", errors, counting);
    return { valid, errors, lookups };
  }

  it.each([
    ["a valid body", 1],
    ["a body invalid at its deepest level", true],
  ])("grows linearly with the depth of %s", (_name, leaf) => {
    const [small, large] = [judged(expression(8, leaf)), judged(expression(16, leaf))];
    expect(small.valid).toBe(leaf === 1);
    expect(large.valid).toBe(leaf === 1);
    // Twice as deep: about twice the work (the old code did 2^8 = 256 times as much).
    expect(large.lookups).toBeLessThanOrEqual(3 * small.lookups);
  });

  it("judges 60 levels at once, and reports a failed oneOf as before", () => {
    const { valid, errors, lookups } = judged(expression(60, true));
    expect(valid).toBe(false);
    expect(errors).toEqual({ body: "must match exactly one of the allowed schemas" });
    expect(lookups).toBeLessThan(60 * 20);
  });
});

describe("typeExpression: a schema whose only keyword combines others", () => {
  it.each([
    [{ allOf: [{ type: "string" }] }, "string"],
    [{ anyOf: [{ type: "string" }, { type: "number" }] }, "string | number"],
    [{ oneOf: [{ type: "string" }, { type: "number" }] }, "string | number"],
    [{ if: { type: "string" }, then: { minLength: 1 }, else: { type: "number" } }, "string | number"],
  ] as const)("%j is %s", (schema, type) => {
    expect(tsType(schema as JsonSchema)).toBe(type);
  });
});
