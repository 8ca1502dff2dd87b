// S6: YAML in the subset that declarations and OpenAPI documents use is read in one pass
// (src/compile/declaration/yaml-subset.ts); the yaml-package path (loadWithYamlParser) is the oracle: the
// same values and the same place for every node, or the text is read by that path.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { ROOT } from "../../support/fixtures.js";

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
const { readYamlSubset } = await import("../../../src/compile/declaration/yaml-subset.js");
const { stringify } = await vi.importActual<typeof import("yaml")>("yaml");

/** A value written so that -0, NaN, the infinities and prototypes show. */
function show(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === "number" && !Number.isFinite(v)) return `#${v}`;
    if (Object.is(v, -0)) return "#-0";
    if (typeof v === "object" && v !== null && !Array.isArray(v)) return { "#proto": Object.getPrototypeOf(v) === null ? "null" : "object", ...v };
    return v;
  });
}

/** Every path to a node of a value, the root first. */
function pathsOf(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  const found = [at];
  if (Array.isArray(value)) value.forEach((item, i) => found.push(...pathsOf(item, [...at, i])));
  else if (typeof value === "object" && value !== null) for (const [key, item] of Object.entries(value)) found.push(...pathsOf(item, [...at, key]));
  return found;
}

/** The outcome of a loader: its diagnostics, or the value and the location of every node (value and key) and of a missing key under each. */
function outcome(load: typeof loadDocument, text: string): string[] {
  const { document, diagnostics } = load("a.yaml", text);
  if (!document) return diagnostics.map((d) => JSON.stringify(d));
  return [
    show(document.value),
    ...pathsOf(document.value).flatMap((p) =>
      [p, [...p, "missing"]].flatMap((q) =>
        [document.locate(q), document.locate(q, "key")].map((l) => `${JSON.stringify(q)} ${l.line}:${l.column}+${l.length}`),
      ),
    ),
  ];
}

/** Whether the fast reader took the text (else the yaml package read it). */
const taken = (text: string): boolean => readYamlSubset(text, 64) !== undefined;

/** Checks that loadDocument gives what the yaml-package path gives; returns whether the fast reader took the text. */
function same(text: string): boolean {
  expect(outcome(loadDocument, text), text).toEqual(outcome(loadWithYamlParser, text));
  return taken(text);
}

describe("the YAML subset reader", () => {
  it("reads a declaration without the yaml package, with the places the yaml package gives", () => {
    const text = [
      "# a declaration",
      "---",
      "codegen: 1",
      "info:",
      "  title: 'Blog ''API'''   # quoted",
      '  version: "1.0.0"',
      "auth:",
      "- guard: password",
      "  tokenUrl: /token",
      "  scopes:",
      "    orders:read: Read orders",
      "resources:",
      "  /users/{id}:",
      "    fields: { name: { type: string, required: true }, tags: 'string[]', n: [1, -0, 0x1F, 0o17, 1e3, .inf, -.Inf, .NaN, 1.0.0, 010, ~, null, True, \"a\\u00e9\\x41\\n\" ] }",
      "    409: conflict",
      "    empty:",
      "    list:",
      "      -",
      "      - [1, [2, {}]]",
      "      -   a: 1",
      "          b:",
      "          - x",
      "          c: d",
      "    __proto__: { polluted: true }",
      "",
    ].join("\n");
    parsers.made = 0;
    const { document, diagnostics } = loadDocument("a.yaml", text);
    expect(diagnostics).toEqual([]);
    expect(parsers.made).toBe(0);
    expect(document!.locate(["resources", "/users/{id}", "fields", "n", 3])).toMatchObject({ line: 14, column: 90, length: 4 });
    expect(same(text)).toBe(true);
  });

  /** Pieces of keys and plain scalars: what YAML reads apart (indicators, numbers, words that resolve). */
  const piece = fc.constantFrom(
    "a",
    "Zed",
    "x-y",
    "/users/{id}",
    " ",
    "  ",
    ":",
    ": ",
    " #",
    "#",
    "-",
    "- ",
    "'",
    '"',
    "\\",
    "{",
    "}",
    "[",
    "]",
    ",",
    "*",
    "&",
    "!",
    "|",
    ">",
    "%",
    "@",
    "`",
    "?",
    "~",
    "null",
    "True",
    "false",
    "1",
    "-0",
    "010",
    "0x1F",
    "0o17",
    "1e3",
    "1.0.0",
    ".5",
    ".inf",
    "-.Inf",
    ".NaN",
    "é",
    "😀",
    "__proto__",
    "constructor",
    "---",
    "...",
    "\t",
    "\u0085",
    "\\u00e9",
    "\\x4",
    "\\q",
    "\n",
    "\n\n",
    "\n  ",
    "\u00a0",
    "\u3000",
    "\ud800",
  );
  const word = fc.array(piece, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(""));
  const scalar = fc.oneof(word, fc.constant(""), fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
  const tree = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: "small", maxDepth: 5 }, scalar, tie("seq"), tie("map")),
    seq: fc.array(tie("node"), { maxLength: 4 }),
    map: fc.array(fc.tuple(word, tie("node")), { maxLength: 4 }),
  }));
  type Tree = unknown;

  /** A YAML text of a tree, each choice of style (block or flow, quoting, comments, indentation) taken from `choices`. */
  function write(root: Tree, choices: number[]): string {
    let n = 0;
    const choose = (k: number) => (choices[n++ % choices.length] ?? 0) % k;
    const scalarText = (v: unknown): string => {
      if (typeof v !== "string") return String(v);
      const style = choose(4);
      if (style === 1) return `'${v.replace(/'/g, "''")}'`;
      if (style === 2) return JSON.stringify(v);
      return v; // plain, as it stands: often outside the subset, or not YAML at all
    };
    const isMapNode = (v: unknown): v is [unknown, unknown][] =>
      Array.isArray(v) &&
      v.length > 0 &&
      v.every((e) => Array.isArray(e) && e.length === 2 && e[0] !== null && typeof e[0] === "string" && (e as unknown[]).length === 2) &&
      choose(3) > 0;
    const flow = (v: unknown): string => {
      if (Array.isArray(v)) {
        if (isMapNode(v)) return `{ ${v.map(([k, item]) => `${scalarText(k)}: ${flow(item)}`).join(", ")} }`;
        return `[${v.map(flow).join(choose(2) ? ", " : ",")}]`;
      }
      return scalarText(v);
    };
    const comment = () => (choose(6) === 0 ? "  # note: x" : choose(8) === 0 ? "   " : "");
    const blank = () => (choose(8) === 0 ? (choose(2) ? "\n" : "  # comment line\n") : "");
    /** Lines of a node written in block style at `indent`, after a key (`afterKey`) or an item. */
    const block = (v: unknown, indent: string, head: string): string => {
      const step = " ".repeat(1 + choose(3));
      if (typeof v === "string" && choose(3) === 0) {
        // A block scalar: its lines indented by a step, some further, some blank (with spaces or not).
        const lines = v
          .split(/\n|(?=é)/)
          .map((l) => (choose(5) === 0 ? " ".repeat(choose(3)) : l === "" || choose(6) > 0 ? "" : " ".repeat(1 + choose(2))) + l);
        const header = ["|", "|-", ">", ">-", "|+", ">2", "| # c"][choose(7)]!;
        return `${head} ${header}\n${lines.map((l) => (l === "" ? " ".repeat(choose(2) * (indent.length + step.length)) : indent + step + l)).join("\n")}\n${blank()}`;
      }
      if (!Array.isArray(v) || v.length === 0 || choose(5) === 0) return `${head} ${flow(v)}${comment()}\n${blank()}`;
      if (isMapNode(v)) {
        let out = `${head}${comment()}\n${blank()}`;
        for (const [k, item] of v) out += block(item, indent + step, `${indent}${step}${scalarText(k)}:`);
        return out;
      }
      // A sequence under a key may stand at the key's own indent.
      const inner = head.endsWith(":") && choose(3) === 0 ? indent : indent + step;
      let out = `${head}${comment()}\n${blank()}`;
      for (const item of v) out += block(item, inner, `${inner}-`);
      return out;
    };
    let text = choose(4) === 0 ? "# top\n---\n" : "";
    const top = Array.isArray(root) && isMapNode(root) ? root : [["root", root] as [unknown, unknown]];
    for (const [k, item] of top) text += block(item, "", `${scalarText(k)}:`);
    return text;
  }

  it("gives any text in and around the subset the yaml package's values and places, or leaves it to the yaml package", () => {
    let took = 0;
    let runs = 0;
    fc.assert(
      fc.property(
        tree.node,
        fc.array(fc.nat(), { minLength: 1, maxLength: 30 }),
        fc.array(fc.tuple(fc.nat(), piece), { maxLength: 2 }),
        (root, choices, edits) => {
          let text = write(root, choices);
          // Small edits take texts just outside the subset, or outside YAML.
          for (const [at, what] of edits) text = text.slice(0, at % (text.length + 1)) + what + text.slice(at % (text.length + 1));
          runs++;
          if (same(text)) took++;
        },
      ),
      { numRuns: 1500 },
    );
    // The fast reader took a good share of the texts: the property compared values and places, not only fallbacks.
    expect(took).toBeGreaterThan(runs / 4);
  });

  // The oracle (the yaml package, every node located twice) takes seconds for these on a loaded machine: generous timeouts.
  /** Every YAML file under a folder. */
  const yamlFiles = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) return name === "node_modules" ? [] : yamlFiles(file);
      return /\.ya?ml$/.test(name) ? [file] : [];
    });

  it("reads every YAML fixture as the yaml package does, most of them itself", () => {
    const files = yamlFiles(path.join(ROOT, "fixtures"));
    expect(files.length).toBeGreaterThan(100);
    const took = files.filter((file) => same(readFileSync(file, "utf8")));
    expect(took.length).toBeGreaterThan(files.length * 0.6);
  }, 120_000);

  it("reads the corpus sample written as YAML as the yaml package does", () => {
    const all = JSON.parse(readFileSync(path.join(ROOT, "fixtures/openapi-corpus/documents.json"), "utf8")) as { file: string }[];
    const sample = all.filter((_d, i) => i % 8 === 0);
    let took = 0;
    for (const { file } of sample) {
      const text = readFileSync(path.join(ROOT, file), "utf8");
      const yaml = /\.json$/.test(file) ? stringify(JSON.parse(text), { aliasDuplicateObjects: false, lineWidth: 0 }) : text;
      if (same(yaml)) took++;
    }
    expect(took).toBeGreaterThan(0);
  }, 120_000);

  it("reads hostile texts in linear time: a 1 MB scalar, 100,000 keys; refuses deep nesting as before", () => {
    const long = `a: ${"x".repeat(1_000_000)}\nb: '${"y".repeat(1_000_000)}'\nc: "${"z\\n".repeat(300_000)}"\n`;
    expect(taken(long)).toBe(true);
    expect((readYamlSubset(long, 64)!.value as Record<string, string>).c).toHaveLength(600_000);
    const keys = Array.from({ length: 100_000 }, (_, i) => `  k${i}: { v: ${i} }\n`).join("");
    const many = `root:\n${keys}`;
    parsers.made = 0;
    const { document } = loadDocument("a.yaml", many);
    expect(parsers.made).toBe(0);
    expect(Object.keys((document!.value as { root: object }).root)).toHaveLength(100_000);
    expect(document!.locate(["root", "k99999", "v"])).toMatchObject({ line: 100_001, column: 16 });
    // The test's time limit is the guard against a hang (no clock read here: the machine is shared).

    const deep = Array.from({ length: 100 }, (_, i) => `${" ".repeat(i)}a:\n`).join("");
    expect(taken(deep)).toBe(false);
    expect(loadDocument("a.yaml", deep).diagnostics.map((d) => d.code)).toEqual(["input/too-deep"]);
    const huge = `${"k".repeat(5000)}: 1\n`;
    expect(taken(huge)).toBe(false);
    expect(same(huge)).toBe(false);
  }, 120_000);

  it("leaves to the yaml package what the subset does not cover, which reports or reads it as before", () => {
    const outside = [
      "a: &x 1\nb: *x\n",
      "a: !!str 1\n",
      "a: |+\n  text\n\n",
      "a: |2\n   text\n",
      "a: > # folded\n  text\n",
      "a: |\n\n  text\n",
      "a: |\n    text\n  less\n",
      "a: one\n  two\n",
      "a: 'one\n  two'\n",
      "a:\n\t- 1\n",
      "%YAML 1.2\n---\na: 1\n",
      "? a\n: 1\n",
      "a: 1\na: 2\n",
      "409: a\n'409': b\n",
      "true: 1\n",
      "a: 1\n---\nb: 2\n",
      "a: [1,\n  2]\n",
      "a: [1, 2,]\n",
      "a: b: c\n",
      "- - 1\n",
      "  a: 1\n",
      "a: 1\r\nb: 2\r\n",
      "",
      "# only a comment\n",
      "a: 1\n b: 2\n",
      'a: "\\q"\n',
    ];
    for (const text of outside) {
      expect(taken(text), text).toBe(false);
      same(text);
    }
  });
});

describe("resolvePlain", () => {
  it("reads a scalar that starts with any letter as the yaml package does (words skip the core schema's tests)", async () => {
    const { resolvePlain } = await import("../../../src/compile/declaration/yaml-subset.js");
    const { parse } = await vi.importActual<typeof import("yaml")>("yaml");
    const letters = [..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"];
    const tails = ["", "ull", "ULL", "rue", "RUE", "alse", "ALSE", "x1F", "o17", "e5", "1", ".5", "nf", "an", "-b"];
    for (const letter of letters) {
      for (const tail of tails) expect(show(resolvePlain(letter + tail)), letter + tail).toBe(show(parse(`${letter}${tail}\n`)));
    }
  });
});
