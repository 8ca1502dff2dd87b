import { describe, expect, it } from "vitest";
import { loadDocument } from "../../../src/compile/declaration/load.js";

describe("loadDocument", () => {
  it("reads YAML into plain values and knows where every node stands", () => {
    const { document, diagnostics } = loadDocument("a.yaml", "info:\n  title: Blog\nlist:\n  - one\n  - two\n");
    expect(diagnostics).toEqual([]);
    expect(document!.value).toEqual({ info: { title: "Blog" }, list: ["one", "two"] });
    expect(document!.locate(["info", "title"])).toMatchObject({ line: 2, column: 10, length: 4 });
    expect(document!.locate(["info", "title"], "key")).toMatchObject({ line: 2, column: 3, length: 5 });
    expect(document!.locate(["list", 1])).toMatchObject({ line: 5, column: 5 });
  });

  it("reports a missing path at its nearest existing parent", () => {
    const { document } = loadDocument("a.yaml", "info:\n  title: Blog\n");
    expect(document!.locate(["info", "version"])).toMatchObject({ line: 2, column: 3 });
  });

  it("reads JSON with the same positions", () => {
    const { document } = loadDocument("a.json", '{\n  "info": {\n    "title": "Blog"\n  }\n}\n');
    expect(document!.value).toEqual({ info: { title: "Blog" } });
    expect(document!.locate(["info", "title"])).toMatchObject({ line: 3, column: 14 });
  });

  const bad: { name: string; given: string; want: { code: string; line: number; column: number } }[] = [
    { name: "duplicate key", given: "a: 1\na: 2\n", want: { code: "yaml/duplicate-key", line: 2, column: 1 } },
    { name: "bad indentation", given: "a:\n  b: 1\n c: 2\n", want: { code: "yaml/syntax", line: 3, column: 1 } },
    { name: "unterminated quote", given: 'a: "open\n', want: { code: "yaml/syntax", line: 1, column: 4 } },
    { name: "empty file", given: "", want: { code: "input/empty", line: 1, column: 1 } },
    { name: "only a comment", given: "# nothing\n", want: { code: "input/empty", line: 1, column: 1 } },
    { name: "map key that is a map", given: "? {a: 1}\n: 2\n", want: { code: "yaml/non-string-key", line: 1, column: 3 } },
    { name: "YAML 1.1 merge key", given: "a: &x {b: 1}\nc:\n  <<: *x\n  d: 2\n", want: { code: "yaml/merge-key", line: 3, column: 3 } },
    { name: "merge key of several aliases", given: "a: &x {b: 1}\nc: {<<: [*x, *x]}\n", want: { code: "yaml/merge-key", line: 2, column: 5 } },
  ];
  it.each(bad)("turns $name into a diagnostic", ({ given, want }) => {
    const { document, diagnostics } = loadDocument("a.yaml", given);
    expect(document).toBeUndefined();
    expect(diagnostics[0]).toMatchObject({ code: want.code, location: { file: "a.yaml", line: want.line, column: want.column } });
  });

  it("reads a plain key of digits as written (an HTTP status), and no other non-string key", () => {
    const { document, diagnostics } = loadDocument("a.yaml", "409: a\n010: b\n'422': c\n");
    expect(diagnostics).toEqual([]);
    expect(document!.value).toEqual({ "409": "a", "010": "b", "422": "c" });
    expect(document!.locate(["409"], "key")).toMatchObject({ line: 1, column: 1, length: 3 });
    for (const key of ["0x1F", "1.5", "1e3", "-1", "true", "~"]) {
      expect(
        loadDocument("a.yaml", `${key}: a\n`).diagnostics.map((d) => d.code),
        key,
      ).toEqual(["yaml/non-string-key"]);
    }
  });

  it("finds a status written once as digits and once quoted a duplicate", () => {
    const { diagnostics } = loadDocument("a.yaml", '409: a\n"409": b\n');
    expect(diagnostics.map((d) => [d.code, d.location?.line])).toEqual([["yaml/duplicate-key", 2]]);
  });

  it("keeps __proto__ an ordinary key", () => {
    const { document } = loadDocument("a.yaml", "__proto__: { polluted: true }\n");
    expect(Object.keys(document!.value as object)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses nesting deeper than its limit instead of exhausting the stack", () => {
    const deep = "a: ".repeat(1) + "[".repeat(100) + "]".repeat(100) + "\n";
    const { diagnostics } = loadDocument("a.yaml", deep);
    expect(diagnostics.map((d) => d.code)).toEqual(["input/too-deep"]);
  });

  it("resolves aliases to copies of their anchors", () => {
    const { document } = loadDocument("a.yaml", "a: &x { b: 1 }\nc: *x\n");
    expect(document!.value).toEqual({ a: { b: 1 }, c: { b: 1 } });
  });
});
