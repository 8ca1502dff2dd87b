/**
 * The PostgreSQL files of a generation: the migrations kept in the output folder
 * (`migrations/NNNN_<words>.sql`, never rewritten), a new one when the tables changed since the
 * snapshot `migrations/schema.json`, the new snapshot, and the store template's view. Pure: what
 * the folder held comes in as `previous`.
 */
import type { ApiModel } from "../../model/api-model.js";
import type { GeneratedFile } from "../render.js";
import type { DataFile } from "../render.js";
import { MIGRATION_FILE, type Migration, isEmpty, migrationName, migrationText, schemaChange } from "./migrations.js";
import type { SchemaSnapshot } from "../../model/tables.js";
import { type PostgresView, postgresView } from "./view.js";

/** The snapshot's path in the output folder. */
export const SNAPSHOT = "migrations/schema.json";

/** What the output folder held of an earlier generation: its snapshot and its migration files (path and text). */
export interface PreviousMigrations {
  readonly snapshot?: SchemaSnapshot;
  readonly migrations: readonly GeneratedFile[];
}

/** The PostgreSQL part of a generation: the view for the template, the files to write, the destructive changes withheld. */
export interface PostgresFiles {
  readonly view: PostgresView;
  readonly files: readonly GeneratedFile[];
  readonly warnings: readonly string[];
}

/** Reads a snapshot's text; anything that is not one is no snapshot (a first migration then creates every table). */
export function parseSnapshot(text: string | undefined): SchemaSnapshot | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<SchemaSnapshot>;
    return value.codegen === 1 && Array.isArray(value.tables) ? (value as SchemaSnapshot) : undefined;
  } catch {
    return undefined;
  }
}

/** The snapshot file, with its data: the manifest hashes its shape from that, not by parsing it back (src/write/plan.ts). */
const snapshotFile = (snapshot: SchemaSnapshot): DataFile => ({ path: SNAPSHOT, contents: JSON.stringify(snapshot, null, 2) + "\n", data: snapshot });

/** The migrations an earlier run left that count (their file names say so), in their order. */
export function keptMigrations(previous: PreviousMigrations): GeneratedFile[] {
  return previous.migrations.filter((m) => MIGRATION_FILE.test(m.path)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The migrations, snapshot and store view of a model (whose tables were named after `previous`), after what the folder held. */
export function postgresFiles(view: ApiModel, document: unknown, previous: PreviousMigrations = { migrations: [] }): PostgresFiles {
  const kept = keptMigrations(previous);
  const snapshot = view.tables;
  // Why: without a snapshot, a folder whose migrations were kept still has its tables; only a
  // folder with neither starts from an empty database.
  const change = kept.length > 0 && previous.snapshot === undefined ? undefined : schemaChange(previous.snapshot, snapshot);
  const last = kept.length === 0 ? 0 : Number(MIGRATION_FILE.exec(kept[kept.length - 1]!.path)![1]);
  const added = change !== undefined && !isEmpty(change) ? [{ path: `migrations/${migrationName(last, change)}`, contents: migrationText(change) }] : [];
  const migrations: Migration[] = [...kept, ...added].map((m) => ({ name: m.path.slice("migrations/".length), sql: m.contents }));
  return {
    view: postgresView(view, document, snapshot, migrations),
    files: [...kept, ...added, snapshotFile(snapshot)],
    warnings: added.length > 0 ? change!.warnings.map((w) => `${w} (written commented out in ${added[0]!.path}, not applied)`) : [],
  };
}
