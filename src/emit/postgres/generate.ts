/**
 * The PostgreSQL files of a generation: the migrations kept in the output folder
 * (`migrations/NNNN_<words>.sql`, never rewritten), a new one when `codegen migrate new` asks
 * for it, the snapshot `migrations/schema.json` of the tables they reach, and the migrations
 * the store applies. Pure: what the folder held comes in as `previous`.
 */
import type { ApiModel } from "../../model/api-model.js";
import type { DataFile, GeneratedFile } from "../render.js";
import { MIGRATION_FILE, type SchemaChange, isEmpty, migrationName, migrationSpec, migrationText, schemaChange } from "./migrations.js";
import type { SchemaSnapshot } from "../../model/tables.js";
import type { MigrationSpec } from "#runtime/migrate.gen.js";

/** The snapshot's path in the output folder. */
export const SNAPSHOT = "migrations/schema.json";

/** What the output folder held of an earlier generation: its snapshot and its migration files (path and text). */
export interface PreviousMigrations {
  readonly snapshot?: SchemaSnapshot;
  readonly migrations: readonly GeneratedFile[];
}

/** The PostgreSQL part of a generation: the migrations the store applies, the files to write, the destructive changes withheld. */
export interface PostgresFiles {
  readonly migrations: readonly MigrationSpec[];
  readonly files: readonly GeneratedFile[];
  readonly warnings: readonly string[];
  /** The change of the tables the declaration holds beyond the folder's migrations (absent: none). */
  readonly pending?: SchemaChange;
  /** The migration written on request (`migrations/0002_add_pets_color.sql`). */
  readonly written?: string;
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

/** `codegen migrate new`'s request: write the next migration, named `name` (default: words of the change). */
export interface MigrationRequest {
  readonly name?: string | undefined;
}

/**
 * The migration files, snapshot and applied migrations of an API, after what the folder held.
 * Without `request` no migration is written: the folder's migrations and snapshot are kept as
 * they are, and `pending` is what the declaration changes beyond them (none for a folder without
 * any migration, which has not taken up PostgreSQL). With `request`, the next migration captures
 * that change and the snapshot becomes the declaration's, unless the change is refused.
 */
export function postgresFiles(view: ApiModel, previous: PreviousMigrations = { migrations: [] }, request?: MigrationRequest): PostgresFiles {
  const kept = keptMigrations(previous);
  // The model's tables were named after the folder's history (snapshot and migrations).
  const snapshot = view.tables;
  // Why: without a snapshot, a folder whose migrations were kept still has its tables; only a
  // folder with neither starts from an empty database.
  const change = kept.length > 0 && previous.snapshot === undefined ? undefined : schemaChange(previous.snapshot, snapshot);
  const write = request !== undefined && change !== undefined && !isEmpty(change) && change.refused.length === 0;
  const last = kept.length === 0 ? 0 : Number(MIGRATION_FILE.exec(kept[kept.length - 1]!.path)![1]);
  const added = write ? [{ path: `migrations/${migrationName(last, change, request.name)}`, contents: migrationText(change) }] : [];
  const migrations = [...kept, ...added].map((m) => migrationSpec(m.path, m.contents));
  const recorded = write ? snapshot : previous.snapshot;
  const opted = kept.length > 0 || previous.snapshot !== undefined;
  return {
    migrations,
    files: [...kept, ...added, ...(recorded !== undefined ? [snapshotFile(recorded)] : [])],
    warnings: write ? change.warnings.map((w) => `${w} (written commented out in ${added[0]!.path}, not applied)`) : [],
    ...(change !== undefined && !isEmpty(change) && (opted || request !== undefined) ? { pending: change } : {}),
    ...(write ? { written: added[0]!.path } : {}),
  };
}
