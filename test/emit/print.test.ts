// The one printer (src/emit/print.ts): literals, type expressions and declarations in codegen's
// own layout (flat where a construct fits in 100 columns, else one member per line), and the
// escaping that keeps input inside its string or comment.
import fc from "fast-check";
import ts from "typescript";
import { describe, expect, it, vi } from "vitest";
import { WIDTH, constDeclaration, jsonDocumentLiteral, printLiteral, printType, quoted, typeAlias } from "../../src/emit/print.js";
import { arrayType, docComment, documentedUnion, genericType, literalType, member, objectType, unionType, word } from "../../src/model/type-expr.js";

/** The value a literal's text evaluates to (the text is an expression of JSON-like data). */
const evaluate = (text: string): unknown => new Function(`return (${text.replace(/ as const/g, "")});`)();

/** The syntax errors TypeScript finds in a source text. */
function syntaxErrors(source: string): string[] {
  const file = ts.createSourceFile("x.ts", source, ts.ScriptTarget.Latest, true);
  return (file as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

const longestLine = (text: string) => Math.max(...text.split("\n").map((line) => line.length));

describe("printLiteral", () => {
  it("prints a value flat where it fits, else one member per line indented two spaces, each ending in a comma", () => {
    expect(printLiteral({ a: 1, b: ["x", null] })).toBe('{ a: 1, b: ["x", null] }');
    const wide = { first: "x".repeat(60), second: { inner: "y".repeat(90) }, list: [1, 2, 3] };
    expect(printLiteral(wide)).toBe(
      ["{", `  first: "${"x".repeat(60)}",`, "  second: {", `    inner: "${"y".repeat(90)}",`, "  },", "  list: [1, 2, 3],", "}"].join("\n"),
    );
    expect(printLiteral({})).toBe("{}");
    expect(printLiteral([])).toBe("[]");
  });

  it("prints a deeply nested value into one buffer: its text is joined about twice, not once per level", () => {
    const nested = (level: number): unknown =>
      level === 0 ? Array.from({ length: 6 }, (_, i) => `leaf ${i} ${"x".repeat(20)}`) : { [`a${level}`]: nested(level - 1), [`b${level}`]: nested(level - 1) };
    const value = nested(10);
    const join = vi.spyOn(Array.prototype, "join");
    let text: string;
    try {
      text = printLiteral(value);
      const joined = join.mock.results.reduce((sum, result) => sum + (typeof result.value === "string" ? result.value.length : 0), 0);
      // Joining each member's lines into its parent's copied the text once per level (ten here).
      expect(joined).toBeLessThanOrEqual(3 * text.length);
    } finally {
      join.mockRestore();
    }
    expect(evaluate(text)).toEqual(value);
  });

  it("quotes a string with nothing to escape without JSON.stringify", () => {
    const names = Array.from({ length: 200 }, (_, i) => `name ${i} of the list, with 'one' apostrophe`);
    const stringify = vi.spyOn(JSON, "stringify");
    let text: string;
    try {
      text = printLiteral({ names, escaped: 'a "quoted" \\ \u2028 text' });
      // One call for the string that has something to escape, none for the 200 that have not.
      expect(stringify.mock.calls.filter(([value]) => typeof value === "string")).toHaveLength(1);
    } finally {
      stringify.mockRestore();
    }
    expect(evaluate(text)).toEqual({ names, escaped: 'a "quoted" \\ \u2028 text' });
  });

  it("tries a value of thousands of members flat member by member, listing its members only where it prints them", () => {
    const members = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`key${i}`, i]));
    const entries = vi.spyOn(Object, "entries");
    try {
      const text = printLiteral({ outer: { members } });
      expect(text.split("\n")).toHaveLength(5000 + 6);
      const listed = entries.mock.results.reduce((sum, result) => sum + (Array.isArray(result.value) ? result.value.length : 0), 0);
      // Once, where its members are printed a line each; not again for every flat try of it and of its ancestors.
      expect(listed).toBeLessThanOrEqual(5000 + 10);
    } finally {
      entries.mockRestore();
    }
  });

  it("keeps a `__proto__` key a property and types a value under Object.prototype's names by itself", () => {
    const text = printLiteral({ ["__proto__"]: { a: 1 }, constructor: { types: ["string"] }, plain: 1 });
    expect(text).toBe('{ ["__proto__"]: { a: 1 }, constructor: { types: ["string"] } as const, plain: 1 }');
    const value = evaluate(text) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
  });

  it("gives back the value for any JSON data, in lines within the width wherever no single string or key is longer", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.integer({ min: 0, max: 60 }), (value, indent) => {
        const text = printLiteral(value, indent);
        expect(evaluate(text)).toEqual(JSON.parse(JSON.stringify(value)));
        const longToken = /"[^"\n]{30,}"|'[^'\n]{30,}'/.test(text);
        if (!longToken && indent < 40) expect(longestLine(`${" ".repeat(indent)}${text}`)).toBeLessThanOrEqual(WIDTH);
      }),
      { numRuns: 300 },
    );
  });

  it("never lets a string out of its literal: quotes, backslashes and every line terminator of ECMAScript", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('"', "'", "\\", "\n", "\r", "\u2028", "\u2029", "`", "$", "{", "a", "*", "/") }), (text) => {
        const printed = quoted(text);
        expect(printed).not.toMatch(/[\n\r\u2028\u2029]/);
        expect(evaluate(printed)).toBe(text);
        expect(syntaxErrors(`const x = ${printed};`)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it("quotes with the quote that needs fewer escapes (SQL with double-quoted names reads as written)", () => {
    expect(quoted('CREATE TABLE "books" ("id" text)')).toBe(`'CREATE TABLE "books" ("id" text)'`);
    expect(quoted("it's")).toBe('"it\'s"');
  });
});

describe("printType", () => {
  it("prints a type flat where it fits, else a union one member per line and an object one member per line", () => {
    const short = unionType([word("A"), word("B")]);
    expect(typeAlias("T", short)).toBe("export type T = A | B;");
    const long = unionType(Array.from({ length: 12 }, (_, i) => literalType(`value-number-${i}`)));
    const alias = typeAlias("T", long);
    expect(alias.split("\n")[0]).toBe("export type T =");
    expect(alias.split("\n").slice(1)).toEqual(Array.from({ length: 12 }, (_, i) => `  | "value-number-${i}"${i === 11 ? ";" : ""}`));
    const object = objectType(Array.from({ length: 8 }, (_, i) => member(`field${i}`, arrayType(word("SomeLongTypeName")), { optional: true })));
    expect(typeAlias("O", object)).toBe(["export type O = {", ...Array.from({ length: 8 }, (_, i) => `  field${i}?: SomeLongTypeName[];`), "};"].join("\n"));
  });

  it("keeps a doc comment's text inside it: `*/` in a description cannot close the comment", () => {
    const type = objectType([member("a", word("string"), { description: "ends */ here\nand */ again" }), member("b", word("number"))]);
    const alias = typeAlias("T", type);
    expect(syntaxErrors(alias)).toEqual([]);
    expect(alias).toContain("ends *\\/ here");
    const file = ts.createSourceFile("x.ts", alias, ts.ScriptTarget.Latest, true);
    // Two members: the description did not swallow or add any.
    const literal = (file.statements[0] as ts.TypeAliasDeclaration).type as ts.TypeLiteralNode;
    expect(literal.members.map((m) => m.name?.getText(file))).toEqual(["a", "b"]);
  });

  it("puts each documented member of a union after its comment", () => {
    const type = documentedUnion([word("A"), word("B")], [docComment("the first"), docComment("the second")]);
    expect(typeAlias("T", type)).toBe(["export type T =", "  /** the first */", "  | A", "  /** the second */", "  | B;"].join("\n"));
  });

  it("prints declarations TypeScript parses, within the width, for nested unions and objects", () => {
    const inner = objectType(Array.from({ length: 5 }, (_, i) => member(`key${i}`, unionType([word("string"), word("number"), word("null")]))));
    const type = unionType([inner, arrayType(inner), word("undefined")]);
    const printed = `${typeAlias("Nested", type)}\n${constDeclaration("value: unknown", { list: Array.from({ length: 30 }, (_, i) => i) })}`;
    expect(syntaxErrors(printed)).toEqual([]);
    expect(longestLine(printed)).toBeLessThanOrEqual(WIDTH);
    expect(printType(type, 0, 0)).toContain("\n  | {");
  });
});

describe("printType of a generic too long for its line", () => {
  it("puts each type argument on a line of its own, with no comma after the last (TypeScript refuses one)", () => {
    const names = ["aPIKey", "hTTP", "oAuth2", "openIDConnect", "other", "somethingLonger", "andOneMore"].map((name) => literalType(name));
    for (const last of [unionType(names), word("Handlers")]) {
      const source = typeAlias("ResourceHandlers", genericType("Omit", [word("Handlers"), unionType(names), last]));
      expect(source).toContain("\n");
      expect(compileErrors(`type Omit<T, K, L = never> = { t: T; k: K; l: L };\ntype Handlers = { a: 1 };\n${source}`)).toEqual([]);
    }
  });
});

/** The errors TypeScript's checker reports for one source file (grammar checks included, as TS1009). */
function compileErrors(source: string): string[] {
  const options: ts.CompilerOptions = { strict: true, noEmit: true, noLib: true };
  const host = ts.createCompilerHost(options);
  const file = ts.createSourceFile("x.ts", source, ts.ScriptTarget.Latest, true);
  host.getSourceFile = (name) => (name === "x.ts" ? file : undefined);
  const program = ts.createProgram(["x.ts"], options, host);
  return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))
    .filter((message) => !message.startsWith("Cannot find global type"));
}

describe("jsonDocumentLiteral (the served document in document.gen.ts)", () => {
  /** A document of `count` paths, each with an operation longer than a line. */
  const document = (count: number, changed = -1) => ({
    openapi: "3.1.1",
    info: { title: "T", version: "1" },
    paths: Object.fromEntries(
      Array.from({ length: count }, (_, i) => [
        `/items${i}`,
        {
          get: {
            operationId: `list${i}`,
            summary: i === changed ? "Changed" : `List the \`items${i}\` collection`,
            parameters: Array.from({ length: 4 }, (_, p) => ({ name: `filter${p}`, in: "query", schema: { type: "string" } })),
            responses: { "200": { description: "The items.", content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } } } },
          },
        },
      ]),
    ),
  });
  const lines = (value: unknown) => jsonDocumentLiteral(value).split("\n");

  it("breaks the document's first three levels a member per line and wraps each value below them after a comma", () => {
    const text = jsonDocumentLiteral({ openapi: "3.1.1", info: { title: "T", tags: [] }, paths: { "/a": { get: { summary: "`a` ${x}", list: [1, 2] } } } });
    expect(text).toBe(
      [
        "`{",
        '  "openapi": "3.1.1",',
        '  "info": {',
        '    "title": "T",',
        '    "tags": []',
        "  },",
        '  "paths": {',
        '    "/a": {',
        '      "get": {"summary":"\\`a\\` \\${x}","list":[1,2]}',
        "    }",
        "  }",
        "}`",
      ].join("\n"),
    );
  });

  it("gives back the document for any JSON data, escapes included, in lines within the width where a comma allows", () => {
    const unit = fc.constantFrom("a", " ", "`", "$", "{", "\\", '"', "\u2028", "\n", ",");
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, fc.string({ unit, maxLength: 12 }), fc.integer(), fc.constant(null), tie("array"), tie("object")),
      array: fc.array(tie("value"), { maxLength: 6 }),
      object: fc.dictionary(fc.string({ unit, maxLength: 8 }), tie("value"), { maxKeys: 6 }),
    })).value;
    fc.assert(
      fc.property(json, (value) => {
        const text = jsonDocumentLiteral(value);
        expect(syntaxErrors(`const x = ${text};`)).toEqual([]);
        expect(JSON.parse(evaluate(text) as string)).toEqual(JSON.parse(JSON.stringify(value)));
        // Every piece between commas is under 50 columns escaped (12 units of at most 6 columns, quoted), and the document is at most 7 levels deep.
        expect(longestLine(text)).toBeLessThanOrEqual(WIDTH);
      }),
      { numRuns: 300 },
    );
  });

  it("tells its listener JSON.stringify's text of the data, unwritable members and items as JSON.stringify writes them, then the end", () => {
    const unit = fc.constantFrom("a", " ", "`", '"', "\u2028", "\ud800", ",", ":");
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.string({ unit, maxLength: 6 }),
        fc.double(),
        fc.boolean(),
        fc.constant(null),
        fc.constant(undefined),
        tie("array"),
        tie("object"),
      ),
      array: fc.array(tie("value"), { maxLength: 5 }),
      object: fc.dictionary(fc.string({ unit, maxLength: 5 }), tie("value"), { maxKeys: 5 }),
    })).value;
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 5 }), (value) => {
        const told: string[] = [];
        let ended = 0;
        jsonDocumentLiteral(value, { add: (piece) => told.push(piece), end: () => ended++ });
        expect(told.join("")).toBe(JSON.stringify(value));
        expect(ended).toBe(1);
      }),
      { numRuns: 500 },
    );
  });

  it("wraps each value's JSON by jumping between its quotes and commas, not reading it a character at a time", () => {
    const value = document(200);
    const charCodeAt = vi.spyOn(String.prototype, "charCodeAt");
    let text: string;
    try {
      text = jsonDocumentLiteral(value);
      // A look behind each quote for its backslashes; reading every character was a call per character.
      expect(charCodeAt.mock.calls.length).toBeLessThan(text.length / 4);
    } finally {
      charCodeAt.mockRestore();
    }
    expect(JSON.parse(evaluate(text) as string)).toEqual(value);
    expect(longestLine(text)).toBeLessThanOrEqual(WIDTH);
  });

  it("changes only the lines of the operation that changed", () => {
    const before = lines(document(40));
    const after = lines(document(40, 17));
    expect(after).toHaveLength(before.length);
    const changed = before.flatMap((line, i) => (line === after[i] ? [] : [i]));
    expect(changed.length).toBeGreaterThan(0);
    // The operation's own lines: from its `"get": ` line to the line before the next path's.
    const first = before.findIndex((line) => line.includes('"operationId":"list17"') || line.includes('"/items17"'));
    const next = before.findIndex((line) => line.startsWith('    "/items18"'));
    expect(Math.min(...changed)).toBeGreaterThanOrEqual(first);
    expect(Math.max(...changed)).toBeLessThan(next);
  });
});
