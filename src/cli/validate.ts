// `codegen validate`: check an input as generate would, print nothing but its problems
// (docs/cli.md#codegen-validate).
import { type CommandDefinition, type InputOptions, example, withInputOptions } from "./shared.js";

export const validateCommand: CommandDefinition = (program, { host, stages, report, fail }) => {
  withInputOptions(
    program
      .command("validate")
      .description("check a declaration and the document it expands to, or an OpenAPI document; print nothing but errors")
      .argument("<input>", "the declaration, or an OpenAPI document: .yaml, .yml or .json"),
  )
    .addHelpText("after", example("  $ codegen validate api.yaml && echo valid"))
    .action(async (file: string, options: InputOptions) => {
      const { readInput, documentFromText, modelOfDocument } = await stages();
      const input = await readInput(host, file);
      if (input.value === undefined) return void fail(input.diagnostics, {});
      const result = await documentFromText(file, input.value, host.cwd, { ...options, selfCheck: true });
      if (!report(result.diagnostics, { [file]: input.value }) || !result.value) return;
      // What generate would refuse to render is invalid here too.
      const modelled = modelOfDocument(file, input.value, result.value, file, {}, result.fromDeclaration !== true && options.strict !== true, options);
      if (!modelled.value) fail(modelled.diagnostics, { [file]: input.value });
      else report(modelled.diagnostics, { [file]: input.value });
    });
};
