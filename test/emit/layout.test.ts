// The code the templates write is laid out as the printer lays out its own (docs/cli.md, "Code in
// codegen's own layout"): no line of a generated file but the served document's text is wider
// than 100 columns, except a string that is one token (a migration's SQL statement, a long
// description); a longer line is broken at its first list, one member per line. Checked over
// every golden output (fixtures/valid/*/expected), and on lines made for the purpose.

import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { breakLongLines } from "../../src/emit/layout.js";
import { WIDTH } from "../../src/emit/print.js";
import { ROOT } from "../support/fixtures.js";

/** Every generated TypeScript file of the goldens but the runtime's (copied as written) and the served document's. */
function goldenFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const at = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "runtime") walk(at);
      } else if (entry.name.endsWith(".ts") && entry.name !== "document.gen.ts") files.push(at);
    }
  };
  const valid = path.join(ROOT, "fixtures/valid");
  for (const name of readdirSync(valid)) walk(path.join(valid, name, "expected"));
  return files;
}

/** A line that is one string literal (and the comma after it): it cannot be broken. */
const ONE_STRING = /^\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'),?$/;

describe("generated code's lines", () => {
  it("are at most 100 columns in every golden output, but for a string that is one token", () => {
    const files = goldenFiles();
    expect(files.length).toBeGreaterThan(100);
    const wide = files.flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line.length > WIDTH && !ONE_STRING.test(line))
        .map((line) => `${path.relative(ROOT, file)}: ${line}`),
    );
    expect(wide).toEqual([]);
  });
});

describe("the templates of the largest code files", () => {
  // api.gen.ts is the printer's declarations (already within the width) between the template's own
  // lines: with those within the width too, breakLongLines finds nothing to break and returns the
  // rendered text as it is, instead of a copy of the API's largest code file.
  it("write lines within the width themselves, so their text is not copied to be broken", () => {
    const source = readFileSync(path.join(ROOT, "templates/api.gen.ts.hbs"), "utf8").replace(/\{\{!--[\s\S]*?--\}\}/g, "");
    expect(source.split("\n").filter((line) => line.length > WIDTH)).toEqual([]);
  });
});

describe("breakLongLines", () => {
  const width = (text: string) => Math.max(...text.split("\n").map((line) => line.length));
  const long = "x".repeat(30);

  it("leaves a line that fits as it is, and breaks a call's arguments one per line with a trailing comma", () => {
    expect(breakLongLines("  a(b, c);")).toBe("  a(b, c);");
    const call = `    ${long}.replace(input.id, input.body, input.current, input.ifMatch, madeSignal(input)) as Stored,`;
    expect(breakLongLines(call)).toBe(
      [
        `    ${long}.replace(`,
        "      input.id,",
        "      input.body,",
        "      input.current,",
        "      input.ifMatch,",
        "      madeSignal(input),",
        "    ) as Stored,",
      ].join("\n"),
    );
  });

  it("breaks an object or array that is a call's one argument as the call's own list, and again where still too long", () => {
    const text = `  return store({ ${long}: a${long}, b${long}: b${long} }) as unknown as Store;`;
    expect(breakLongLines(text)).toBe([`  return store({`, `    ${long}: a${long},`, `    b${long}: b${long},`, "  }) as unknown as Store;"].join("\n"));
    const nested = `f(${long}, g(${long}, ${long}, ${long}, ${long}))`;
    expect(width(breakLongLines(nested))).toBeLessThanOrEqual(WIDTH);
  });

  it("breaks an import's names and a signature's parameters, without a comma after a rest parameter", () => {
    expect(breakLongLines(`import { ${long}, b${long}, c${long} } from "./x.js";`)).toBe(
      [`import {`, `  ${long},`, `  b${long},`, `  c${long},`, `} from "./x.js";`].join("\n"),
    );
    expect(breakLongLines(`function f(a${long}: string, b${long}: number, ...c${long}: string[]): void {`)).toBe(
      [`function f(`, `  a${long}: string,`, `  b${long}: number,`, `  ...c${long}: string[]`, `): void {`].join("\n"),
    );
  });

  it("never breaks inside a string, a condition or a parenthesised expression, nor a line it cannot read", () => {
    for (const line of [
      `  'CREATE TABLE "t" ("id" bigint, "${long}" text, "${long}" text, "a${long}" text)',`,
      `if (${long} !== undefined && ${long} !== null && ${long}.length > 0) run();`,
      `  x = (${long} as unknown as Record<string, ${long}>)[${long}];`,
      `  const t = \`\${${long}}, (${long}, ${long}, ${long})\`;`,
      `  f(${long}, ${long}, ${long}); // a comment after code (${long})`,
    ])
      expect(breakLongLines(line)).toBe(line);
  });

  it("wraps a comment's words within the width, a one-line doc comment as a block", () => {
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
    const doc = breakLongLines(`  /** ${words} */`).split("\n");
    expect([doc[0], doc.at(-1)]).toEqual(["  /**", "   */"]);
    expect(doc.slice(1, -1).every((line) => line.startsWith("   * ") && line.length <= WIDTH)).toBe(true);
    expect(
      doc
        .slice(1, -1)
        .map((line) => line.slice(5))
        .join(" "),
    ).toBe(words);
    const lineComment = breakLongLines(`// ${words}`).split("\n");
    expect(lineComment.every((line) => line.startsWith("// ") && line.length <= WIDTH)).toBe(true);
  });

  it("fills a comment's lines alike whether its words stand one space apart or more, each line as full as the width allows", () => {
    // Words of every length from 1 to 11 letters, and one longer than a line (which stands alone).
    const words = [...Array.from({ length: 200 }, (_, i) => "abcdefghijk".slice(0, 1 + (i % 11))), "x".repeat(WIDTH), "end"];
    for (const lead of ["    /** ", "    // ", "     * "]) {
      const close = lead.includes("/**") ? " */" : "";
      const single = breakLongLines(`${lead}${words.join(" ")}${close}`);
      expect(breakLongLines(`${lead}${words.join("   ")}${close}`)).toBe(single);
      const lines = single.split("\n").filter((line) => line.trim() !== "/**" && line.trim() !== "*/");
      expect(lines.filter((line) => line.length > WIDTH)).toEqual([lines.find((line) => line.includes("x".repeat(WIDTH)))]);
      // Filled: the next line's first word would not have fit on each line.
      for (let i = 0; i + 1 < lines.length; i++) {
        const next = lines[i + 1]!.trimStart()
          .replace(/^(\/\/|\*) /, "")
          .split(" ")[0]!;
        expect(lines[i]!.length + 1 + next.length).toBeGreaterThan(WIDTH);
      }
    }
  });

  it("leaves a file's header one line, however long the input's path, and breaks the lines after it", () => {
    const header = `// Generated by codegen from ../../${"deeper/".repeat(20)}api.yaml. Do not edit.`;
    const call = `export const all = collect(${Array.from({ length: 12 }, (_, i) => `resourceNumber${i}`).join(", ")});`;
    const lines = breakLongLines(`${header}\n${call}\n`).split("\n");
    expect(lines[0]).toBe(header);
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.slice(1).every((line) => line.length <= WIDTH)).toBe(true);
  });
});
