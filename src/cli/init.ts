// `codegen init`: start a project, or add what is missing to one; overwrites nothing
// (docs/cli.md#codegen-init).
import path from "node:path";
import { type CommandDefinition, EXIT, example } from "./shared.js";

/** The ESLint configuration files a project may have, in the order ESLint looks for them. */
const ESLINT_CONFIGS = ["eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", "eslint.config.ts"];

export const initCommand: CommandDefinition = (program, { host, version, stages, exit }) => {
  program
    .command("init")
    .description(
      "start a project in DIR, or add to the one there: an example declaration (or the api.yaml there), handler files for its resources that use the in-memory store, package.json scripts (start, dev, generate, check); overwrites nothing",
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
          "  and dependencies it lacks (an entry that is there is never changed); with an api.yaml of\n" +
          "  your own there, the server and handlers are written for its resources",
      ),
    )
    .action(async (dir: string, options: { codegen: string }) => {
      const { initProject, projectName } = await import("../init/init.js");
      const shown = (file: string) => path.join(dir, file);
      const name = projectName(path.resolve(host.cwd, dir));
      const outcome = await initProject(host, dir, { name, codegenSpec: options.codegen }).catch((error: NodeJS.ErrnoException) => {
        host.stderr(`codegen: error: cannot write the project into ${dir}: ${error.message}\n`);
        return undefined;
      });
      if (outcome?.refused) (await stages()).reportDiagnostics(host, [outcome.refused], {});
      if (!outcome || outcome.refused) {
        exit(EXIT.invalid);
        return;
      }
      for (const file of outcome.written) host.stdout(`created ${shown(file)}\n`);
      for (const entry of outcome.merged) host.stdout(`added ${entry.replace(/^([^:]+)/, (file) => shown(file))}\n`);
      // docs/cli.md: init overwrites nothing, and names what it left as it was.
      for (const file of outcome.kept) host.stderr(`codegen: kept ${shown(file)}: it exists (init overwrites nothing)\n`);
      for (const { path: file, reason } of outcome.skipped) host.stderr(`codegen: skipped ${shown(file)}: ${reason}\n`);
      for (const { key, theirs, ours } of outcome.conflicts) {
        host.stderr(`codegen: kept ${shown("package.json")} ${key} = ${JSON.stringify(theirs)}; init would set ${JSON.stringify(ours)}\n`);
      }
      const eslint = await Promise.all(
        ESLINT_CONFIGS.map((file) =>
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
};
