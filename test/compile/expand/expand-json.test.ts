// The expanded document is JSON by construction: it used to be copied through JSON text
// as a whole; now every value that comes from the declaration's data passes jsonData and the rest
// is built anew. These tests hold the document to what that copy made, on every valid fixture and
// on a declaration whose data JSON holds otherwise than written (-0, `__proto__` keys); `.inf` and
// `.nan` are refused by validation (fixtures/invalid/number-not-finite).
import { readFileSync } from "node:fs";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { expandDeclaration, isExpansion } from "../../../src/compile/expand/expand.js";
import { prepareDocument } from "../../../src/compile/api/foreign.js";
import { buildApiModel } from "../../../src/compile/api/build.js";
import { checkDeclaration, documentFromText, modelOfDocument } from "../../../src/pipeline.js";
import { jsonToYaml } from "../../../src/emit/yaml.js";
import { ROOT, declarationOf, fixtureCases } from "../../support/fixtures.js";

const HOSTILE = `codegen: 1
info:
  title: Numbers
  version: "1"
  x-zero: -0
  x-data: { __proto__: { polluted: true }, list: [-0, 1e308, -0.0] }
servers:
  - url: https://api.example.com/v1
    x-zero: -0.0
x-top: { a: -0, constructor: { b: -0 } }
auth:
  - guard: password
    tokenUrl: /token
    scopes:
      __proto__: Read
      write: Write
    x-guard: { __proto__: -0 }
resources:
  things:
    x-resource: [-0, { __proto__: -0 }]
    fields:
      n: { type: number, minimum: -0, maximum: 1e308, default: -0, example: -0.0, x-field: { v: -0 } }
      i: { type: integer, minimum: -0, default: -0, enum: [-0, 1, 2], filter: true }
      tags: { type: array, items: { type: number, minimum: -0 }, default: [-0, 1.5] }
      inner: { type: object, fields: { z: { type: number, default: -0, x-deep: { __proto__: [-0] } } } }
    status:
      values: [open, shut]
      initial: open
      transitions: { open: [shut] }
      x-status: { zero: -0 }
    links:
      peek: { method: GET, x-link: { zero: -0 } }
    access:
      read: [__proto__]
      write: [write]
      x-access: -0
    operations:
      list: { page: { size: 10, max: 50 }, sort: [n], x-op: { zero: -0.0 } }
      get: {}
      create: {}
    actions:
      close: { to: shut, when: [open], body: { reason: { type: number, default: -0 } }, x-action: { zero: -0 } }
`;

const cases: [string, string, string][] = [
  ...fixtureCases("valid").map((name): [string, string, string] => {
    const file = declarationOf("valid", name);
    return [name, file, readFileSync(path.join(ROOT, file), "utf8")];
  }),
  ["hostile numbers and keys", "hostile.yaml", HOSTILE],
];

/** Every object of a value, each time it is reached (a shared one more than once). */
function objectsOf(value: unknown, found: object[] = []): object[] {
  if (typeof value !== "object" || value === null) return found;
  found.push(value);
  for (const key of Object.keys(value)) objectsOf((value as Record<string, unknown>)[key], found);
  return found;
}

describe.each(cases)("the expanded document of %s", (_name, file, text) => {
  const declaration = () => {
    const checked = checkDeclaration(file, text);
    if (!checked.value) throw new Error(checked.diagnostics.map((d) => d.message).join("\n"));
    return checked.value;
  };

  it("is what a copy through JSON text makes of it: plain objects, no -0, no undefined", () => {
    const document = expandDeclaration(declaration());
    // isDeepStrictEqual tells -0 from 0, an undefined key from an absent one, and prototypes apart.
    expect(isDeepStrictEqual(document, JSON.parse(JSON.stringify(document)))).toBe(true);
  });

  it("shares no object between two places, with the declaration or with another expansion", () => {
    const given = declaration();
    const first = objectsOf(expandDeclaration(given));
    expect(new Set(first).size).toBe(first.length);
    const elsewhere = new Set([...objectsOf(expandDeclaration(given)), ...objectsOf(given)]);
    expect(first.filter((object) => elsewhere.has(object))).toEqual([]);
  });

  it("is modelled exactly as the full walk's preparation of a copy of it is, without changing it", () => {
    // Why: prepareDocument leaves an expansion as it is (its shared answers still refs, which
    // responseObjects reads where they stand); the walk replaces them by one object each.
    const document = expandDeclaration(declaration());
    const copy = structuredClone(document);
    expect([isExpansion(document), isExpansion(copy)]).toEqual([true, false]);
    expect(prepareDocument(document).document).toBe(document);
    const options = { inputPath: "api.yaml" };
    expect(isDeepStrictEqual(buildApiModel(document, options), buildApiModel(copy, options))).toBe(true);
    expect(isDeepStrictEqual(document, copy)).toBe(true);
  });
});

/** The value, every object in it frozen. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

describe.each(cases)("what reads the expansion of %s", (_name, file, text) => {
  it("changes none of it: the self-check, the model and the writer work on it frozen", async () => {
    // Why: the expansion shares nothing with other runs only while nothing writes into it.
    const expanded = await documentFromText(file, text, ROOT, { selfCheck: true });
    const document = deepFreeze(expanded.value!);
    expect(isExpansion(document)).toBe(true);
    expect(modelOfDocument(file, text, document, "../api.yaml").diagnostics).toEqual([]);
    expect(jsonToYaml(document).length).toBeGreaterThan(0);
  });
});

describe("prepareDocument of a document codegen did not expand", () => {
  it("walks it in full: a copy of an expansion with a dangling answer or a schema name to change is prepared as before", () => {
    const checked = checkDeclaration("hostile.yaml", HOSTILE);
    const copy = structuredClone(expandDeclaration(checked.value!)) as unknown as Record<string, any>;
    copy.paths["/things"].get.responses["406"] = { $ref: "#/components/responses/Gone" };
    copy.components.schemas["thing-extra"] = { type: "string" };
    copy.components.schemas.Thing.properties.extra = { $ref: "#/components/schemas/thing-extra" };
    const prepared = prepareDocument(copy);
    expect(prepared.problems).toMatchObject([{ pointer: "#/paths/~1things/get/responses/406", kind: "missing" }]);
    const schemas = (prepared.document as any).components.schemas;
    expect(schemas.Thing.properties.extra).toEqual({ $ref: "#/components/schemas/ThingExtra" });
  });
});

describe("the hostile declaration's data", () => {
  it("holds no number JSON cannot hold: .inf and .nan are refused where they stand", () => {
    const checked = checkDeclaration("hostile.yaml", HOSTILE.replace("x-zero: -0\n", "x-zero: -0\n  x-inf: .inf\n"));
    expect(checked.value).toBeUndefined();
    expect(checked.diagnostics).toMatchObject([{ code: "decl/not-finite", location: { line: 6, column: 10 } }]);
  });

  it("reaches the document as JSON would hold it", () => {
    const checked = checkDeclaration("hostile.yaml", HOSTILE);
    const document = expandDeclaration(checked.value!) as unknown as Record<string, any>;
    const info = document.info;
    expect(Object.is(info["x-zero"], 0)).toBe(true);
    expect(Object.is(info["x-data"].list[0], 0)).toBe(true);
    expect(Object.getPrototypeOf(info["x-data"])).toBe(Object.prototype);
    expect(Object.hasOwn(info["x-data"], "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const n = document.components.schemas.Thing.properties.n;
    expect([n.minimum, n.default, n.examples[0], n["x-field"].v].map((v: number) => Object.is(v, 0))).toEqual([true, true, true, true]);
    expect(document.components.schemas.Thing.properties.i.enum.map((v: number) => Object.is(v, 0))).toEqual([true, false, false]);
  });
});
