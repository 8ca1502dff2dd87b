// `codegen migrate`: apply the migrations generate wrote that a PostgreSQL database lacks
// (docs/cli.md#codegen-migrate).
import path from "node:path";
import { type CommandDefinition, EXIT, example } from "./shared.js";

export const migrateCommand: CommandDefinition = (program, context) => {
  const { host, stages, fail, exit } = context;
  const migrate = program
    .command("migrate")
    // Why: `-o` and `--db` after `new` are the subcommand's own, not this command's.
    .enablePositionalOptions()
    .description("apply the migrations generate wrote into the output folder (migrations/*.sql) that a PostgreSQL database lacks, each in a transaction")
    .argument("<input>", "the declaration (or OpenAPI document) the folder was generated from")
    // Why not a required option: commander would ask it of `migrate new` too, its subcommand.
    .option("--db <DIR|URL>", "the database: a postgres:// URL, or a folder (PGlite); required")
    .option("-o, --output <dir>", "the output folder generate wrote", "generated")
    .addHelpText("after", example("  $ codegen api.yaml -o src/generated && codegen migrate api.yaml -o src/generated --db postgres://localhost/app"))
    .action(async (file: string, options: { db?: string; output: string }) => {
      if (options.db === undefined) {
        host.stderr("codegen: error: required option '--db <DIR|URL>' not specified\n");
        return void exit(EXIT.usage);
      }
      const db = options.db;
      const { readInput, generateIntoFolder } = await stages();
      const input = await readInput(host, file);
      if (input.value === undefined) return void fail(input.diagnostics, {});
      // Why: migrations come from the folder, so it must be current; a stale one would miss tables.
      const checked = await generateIntoFolder(host, file, input.value, { outDir: options.output, check: true, force: false });
      if (checked.diagnostics.length > 0) return void fail(checked.diagnostics, { [file]: input.value });
      const { folderMigrations } = await import("../postgres/recorded.js");
      const { openDatabase, applyMigrationFiles, databaseDiagnostic } = await import("../postgres/database.js");
      // Only what the manifest records, as recorded; anything else there is refused before anything is applied.
      const { migrations, refused } = folderMigrations(path.resolve(host.cwd, options.output), options.output);
      if (refused.length > 0) return void fail(refused, {});
      try {
        const database = await openDatabase(db, host.cwd);
        try {
          const applied = await applyMigrationFiles(database, migrations);
          host.stdout(applied.length === 0 ? "the database is up to date\n" : applied.map((name) => `applied ${name}\n`).join(""));
        } finally {
          await database.close();
        }
      } catch (error) {
        const problem = databaseDiagnostic(error, db);
        if (!problem) throw error;
        fail([problem], {});
      }
    });
  migrateNewCommand(migrate, context);
};

/**
 * `codegen migrate new`: the next migration, capturing what the declaration changes beyond the
 * tables the folder's migrations reach; nothing when there is no change; a change stored rows
 * would not survive is refused at its line (docs/migrations.md).
 */
const migrateNewCommand: CommandDefinition = (migrate, { host, stages, report }) => {
  migrate
    .command("new")
    .description("write the next migration (migrations/NNNN_NAME.sql): the change of the tables the declaration holds beyond the folder's migrations")
    .argument("<input>", "the declaration")
    .argument("[name]", "the migration's name, words of its file name (default: words of the change)")
    .option("-o, --output <dir>", "the output folder generate writes", "generated")
    .option("--name <NAME>", "the migration's name (as [name])")
    .addHelpText(
      "after",
      example(
        "  $ codegen migrate new api.yaml add_pet_colour -o src/generated\n" +
          "  writes src/generated/migrations/0002_add_pet_colour.sql and the code that applies it;\n" +
          "  then: codegen migrate api.yaml -o src/generated --db postgres://localhost/app",
      ),
    )
    .action(async (file: string, positional: string | undefined, options: { output: string; name?: string }) => {
      const { readInput, generateIntoFolder } = await stages();
      const input = await readInput(host, file);
      if (input.value === undefined) return void report(input.diagnostics, {});
      const name = options.name ?? positional;
      const result = await generateIntoFolder(host, file, input.value, { outDir: options.output, check: false, force: false, migration: { name } });
      if (!report(result.diagnostics, { [file]: input.value })) return;
      for (const warning of result.warnings ?? []) host.stderr(`${file}: warning: ${warning}\n`);
      host.stdout(
        result.migration === undefined ? "no change of the tables: no migration written\n" : `wrote ${path.join(options.output, result.migration)}\n`,
      );
    });
};
