// `codegen generate` (the default command): the OpenAPI document and the server code of an input,
// written into a folder, once or on every change (docs/cli.md#codegen-generate).
import { Option } from "commander";
import type { OpenApiVersion } from "../pipeline.js";
import { type CommandDefinition, EXIT, type InputOptions, STRICT, UNSAFE_PATTERNS, elapsed, example, inputOptionsOf, refRootOption } from "./shared.js";

type GenerateOptions = InputOptions & {
  output: string;
  format: boolean;
  prettier?: boolean;
  check?: boolean;
  force?: boolean;
  quiet?: boolean;
  watch?: boolean;
  openapiVersion: OpenApiVersion;
};

export const generateCommand: CommandDefinition = (program, { host, stages, exit, report, fail }) => {
  program
    .command("generate", { isDefault: true })
    .description("write the OpenAPI document and the TypeScript server code of a declaration or of an OpenAPI 3.0/3.1 document (the default command)")
    .argument("<input>", "the declaration, or an OpenAPI document (recognised by its `openapi` key): .yaml, .yml or .json")
    .option("-o, --output <dir>", "the output folder", "generated")
    .option("--no-format", "skip prettier (faster; the code is the same, less tidy)")
    .option("--prettier", "format the code with your project's own prettier and its configuration (found from the output folder)")
    .option("--check", "write nothing; exit 1 and show the differences if the folder is not current (for CI)")
    .option("--force", "overwrite generated files that were edited by hand")
    .option("-q, --quiet", "print nothing but errors")
    .option(...UNSAFE_PATTERNS)
    .addHelpText(
      "after",
      example(
        "  $ codegen api.yaml -o src/generated\n" +
          "  writes src/generated/openapi.yaml, types.gen.ts, handlers.gen.ts, server.gen.ts, store.gen.ts,\n" +
          "  api.gen.ts, index.gen.ts and runtime/*.gen.ts; your own code imports createServer from index.gen.js\n" +
          "  $ codegen api.yaml -o src/generated --check    # in CI: fails when the committed code is stale\n" +
          "  $ codegen petstore.yaml -o src/generated        # an OpenAPI document: handlers per tag in operations/",
      ),
    )
    .option("-w, --watch", "regenerate whenever the input changes, until Ctrl-C")
    .addOption(new Option("--openapi-version <version>", "version of the openapi.yaml written beside the code").choices(["3.1", "3.0"]).default("3.1"))
    .addOption(refRootOption())
    .option(...STRICT)
    .action(async (file: string, options: GenerateOptions) => {
      const folderOptions = {
        outDir: options.output,
        format: options.format,
        prettier: options.prettier === true,
        check: options.check === true,
        force: options.force === true,
        openapiVersion: options.openapiVersion,
        ...inputOptionsOf(options),
      };
      const once = async (): Promise<boolean> => {
        const started = performance.now();
        const done = ({ written, unchanged, removed }: { written: number; unchanged: number; removed: number }) => {
          const ms = Math.round(performance.now() - started);
          if (!options.quiet) {
            host.stdout(options.check ? `${options.output} is up to date\n` : `wrote ${written}, unchanged ${unchanged}, removed ${removed} in ${ms} ms\n`);
          }
          return true;
        };
        // Why first, and before the stages are loaded: a folder already current for
        // this text is most runs (a script that generates before every start, CI); telling so
        // takes a hash of the input and the folder's files, not YAML, validation and the renderer.
        const text = await host.readFile(file).catch(() => undefined);
        if (text !== undefined && !options.check) {
          const { currentFiles } = await import("../write/fresh.js");
          const unchanged = currentFiles(host, file, text, folderOptions);
          if (unchanged !== undefined) return done({ written: 0, unchanged, removed: 0 });
        }
        const { readInput, generateIntoFolder } = await stages();
        // A file that could not be read is read again, for the diagnostic that says why.
        const input = text !== undefined ? { value: text, diagnostics: [] } : await readInput(host, file);
        if (input.value === undefined) return fail(input.diagnostics, {});
        const result = await generateIntoFolder(host, file, input.value, folderOptions);
        if (result.drift !== undefined) host.stdout(result.drift);
        if (!report(result.diagnostics, { [file]: input.value })) return false;
        for (const warning of result.warnings ?? []) host.stderr(`${file}: warning: ${warning}\n`);
        return done(result.summary!);
      };
      await once();
      if (!options.watch) return;
      // Each run's problems are printed; watching goes on, and the exit code is that of Ctrl-C.
      const stop = host.watch(file, async () => {
        exit(EXIT.ok);
        const started = performance.now();
        if (!options.quiet) host.stdout(`${file} changed: generating\n`);
        // A good run prints its summary (with its time); a failed one its diagnostics and this.
        if (!(await once())) host.stderr(`${file}: not generated (${elapsed(started)}); the output is as it was, watching for the next change\n`);
      });
      // Why after the watch is set: writes to a pipe are synchronous on Linux, so a reader of this
      // line (an editor, a test) could change the file before a watch set afterwards existed.
      host.stdout(`watching ${file} (Ctrl-C stops)\n`);
      await host.untilStopped();
      stop();
      exit(EXIT.ok);
    });
};
