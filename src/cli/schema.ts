// `codegen schema`: the JSON Schema of the declaration format, for editors (docs/cli.md#codegen-schema).
import { type CommandDefinition, example } from "./shared.js";

export const schemaCommand: CommandDefinition = (program, { host }) => {
  program
    .command("schema")
    .description("print the JSON Schema of the declaration format, for editors")
    .addHelpText(
      "after",
      example(
        "  $ codegen schema > codegen.schema.json\n" + "  then put this first line in api.yaml:\n" + "  # yaml-language-server: $schema=./codegen.schema.json",
      ),
    )
    .action(async () => {
      const { declarationJsonSchema } = await import("../compile/declaration/schema.js");
      host.stdout(JSON.stringify(declarationJsonSchema(), null, 2) + "\n");
    });
};
