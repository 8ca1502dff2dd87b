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
  "let patterns the linear matcher cannot take (backreferences, groups repeated past 1,000 instructions) run on V8's backtracking engine, whose time a request can make explode",
] as const;
/** `--strict`, on every command that reads an OpenAPI document (src/openapi/lenient.ts). */
const STRICT = ["--strict", "treat warnings (schema mistakes of an OpenAPI document read leniently) as errors"] as const;
/** `--ref-root`, on every command that reads an OpenAPI document (src/openapi/ref-files.ts). */
const refRootOption = () => new Option("--ref-root <dir>", "the folder an OpenAPI document's $refs may read files in (default: the document's folder)");

/** What an input the default command reads is named like: a declaration or an OpenAPI document. */
const INPUT_NAME = /\.(ya?ml|json)$/i;

/**
 * Whether the first word is a mistyped command rather than the default command's input: not an
 * option, not a command, no input's extension, and no file of that name. Answers the nearest
 * command (by edit distance; "" when none is near), or undefined when it is no unknown command.
 */
async function unknownCommand(program: Command, word: string, host: Host): Promise<string | undefined> {
  const names = program.commands.flatMap((command) => [command.name(), ...command.aliases()]);
  if (word.startsWith("-") || names.includes(word) || word === "help" || INPUT_NAME.test(word) || /[\\/]/.test(word)) return undefined;
  const exists = await host.readFile(path.resolve(host.cwd, word)).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code !== "ENOENT",
  );
  if (exists) return undefined;
  const { distance } = await import("fastest-levenshtein");
  const [nearest] = names.map((name) => ({ name, d: distance(word.toLowerCase(), name) })).sort((a, b) => a.d - b.d);
  // Why this bound: a typo is a letter or two; a word half unlike every command suggests nothing.
  return nearest && nearest.d <= Math.max(2, Math.floor(word.length / 3)) ? nearest.name : "";
}

/**
 * For an unknown option with no near option on its own command (where commander suggests none):
 * the near options of the other commands, e.g. `validate --ouput` -> `--output` of generate, migrate and
 * openapi. "" when there is none.
 */
async function optionElsewhere(program: Command, error: CommanderError): Promise<string> {
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

/** The time since `started` (a `performance.now()`), as `123 ms`. */
const elapsed = (started: number) => `${Math.round(performance.now() - started)} ms`;

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
    .description("Expand a small declaration of REST resources and OAuth2 guards into an OpenAPI 3.1 document that follows the API conventions.")
    .version(version, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help for a command")
    .showSuggestionAfterError(true)
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
    .action(
      async (
        file: string,
        options: {
          output: string;
          format: boolean;
          prettier?: boolean;
          check?: boolean;
          force?: boolean;
          quiet?: boolean;
          watch?: boolean;
          openapiVersion: OpenApiVersion;
          allowUnsafePatterns?: boolean;
          refRoot?: string;
          strict?: boolean;
        },
      ) => {
        const folderOptions = {
          outDir: options.output,
          format: options.format,
          prettier: options.prettier === true,
          check: options.check === true,
          force: options.force === true,
          openapiVersion: options.openapiVersion,
          allowUnsafePatterns: options.allowUnsafePatterns === true,
          ...(options.refRoot !== undefined ? { refRoot: options.refRoot } : {}),
          strict: options.strict === true,
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
          // Why first, and before the stages are loaded (issue 14): a folder already current for
          // this text is most runs (a script that generates before every start, CI); telling so
          // takes a hash of the input and the folder's files, not YAML, validation and the renderer.
          const text = await host.readFile(file).catch(() => undefined);
          if (text !== undefined && !options.check) {
            const { currentFiles } = await import("./fresh.js");
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
          exitCode = EXIT.ok;
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
    .option("--cors <ORIGIN>", "let browsers on ORIGIN call the API (repeatable; * for any origin)", collect, [] as string[])
    .option("--db <DIR|URL>", "keep the objects in PostgreSQL: a folder (PGlite, kept across restarts) or a postgres:// URL (default: in memory)")
    .option("-w, --watch", "regenerate, recompile and restart on the same port whenever the input changes; an invalid edit keeps the last good server")
    .option("-q, --quiet", "no line per request")
    .option(...UNSAFE_PATTERNS)
    .addOption(refRootOption())
    .option(...STRICT)
    .addHelpText(
      "after",
      example(
        "  $ codegen serve api.yaml --user ann:secret:articles:read,articles:write --watch\n" +
          "  $ codegen serve api.yaml --db .data          # objects kept in .data across restarts\n" +
          "  $ curl -s -X POST localhost:8080/token -d 'grant_type=password&username=ann&password=secret&scope=articles:write'\n" +
          "  $ codegen serve api.yaml --cors http://localhost:5173   # a web app on that origin may call the API\n" +
          "  Tokens also come from POST /_codegen/token (under the base path of the first server URL),\n" +
          "  for guards whose token URL is elsewhere.\n" +
          "  Each request is logged as: METHOD PATH STATUS DURATION ms [CALLER]",
      ),
    )
    .action(
      async (
        file: string,
        options: {
          port: string;
          host: string;
          user: string[];
          tokenLifetime?: string;
          cors: string[];
          db?: string;
          watch?: boolean;
          quiet?: boolean;
          allowUnsafePatterns?: boolean;
          refRoot?: string;
          strict?: boolean;
        },
      ) => {
        const { readInput, generateFiles } = await stages();
        const { parseCors, parseUser, requestLogLine, serveFiles } = await import("./serve/serve.js");
        const users = options.user.map((text) => ({ text, user: parseUser(text) }));
        const bad = users.find((u) => u.user === undefined);
        const port = Number(options.port);
        const tokenLifetime = options.tokenLifetime === undefined ? undefined : Number(options.tokenLifetime);
        const cors = parseCors(options.cors);
        let usage: string | undefined;
        if ("usage" in cors) usage = cors.usage;
        else if (bad) usage = `--user ${bad.text} must be NAME:PASSWORD[:SCOPE,...]`;
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
        /** The input's files, or undefined after printing its diagnostics. */
        const generate = async () => {
          const input = await readInput(host, file);
          if (input.value === undefined) return void fail(input.diagnostics, {});
          const result = await generateFiles(host, file, input.value, {
            outDir: ".",
            format: false,
            allowUnsafePatterns: options.allowUnsafePatterns === true,
            ...(options.refRoot !== undefined ? { refRoot: options.refRoot } : {}),
            strict: options.strict === true,
          });
          if (!report(result.diagnostics, { [file]: input.value }) || !result.value) return undefined;
          return result.value;
        };
        const files = await generate();
        if (!files) return;
        const onError = (error: Error) => host.stderr(`codegen: error: ${error.message}\n`);
        const { openDatabase, databaseDiagnostic } = await import("./postgres/database.js");
        /** A database's failure as its diagnostic (exit 1); anything else is thrown on. */
        const databaseFailed = (error: unknown): undefined => {
          const problem = databaseDiagnostic(error, options.db ?? "");
          if (!problem) throw error;
          fail([problem], {});
          return undefined;
        };
        const database = options.db === undefined ? undefined : await openDatabase(options.db, host.cwd).catch(databaseFailed);
        if (options.db !== undefined && database === undefined) return;
        const server = await serveFiles(files, {
          port,
          host: options.host,
          users: users.map((u) => u.user!),
          ...(tokenLifetime === undefined ? {} : { tokenLifetime }),
          ...(database === undefined ? {} : { database }),
          ...("cors" in cors && cors.cors !== undefined ? { cors: cors.cors } : {}),
          onError,
          ...(options.quiet ? {} : { onResponse: (entry) => host.stdout(requestLogLine(entry) + "\n") }),
        }).catch(async (error: NodeJS.ErrnoException) => {
          await database?.close();
          if (error.code !== "EADDRINUSE" && error.code !== "EACCES" && error.code !== "EADDRNOTAVAIL") return databaseFailed(error);
          host.stderr(`codegen: error: cannot listen on ${options.host}:${port} (${error.code}); choose another with --port or --host\n`);
          exitCode = EXIT.invalid;
          return undefined;
        });
        if (!server) return;
        for (const warning of server.warnings) host.stderr(`codegen: warning: ${warning}; not applied to ${options.db ?? ""}\n`);
        host.stdout(`serving ${file} on ${server.url}${server.basePath} (Ctrl-C stops it)\n`);
        // Why: with --watch, the exit code is that of Ctrl-C: an invalid edit is printed, not fatal.
        const stop = options.watch
          ? host.watch(file, async () => {
              const started = performance.now();
              host.stdout(`${file} changed: regenerating\n`);
              const next = await generate();
              exitCode = EXIT.ok;
              const kept = `; the last good server still answers on ${server.url}${server.basePath}`;
              if (!next) return host.stderr(`${file}: not served (${elapsed(started)})${kept}\n`);
              await server.replace(next).then(
                () => host.stdout(`restarted on ${server.url}${server.basePath} in ${elapsed(started)}\n`),
                (error: Error) => host.stderr(`codegen: error: ${error.message}${kept}\n`),
              );
            })
          : undefined;
        if (stop) host.stdout(`watching ${file} (Ctrl-C stops)\n`);
        await stopped;
        stop?.();
        await server.close();
        await database?.close();
      },
    );

  program
    .command("migrate")
    .description("apply the migrations generate wrote into the output folder (migrations/*.sql) that a PostgreSQL database lacks, each in a transaction")
    .argument("<input>", "the declaration (or OpenAPI document) the folder was generated from")
    .requiredOption("--db <DIR|URL>", "the database: a postgres:// URL, or a folder (PGlite)")
    .option("-o, --output <dir>", "the output folder generate wrote", "generated")
    .addHelpText("after", example("  $ codegen api.yaml -o src/generated && codegen migrate api.yaml -o src/generated --db postgres://localhost/app"))
    .action(async (file: string, options: { db: string; output: string }) => {
      const { readInput, generateIntoFolder } = await stages();
      const input = await readInput(host, file);
      if (input.value === undefined) return void fail(input.diagnostics, {});
      // Why: migrations come from the folder, so it must be current; a stale one would miss tables.
      const checked = await generateIntoFolder(host, file, input.value, { outDir: options.output, check: true, force: false });
      if (checked.diagnostics.length > 0) return void fail(checked.diagnostics, { [file]: input.value });
      const { folderMigrations } = await import("./postgres/recorded.js");
      const { openDatabase, applyMigrationFiles, databaseDiagnostic } = await import("./postgres/database.js");
      // Only what the manifest records, as recorded; anything else there is refused before anything is applied.
      const { migrations, refused } = folderMigrations(path.resolve(host.cwd, options.output), options.output);
      if (refused.length > 0) return void fail(refused, {});
      try {
        const database = await openDatabase(options.db, host.cwd);
        try {
          const applied = await applyMigrationFiles(database, migrations);
          host.stdout(applied.length === 0 ? "the database is up to date\n" : applied.map((name) => `applied ${name}\n`).join(""));
        } finally {
          await database.close();
        }
      } catch (error) {
        const problem = databaseDiagnostic(error, options.db);
        if (!problem) throw error;
        fail([problem], {});
      }
    });

  program
    .command("openapi")
    .description("print the OpenAPI 3.1 document of a declaration or of an OpenAPI document (to stdout, or to FILE with -o)")
    .argument("<input>", "the declaration, or an OpenAPI document (printed bundled, as 3.1): .yaml, .yml or .json")
    .option("-o, --output <file>", "write the document to FILE instead of stdout (written whole, or not at all)")
    .addOption(new Option("--format <format>", "yaml or json (default: from FILE's extension, else yaml)").choices(["yaml", "json"]))
    .addOption(new Option("--openapi-version <version>", "3.1, or 3.0 for docs portals that cannot read 3.1 yet").choices(["3.1", "3.0"]).default("3.1"))
    .option(...UNSAFE_PATTERNS)
    .addOption(refRootOption())
    .option(...STRICT)
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
        options: {
          output?: string;
          format?: "yaml" | "json";
          openapiVersion: OpenApiVersion;
          allowUnsafePatterns?: boolean;
          refRoot?: string;
          strict?: boolean;
        },
      ) => {
        const { readInput, documentFromText, serializeDocument } = await stages();
        const input = await readInput(host, file);
        if (input.value === undefined) return void fail(input.diagnostics, {});
        const result = await documentFromText(file, input.value, host.cwd, options);
        if (!report(result.diagnostics, { [file]: input.value }) || !result.value) return;
        const format = options.format ?? (options.output && path.extname(options.output).toLowerCase() === ".json" ? "json" : "yaml");
        const text = serializeDocument(result.value, format, options.openapiVersion);
        if (!options.output) return void host.stdout(text);
        const { writeDiagnostic } = await import("./write/target.js");
        const output = options.output;
        await host.writeFile(path.resolve(host.cwd, output), text).catch((error: unknown) => fail([writeDiagnostic(output, error)], {}));
      },
    );

  program
    .command("validate")
    .description("check a declaration and the document it expands to, or an OpenAPI document; print nothing but errors")
    .argument("<input>", "the declaration, or an OpenAPI document: .yaml, .yml or .json")
    .option(...UNSAFE_PATTERNS)
    .addOption(refRootOption())
    .option(...STRICT)
    .addHelpText("after", example("  $ codegen validate api.yaml && echo valid"))
    .action(async (file: string, options: { allowUnsafePatterns?: boolean; refRoot?: string; strict?: boolean }) => {
      const { readInput, documentFromText, viewOfDocument } = await stages();
      const input = await readInput(host, file);
      if (input.value === undefined) return void fail(input.diagnostics, {});
      const result = await documentFromText(file, input.value, host.cwd, { ...options, selfCheck: true });
      if (!report(result.diagnostics, { [file]: input.value }) || !result.value) return;
      // What generate would refuse to render is invalid here too.
      const modelled = viewOfDocument(file, input.value, result.value, file);
      if (!modelled.value) fail(modelled.diagnostics, { [file]: input.value });
    });

  program
    .command("init")
    .description(
      "start a project in DIR, or add to the one there: an example declaration, handler files that use the in-memory store, package.json scripts (start, dev, generate, check); overwrites nothing",
    )
    .argument("[dir]", "the project folder (created when missing)", ".")
    .option("--codegen <spec>", "the codegen-rest-ts version the project depends on (a semver range, or file:PATH of a packed tarball)", `^${version}`)
    .addHelpText(
      "after",
      example(
        "  $ codegen init my-api\n" +
          "  $ cd my-api && npm install && npm run dev\n" +
          "  writes package.json, tsconfig.json, api.yaml, src/main.ts and src/handlers/*.ts; in a project that\n" +
          "  exists, adds what is missing: a file that exists is kept, package.json gets the scripts\n" +
          "  and dependencies it lacks (an entry that is there is never changed)",
      ),
    )
    .action(async (dir: string, options: { codegen: string }) => {
      const { initProject, initRefusal, projectName } = await import("./init/init.js");
      const shown = (file: string) => path.join(dir, file);
      const name = projectName(path.resolve(host.cwd, dir));
      const outcome = await initProject(host, dir, { name, codegenSpec: options.codegen }).catch(async (error: NodeJS.ErrnoException) => {
        const refused = initRefusal(error, (file) => path.relative(host.cwd, file) || ".");
        if (refused) (await stages()).reportDiagnostics(host, [refused], {});
        else host.stderr(`codegen: error: cannot write the project into ${dir}: ${error.message}\n`);
        return undefined;
      });
      if (!outcome) {
        exitCode = EXIT.invalid;
        return;
      }
      for (const file of outcome.written) host.stdout(`created ${shown(file)}\n`);
      for (const entry of outcome.merged) host.stdout(`added ${entry.replace(/^([^:]+)/, (file) => shown(file))}\n`);
      // cli.md: init overwrites nothing, and names what it left as it was.
      for (const file of outcome.kept) host.stderr(`codegen: kept ${shown(file)}: it exists (init overwrites nothing)\n`);
      for (const { key, theirs, ours } of outcome.conflicts) {
        host.stderr(`codegen: kept ${shown("package.json")} ${key} = ${JSON.stringify(theirs)}; init would set ${JSON.stringify(ours)}\n`);
      }
      const eslint = await Promise.all(
        ["eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", "eslint.config.ts"].map((file) =>
          // Looked at, not read: a pipe of that name would hold the read open.
          host.entryAt(path.resolve(host.cwd, dir, file)).then((kind) => (kind === "none" ? undefined : file)),
        ),
      );
      const config = eslint.find((file) => file !== undefined);
      if (config) host.stdout(`ESLint: add { ignores: ["src/generated/"] } to ${shown(config)}; the generated code is codegen's to format\n`);
      const steps = [...(path.resolve(host.cwd, dir) === host.cwd ? [] : [`cd ${dir}`]), "npm install", "npm run dev"];
      host.stdout(
        `\nNext steps:\n${steps.map((step) => `  ${step}\n`).join("")}` +
          `npm run dev serves api.yaml on http://127.0.0.1:8080 with the in-memory store and the demo user, and restarts on every edit of it.\n` +
          `npm start generates src/generated, compiles and serves src/main.ts, your handlers and token check (PORT to change).\n` +
          `npm run check fails when src/generated is stale or the code does not type-check.\n`,
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

  /**
   * Report diagnostics (errors and warnings); set the exit code and return false when one is an
   * error. Only called after a command has loaded the stages.
   */
  function report(diagnostics: Parameters<typeof import("./run.js").reportDiagnostics>[1], sources: Record<string, string>): boolean {
    if (diagnostics.some((d) => d.severity === "error")) return fail(diagnostics, sources);
    stagesModule!.reportDiagnostics(host, diagnostics, sources);
    return true;
  }

  /** Report diagnostics and set the exit code; only called after a command has loaded the stages. */
  function fail(diagnostics: Parameters<typeof import("./run.js").reportDiagnostics>[1], sources: Record<string, string>): false {
    stagesModule!.reportDiagnostics(host, diagnostics, sources);
    exitCode = EXIT.invalid;
    return false;
  }

  // cli.md: `codegen` alone prints the help.
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
