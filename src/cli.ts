// The command line's entry: `main(argv, host)` builds the program (one file per command under
// cli/), runs the command and answers its exit code (docs/cli.md).
import { createRequire } from "node:module";
import { CommanderError } from "commander";
import { createProgram } from "./cli/program.js";
import { type CommandContext, EXIT, type Stages } from "./cli/shared.js";
import { optionElsewhere, unknownCommand } from "./cli/unknown-command.js";
import type { Host } from "./host.js";

export { EXIT } from "./cli/shared.js";

const version = (createRequire(import.meta.url)("../package.json") as { version: string }).version;

/**
 * The command line: parse `argv` (without node and the script), run the command through
 * `host`, and return the exit code. Never exits the process itself.
 */
export async function main(argv: readonly string[], host: Host): Promise<number> {
  let exitCode: number = EXIT.ok;
  // Why: the stages (yaml, handlebars, the validators) are loaded when a command runs, not at
  // start-up, so `--version` and `--help` cost little more than Node itself.
  let stages: Stages | undefined;
  const context: CommandContext = {
    host,
    version,
    stages: async () => (stages ??= await import("./pipeline.js")),
    exit: (code) => {
      exitCode = code;
    },
    report: (diagnostics, sources) => {
      if (diagnostics.some((d) => d.severity === "error")) return context.fail(diagnostics, sources);
      stages!.reportDiagnostics(host, diagnostics, sources);
      return true;
    },
    fail: (diagnostics, sources) => {
      stages!.reportDiagnostics(host, diagnostics, sources);
      exitCode = EXIT.invalid;
      return false;
    },
  };
  const program = createProgram(context);

  // docs/cli.md: `codegen` alone prints the help.
  if (argv.length === 0) {
    host.stdout(program.helpInformation());
    return EXIT.ok;
  }
  const unknown = await unknownCommand(program, argv[0]!, host);
  if (unknown !== undefined) {
    host.stderr(`codegen: error: unknown command '${argv[0]}'${unknown === "" ? "" : ` (did you mean ${unknown}?)`}\nRun codegen --help for the commands.\n`);
    return EXIT.usage;
  }
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      host.stderr(await optionElsewhere(program, error));
      // Commander throws for --help and --version too, with exit code 0.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    throw error;
  }
  return exitCode;
}
