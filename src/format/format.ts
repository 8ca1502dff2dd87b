import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
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

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** What decides how a text is formatted besides the text: prettier's version and the options. */
export const FORMATTER = sha256(
  `${(createRequire(import.meta.url)("prettier/package.json") as { version: string }).version}\n${JSON.stringify(PRETTIER_OPTIONS)}`,
);

/** The key of a text in a formatting cache: the same key, the same formatted text. */
export const formatKey = (text: string): string => sha256(`${FORMATTER}\n${text}`);

/** A string literal shorter than this is formatted by prettier as it stands. */
const LONG_LITERAL = 200;

/**
 * Format every TypeScript file with prettier; other files pass unchanged. Prettier loads only when
 * called, and only when some file is neither in `cache` (formatting key -> formatted text, see
 * `formatKey`) nor `final` (paths whose text is in its final layout already). Formatted texts are
 * added to the cache. `literals`: string literals as the files hold them (the served document's
 * JSON and YAML, megabytes each) that prettier is spared from measuring.
 *
 * Why (issue 16, item 7): prettier measures the width of every string, character by character
 * where any is not ASCII: the document's two literals were 4.6 s of a 5 MB document's run. Each
 * is replaced by an ASCII placeholder of its length, which is as far past the line width as the
 * literal and so laid out the same, and put back after, quoted and escaped as prettier quotes
 * strings (its own makeString): the bytes are prettier's.
 */
export async function formatFiles(
  files: readonly GeneratedFile[],
  {
    cache = new Map<string, string>(),
    final = new Set<string>(),
    literals = [],
  }: { cache?: Map<string, string>; final?: ReadonlySet<string>; literals?: readonly string[] } = {},
): Promise<GeneratedFile[]> {
  const keys = files.map((file) => (file.path.endsWith(".ts") && !final.has(file.path) ? formatKey(file.contents) : undefined));
  const prettier = keys.some((key) => key !== undefined && !cache.has(key)) ? await import("prettier") : undefined;
  const aside = prettier
    ? literals
        .filter((text) => text.length >= LONG_LITERAL)
        .map((text, i) => {
          const content = text.slice(1, -1);
          const printed = prettier.util.makeString(content, prettier.util.getPreferredQuote(content, PRETTIER_OPTIONS.singleQuote));
          const tag = `codegen-literal-${i}-`;
          return { text, printed, placeholder: `"${tag.padEnd(printed.length - 2, "x")}"` };
        })
    : [];
  const format = async (path: string, contents: string): Promise<string> => {
    const held = aside.filter(({ text }) => contents.includes(text));
    let source = contents;
    for (const { text, placeholder } of held) source = source.split(text).join(placeholder);
    let formatted = await prettier!.format(source, { ...PRETTIER_OPTIONS, filepath: filepathFor(path, contents) });
    for (const { printed, placeholder } of held) formatted = formatted.split(placeholder).join(printed);
    return formatted;
  };
  // One file at a time: started together, every file's syntax tree was alive at once (1.9 GB at
  // 1000 resources), for no gain in time (prettier does not wait on anything).
  const out: GeneratedFile[] = [];
  for (const [i, file] of files.entries()) {
    const key = keys[i];
    let contents = key === undefined ? file.contents : cache.get(key);
    if (contents === undefined) {
      contents = await format(file.path, file.contents);
      cache.set(key!, contents);
    }
    out.push(contents === file.contents ? file : { path: file.path, contents });
  }
  return out;
}

/**
 * The file name prettier is told, which says whether the text is parsed as JSX.
 * Why (issue 14): told no name, prettier's TypeScript parser guesses with a regular expression
 * (`/^[^"'\`]*<\/|^[^/]{2}.*\/>/m`) whose time is quadratic in the file's length: 18 of 89 s at
 * 1000 resources. The same guess, made line by line, names the file `.tsx` (JSX) or `.mts` (no
 * JSX, a module, as prettier tries first). Not `.ts`: prettier drops the comma of `<T,>() =>`
 * only for a `.ts` name, and the output stays byte-identical to what it was without a name.
 */
export function filepathFor(file: string, text: string): string {
  return `${file.replace(/\.tsx?$/, "")}${probablyJsx(text) ? ".tsx" : ".mts"}`;
}

/**
 * Prettier's JSX guess, in linear time. The first alternative, from any line start, is best
 * tried from the start of the line of `</`; the second ends on the line of `/>` and, its first
 * two characters possibly newlines, starts at most two lines before it.
 */
export function probablyJsx(text: string): boolean {
  const lines = text.split("\n");
  return lines.some(
    (line, i) =>
      (line.includes("</") && /^[^"'`]*<\//.test(line)) || (line.includes("/>") && /^[^/]{2}.*\/>/m.test(lines.slice(Math.max(0, i - 2), i + 1).join("\n"))),
  );
}

/**
 * Where `npm run build` puts the runtime files in their final layout (`dist/formatted-runtime/`,
 * the same folder seen from `src/` and from `dist/`).
 */
const FORMATTED_RUNTIME = fileURLToPath(new URL("../../dist/formatted-runtime/", import.meta.url));
const INDEX = "index.json";

/**
 * Format the runtime files once, when the package is built (issue 14: they are the same in every
 * run, and formatting them was most of a run's time). Each is stored with the formatting key of
 * its source, so a copy that does not match the source beside it is never used.
 */
export async function writeFormattedRuntime(runtime: Readonly<Record<string, string>>, dir = FORMATTED_RUNTIME): Promise<void> {
  const prettier = await import("prettier");
  mkdirSync(dir, { recursive: true });
  const index: Record<string, string> = {};
  for (const [name, source] of Object.entries(runtime)) {
    writeFileSync(path.join(dir, name), await prettier.format(source, { ...PRETTIER_OPTIONS, filepath: filepathFor(name, source) }));
    index[name] = formatKey(source);
  }
  writeFileSync(path.join(dir, INDEX), JSON.stringify(index, null, 2) + "\n");
}

/**
 * The runtime files in their final layout, from the build: only those whose source and
 * formatter are the ones the copy was made from (in a checkout without a build, or after a
 * template was edited, the rest is formatted as any other file).
 */
export function readFormattedRuntime(runtime: Readonly<Record<string, string>>, dir = FORMATTED_RUNTIME): Record<string, string> {
  let index: Record<string, unknown>;
  try {
    index = JSON.parse(readFileSync(path.join(dir, INDEX), "utf8")) as Record<string, unknown>;
  } catch {
    return {};
  }
  const found: Record<string, string> = {};
  for (const [name, source] of Object.entries(runtime)) {
    if (!Object.hasOwn(index, name) || index[name] !== formatKey(source)) continue;
    try {
      found[name] = readFileSync(path.join(dir, name), "utf8");
    } catch {
      // A copy that cannot be read is formatted anew.
    }
  }
  return found;
}
