/**
 * The programmatic API, for build tools: `import { generate } from "codegen-rest-ts"`.
 * Nothing here writes to the disk; `generate` reads the input only when no text is given.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { OpenAPIV3_1 } from "openapi-types";
import type { Diagnostic } from "./diagnostics/index.js";
import type { GeneratedFile } from "./emit/render.js";
import { generateFiles, openapiFromText } from "./pipeline.js";

export type { Diagnostic, SourceLocation } from "./diagnostics/index.js";
export { formatDiagnostics } from "./diagnostics/index.js";
export type { GeneratedFile } from "./emit/render.js";

/** What to generate from. */
export interface GenerateOptions {
  /** The declaration's path; relative paths are taken from `cwd`. Diagnostics name it as given. */
  readonly input: string;
  /** The declaration's text; read from `input` when absent. */
  readonly text?: string;
  /** The folder the files are meant for (it is named in their headers); default `generated`. */
  readonly outDir?: string;
  /** Accepted and without effect: the code is printed in codegen's own layout (src/options.ts, `format`). */
  readonly format?: boolean;
  /** Default: the process's working folder. */
  readonly cwd?: string;
  /**
   * Let patterns the generated validator cannot match in linear time (backreferences,
   * lookarounds) run on V8's backtracking engine instead of failing with schema/unsafe-pattern;
   * default false.
   */
  readonly allowUnsafePatterns?: boolean;
  /** The folder an OpenAPI input's `$ref`s may read files in (relative to `cwd`); default: the input's folder. */
  readonly refRoot?: string;
}

/** The result: the files (paths relative to the output folder, `/`-separated) or the diagnostics. */
export interface GenerateResult {
  readonly files: readonly GeneratedFile[];
  readonly diagnostics: readonly Diagnostic[];
}

/** Generate the OpenAPI document and the server code of a declaration, in memory. */
export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const cwd = options.cwd ?? process.cwd();
  const text = options.text ?? (await readFile(path.resolve(cwd, options.input), "utf8"));
  const result = await generateFiles({ cwd }, options.input, text, {
    outDir: options.outDir ?? "generated",
    allowUnsafePatterns: options.allowUnsafePatterns === true,
    ...(options.refRoot === undefined ? {} : { refRoot: options.refRoot }),
  });
  return { files: result.value ?? [], diagnostics: result.diagnostics };
}

/** Expand a declaration into its verified OpenAPI 3.1 document, in memory. */
export async function expand(
  options: Pick<GenerateOptions, "input" | "text" | "cwd" | "allowUnsafePatterns">,
): Promise<{ document?: OpenAPIV3_1.Document; diagnostics: readonly Diagnostic[] }> {
  const text = options.text ?? (await readFile(path.resolve(options.cwd ?? process.cwd(), options.input), "utf8"));
  const result = await openapiFromText(options.input, text, undefined, { allowUnsafePatterns: options.allowUnsafePatterns === true, selfCheck: true });
  return { ...(result.value ? { document: result.value } : {}), diagnostics: result.diagnostics };
}
