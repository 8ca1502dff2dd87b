// Checks of generated TypeScript shared by the tests: no word of a payload is ever code, and trees
// of generated files compile under the strict options of tsconfig.generated.json.

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import type { GeneratedFile } from "../../src/emit/render.js";
import { generatedOptions, typeCheck } from "./type-check.js";

/** The words hostile payloads call (console.log, process.exit, evil(), ...) and that no generated file uses. */
export const PAYLOAD_WORDS = ["console", "process", "pwned", "evil", "injected", "oops", "throw"];

/**
 * The payload words that stand as code in a TypeScript source: scanned with TypeScript's own
 * scanner, a word is code when it is an identifier or a keyword token, and not when it is inside
 * a string, a template, a comment or a property name that is quoted.
 */
export function payloadInCode(source: string, words: readonly string[] = PAYLOAD_WORDS): string[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, source);
  const found: string[] = [];
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    const isWord = token === ts.SyntaxKind.Identifier || (token >= ts.SyntaxKind.FirstKeyword && token <= ts.SyntaxKind.LastKeyword);
    if (isWord && words.includes(scanner.getTokenText())) found.push(scanner.getTokenText());
  }
  return found;
}

/**
 * Writes each tree under `dir/<name>/api<i>/` and type-checks them all in one program (their
 * runtime once: test/support/type-check.ts); throws with tsc's errors when any does not compile.
 */
export function compileTrees(trees: readonly (readonly GeneratedFile[])[], dir: string, name = "sample"): void {
  const root = path.join(dir, name);
  const roots: string[] = [];
  trees.forEach((files, i) => {
    for (const file of files) {
      const target = path.join(root, `api${i}`, file.path);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, file.contents);
      if (target.endsWith(".ts")) roots.push(target);
    }
  });
  // The generated code is ES modules, as in a project with "type": "module".
  writeFileSync(path.join(root, "package.json"), JSON.stringify({ type: "module" }));
  // skipLibCheck: the generated code is what is checked here (test/golden-server checks it with the libraries).
  const errors = typeCheck(roots, generatedOptions({ skipLibCheck: true }));
  if (errors.length > 0) throw new Error(`tsc failed:\n${errors.join("\n")}`);
}
