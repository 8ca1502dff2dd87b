// A mistyped command (`codegen genrate api.yaml`) is told apart from the default command's input
// (`codegen api.yaml`), and answered with the nearest command (docs/cli.md#commands).
import path from "node:path";
import type { Command, CommanderError } from "commander";
import type { Host } from "../host.js";

/** What an input the default command reads is named like: a declaration or an OpenAPI document. */
const INPUT_NAME = /\.(ya?ml|json)$/i;

/**
 * Whether the first word is a mistyped command rather than the default command's input: not an
 * option, not a command, no input's extension, and no file of that name. Answers the nearest
 * command (by edit distance; "" when none is near), or undefined when it is no unknown command.
 */
export async function unknownCommand(program: Command, word: string, host: Host): Promise<string | undefined> {
  const names = program.commands.flatMap((command) => [command.name(), ...command.aliases()]);
  if (word.startsWith("-") || names.includes(word) || word === "help" || INPUT_NAME.test(word) || /[\\/]/.test(word)) return undefined;
  const exists = await host.readFile(path.resolve(host.cwd, word)).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code !== "ENOENT",
  );
  if (exists) return undefined;
  // The nearest name within a typo's distance, as for a misspelt key of the declaration.
  const { suggest } = await import("../compile/declaration/shape.js");
  return suggest(word, names) ?? "";
}

/**
 * For an unknown option with no near option on its own command (where commander suggests none):
 * the near options of the other commands, e.g. `validate --ouput` -> `--output` of generate, migrate and
 * openapi. "" when there is none.
 */
export async function optionElsewhere(program: Command, error: CommanderError): Promise<string> {
  const flag = /unknown option '(--[^'=]+)/.exec(error.message)?.[1];
  if (error.code !== "commander.unknownOption" || flag === undefined || error.message.includes("Did you mean")) return "";
  const { distance } = await import("fastest-levenshtein");
  const owners = new Map<string, string[]>();
  for (const command of program.commands) {
    for (const { long } of command.options)
      if (long !== undefined && distance(flag, long) <= 2) owners.set(long, [...(owners.get(long) ?? []), `codegen ${command.name()}`]);
  }
  return [...owners].map(([long, commands]) => `(${long} is an option of ${commands.join(", ")})\n`).join("");
}
