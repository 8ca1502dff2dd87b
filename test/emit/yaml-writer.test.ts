// The OpenAPI document is written as YAML by the generated server's own writer
// (runtime/yaml.gen.ts), byte-identical to `yaml`'s output (the goldens in
// fixtures/valid/*/expected/openapi.yaml are compared by test/golden-openapi.test.ts; here any
// JSON data is), and by `yaml` itself where that writer refuses.
import { serialize } from "node:v8";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { YamlUnsupported, yamlOfData } from "../../runtime/yaml.gen.js";
import { YAML_OPTIONS, documentYaml, jsonToYaml } from "../../src/emit/yaml.js";

const calls = vi.hoisted(() => ({ stringify: 0 }));
vi.mock("yaml", async (original) => {
  const real = await original<typeof import("yaml")>();
  return {
    ...real,
    stringify: (...args: Parameters<typeof real.stringify>) => {
      calls.stringify++;
      return real.stringify(...args);
    },
  };
});
/** yaml's own stringify, not counted. */
const { parse, stringify } = await vi.importActual<typeof import("yaml")>("yaml");
/** yaml's reading of a text, or undefined where it reads none. */
const tryParse = (text: string): unknown => {
  try {
    return parse(text);
  } catch {
    return undefined;
  }
};

/** Strings built from what makes YAML quote, fold or block a scalar. */
const text = fc
  .array(
    fc.constantFrom(
      "a",
      "Z",
      " ",
      "\n",
      "\n\n",
      ":",
      ": ",
      " #",
      "#",
      "-",
      "- ",
      "'",
      '"',
      "\\",
      "\t",
      "{",
      "[",
      "*",
      "&",
      "!",
      "|",
      ">",
      "%",
      "@",
      "`",
      "~",
      "null",
      "true",
      "1",
      "0x1",
      "1.5",
      "é",
      "\u0085",
      "\u2028",
      "?",
      ",",
    ),
    {
      maxLength: 12,
    },
  )
  .map((parts) => parts.join(""));
const scalar = fc.oneof(text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.constant(-0));
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: "small" }, scalar, tie("array"), tie("object")),
  array: fc.array(tie("node"), { maxLength: 4 }),
  object: fc.dictionary(text, tie("node"), { maxKeys: 4 }),
}));

/**
 * Whether V8 holds a string one byte a character (the tag its serializer writes for it: `"` one
 * byte, `c` two). A public API's view of what the heap pays for the text.
 */
const isOneByte = (text: string): boolean => serialize(text)[2] === 0x22;

describe("the text of openapi.yaml", () => {
  it("is held one byte a character when the document is, even where a value was used as a property key", () => {
    // A string V8 has internalized since it was made (a lookup by it as a key) is one it joins as two bytes a character.
    const method = ["P", "A", "T", "C", "H"].join("");
    const operations: Record<string, string> = { GET: "get", PATCH: "update" };
    expect(operations[method]).toBe("update");
    // Small: a collection of the young generation would put the internalized string itself in the document.
    const document = { openapi: "3.1.0", paths: { "/a": { method, rel: "a" }, "/b": { method, rel: "b" } } };
    const text = jsonToYaml(document);
    expect(text).toContain("method: PATCH\n");
    expect(isOneByte(text)).toBe(true);
  });
});

describe("jsonToYaml", () => {
  it("writes any JSON data byte-identically to yaml's stringify wherever that reads back as the data, and always text that does", () => {
    fc.assert(
      fc.property(fc.oneof(fc.dictionary(text, value.node, { minKeys: 0, maxKeys: 5 }), value.node), (data) => {
        const written = jsonToYaml(data);
        expect(JSON.stringify(parse(written))).toBe(JSON.stringify(data));
        const theirs = stringify(data, YAML_OPTIONS);
        if (written !== theirs) {
          expect(JSON.stringify(tryParse(theirs))).not.toBe(JSON.stringify(data));
        }
      }),
      { numRuns: 3000 },
    );
    // (Whether the random texts meet a lossy block scalar depends on the seed; the next test always does.)
  });

  it("writes the same few texts alike wherever they stand: keys and values at the top, nested, first in a sequence's item, in sequences of sequences", () => {
    // The writer remembers each text's line start and value per run; a text whose layout
    // depends on its place (a document marker at the top, a block scalar's indentation) must not be
    // taken from another place. A pool of a few texts makes every one of them stand at many places.
    const shared = fc
      .array(fc.oneof(text, fc.constantFrom("%a", "---", "... x", "a\n---", " \nb", "a: b", "#x")), { minLength: 1, maxLength: 4 })
      .chain((pool) => {
        const one = fc.constantFrom(...pool);
        const node = fc.letrec((tie) => ({
          node: fc.oneof({ depthSize: "small" }, one, tie("array"), tie("object")),
          array: fc.array(tie("node"), { maxLength: 3 }),
          object: fc.dictionary(one, tie("node"), { maxKeys: 3 }),
        })).node;
        return fc.dictionary(one, node, { minKeys: 1, maxKeys: 4 });
      });
    fc.assert(
      fc.property(shared, (data) => {
        const { text: written, servedAsIs } = documentYaml(data);
        expect(JSON.stringify(parse(written))).toBe(JSON.stringify(data));
        const theirs = stringify(data, YAML_OPTIONS);
        if (written !== theirs) expect(JSON.stringify(tryParse(theirs))).not.toBe(JSON.stringify(data));
        if (servedAsIs) expect(yamlOfData(data)).toBe(written);
      }),
      { numRuns: 3000 },
    );
    // And the same scalar in a map, first in a sequence's item and in a sequence of sequences, at several depths.
    for (const v of ["%a", "a\n---", " \nb", "x\ny", "#x", "plain"]) {
      const data = { [v]: v, a: [v, [v, [v]], { [v]: v, b: { [v]: [v] } }], [`${v}2`]: { [v]: v } };
      expect(jsonToYaml(data), JSON.stringify(data)).toBe(stringify(data, YAML_OPTIONS));
      let served: string | undefined;
      try {
        served = yamlOfData(data);
      } catch (error) {
        if (!(error instanceof YamlUnsupported)) throw error;
      }
      if (documentYaml(data).servedAsIs) expect(served).toBe(jsonToYaml(data));
    }
  });

  it("writes a string whose first line is only spaces so that it reads back (yaml's block scalar loses the spaces)", () => {
    for (const lossy of [" \n", "  \nx", " #&%\n", " \n \n"]) {
      for (const data of [{ description: lossy }, { list: [lossy] }, { a: { b: lossy } }, { [lossy]: 1 }]) {
        expect(parse(jsonToYaml(data)), JSON.stringify(data)).toEqual(data);
      }
    }
  });

  it("writes a line of one space in a long double-quoted string so that it reads back (yaml writes a backslash more)", () => {
    const spaced = `${" ".repeat(20)}\n\n \n\n${" ".repeat(20)}`;
    for (const data of [{ description: spaced }, { list: [[spaced]] }, { a: { b: spaced } }]) {
      const { text, servedAsIs } = documentYaml(data);
      expect(servedAsIs).toBe(true);
      expect(parse(text), JSON.stringify(data)).toEqual(data);
    }
    // Where the server's writer refuses the document (a key starting like a document marker), yaml writes it, still so that it reads back.
    const refused = { "---": [[`\u0001${" ".repeat(40)}\n \n\nx`]] };
    expect(documentYaml(refused).servedAsIs).toBe(false);
    expect(parse(jsonToYaml(refused))).toEqual(refused);
  });

  it("writes blank lines whose first starts with a tab as yaml does: its block scalar reads back", () => {
    for (const blank of ["\t\n", "\t\n\n", "\n\t \n", "\t \n\t\n"]) {
      for (const data of [{ description: blank }, { list: [[blank]] }, { a: { b: blank } }]) {
        const { text, servedAsIs } = documentYaml(data);
        expect(servedAsIs).toBe(true);
        expect(text, JSON.stringify(data)).toBe(stringify(data, YAML_OPTIONS));
        expect(parse(text)).toEqual(data);
      }
    }
  });

  it("falls back to yaml whole for what it does not write itself", () => {
    const long = { ["k".repeat(1100)]: 1, date: "x" };
    expect(jsonToYaml(long)).toBe(stringify(long, YAML_OPTIONS));
    const odd = { when: new Date(0), gone: undefined, list: [1] };
    expect(jsonToYaml(odd)).toBe(stringify(odd, YAML_OPTIONS));
    expect(jsonToYaml([1, { a: 2 }])).toBe(stringify([1, { a: 2 }], YAML_OPTIONS));
    expect(jsonToYaml({})).toBe(stringify({}, YAML_OPTIONS));
  });

  it("writes plain names as yaml does, as keys and values at every depth", () => {
    const word = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9_./ -]{0,12}$/),
      fc.constantFrom("null", "NULL", "True", "false", "yes", "No", "on", "y", "n", "e1", "a.b", "a/b", "x-", "-x", "_a", "inf", "nan"),
    );
    const plainish = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(" "));
    let judged = 0;
    fc.assert(
      fc.property(plainish, (text) => {
        for (const data of [{ [text]: text }, { a: { [text]: [text, { [text]: text }] } }, { list: [text] }]) {
          const { text: written, servedAsIs } = documentYaml(data);
          expect(written).toBe(stringify(data, YAML_OPTIONS));
          if (servedAsIs) judged++;
        }
      }),
      { numRuns: 2000 },
    );
    // The server's writer wrote most of them, not only left them to yaml.
    expect(judged).toBeGreaterThan(2000);
  });

  it("lays out each distinct scalar and key once", () => {
    // Bounded work: 10,000 operations sharing their texts cost a handful of calls into yaml, not one per text.
    const operation = (i: number) => ({
      description: "Line one.\nLine two.",
      responses: { "404": { $ref: "#/components/responses/NotFound" } },
      tags: [i % 2 ? "a" : "b"],
    });
    const document = { openapi: "3.1.0", operations: Array.from({ length: 10_000 }, (_, i) => operation(i)) };
    calls.stringify = 0;
    const text = jsonToYaml(document);
    expect(calls.stringify).toBeLessThan(20);
    expect(text).toBe(stringify(document, YAML_OPTIONS));
  });

  it("writes every one-line scalar itself, byte-identically to yaml, as a key, a value and an item at every depth", () => {
    // Any code unit (control characters, lone surrogates, unicode), and the pieces that make yaml quote.
    const piece = fc.constantFrom(
      " ",
      ": ",
      " #",
      "#",
      "-",
      "- ",
      "?",
      "'",
      '"',
      "\\",
      "\t",
      "{",
      "]",
      ",",
      "&",
      "*",
      "!",
      "|",
      ">",
      "%",
      "@",
      "`",
      "~",
      "1",
      "0x1",
      "1e3",
      ".inf",
      "null",
      "True",
      "é",
      "\u0085",
      "\u2028",
      "\u00a0",
      "\u0000",
      "\u001b",
      "\ud800",
    );
    const line = fc
      .oneof(
        fc.string({ unit: "binary", maxLength: 12 }),
        fc.string({ unit: "grapheme", minLength: 80, maxLength: 1500 }),
        fc.array(fc.oneof(piece, fc.string({ unit: "grapheme-ascii", maxLength: 3 })), { maxLength: 6 }).map((p) => p.join("")),
      )
      .filter((t) => !t.includes("\n"));
    const scalar = fc.oneof(line, line, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(-0));
    let written = 0;
    fc.assert(
      fc.property(line, scalar, (k, v) => {
        const data = { [k]: v, list: [v, { [k]: [v] }], a: { b: { [k]: v } } };
        calls.stringify = 0;
        const { text: ours, servedAsIs } = documentYaml(data);
        expect(ours).toBe(stringify(data, YAML_OPTIONS));
        if (servedAsIs) {
          written++;
          // Laid out without asking yaml.
          expect(calls.stringify).toBe(0);
        }
      }),
      { numRuns: 2500 },
    );
    expect(written).toBeGreaterThan(1250);
  });
});
