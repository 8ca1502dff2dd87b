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

/** Format every TypeScript file with prettier; other files pass unchanged. Prettier loads only when called. */
export async function formatFiles(files: readonly GeneratedFile[]): Promise<GeneratedFile[]> {
  const prettier = await import("prettier");
  return Promise.all(
    files.map(async (file) => (file.path.endsWith(".ts") ? { path: file.path, contents: await prettier.format(file.contents, PRETTIER_OPTIONS) } : file)),
  );
}
