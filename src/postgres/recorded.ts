/**
 * The migrations of an output folder that may be applied: exactly those codegen wrote and its
 * manifest records, each a regular file inside the folder (looked at with lstat and opened
 * without following a link) still as recorded. `codegen migrate` applies these; the generated
 * `migrate()` holds the same statements (the view takes them from the same manifest entries), and
 * `generate` and `--check` refuse a folder where anything else stands among them, so the three
 * agree on the set (docs/cli.md, "codegen migrate").
 */
import { type Dirent, lstatSync, readdirSync } from "node:fs";
import path from "node:path";
import { type Diagnostic, diagnostic } from "../diagnostics/index.js";
import type { MigrationSpec } from "#runtime/migrate.gen.js";
import { outputFolder, readCurrent } from "../write/apply.js";
import { type CurrentTree, isAsWritten } from "../write/plan.js";
import { MIGRATION_FILE, migrationSpec } from "../emit/postgres/migrations.js";

/** The folder of migrations inside an output folder. */
const FOLDER = "migrations";

/** What a folder's migrations are: the ones to apply, in order, and every entry refused, by name. */
export interface RecordedMigrations {
  readonly migrations: readonly MigrationSpec[];
  /** Diagnostics naming each refused entry (`shown`: the output folder as the user named it). */
  readonly refused: readonly Diagnostic[];
}

/**
 * The recorded migrations of the output folder `dir` (after `readCurrent`), and what stands in
 * its `migrations/` that may not be applied. `force`: a recorded migration edited by hand is taken
 * as it is now (generate --force records the edit); without it, such a file is refused. `written`:
 * the files the running `generate` writes; one of them standing in `migrations/` is codegen's own
 * (replaced by, or already equal to, the text this run records), so it is not refused.
 */
export function recordedMigrations(
  dir: string,
  current: CurrentTree,
  shownDir: string,
  force = false,
  written: ReadonlySet<string> = new Set(),
): RecordedMigrations {
  const shown = (relative: string) => path.join(shownDir, relative);
  const refused: Diagnostic[] = [];
  const migrations: MigrationSpec[] = [];
  const recorded = [...current.manifest.files.keys()].filter((p) => MIGRATION_FILE.test(p)).sort();
  for (const file of recorded) {
    const found = current.look(file);
    if (found.kind === "none") {
      // With --force a run records the folder as it is: a deleted migration is dropped from the manifest.
      if (!force) refused.push(unrecorded(shown(file), "is recorded in the folder's manifest but missing"));
    } else if (found.kind === "other")
      refused.push(
        found.link
          ? diagnostic("output/symbolic-link", { path: shown(found.at) })
          : unrecorded(shown(found.at), "is not a regular file (a folder, a device or a pipe stands there)"),
      );
    else if (!force && !isAsWritten(current.manifest, file, found.text)) refused.push(diagnostic("output/edited-by-hand", { path: shown(file) }));
    else migrations.push(migrationSpec(file, found.text));
  }
  const known = new Set(recorded);
  for (const entry of entriesOf(path.join(dir, FOLDER))) {
    const file = `${FOLDER}/${entry.name}`;
    // Why every `.sql`, whatever its name: a file named unlike codegen's (`2_fix.sql`) is still
    // one someone meant to be applied, and no migration of codegen may be silently missing.
    if (known.has(file) || written.has(file) || !/\.sql$/i.test(entry.name)) continue;
    refused.push(
      unrecorded(
        shown(file),
        entry.isSymbolicLink()
          ? "is a symbolic link the folder's manifest does not record"
          : "was not written by codegen (the folder's manifest does not record it)",
      ),
    );
  }
  return { migrations, refused };
}

/** The recorded migrations of the output folder `named` (absolute; a link named is followed, as `generate` does), shown as `shownDir`. */
export function folderMigrations(named: string, shownDir: string = named): RecordedMigrations {
  const dir = outputFolder(named);
  return recordedMigrations(dir, readCurrent(dir), shownDir);
}

const unrecorded = (file: string, reason: string) => diagnostic("output/unrecorded-migration", { path: file, reason });

/** The entries of the migrations folder, none when it is missing or is no real folder (a link to one is refused by the plan's look). */
function entriesOf(folder: string): Dirent[] {
  try {
    if (!lstatSync(folder).isDirectory()) return [];
    return readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
}
