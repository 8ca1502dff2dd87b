// Every ```ts and ```typescript block of README.md and docs/*.md is compiled, under the options
// a project needs for the generated code at its strictest (those of the tsconfig `codegen init`
// writes): a reader copies them. Read generically, whatever the files say today: a block is a
// module of its own beside `./generated/`, the blog fixture's generated code; `codegen-rest-ts` is
// this package. What a block leaves to its reader is not counted: names it uses without defining
// them (`sessions`, `users`, `app`) and modules of the reader's own (`./articles.js`). A block that
// is a member's signature (an excerpt of generated code) is compiled inside an interface.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./support/fixtures.js";

/** The Markdown files whose TypeScript is compiled: the README and every page of docs/. */
const PAGES = [
  "README.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

type Block = { page: string; line: number; code: string };

/** The ```ts and ```typescript blocks of a Markdown text, with the line each starts on (1-based, its first code line). */
function blocksOf(page: string, text: string): Block[] {
  const blocks: Block[] = [];
  let open: Block | undefined;
  let fence = "";
  text.split("\n").forEach((line, index) => {
    if (open === undefined) {
      const start = /^(\s*)(`{3,}|~{3,})\s*(ts|typescript)\s*$/.exec(line);
      if (start) {
        open = { page, line: index + 2, code: "" };
        fence = start[2]!;
      }
    } else if (line.trim() === fence) {
      blocks.push(open);
      open = undefined;
    } else {
      open.code += `${line}\n`;
    }
  });
  return blocks;
}

/** What a block leaves to its reader: a name it does not define, a namespace. */
// (And what follows from them: a callback's parameters untyped where the callee is unknown, a
// shorthand property of an unknown name.)
const READERS = new Set([2304, 2503, 2552, 2582, 7006, 18004]);

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-doc-snippets-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Each block as a module in `scratch/snippets/` (two folders deep, as the README's own example sits), compiled in one program. */
function compileBlocks(blocks: readonly Block[]): Map<Block, string[]> {
  const dir = path.join(scratch, "project", "snippets");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(scratch, "project", "package.json"), JSON.stringify({ type: "module" }));
  symlinkSync(path.join(ROOT, "fixtures/valid/blog/expected"), path.join(dir, "generated"), "dir");
  symlinkSync(path.join(ROOT, "node_modules"), path.join(scratch, "project", "node_modules"), "dir");
  // A block that quotes this repository's paths (`../../fixtures/...`) finds them.
  symlinkSync(path.join(ROOT, "fixtures"), path.join(scratch, "fixtures"), "dir");
  const files = new Map<string, Block>();
  blocks.forEach((block, i) => {
    // A block that does not parse as a module is a member's signature: an interface holds it.
    const parsed = ts.createSourceFile("block.ts", block.code, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
    const syntaxErrors = (parsed as unknown as { parseDiagnostics: readonly ts.Diagnostic[] }).parseDiagnostics.length > 0;
    const code = syntaxErrors ? `export interface Excerpt {\n${block.code}}\n` : `${block.code}\nexport {};\n`;
    const file = path.join(dir, `block${i}.ts`);
    writeFileSync(file, code);
    files.set(file, block);
  });
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2023.d.ts"],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ["node"],
    typeRoots: [path.join(ROOT, "node_modules/@types")],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    noEmit: true,
    // This package as its users import it.
    paths: { "codegen-rest-ts": [path.join(ROOT, "src/index.ts")] },
  };
  const program = ts.createProgram([...files.keys()], options);
  const found = new Map<Block, string[]>(blocks.map((block) => [block, []]));
  for (const [file, block] of files) {
    const source = program.getSourceFile(file)!;
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    for (const diagnostic of diagnostics) {
      if (READERS.has(diagnostic.code)) continue;
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, " ");
      // A module of the reader's own (`./articles.js`), not the generated code's.
      if (diagnostic.code === 2307 && /'\.\.?\/(?!generated\/)/.test(message)) continue;
      const line = diagnostic.start === undefined ? 0 : source.getLineAndCharacterOfPosition(diagnostic.start).line;
      found.get(block)!.push(`${block.page}:${block.line + line}: TS${diagnostic.code} ${message}`);
    }
  }
  return found;
}

const blocks = PAGES.flatMap((page) => blocksOf(page, readFileSync(path.join(ROOT, page), "utf8")));

describe("the TypeScript blocks of the README and docs/", () => {
  it("are found", () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  it("compile under the strict options the generated code is made for", () => {
    const found = compileBlocks(blocks);
    expect([...found.values()].flat()).toEqual([]);
  }, 120_000);
});
