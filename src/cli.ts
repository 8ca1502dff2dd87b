import { createRequire } from "node:module";
import path from "node:path";
import { Command, CommanderError, Option } from "commander";
import type { Host } from "./host.js";
import type { OpenApiVersion } from "./run.js";

// Why: the stages (yaml, handlebars, the validators) are loaded when a command runs, not at
// start-up, so `--version` and `--help` cost little more than Node itself (issue 6).
let stagesModule: typeof import("./run.js") | undefined;
const stages = async () => (stagesModule ??= await import("./run.js"));

/** Exit codes (cli.md): done, invalid input or a difference found, wrong usage. */
export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

const version = (createRequire(import.meta.url)("../package.json") as { version: string }).version;

/** Commander's collector for a repeatable option. */
const collect = (value: string, previous: string[]) => [...previous, value];

/** The opt-in every command that reads an input offers (README "Patterns"). */
const UNSAFE_PATTERNS = [
  "--allow-unsafe-patterns",
  "let patterns the linear matcher cannot take (backreferences, lookarounds) run on V8's backtracking engine, whose time a request can make explode",
] as const;
/** `--ref-root`, on every command that reads an OpenAPI document (src/openapi/ref-files.ts). */
const refRootOption = () => new Option("--ref-root <dir>", "the folder an OpenAPI document's $refs may read files in (default: the document's folder)");

/** Help text after a command's own: an example, as every command shows one. */
const example = (lines: string) => `\nExample:\n${lines}\n`;

/**
 * The command line: parse `argv` (without node and the script), run the command through
 * `host`, and return the exit code. Never exits the process itself.
 */
export async function main(argv: readonly string[], host: Host): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command()
    .name("codegen")
    .description("Expand a small declaration of REST resources and OAuth2 guards into an OpenAPI 3.1 document\nthat follows the API conventions.")
    .version(version, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help for a command")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ writeOut: (s) => host.stdout(s), writeErr: (s) => host.stderr(s) })
    .addHelpText(
      "after",
      example(
        "  $ codegen validate api.yaml                 check a declaration, print every problem\n" +
          "  $ codegen openapi api.yaml -o openapi.yaml  write the OpenAPI 3.1 document\n" +
          "  $ codegen schema > codegen.schema.json      JSON Schema for editors",
      ),
    );

  program
    .command("generate", { isDefault: true })
    .description("write the OpenAPI document and the TypeScript server code of a declaration or of an OpenAPI 3.0/3.1 document (the default command)")
    .argument("<input>", "the declaration, or an OpenAPI document (recognised by its `openapi` key): .yaml, .yml or .json")
    .option("-o, --output <dir>", "the output folder", "generated")
    .option("--no-format", "skip prettier (faster; the code is the same, less tidy)")
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
    .action(
      async (
        file: string,
        options: {
          output: string;
          format: boolean;
          check?: boolean;
          force?: boolean;
          quiet?: boolean;
          watch?: boolean;
          openapiVersion: OpenApiVersion;
          allowUnsafePatterns?: boolean;
          refRoot?: string;
        },
      ) => {
        const once = async (): Promise<boolean> => {
          const started = performance.now();
          const { readInput, generateIntoFolder } = await stages();
          const input = await readInput(host, file);
          if (input.value === undefined) return fail(input.diagnostics, {});
          const result = await generateIntoFolder(host, file, input.value, {
            outDir: options.output,
            format: options.format,
            check: options.check === true,
            force: options.force === true,
            openapiVersion: options.openapiVersion,
            allowUnsafePatterns: options.allowUnsafePatterns === true,
            ...(options.refRoot !== undefined ? { refRoot: options.refRoot } : {}),
          });
          if (result.drift !== undefined) host.stdout(result.drift);
          if (result.diagnostics.length > 0) return fail(result.diagnostics, { [file]: input.value });
          const ms = Math.round(performance.now() - started);
          const { written, unchanged, removed } = result.summary!;
          if (options.quiet) return true;
          host.stdout(options.check ? `${options.output} is up to date\n` : `wrote ${written}, unchanged ${unchanged}, removed ${removed} in ${ms} ms\n`);
          return true;
        };
        await once();
        if (!options.watch) return;
        // Each run's problems are printed; watching goes on, and the exit code is that of Ctrl-C.
        const stop = host.watch(file, async () => {
          exitCode = EXIT.ok;
          await once();
        });
        // Why after the watch is set: writes to a pipe are synchronous on Linux, so a reader of this
        // line (an editor, a test) could change the file before a watch set afterwards existed.
        host.stdout(`watching ${file} (Ctrl-C stops)\n`);
        await host.untilStopped();
        stop();
        exitCode = EXIT.ok;
      },
    );

  program
    .command("serve")
    .description(
      "generate, compile and run the server at once, with the in-memory store (an OpenAPI document's operations answer its examples) and a token issuer for --user accounts",
    )
    .argument("<input>", "the declaration, or an OpenAPI document: .yaml, .yml or .json")
    .option("-p, --port <port>", "port to listen on", "8080")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("-u, --user <NAME:PASSWORD[:SCOPE,...]>", "an account of the built-in token issuer (repeatable)", collect, [] as string[])
    .option("--token-lifetime <seconds>", "how long a token of the built-in issuer is valid, its expires_in (default: 3600)")
    .option(...UNSAFE_PATTERNS)
    .addOption(refRootOption())
    .addHelpText(
      "after",
      example(
        "  $ codegen serve api.yaml --user ann:secret:articles:read,articles:write\n" +
          "  $ curl -s -X POST localhost:8080/token -d 'grant_type=password&username=ann&password=secret&scope=articles:write'\n" +
          "  Tokens also come from POST /_codegen/token, for guards whose token URL is elsewhere.",
      ),
    )
    .action(
      async (
        file: string,
        options: { port: string; host: string; user: string[]; tokenLifetime?: string; allowUnsafePatterns?: boolean; refRoot?: string },
      ) => {
        const { readInput, generateFiles } = await stages();
        const { parseUser, serveFiles } = await import("./serve/serve.js");
        const users = options.user.map((text) => ({ text, user: parseUser(text) }));
        const bad = users.find((u) => u.user === undefined);
        const port = Number(options.port);
        const tokenLifetime = options.tokenLifetime === undefined ? undefined : Number(options.tokenLifetime);
        let usage: string | undefined;
        if (bad) usage = `--user ${bad.text} must be NAME:PASSWORD[:SCOPE,...]`;
        else if (!Number.isInteger(port) || port < 0 || port > 65535) usage = "--port must be a port number";
        else if (tokenLifetime !== undefined && !(/^[0-9]+$/.test(options.tokenLifetime!) && tokenLifetime >= 1)) {
          usage = "--token-lifetime must be a whole number of seconds, at least 1";
        }
        if (usage !== undefined) {
          host.stderr(`codegen: error: ${usage}\n`);
          exitCode = EXIT.usage;
          return;
        }
        // Why: asked for before the slow part (generating, compiling), so a Ctrl-C or SIGTERM that
        // comes meanwhile still stops the server once it runs and removes its temporary folder.
        const stopped = host.untilStopped();
        const input = await readInput(host, file);
        if (input.value === undefined) return void fail(input.diagnostics, {});
        const result = await generateFiles(host, file, input.value, {
          outDir: ".",
          format: false,
          allowUnsafePatterns: options.allowUnsafePatterns === true,
          ...(options.refRoot !== undefined ? { refRoot: options.refRoot } : {}),
        });
        if (!result.value) return void fail(result.diagnostics, { [file]: input.value });
        const onError = (error: Error) => host.stderr(`codegen: error: ${error.message}\n`);
        const server = await serveFiles(result.value, {
          port,
          host: options.host,
          users: users.map((u) => u.user!),
          ...(tokenLifetime === undefined ? {} : { tokenLifetime }),
          onError,
        }).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== "EADDRINUSE" && error.code !== "EACCES" && error.code !== "EADDRNOTAVAIL") throw error;
          host.stderr(`codegen: error: cannot listen on ${options.host}:${port} (${error.code}); choose another with --port or --host\n`);
          exitCode = EXIT.invalid;
          return undefined;
        });
        if (!server) return;
        host.stdout(`serving ${file} on ${server.url} (Ctrl-C stops it)\n`);
        await stopped;
        await server.close();
      },
    );

  program
    .command("openapi")
    .description("expand a declaration and print its OpenAPI 3.1 document (to stdout, or to FILE with -o)")
    .argument("<declaration>", "the declaration file (.yaml, .yml or .json)")
    .option("-o, --output <file>", "write the document to FILE instead of stdout (written whole, or not at all)")
    .addOption(new Option("--format <format>", "yaml or json (default: from FILE's extension, else yaml)").choices(["yaml", "json"]))
    .addOption(new Option("--openapi-version <version>", "3.1, or 3.0 for docs portals that cannot read 3.1 yet").choices(["3.1", "3.0"]).default("3.1"))
    .option(...UNSAFE_PATTERNS)
    .addOption(refRootOption())
    .addHelpText(
      "after",
      example(
        "  $ codegen openapi api.yaml\n" +
          "  $ codegen openapi api.yaml -o openapi.json                          # JSON, from the extension\n" +
          "  $ codegen openapi api.yaml --openapi-version 3.0 -o openapi-3.0.yaml  # for docs portals without 3.1",
      ),
    )
    .action(
      async (
        file: string,
        options: { output?: string; format?: "yaml" | "json"; openapiVersion: OpenApiVersion; allowUnsafePatterns?: boolean; refRoot?: string },
      ) => {
        const { readInput, documentFromText, serializeDocument } = await stages();
        const input = await readInput(host, file);
        if (input.value === undefined) return void fail(input.diagnostics, {});
        const result = await documentFromText(file, input.value, host.cwd, options);
        if (!result.value) return void fail(result.diagnostics, { [file]: input.value });
        const format = options.format ?? (options.output && path.extname(options.output).toLowerCase() === ".json" ? "json" : "yaml");
        const text = serializeDocument(result.value, format, options.openapiVersion);
        if (options.output) await host.writeFile(path.resolve(host.cwd, options.output), text);
        else host.stdout(text);
      },
    );

  program
    .command("validate")
    .description("check a declaration and the document it expands to, or an OpenAPI document; print nothing but errors")
    .argument("<input>", "the declaration, or an OpenAPI document: .yaml, .yml or .json")
    .option(...UNSAFE_PATTERNS)
    .addOption(refRootOption())
    .addHelpText("after", example("  $ codegen validate api.yaml && echo valid"))
    .action(async (file: string, options: { allowUnsafePatterns?: boolean; refRoot?: string }) => {
      const { readInput, documentFromText, viewOfDocument } = await stages();
      const input = await readInput(host, file);
      if (input.value === undefined) return void fail(input.diagnostics, {});
      const result = await documentFromText(file, input.value, host.cwd, { ...options, selfCheck: true });
      if (!result.value) return void fail(result.diagnostics, { [file]: input.value });
      // What generate would refuse to render is invalid here too.
      const modelled = viewOfDocument(file, input.value, result.value, file);
      if (!modelled.value) fail(modelled.diagnostics, { [file]: input.value });
    });

  program
    .command("init")
    .description("start a project in DIR: an example declaration, handler files that use the in-memory store, package.json scripts; overwrites nothing")
    .argument("[dir]", "the project folder (created when missing)", ".")
    .option("--codegen <spec>", "the codegen-rest-ts version the project depends on (a semver range, or file:PATH of a packed tarball)", `^${version}`)
    .addHelpText(
      "after",
      example(
        "  $ codegen init my-api\n" +
          "  $ cd my-api && npm install && npm start\n" +
          "  writes package.json, tsconfig.json, api.yaml, src/main.ts and src/handlers/*.ts; refuses, writing\n" +
          "  nothing, when any of them exists",
      ),
    )
    .action(async (dir: string, options: { codegen: string }) => {
      const { initProject, projectName } = await import("./init/init.js");
      const shown = (file: string) => path.join(dir, file);
      const name = projectName(path.resolve(host.cwd, dir));
      const outcome = await initProject(host, dir, { name, codegenSpec: options.codegen }).catch((error: NodeJS.ErrnoException) => {
        host.stderr(`codegen: error: cannot write the project into ${dir}: ${error.message}\n`);
        return undefined;
      });
      if (!outcome || "refused" in outcome) {
        for (const file of outcome?.refused ?? []) host.stderr(`codegen: error: ${shown(file)} exists already\n`);
        if (outcome) host.stderr(`codegen: init overwrites nothing, so it wrote nothing\n`);
        exitCode = EXIT.invalid;
        return;
      }
      for (const file of outcome.written) host.stdout(`created ${shown(file)}\n`);
      const steps = [...(path.resolve(host.cwd, dir) === host.cwd ? [] : [`cd ${dir}`]), "npm install", "npm start"];
      host.stdout(
        `\nNext steps:\n${steps.map((step) => `  ${step}\n`).join("")}` +
          `npm start generates src/generated from api.yaml, compiles and serves on http://127.0.0.1:8080 (PORT to change).\n` +
          `Edit api.yaml, then npm run generate; replace the handlers in src/handlers/ and the demo user in src/main.ts.\n`,
      );
    });

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
      const { declarationJsonSchema } = await import("./declaration/schema.js");
      host.stdout(JSON.stringify(declarationJsonSchema(), null, 2) + "\n");
    });

  /** Report diagnostics and set the exit code; only called after a command has loaded the stages. */
  function fail(diagnostics: Parameters<typeof import("./run.js").reportDiagnostics>[1], sources: Record<string, string>): false {
    stagesModule!.reportDiagnostics(host, diagnostics, sources);
    exitCode = EXIT.invalid;
    return false;
  }

  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander throws for --help and --version too, with exit code 0.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    throw error;
  }
  return exitCode;
}
