/**
 * The databases `codegen serve --db` and `codegen migrate --db` open (issue 15): a PostgreSQL
 * server through `pg` (`postgres://...`), or PGlite keeping its data in a folder; and how serve
 * brings a database's tables to a declaration's (snapshots kept in the migrations table).
 */
import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { MIGRATIONS_TABLE, type MigrationSpec, type Query, applyMigrations, quoteIdentifier } from "#runtime/migrate.gen.js";
import { schemaChange } from "./migrations.js";
import type { SchemaSnapshot } from "./tables.js";

/** An open database: `query` for the store (a pool with pg), `session` for work that needs one connection. */
export interface Database {
  readonly query: Query;
  /** Runs `work` on one connection (transactions), released afterwards. */
  session<T>(work: (query: Query) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Whether `--db` names a PostgreSQL server rather than a folder. */
export const isDatabaseUrl = (target: string): boolean => /^postgres(ql)?:\/\//i.test(target);

/** Opens `--db`: a `postgres://` URL through a pg pool, anything else a PGlite folder (created when missing). */
export async function openDatabase(target: string, cwd: string): Promise<Database> {
  if (isDatabaseUrl(target)) {
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({ connectionString: target, max: 10 });
    // Why: an idle connection the server drops must not end the process (pg emits 'error' on the pool).
    pool.on("error", () => {});
    const query: Query = async (text, params) => pool.query(text, params);
    return {
      query,
      session: async (work) => {
        const client = await pool.connect();
        try {
          return await work(async (text, params) => client.query(text, params));
        } finally {
          client.release();
        }
      },
      close: () => pool.end(),
    };
  }
  const folder = path.resolve(cwd, target);
  await mkdir(folder, { recursive: true });
  const { PGlite } = await import("@electric-sql/pglite");
  const db = await PGlite.create(folder);
  const query: Query = async (text, params) => db.query(text, params);
  // PGlite is one connection in this process: a session is that connection.
  return { query, session: (work) => work(query), close: () => db.close() };
}

/** Applies migration files (a folder's `migrations/`) the database lacks; answers their names. */
export function applyMigrationFiles(database: Database, migrations: readonly MigrationSpec[]): Promise<string[]> {
  return database.session((query) => applyMigrations(query, migrations));
}

/**
 * Brings the tables of a database `codegen serve` keeps to `snapshot`: the change from the last
 * snapshot recorded there (none: an empty database), applied in one transaction with its record.
 * Destructive changes are not applied: answered as warnings.
 */
export async function evolveSchema(database: Database, snapshot: SchemaSnapshot): Promise<{ applied: boolean; warnings: readonly string[] }> {
  const table = quoteIdentifier(MIGRATIONS_TABLE);
  const text = JSON.stringify(snapshot);
  return database.session(async (query) => {
    await applyMigrations(query, []);
    await query("BEGIN");
    try {
      await query("SELECT pg_advisory_xact_lock(7316028)");
      const { rows } = await query(`SELECT "schema" FROM ${table} WHERE "schema" IS NOT NULL ORDER BY "applied_at" DESC, "name" DESC LIMIT 1`);
      const last = rows[0]?.schema as SchemaSnapshot | undefined;
      if (last !== undefined && JSON.stringify(last) === text) {
        await query("COMMIT");
        return { applied: false, warnings: [] };
      }
      const change = schemaChange(last, snapshot);
      for (const statement of change.statements) await query(statement);
      const name = `serve_${createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
      await query(
        `INSERT INTO ${table} ("name", "schema") VALUES ($1, $2::jsonb) ON CONFLICT ("name") DO UPDATE SET "applied_at" = now(), "schema" = EXCLUDED."schema"`,
        [name, text],
      );
      await query("COMMIT");
      return { applied: true, warnings: change.warnings };
    } catch (error) {
      await query("ROLLBACK");
      throw error;
    }
  });
}
