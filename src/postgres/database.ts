/**
 * The databases `codegen serve --db` and `codegen migrate --db` open: a PostgreSQL
 * server through `pg` (`postgres://...`), or PGlite keeping its data in a folder; and how serve
 * brings a database's tables to a declaration's (snapshots kept in the migrations table).
 */
import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { type Diagnostic, diagnostic } from "../diagnostics/index.js";
import {
  MIGRATIONS_TABLE,
  type MigrationSpec,
  type Query,
  applyMigrations,
  applyStatement,
  quoteIdentifier,
  underMigrationLock,
} from "#runtime/migrate.gen.js";
import { poolQuery } from "#runtime/postgres.gen.js";
import { refusalDiagnostic } from "./evolution.js";
import { schemaChange } from "../emit/postgres/migrations.js";
import { notAFolder } from "../write/target.js";
import type { SchemaSnapshot } from "../model/tables.js";

/** An open database: `query` for the store (a pool with pg), `session` for work that needs one connection. */
export interface Database {
  readonly query: Query;
  /** Runs `work` on one connection (transactions), released afterwards. */
  session<T>(work: (query: Query) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Whether `--db` names a PostgreSQL server rather than a folder. */
export const isDatabaseUrl = (target: string): boolean => /^postgres(ql)?:\/\//i.test(target);

/**
 * A database that could not be opened, or a step on it that failed: what failed, and the
 * database's own message on one line (a library's error may carry a stack, or a line of its
 * minified source, which a user of the command line never needs).
 */
export class DatabaseProblem extends Error {
  constructor(
    /** What failed, in words: "cannot open", "the migration 0002_add_loans failed". */
    readonly what: string,
    /** The database's (or the system's) message, on one line. */
    readonly reason: string,
  ) {
    super(`${what}: ${reason}`);
  }
}

/** The `what` of a database that could not be opened. */
export const OPENING = "cannot open the database";

/** An error's message on one line, at most 300 characters; `code` added when the message lacks it (`ECONNREFUSED`). */
export function reasonOf(error: unknown): string {
  const { message = String(error), code } = (error instanceof Error ? error : {}) as { message?: string; code?: unknown };
  // Why the first line only: PGlite's errors can carry the minified line of its source they came from.
  const first = (message.split(/\r?\n/).find((line) => line.trim() !== "") ?? "").trim() || "unknown error";
  const withCode = typeof code === "string" && /^E[A-Z]+$/.test(code) && !first.includes(code) ? `${first} (${code})` : first;
  return withCode.length > 300 ? `${withCode.slice(0, 299)}…` : withCode;
}

/** `--db` as it may be shown: a URL's password replaced by `***` (it would land in logs and terminals). */
export function shownDatabase(target: string): string {
  if (!isDatabaseUrl(target)) return target;
  try {
    const url = new URL(target);
    if (url.password === "") return target;
    url.password = "***";
    return url.toString();
  } catch {
    return "the postgres:// URL given";
  }
}

/** The diagnostic of a `DatabaseProblem` on `--db` (shown without its password), or undefined for any other error. */
export function databaseDiagnostic(error: unknown, target: string): Diagnostic | undefined {
  if (!(error instanceof DatabaseProblem)) return undefined;
  const db = shownDatabase(target);
  return error.what === OPENING
    ? diagnostic("db/unavailable", { db, reason: error.reason })
    : diagnostic("db/failed", { db, what: error.what, reason: error.reason });
}

/** How long a connection to a PostgreSQL server may take before the attempt fails (an unreachable host otherwise waits minutes). */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Opens `--db`: a `postgres://` URL through a pg pool, anything else a PGlite folder (created when
 * missing). Rejects with `DatabaseProblem` when it cannot: a folder that is a file, a server that
 * refuses, cannot be reached or refuses the login; a server is asked once (`SELECT 1`) before this
 * answers, so that a command fails here with the reason rather than at its first query.
 */
export async function openDatabase(target: string, cwd: string): Promise<Database> {
  const cannot = (error: unknown) => new DatabaseProblem(OPENING, reasonOf(error));
  if (isDatabaseUrl(target)) {
    const { default: pg } = await import("pg");
    let pool: InstanceType<typeof pg.Pool>;
    try {
      pool = new pg.Pool({ connectionString: target, max: 10, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    } catch (error) {
      throw cannot(error);
    }
    // Why the store's own pool query: an idle connection the server drops must not end the
    // process (pg emits 'error' on the pool), and a full pool answers 503 past a bounded queue.
    const query = poolQuery(pool);
    try {
      await pool.query("SELECT 1");
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw cannot(error);
    }
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
  const { PGlite } = await import("@electric-sql/pglite");
  let db: InstanceType<typeof PGlite>;
  try {
    // Why: PGlite keeps its data in a folder; a file, pipe or device there is the user's, never a database.
    const what = notAFolder(folder);
    if (what !== undefined) throw new Error(`it is ${what}, not a folder (PGlite keeps its data in a folder)`);
    await mkdir(folder, { recursive: true });
    db = await PGlite.create(folder);
  } catch (error) {
    throw cannot(error);
  }
  const query: Query = async (text, params) => db.query(text, params);
  // PGlite is one connection in this process: a session is that connection.
  return { query, session: (work) => work(query), close: () => db.close() };
}

/**
 * Applies migration files (a folder's `migrations/`) the database lacks; answers their names.
 * One at a time, so that a failure names its migration (`DatabaseProblem`); each is still one
 * transaction, rolled back when it fails, and those before it stay applied.
 */
export async function applyMigrationFiles(database: Database, migrations: readonly MigrationSpec[]): Promise<string[]> {
  const applied: string[] = [];
  await guarded("applying the migrations failed", () =>
    database.session(async (query) => {
      if (migrations.length === 0) await applyMigrations(query, []);
      for (const migration of migrations) {
        applied.push(...(await guarded(`the migration ${migration.name} failed and was rolled back`, () => applyMigrations(query, [migration]))));
      }
    }),
  );
  return applied;
}

/** `work`, its failure a `DatabaseProblem` saying `what`. */
async function guarded<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof DatabaseProblem ? error : new DatabaseProblem(what, reasonOf(error));
  }
}

/** What refuses a change: the tables it would break hold rows. */
const REFUSED = "the declaration changes tables that hold rows in a way their rows would not survive";

/**
 * Brings the tables of a database `codegen serve` keeps to the declaration's, `tablesAfter` the
 * last snapshot recorded there (none: an empty database): the change between them, by the rules
 * of migrations (docs/migrations.md), applied in one transaction with its record, and no file
 * written. Destructive changes are not applied: answered as warnings. A change refused for
 * migrations is applied only to a table without rows (nothing stored can be lost); on one with
 * rows it fails, naming the fix, and the database stays as it was.
 */
export async function evolveSchema(
  database: Database,
  tablesAfter: (last: SchemaSnapshot | undefined) => SchemaSnapshot,
): Promise<{ applied: boolean; warnings: readonly string[] }> {
  const table = quoteIdentifier(MIGRATIONS_TABLE);
  return guarded("bringing the tables to the declaration failed", () =>
    database.session((query) =>
      underMigrationLock(query, async () => {
        const { rows } = await query(`SELECT "schema" FROM ${table} WHERE "schema" IS NOT NULL ORDER BY "applied_at" DESC, "name" DESC LIMIT 1`);
        const last = rows[0]?.schema as SchemaSnapshot | undefined;
        const snapshot = tablesAfter(last);
        const text = JSON.stringify(snapshot);
        if (last !== undefined && JSON.stringify(last) === text) return { applied: false, warnings: [] };
        const change = schemaChange(last, snapshot);
        const blocking: string[] = [];
        for (const refusal of change.refused) {
          const name = last?.tables.find((t) => t.collection === refusal.collection)?.table;
          const holdsRows = refusal.rule === "id-type" || name === undefined || (await query(`SELECT 1 FROM ${quoteIdentifier(name)} LIMIT 1`)).rows.length > 0;
          if (holdsRows) blocking.push(refusalDiagnostic(refusal, () => undefined).message);
        }
        if (blocking.length > 0) throw new DatabaseProblem(REFUSED, blocking.join("; "));
        // Why tolerant without a snapshot but with migrations recorded: `codegen migrate` or the
        // generated `migrate()` created the tables (they record no snapshot); what stands is kept.
        // A table of the same name that codegen never recorded is someone else's: refused.
        const migrated = last === undefined && (await query(`SELECT 1 FROM ${table} LIMIT 1`)).rows.length > 0;
        for (const statement of change.statements) await applyStatement(query, statement, migrated);
        const name = `serve_${createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
        await query(
          `INSERT INTO ${table} ("name", "schema") VALUES ($1, $2::jsonb) ON CONFLICT ("name") DO UPDATE SET "applied_at" = now(), "schema" = EXCLUDED."schema"`,
          [name, text],
        );
        return { applied: true, warnings: change.warnings };
      }),
    ),
  );
}
