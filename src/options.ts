/**
 * The options of a run, by stage: reading an input, generating its files, writing them into a
 * folder. Apart from the pipeline (src/pipeline.ts) so that what reads them (src/write/fresh.ts's
 * key of a run) needs no import of the pipeline itself, and the stages import none of it either.
 */

/** The user's opt-in (CLI --allow-unsafe-patterns) to patterns only V8's backtracking engine can run (src/compile/verify/patterns.ts). */
export interface PatternOptions {
  readonly allowUnsafePatterns?: boolean;
}

/** The OpenAPI versions codegen writes. */
export type OpenApiVersion = "3.1" | "3.0";

/** Options of reading an input. */
export interface InputOptions extends PatternOptions {
  /**
   * The folder `$ref`s of an OpenAPI document may reach files in (relative to the working folder,
   * or absolute); default: the document's own folder.
   */
  readonly refRoot?: string;
  /** Warnings (schema mistakes read leniently) are errors: nothing is generated when there is one. */
  readonly strict?: boolean;
  /**
   * Verify the OpenAPI document codegen expands a declaration into (swagger-parser and ajv):
   * a self-check of codegen itself, off by default; `codegen validate` and the tests turn it on.
   * Documents written by others are always validated.
   */
  readonly selfCheck?: boolean;
}

/** Options of a generation. */
export interface GenerateOptions extends InputOptions {
  /** The output folder, relative to the working folder or absolute. */
  readonly outDir: string;
  /**
   * Accepted and without effect (`--no-format`): codegen prints its code in its own layout
   * (src/emit/print.ts) and runs no formatter unless `prettier` asks for the project's own.
   */
  readonly format?: boolean;
  /** Format the TypeScript last with the output folder's project's own prettier and configuration (`--prettier`). */
  readonly prettier?: boolean;
  /** The version of the OpenAPI document written beside the code (default 3.1). */
  readonly openapiVersion?: OpenApiVersion;
  /** Write the next migration of the tables (`codegen migrate new`); `name`: its file name's words. */
  readonly migration?: { readonly name?: string | undefined } | undefined;
}

/** Options of a generation into a folder. */
export interface FolderOptions extends GenerateOptions {
  /** Write nothing; report what would change. */
  readonly check: boolean;
  /** Overwrite generated files edited by hand. */
  readonly force: boolean;
}
