// The command line's entry: `main(argv, host)` builds the program (codegen's own name, version,
// help layout and output, one file per command under cli/), runs the command and answers its exit
// code (docs/cli.md).
import { createRequire } from "node:module";
import { Command, CommanderError } from "commander";
import { generateCommand } from "./cli/generate.js";
import { initCommand } from "./cli/init.js";
import { migrateCommand } from "./cli/migrate.js";
import { openapiCommand } from "./cli/openapi.js";
import { schemaCommand } from "./cli/schema.js";
import { serveCommand } from "./cli/serve.js";
import { type CommandContext, type CommandDefinition, EXIT, type Stages, example } from "./cli/shared.js";
import { optionElsewhere, unknownCommand } from "./cli/unknown-command.js";
import { validateCommand } from "./cli/validate.js";
import type { Host } from "./host.js";

const version = (createRequire(import.meta.url)("../package.json") as { version: string }).version;

/** Every command, in the order `codegen --help` lists them. */
const COMMANDS: readonly CommandDefinition[] = [generateCommand, serveCommand, migrateCommand, openapiCommand, validateCommand, initCommand, schemaCommand];

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
  // The program, writing through `host`; commander never exits the process.
  const program = new Command()
    .name("codegen")
    .description("Expand a small declaration of REST resources and OAuth2 guards into an OpenAPI 3.1 document that follows the API conventions.")
    .version(version, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help for a command")
    .showSuggestionAfterError(true)
    // Why: commander gives a nested command (`migrate new`) its own options only when every
    // command above it reads its options before the subcommand's name.
    .enablePositionalOptions()
    // Why: commander leaves a description unwrapped when less than 40 columns remain beside the
    // options, and the terminal then breaks it mid-word; at 20 it wraps at words down to 70 columns.
    .configureHelp({ minWidthToWrap: 20 })
    .exitOverride()
    .configureOutput({
      writeOut: (s) => host.stdout(s),
      writeErr: (s) => host.stderr(s),
      // Why: commander wraps descriptions at word boundaries to this width; a pipe has no width, so 80.
      getOutHelpWidth: () => host.columns ?? 80,
      getErrHelpWidth: () => host.columns ?? 80,
    })
    .addHelpText(
      "after",
      example(
        "  $ codegen validate api.yaml                 check a declaration, print every problem\n" +
          "  $ codegen openapi api.yaml -o openapi.yaml  write the OpenAPI 3.1 document\n" +
          "  $ codegen schema > codegen.schema.json      JSON Schema for editors",
      ),
    );
  for (const command of COMMANDS) command(program, context);

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
