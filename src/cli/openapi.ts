// `codegen openapi`: expand an input and print its OpenAPI document, or write it to a file
// (docs/cli.md#codegen-openapi).
import path from "node:path";
import { Option } from "commander";
import type { OpenApiVersion } from "../pipeline.js";
import { type CommandDefinition, type InputOptions, example, withInputOptions } from "./shared.js";

type OpenApiOptions = InputOptions & { output?: string; format?: "yaml" | "json"; openapiVersion: OpenApiVersion };

export const openapiCommand: CommandDefinition = (program, { host, stages, report, fail }) => {
  withInputOptions(
    program
      .command("openapi")
      .description("print the OpenAPI 3.1 document of a declaration or of an OpenAPI document (to stdout, or to FILE with -o)")
      .argument("<input>", "the declaration, or an OpenAPI document (printed bundled, as 3.1): .yaml, .yml or .json")
      .option("-o, --output <file>", "write the document to FILE instead of stdout (written whole, or not at all)")
      .addOption(new Option("--format <format>", "yaml or json (default: from FILE's extension, else yaml)").choices(["yaml", "json"]))
      .addOption(new Option("--openapi-version <version>", "3.1, or 3.0 for docs portals that cannot read 3.1 yet").choices(["3.1", "3.0"]).default("3.1")),
  )
    .addHelpText(
      "after",
      example(
        "  $ codegen openapi api.yaml\n" +
          "  $ codegen openapi api.yaml -o openapi.json                          # JSON, from the extension\n" +
          "  $ codegen openapi api.yaml --openapi-version 3.0 -o openapi-3.0.yaml  # for docs portals without 3.1",
      ),
    )
    .action(async (file: string, options: OpenApiOptions) => {
      const { readInput, documentFromText, serializeDocument } = await stages();
      const input = await readInput(host, file);
      if (input.value === undefined) return void fail(input.diagnostics, {});
      const result = await documentFromText(file, input.value, host.cwd, options);
      if (!report(result.diagnostics, { [file]: input.value }) || !result.value) return;
      const format = options.format ?? (options.output && path.extname(options.output).toLowerCase() === ".json" ? "json" : "yaml");
      const text = serializeDocument(result.value, format, options.openapiVersion);
      if (!options.output) return void host.stdout(text);
      const { writeDiagnostic } = await import("../write/target.js");
      const output = options.output;
      await host.writeFile(path.resolve(host.cwd, output), text).catch((error: unknown) => fail([writeDiagnostic(output, error)], {}));
    });
};
