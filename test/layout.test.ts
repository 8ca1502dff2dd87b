// Issue 14: codegen lays out the literals of generated code as prettier would, so the normal run
// never loads prettier. Prettier (pinned, PRETTIER_OPTIONS) is the oracle: every text laid out
// here must be the very bytes prettier makes of the same code written on one line.

import fc from "fast-check";
import * as prettier from "prettier";
import { describe, expect, it } from "vitest";
import { PRETTIER_OPTIONS } from "../src/format/format.js";
import { literal, stringLiteral } from "../src/model/escape.js";
import { Unsure, constStatement, literalDoc, printDoc, propertyDoc, propertyTable, printedKey, table, typeLiteralDoc } from "../src/render/layout.js";

const format = (text: string) => prettier.format(text, { ...PRETTIER_OPTIONS, filepath: "x.mts" });

/** The layout, or undefined where the layout module is unsure (the file is left to prettier). */
const sure = (make: () => string): string | undefined => {
  try {
    return make();
  } catch (error) {
    if (error instanceof Unsure) return undefined;
    throw error;
  }
};

/** Text around the line-width boundary: names and strings whose lengths make a group just fit or not. */
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    "a",
    "id",
    "name",
    "description",
    "constructor",
    "__proto__",
    "toString",
    "x-y",
    "200",
    "é",
    "naïve",
    "漢字",
    "😀",
    "it's",
    'say "hi"',
    "\u2028",
    "a\\b",
  ),
  fc.integer({ min: 0, max: 110 }).map((n) => "w".repeat(n)),
  fc.tuple(fc.integer({ min: 0, max: 60 }), fc.constantFrom('"', "'", "é", " ")).map(([n, c]) => "v".repeat(n) + c + "v".repeat(n % 7)),
);
const json = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    text,
    fc.integer({ min: -5, max: 100000 }),
    fc.constantFrom(null, true, false, 0.5, 1e21, 1e-7),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(text, tie("value"), { maxKeys: 5 }),
  ),
}));

describe("literal layout", () => {
  it("is prettier's for a member of a broken object (api.gen.ts's tables)", async () => {
    await fc.assert(
      fc.asyncProperty(text, json.value, async (key, value) => {
        const laid = sure(() => printDoc([propertyDoc(key, value), ","], { indentation: 2 }));
        if (laid === undefined) return;
        const raw = `const table = {\n  ${literal({ [key]: value }).slice(1, -1)},\n};\n`;
        expect(`const table = {\n  ${laid}\n};\n`).toBe(await format(raw));
      }),
      { numRuns: 400 },
    );
  }, 120_000);

  it("is prettier's for a whole statement", async () => {
    await fc.assert(
      fc.asyncProperty(json.value, fc.integer({ min: 1, max: 60 }), async (value, n) => {
        const name = "n".repeat(n);
        const statement = sure(() => constStatement(`${name}: T`, literalDoc(value)));
        if (statement !== undefined) expect(statement + "\n").toBe(await format(`export const ${name}: T = ${literal(value)};\n`));
      }),
      { numRuns: 300 },
    );
  }, 120_000);

  it("is prettier's for a table printed member by member, nested and followed by `satisfies` (api.gen.ts's resources)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(text, json.value), { maxLength: 4 }), fc.integer({ min: 1, max: 60 }), async (entries, n) => {
        const name = "n".repeat(n);
        const value = Object.fromEntries(entries);
        const members = Object.entries(value);
        const statement = sure(() =>
          constStatement(name, [table("{", members, ([key, item]) => propertyDoc(key, item)), " satisfies ", typeLiteralDoc(["readonly [k: string]: T"])]),
        );
        if (statement === undefined) return;
        // A broken object's line break after `{` is kept by prettier (the template's table).
        const raw = `export const ${name} = {\n${literal(value).slice(1, -1)}} satisfies { readonly [k: string]: T };\n`;
        expect(statement + "\n").toBe(await format(members.length === 0 ? raw.replace("{\n}", "{}") : raw));
      }),
      { numRuns: 200 },
    );
  }, 120_000);

  it("is prettier's for a plain table printed straight from the values (propertyTable plain: api.gen.ts's resources)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(text, json.value), { maxLength: 4 }), fc.integer({ min: 1, max: 60 }), async (entries, n) => {
        const name = "n".repeat(n);
        const members = Object.entries(Object.fromEntries(entries));
        const satisfies = [" satisfies ", typeLiteralDoc(["readonly [k: string]: T"])];
        const statement = sure(() => constStatement(name, [propertyTable(members, { plain: true }), ...satisfies]));
        // The same as the docs of each member (what api.gen.ts's resources were laid out by before).
        const byDocs = sure(() => constStatement(name, [table("{", members, ([key, item]) => propertyDoc(key, item, { plain: true })), ...satisfies]));
        // Where the docs are sure, the same text; the docs may be Unsure where the values are not: a
        // character of unknown width on a line of its own, which no layout decision measures
        // (printDoc measures every text it prints). Prettier has the last word below.
        if (byDocs !== undefined) expect(statement).toBe(byDocs);
        if (statement === undefined) return;
        // As the template wrote it: each key a string literal, no `as const`.
        const raw = `export const ${name} = {\n${members.map(([key, item]) => `${stringLiteral(key)}: ${literal(item)},\n`).join("")}} satisfies { readonly [k: string]: T };\n`;
        expect(statement + "\n").toBe(await format(members.length === 0 ? raw.replace("{\n}", "{}") : raw));
      }),
      { numRuns: 200 },
    );
  }, 120_000);

  it("is prettier's for a table of properties printed straight from the values (propertyTable: api.gen.ts's schemas)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(text, json.value), { maxLength: 4 }), fc.integer({ min: 1, max: 60 }), async (entries, n) => {
        const name = "n".repeat(n);
        const members = Object.entries(Object.fromEntries(entries));
        const statement = sure(() => constStatement(`${name}: T`, propertyTable(members)));
        const byDocs = sure(() =>
          constStatement(
            `${name}: T`,
            table("{", members, ([key, item]) => propertyDoc(key, item)),
          ),
        );
        // Where the docs are sure, the same text; the docs may be Unsure where the values are not: a
        // character of unknown width on a line of its own, which no layout decision measures
        // (printDoc measures every text it prints). Prettier has the last word below.
        if (byDocs !== undefined) expect(statement).toBe(byDocs);
        if (statement === undefined) return;
        const raw = `export const ${name}: T = {\n${literal(Object.fromEntries(members)).slice(1, -1)}};\n`;
        expect(statement + "\n").toBe(await format(members.length === 0 ? raw.replace("{\n}", "{}") : raw));
      }),
      { numRuns: 200 },
    );
  }, 120_000);

  it("is prettier's for arrays of objects (api.gen.ts's routes) and for tables inside literals wider than a line", async () => {
    const route = fc.dictionary(text, json.value, { minKeys: 2, maxKeys: 5 });
    const wide = fc.tuple(fc.array(route, { minLength: 2, maxLength: 3 }), fc.integer({ min: 0, max: 120 }));
    await fc.assert(
      fc.asyncProperty(wide, fc.integer({ min: 1, max: 40 }), async ([routes, n], m) => {
        const value = { routes, pad: "p".repeat(n), rest: [routes[0], { x: "y" }] };
        const name = "n".repeat(m);
        for (const literalValue of [routes, value, [value, value]]) {
          const statement = sure(() => constStatement(name, [literalDoc(literalValue), " satisfies ", typeLiteralDoc(["readonly [k: string]: T"])]));
          if (statement === undefined) continue;
          expect(statement + "\n").toBe(await format(`export const ${name} = ${literal(literalValue)} satisfies { readonly [k: string]: T };\n`));
        }
      }),
      { numRuns: 100 },
    );
    // A table in a literal that fits a line flat breaks it, and each group around it.
    for (const n of [0, 30, 60, 90, 120]) {
      const value = {
        routes: [
          { a: 1, b: 2 },
          { c: "p".repeat(n), d: [] },
        ],
        pad: "p".repeat(n),
      };
      const statement = constStatement("n", [literalDoc(value), " satisfies ", typeLiteralDoc(["readonly [k: string]: T"])]);
      expect(statement + "\n").toBe(await format(`export const n = ${literal(value)} satisfies { readonly [k: string]: T };\n`));
    }
  }, 180_000);

  it("quotes keys as prettier does", () => {
    expect(["a", "x-y", "200", "$x", "__proto__", "it's"].map(printedKey)).toEqual(["a", '"x-y"', '"200"', "$x", '["__proto__"]', '"it\'s"']);
  });
});

describe("literal layout work", () => {
  /** `value` with every object and array in it behind a proxy that counts the reads of each of its members. */
  const counted = (value: unknown, reads: Map<string, number>, path = "$"): unknown => {
    if (value === null || typeof value !== "object") return value;
    const target = (Array.isArray(value) ? [] : {}) as Record<string, unknown>;
    for (const [key, item] of Object.entries(value)) target[key] = counted(item, reads, `${path}.${key}`);
    return new Proxy(target, {
      get(object, key, receiver) {
        if (typeof key === "string" && key !== "length" && Object.hasOwn(object, key)) reads.set(`${path}.${key}`, (reads.get(`${path}.${key}`) ?? 0) + 1);
        return Reflect.get(object, key, receiver) as unknown;
      },
    });
  };
  // Nested objects, each wider than a line: measured flat from the top at each level of nesting,
  // the start of each was read once per group around it that it is the start of.
  const nested = (depth: number): unknown =>
    depth === 0 ? { leaf: "l".repeat(30), list: ["a", "b"] } : { name: `n${depth}`.repeat(6), items: [nested(depth - 1), { x: 1 }], next: nested(depth - 1) };

  it("reads each member of a value laid out once, however deep it is nested (api.gen.ts's tables and routes)", async () => {
    const value = nested(5);
    const reads = new Map<string, number>();
    const statement = constStatement("n: T", propertyTable([["nested", counted(value, reads)]]));
    expect(statement + "\n").toBe(await format(`export const n: T = {\n${literal({ nested: value }).slice(1, -1)}};\n`));
    expect(reads.size).toBeGreaterThan(100);
    expect([...reads].filter(([, n]) => n > 1)).toEqual([]);
  });
});
