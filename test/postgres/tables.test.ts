// Which jsonb columns may hold JSON `null` (src/compile/tables.ts): those are read as their
// text (kind `json`), so that `null` stays apart from SQL NULL; every other jsonb column is read
// plainly (kind `jsonb`), which saves PostgreSQL a `::text` per row. The decision is
// conservative (anything not surely free of `null` keeps its text), and changing a column's
// kind is no change of its table: no migration.

import { describe, expect, it } from "vitest";
import { isEmpty, schemaChange } from "../../src/emit/postgres/migrations.js";
import type { SchemaSnapshot } from "../../src/model/tables.js";
import { tablesOf } from "../../src/compile/tables.js";

/** Each property, and the kind its column must have. */
const CASES: readonly (readonly [string, unknown, "json" | "jsonb"])[] = [
  ["object", { type: "object", properties: { a: { type: "string" } } }, "jsonb"],
  ["array", { type: "array", items: { type: "string" } }, "jsonb"],
  ["arrayOfNullable", { type: "array", items: { type: ["string", "null"] } }, "jsonb"],
  ["union", { type: ["string", "integer"] }, "jsonb"],
  ["typedAnyOf", { anyOf: [{ type: "string" }, { type: "object" }] }, "jsonb"],
  ["refObject", { $ref: "#/components/schemas/Address" }, "jsonb"],
  ["nullableObject", { type: ["object", "null"] }, "json"],
  ["nullableNumber", { type: ["number", "null"] }, "json"],
  ["untyped", {}, "json"],
  ["onlyAllOf", { allOf: [{ type: "object" }] }, "json"],
  ["anyOfNull", { anyOf: [{ type: "object" }, { type: "null" }] }, "json"],
  ["oneOfUntyped", { type: "object", oneOf: [{ type: "object" }, {}] }, "json"],
  ["enumNull", { enum: [1, "a", null] }, "json"],
  ["constNull", { type: "object", const: null }, "json"],
  ["nullable30", { type: "object", nullable: true }, "json"],
  ["defaultNull", { type: "object", default: null }, "json"],
  ["refMissing", { $ref: "#/components/schemas/Missing" }, "json"],
  ["refElsewhere", { $ref: "other.yaml#/Address" }, "json"],
  ["refToRef", { $ref: "#/components/schemas/Alias" }, "json"],
  ["refNullable", { $ref: "#/components/schemas/MaybeAddress" }, "json"],
  ["refCycle", { anyOf: [{ $ref: "#/components/schemas/Loop" }] }, "json"],
];

const DOCUMENT = {
  openapi: "3.1.0",
  paths: {},
  components: {
    schemas: {
      Address: { type: "object", properties: { street: { type: "string" } } },
      MaybeAddress: { type: ["object", "null"] },
      Alias: { $ref: "#/components/schemas/Address" },
      Loop: { anyOf: [{ $ref: "#/components/schemas/Loop" }] },
      Item: {
        type: "object",
        "x-codegen-resource": { collection: "items" },
        properties: { id: { type: "integer" }, name: { type: "string" }, ...Object.fromEntries(CASES.map(([field, schema]) => [field, schema])) },
      },
    },
  },
};

describe("the kind of a jsonb column", () => {
  const table = tablesOf(DOCUMENT).tables[0]!;

  it.each(CASES.map(([field, schema, kind]) => ({ field, schema, kind })))("$field is read as $kind", ({ field, kind }) => {
    const column = table.columns.find((c) => c.field === field)!;
    expect({ field, type: column.type, kind: column.kind }).toEqual({ field, type: "jsonb", kind });
  });

  it("a string column stays text", () => {
    expect(table.columns.find((c) => c.field === "name")!.kind).toBe("text");
  });

  it("a column read plainly instead of as text (or back) is no change of the table: no migration", () => {
    const asText: SchemaSnapshot = {
      ...tablesOf(DOCUMENT),
      tables: tablesOf(DOCUMENT).tables.map((t) => ({ ...t, columns: t.columns.map((c) => (c.kind === "jsonb" ? { ...c, kind: "json" as const } : c)) })),
    };
    expect(asText.tables[0]!.columns.some((c, i) => c.kind !== table.columns[i]!.kind)).toBe(true);
    expect(isEmpty(schemaChange(asText, tablesOf(DOCUMENT)))).toBe(true);
    expect(isEmpty(schemaChange(tablesOf(DOCUMENT), asText))).toBe(true);
  });

  it("a schema reached by many paths is looked at once: eight levels of twelve-way unions of $refs stay linear", () => {
    // Each level's union names the next level twelve times: 12^8 paths, 8 schemas. The named
    // schemas are counted as they are looked up (and the count stops a walk of every path early).
    const levels = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [
        `L${i}`,
        i < 7 ? { type: "object", anyOf: Array.from({ length: 12 }, () => ({ $ref: `#/components/schemas/L${i + 1}` })) } : { type: "string" },
      ]),
    );
    let lookups = 0;
    const schemas = new Proxy(
      {
        ...levels,
        Deep: {
          type: "object",
          "x-codegen-resource": { collection: "deeps" },
          properties: { id: { type: "integer" }, deep: { $ref: "#/components/schemas/L0" } },
        },
      },
      {
        get(target: Record<string, unknown>, key) {
          if (typeof key === "string" && /^L\d$/.test(key) && ++lookups > 10_000) throw new Error("more than 10,000 lookups of the unions' schemas");
          return Reflect.get(target, key) as unknown;
        },
      },
    );
    const deep = tablesOf({ openapi: "3.1.0", paths: {}, components: { schemas } }).tables[0]!.columns.find((c) => c.field === "deep")!;
    expect(deep.kind).toBe("jsonb");
    expect(lookups).toBeLessThan(200);
  });
});
