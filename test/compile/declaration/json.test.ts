import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";

// Counts the YAML parsers made: JSON text must not need one (it cost seconds and most of
// a gigabyte for a 5 MB document), except to report what JSON.parse cannot tell.
const parsers = vi.hoisted(() => ({ made: 0 }));
vi.mock("yaml", async (original) => {
  const yaml = await original<typeof import("yaml")>();
  class CountedParser extends yaml.Parser {
    constructor(...args: ConstructorParameters<typeof yaml.Parser>) {
      super(...args);
      parsers.made++;
    }
  }
  return { ...yaml, Parser: CountedParser };
});

const { loadDocument, loadWithYamlParser } = await import("../../../src/compile/declaration/load.js");

/** Every path to a node of a value, the root first. */
function pathsOf(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  const found = [path];
  if (Array.isArray(value)) value.forEach((item, i) => found.push(...pathsOf(item, [...path, i])));
  else if (typeof value === "object" && value !== null) for (const [key, item] of Object.entries(value)) found.push(...pathsOf(item, [...path, key]));
  return found;
}

/** The location of every node (value and key) and of a missing key under each, as a loader gives them. */
function placesOf(text: string, load: (file: string, text: string) => ReturnType<typeof loadDocument>) {
  const { document } = load("a.json", text);
  return pathsOf(document!.value).flatMap((path) =>
    [path, [...path, "missing"]].flatMap((p) =>
      [document!.locate(p), document!.locate(p, "key")].map((l) => `${JSON.stringify(p)} ${l.line}:${l.column}+${l.length}`),
    ),
  );
}

describe("JSON input read with JSON.parse", () => {
  const text = [
    "{",
    '  "openapi": "3.1.0",',
    '  "paths": {',
    '    "/a/{id}": {',
    '      "get": { "responses": { "200": { "content": { "application/json": {',
    '        "schema": { "properties": { "say \\"hi\\"": { "type": "string" }, "caf\\u00e9": {',
    '          "items": [ 1, { "x~y/z": { "enum": [ true, null, -1.5e3 ] } } ] } } }',
    "      } } } } }",
    "    }",
    "  }",
    "}",
    "",
  ].join("\n");

  it("reads the value without the YAML parser and places a deep pointer where the parser did", () => {
    parsers.made = 0;
    const { document, diagnostics } = loadDocument("api.json", text);
    expect(diagnostics).toEqual([]);
    expect(parsers.made).toBe(0);
    const schema = ["paths", "/a/{id}", "get", "responses", "200", "content", "application/json", "schema", "properties"];
    const deep = [...schema, "café", "items", 1, "x~y/z", "enum", 2];
    expect(document!.locate(deep)).toMatchObject({ file: "api.json", line: 7, column: 60, length: 6 });
    expect(document!.locate([...schema, 'say "hi"'], "key")).toMatchObject({ line: 6, column: 37, length: 12 });
    expect(document!.locate([...schema, "café"], "key")).toMatchObject({ line: 6, column: 73, length: 11 });
    expect(document!.locate([...schema, "café", "items", "1"])).toMatchObject({ line: 7, column: 25 });
    // A missing key is placed at its nearest existing parent; an index is never a key.
    expect(document!.locate([...schema, "café", "items", 7])).toMatchObject({ line: 7, column: 20 });
    expect(document!.locate([...schema, "café", "items", "01"])).toMatchObject({ line: 7, column: 20 });
    expect(placesOf(text, loadDocument)).toEqual(placesOf(text, loadWithYamlParser));
  });

  it("reads YAML written as JSON the same way", () => {
    parsers.made = 0;
    const { document } = loadDocument("api.yaml", text);
    expect(parsers.made).toBe(0);
    expect(document!.locate(["paths", "/a/{id}", "get"], "key")).toMatchObject({ line: 5, column: 7, length: 5 });
  });

  it("reports a repeated key as before, also one written with an escape, and JSON.parse keeps no last one", () => {
    const given = '{\n  "a": { "b": 1,\n    "\\u0062": 2 }\n}\n';
    const { document, diagnostics } = loadDocument("d.json", given);
    expect(document).toBeUndefined();
    expect(diagnostics).toEqual(loadWithYamlParser("d.json", given).diagnostics);
    expect(diagnostics).toMatchObject([{ code: "yaml/duplicate-key", location: { file: "d.json", line: 3, column: 5 } }]);
  });

  it("reports nesting too deep as before", () => {
    const given = "[".repeat(100) + "]".repeat(100);
    const { diagnostics } = loadDocument("d.json", given);
    expect(diagnostics).toEqual(loadWithYamlParser("d.json", given).diagnostics);
    expect(diagnostics[0]).toMatchObject({ code: "input/too-deep" });
  });

  it("keeps objects without a prototype: __proto__ is an ordinary key", () => {
    const { document } = loadDocument("d.json", '{"__proto__": {"polluted": true}, "constructor": 1}');
    const value = document!.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect(Object.keys(value)).toEqual(["__proto__", "constructor"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("gives every node of any JSON text the value and place the YAML parser gives", () => {
    const space = fc.constantFrom("", " ", "  ", "\n", "\r\n", "\n    ");
    // Letters are sometimes written as \u escapes, which the places must decode to find keys.
    const write = (value: unknown, spaces: string[], escape: boolean): string => {
      let n = 0;
      const s = () => spaces[n++ % spaces.length]!;
      const str = (v: string) => {
        const plain = JSON.stringify(v);
        return escape ? plain.replace(/[a-e]/g, (c) => "\\u00" + c.charCodeAt(0).toString(16)) : plain;
      };
      const go = (v: unknown): string => {
        if (Array.isArray(v)) return "[" + s() + v.map((item) => go(item) + s()).join("," + s()) + "]";
        if (typeof v === "object" && v !== null)
          return (
            "{" +
            s() +
            Object.entries(v)
              .map(([k, item]) => str(k) + s() + ":" + s() + go(item) + s())
              .join("," + s()) +
            "}"
          );
        return typeof v === "string" ? str(v) : JSON.stringify(v);
      };
      return s() + go(value) + s();
    };
    const object = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 5 });
    fc.assert(
      fc.property(object, fc.array(space, { minLength: 1, maxLength: 9 }), fc.boolean(), (value, spaces, escape) => {
        const given = write(value, spaces, escape);
        const old = loadWithYamlParser("a.json", given);
        fc.pre(old.document !== undefined);
        const now = loadDocument("a.json", given);
        expect(now.diagnostics).toEqual([]);
        expect(JSON.stringify(now.document!.value)).toBe(JSON.stringify(old.document!.value));
        expect(placesOf(given, loadDocument)).toEqual(placesOf(given, loadWithYamlParser));
      }),
      { numRuns: 300 },
    );
  });
});
