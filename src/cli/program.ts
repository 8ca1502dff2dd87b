// The program: codegen's own name, version, help layout and output, with every command added.
import { Command } from "commander";
import { generateCommand } from "./generate.js";
import { initCommand } from "./init.js";
import { migrateCommand } from "./migrate.js";
import { openapiCommand } from "./openapi.js";
import { schemaCommand } from "./schema.js";
import { serveCommand } from "./serve.js";
import { type CommandContext, type CommandDefinition, example } from "./shared.js";
import { validateCommand } from "./validate.js";

/** Every command, in the order `codegen --help` lists them. */
const COMMANDS: readonly CommandDefinition[] = [generateCommand, serveCommand, migrateCommand, openapiCommand, validateCommand, initCommand, schemaCommand];

/** The command line of codegen, writing through `context.host`; commander never exits the process. */
export function createProgram(context: CommandContext): Command {
  const { host } = context;
  const program = new Command()
    .name("codegen")
    .description("Expand a small declaration of REST resources and OAuth2 guards into an OpenAPI 3.1 document that follows the API conventions.")
    .version(context.version, "-V, --version", "print the version")
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
  return program;
}
