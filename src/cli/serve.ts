// `codegen serve`: generate, compile and run the server at once, with the in-memory store (or
// PostgreSQL with --db) and a token issuer for --user accounts (docs/cli.md#codegen-serve).
import { type CommandDefinition, EXIT, type InputOptions, collect, elapsed, example, inputOptionsOf, withInputOptions } from "./shared.js";

type ServeOptions = InputOptions & {
  port: string;
  host: string;
  user: string[];
  tokenLifetime?: string;
  cors: string[];
  db?: string;
  watch?: boolean;
  quiet?: boolean;
};

export const serveCommand: CommandDefinition = (program, { host, stages, exit, report, fail }) => {
  withInputOptions(
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
      .option("-q, --quiet", "no line per request"),
  )
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
    .action(async (file: string, options: ServeOptions) => {
      const { readInput, generateFiles } = await stages();
      const { parseCors, parseUser, requestLogLine, serveFiles } = await import("../serve/serve.js");
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
        exit(EXIT.usage);
        return;
      }
      // Why: asked for before the slow part (generating, compiling), so a Ctrl-C or SIGTERM that
      // comes meanwhile still stops the server once it runs and removes its temporary folder.
      const stopped = host.untilStopped();
      /** The input's files, or undefined after printing its diagnostics. */
      const generate = async () => {
        const input = await readInput(host, file);
        if (input.value === undefined) return void fail(input.diagnostics, {});
        const result = await generateFiles(host, file, input.value, { outDir: ".", ...inputOptionsOf(options) });
        if (!report(result.diagnostics, { [file]: input.value }) || !result.value) return undefined;
        return result.value;
      };
      const files = await generate();
      if (!files) return;
      const onError = (error: Error) => host.stderr(`codegen: error: ${error.message}\n`);
      const { openDatabase, databaseDiagnostic } = await import("../postgres/database.js");
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
        // (A --host that does not resolve, ENOTFOUND, fails in getaddrinfo before the listen call.)
        const listening = error.syscall === "getaddrinfo" || error.code === "EADDRINUSE" || error.code === "EACCES" || error.code === "EADDRNOTAVAIL";
        if (!listening) return databaseFailed(error);
        host.stderr(`codegen: error: cannot listen on ${options.host}:${port} (${error.code}); choose another with --port or --host\n`);
        exit(EXIT.invalid);
        return undefined;
      });
      if (!server) return;
      for (const warning of server.warnings) host.stderr(`codegen: warning: ${warning}; not applied to ${options.db ?? ""}\n`);
      for (const note of server.notes) host.stderr(`codegen: note: ${note}\n`);
      host.stdout(`serving ${file} on ${server.url}${server.basePath} (Ctrl-C stops it)\n`);
      // Why: with --watch, the exit code is that of Ctrl-C: an invalid edit is printed, not fatal.
      const stop = options.watch
        ? host.watch(file, async () => {
            const started = performance.now();
            host.stdout(`${file} changed: regenerating\n`);
            const next = await generate();
            exit(EXIT.ok);
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
    });
};
