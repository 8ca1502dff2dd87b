import type { GeneratedFile } from "../render/render.js";

/**
 * Prettier's options, set here rather than read from any configuration file, so the output is
 * the same on every machine (prettier itself is pinned to an exact version).
 */
export const PRETTIER_OPTIONS = {
  parser: "typescript",
  printWidth: 100,
  tabWidth: 2,
  useTabs: false,
  semi: true,
  singleQuote: false,
  quoteProps: "as-needed",
  trailingComma: "all",
  bracketSpacing: true,
  arrowParens: "always",
  endOfLine: "lf",
} as const;

/** A string literal shorter than this is formatted by prettier as it stands. */
const LONG_LITERAL = 200;

/**
 * Format every TypeScript file with prettier; other files pass unchanged. Prettier loads only when
 * called. `literals`: string literals as the files hold them (the served document's JSON and YAML,
 * megabytes each) that prettier is spared from measuring.
 *
 * Why (issue 16, item 7): prettier measures the width of every string, character by character
 * where any is not ASCII: the document's two literals were 4.6 s of a 5 MB document's run. Each
 * is replaced by an ASCII placeholder of its length, which is as far past the line width as the
 * literal and so laid out the same, and put back after, quoted and escaped as prettier quotes
 * strings (its own makeString): the bytes are prettier's.
 */
export async function formatFiles(files: readonly GeneratedFile[], literals: readonly string[] = []): Promise<GeneratedFile[]> {
  const prettier = await import("prettier");
  const aside = literals
    .filter((text) => text.length >= LONG_LITERAL)
    .map((text, i) => {
      const content = text.slice(1, -1);
      const printed = prettier.util.makeString(content, prettier.util.getPreferredQuote(content, PRETTIER_OPTIONS.singleQuote));
      const tag = `codegen-literal-${i}-`;
      return { text, printed, placeholder: `"${tag.padEnd(printed.length - 2, "x")}"` };
    });
  const format = async (contents: string): Promise<string> => {
    const held = aside.filter(({ text }) => contents.includes(text));
    let source = contents;
    for (const { text, placeholder } of held) source = source.split(text).join(placeholder);
    let formatted = await prettier.format(source, PRETTIER_OPTIONS);
    for (const { printed, placeholder } of held) formatted = formatted.split(placeholder).join(printed);
    return formatted;
  };
  return Promise.all(files.map(async (file) => (file.path.endsWith(".ts") ? { path: file.path, contents: await format(file.contents) } : file)));
}
