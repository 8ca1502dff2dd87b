// `codegen migrate`: apply the migrations generate wrote that a PostgreSQL database lacks
// (docs/cli.md#codegen-migrate).
import path from "node:path";
import { type CommandDefinition, example } from "./shared.js";

export const migrateCommand: CommandDefinition = (program, { host, stages, fail }) => {
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
      const { folderMigrations } = await import("../postgres/recorded.js");
      const { openDatabase, applyMigrationFiles, databaseDiagnostic } = await import("../postgres/database.js");
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
};
