// What every command of the command line shares: the exit codes, the options several commands
// offer, the help's example block, and the context a command runs in (docs/cli.md).
import { type Command, Option } from "commander";
import type { Host } from "../host.js";

/** Exit codes (docs/cli.md): done, invalid input or a difference found, wrong usage. */
export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

/** The stages: loaded when a command runs, not at start-up (see `CommandContext.stages`). */
export type Stages = typeof import("../pipeline.js");

/** Diagnostics as the stages report them. */
export type Diagnostics = Parameters<Stages["reportDiagnostics"]>[1];

/** What a command runs with: the host, the package version, the stages, and the run's exit code. */
export type CommandContext = {
  readonly host: Host;
  readonly version: string;
  /** The stages (YAML, validation, expansion, the renderer), loaded on first use. */
  stages(): Promise<Stages>;
  /** Set the exit code `main` returns. */
  exit(code: number): void;
  /**
   * Report diagnostics (errors and warnings); set the exit code and answer false when one is an
   * error. Only called after the command has loaded the stages.
   */
  report(diagnostics: Diagnostics, sources: Record<string, string>): boolean;
  /** Report diagnostics and set the exit code; only called after the command has loaded the stages. */
  fail(diagnostics: Diagnostics, sources: Record<string, string>): false;
};

/** A command of the command line: adds itself, its options and its action to the program. */
export type CommandDefinition = (program: Command, context: CommandContext) => void;

/** Commander's collector for a repeatable option. */
export const collect = (value: string, previous: string[]) => [...previous, value];

/** The opt-in every command that reads an input offers (docs/http-behaviour.md, patterns). */
export const UNSAFE_PATTERNS = [
  "--allow-unsafe-patterns",
  "let patterns the linear matcher cannot take (backreferences, groups repeated past 1,000 instructions) run on V8's backtracking engine, whose time a request can make explode",
] as const;

/** `--strict`, on every command that reads an OpenAPI document (src/compile/openapi/lenient.ts). */
export const STRICT = ["--strict", "treat warnings (schema mistakes of an OpenAPI document read leniently, constructs rendered otherwise) as errors"] as const;

/** `--ref-root`, on every command that reads an OpenAPI document (src/compile/openapi/ref-files.ts). */
export const refRootOption = () => new Option("--ref-root <dir>", "the folder an OpenAPI document's $refs may read files in (default: the document's folder)");

/** The options of every command that reads an input: the unsafe patterns' opt-in, --ref-root and --strict. */
export type InputOptions = { allowUnsafePatterns?: boolean; refRoot?: string; strict?: boolean };

/** The stages' reading options from a command's `InputOptions` as commander parsed them (a flag not given is absent, not false). */
export const inputOptionsOf = (options: InputOptions) => ({
  allowUnsafePatterns: options.allowUnsafePatterns === true,
  ...(options.refRoot !== undefined ? { refRoot: options.refRoot } : {}),
  strict: options.strict === true,
});

/** Adds the options of `InputOptions` to `command`, last, in the order its help lists them. */
export const withInputOptions = (command: Command): Command =>
  command
    .option(...UNSAFE_PATTERNS)
    .addOption(refRootOption())
    .option(...STRICT);

/** The time since `started` (a `performance.now()`), as `123 ms`. */
export const elapsed = (started: number) => `${Math.round(performance.now() - started)} ms`;

/** Help text after a command's own: an example, as every command shows one. */
export const example = (lines: string) => `\nExample:\n${lines}\n`;
