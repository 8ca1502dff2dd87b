// On codegen's side: keys taken from a document stay own keys of the objects
// codegen builds from it. A schema key `__proto__` assigned to a fresh object set that object's
// prototype, and the schema then read its members as keywords of its own.

import { describe, expect, it } from "vitest";
import { printLiteral } from "../../../src/emit/print.js";
import { schemaNode, unsupportedKeywords } from "../../../src/compile/api/schema-code.js";
import { fromOpenApi30, toOpenApi30 } from "../../../src/compile/openapi/versions.js";

/** A schema with an own `__proto__` key holding keywords, as JSON.parse reads it. */
const schemaWithProtoKey = () => JSON.parse('{"type": "object", "__proto__": {"required": ["x"], "pattern": "y"}}') as Record<string, unknown>;

describe("converting between OpenAPI 3.0 and 3.1 keeps a schema's `__proto__` key an own key", () => {
  it.each([
    ["fromOpenApi30", fromOpenApi30, "3.0.3"],
    ["toOpenApi30", toOpenApi30, "3.1.0"],
  ] as const)("%s", (_name, convert, version) => {
    const document = { openapi: version, info: { title: "t", version: "1" }, paths: {}, components: { schemas: { A: schemaWithProtoKey() } } };
    const converted = convert(document) as { components: { schemas: { A: Record<string, unknown> } } };
    const schema = converted.components.schemas.A;
    expect(Object.getPrototypeOf(schema)).toBe(Object.prototype);
    expect(Object.hasOwn(schema, "__proto__")).toBe(true);
    // Keywords inside the `__proto__` value are not the schema's own.
    expect(schema.required).toBeUndefined();
    expect(schema.pattern).toBeUndefined();
  });
});

describe("printLiteral: object literals in generated code", () => {
  it("writes JSON data that evaluates to the data, with the two line separators escaped", () => {
    const data = { a: [1, "two", null, true, { b: -0.5 }], "c d": { "\u2028": "x" }, e: {} };
    const text = printLiteral(data);
    expect(text).not.toMatch(/[\u2028\u2029]/);
    expect(new Function(`return (${text});`)()).toEqual(data);
  });

  it("computes a `__proto__` key and types the values of Object.prototype's names by their own literal", () => {
    const data = JSON.parse('{"__proto__": {"constructor": ["a"]}, "toString": {"x": 1}, "valueOf": null, "ok": "constructor"}') as unknown;
    expect(printLiteral(data).split("\n")).toEqual([
      "{",
      '  ["__proto__"]: { constructor: ["a"] as const },',
      "  toString: { x: 1 } as const,",
      "  valueOf: null,",
      '  ok: "constructor",',
      "}",
    ]);
    expect(printLiteral({ constructor: { types: ["string"] } })).toBe('{ constructor: { types: ["string"] } as const }');
    expect(printLiteral({ name: { types: ["string"] } })).toBe('{ name: { types: ["string"] } }');
  });
});

describe("schemaNode: a property or pattern named `__proto__` stays an own member of the node", () => {
  it.each(["properties", "patternProperties"] as const)("%s", (keyword) => {
    const schema = JSON.parse(
      `{"type": "object", "${keyword}": {"a": {"type": "string"}, "__proto__": {"type": "integer", "minimum": 1}, "1": {"type": "boolean"}}}`,
    ) as Record<string, unknown>;
    const node = schemaNode(schema) as Record<string, unknown>;
    // patternProperties lives in the node's first allOf part (the runtime's SchemaPart).
    const holder = keyword === "properties" ? node : (node.allOf as Record<string, unknown>[])[0]!;
    const members = holder[keyword] as Record<string, unknown>;
    expect(Object.getPrototypeOf(members)).toBe(Object.prototype);
    expect(Object.hasOwn(members, "__proto__")).toBe(true);
    expect(Object.keys(members)).toEqual(["1", "a", "__proto__"]);
    expect(members.__proto__).toEqual({ types: ["integer"], minimum: 1 });
    // Its members are not inherited as the object's own keywords.
    expect((members as { minimum?: unknown }).minimum).toBeUndefined();
  });
});

describe("schemaNode: the keywords a node holds", () => {
  it("takes each one the schema has, in the node's order, whatever the schema's order and other keys", () => {
    const schema = JSON.parse(
      '{"default": "d", "x-a": 1, "maxItems": 3, "minItems": 1, "maximum": 9, "description": "x", "minimum": 0, "pattern": "^a", "maxLength": 5, "minLength": 1, "format": "f", "enum": ["d"], "type": "string"}',
    ) as Record<string, unknown>;
    expect(Object.keys(schemaNode(schema))).toEqual([
      "types",
      "enum",
      "format",
      "minLength",
      "maxLength",
      "pattern",
      "minimum",
      "maximum",
      "minItems",
      "maxItems",
      "default",
    ]);
    expect(schemaNode({ maximum: 0, format: "f", title: "t" })).toEqual({ format: "f", maximum: 0 });
    expect(schemaNode({ type: "integer", description: "no keyword of a node" })).toEqual({ types: ["integer"] });
  });

  it.each([
    ["anyOf", [{ type: "string" }]],
    ["oneOf", [{ type: "string" }]],
    ["not", {}],
    ["const", 1],
    ["exclusiveMinimum", 1],
    ["exclusiveMaximum", 1],
    ["multipleOf", 2],
    ["uniqueItems", true],
    ["minProperties", 1],
    ["maxProperties", 1],
    ["propertyNames", { pattern: "^a" }],
    ["if", {}],
    ["dependentRequired", { a: ["b"] }],
  ])("puts %s, alone in a schema, in an allOf part", (keyword, value) => {
    const node = schemaNode({ type: "object", description: "d", [keyword]: value });
    expect(node.allOf).toEqual([{ types: ["object"] }, { [keyword]: expect.anything() as unknown }]);
  });
});

describe("unsupportedKeywords: walks into every subschema a schema has", () => {
  it("finds keywords under a schema whose only subschema is `not`, and in allOf parts", () => {
    const schema = { properties: { a: { not: { items: [{}] } } }, allOf: [{ exclusiveMinimum: true }] };
    expect(unsupportedKeywords(schema, "#/S")).toEqual([
      { pointer: "#/S/properties/a/not/items", keyword: "items" },
      { pointer: "#/S/allOf/0/exclusiveMinimum", keyword: "exclusiveMinimum" },
    ]);
  });
});
