// A copy of templates/runtime/migrate.gen.ts (codegen migrate and serve --db apply migrations and
// quote identifiers with the generated code's own functions; tsc's rootDir keeps templates/ out of
// dist). test/postgres/migrations.test.ts keeps the two equal; npm run test:update rewrites this copy.
// Applying migrations of the PostgreSQL tables through a `query` function the application gives
// (no import of a database client), and the one quoting of identifiers in SQL.

/** Runs one SQL statement with bind parameters `$1...`: pg's `Pool.query`, PGlite's `query`. */
export type Query = (text: string, params?: unknown[]) => Promise<{ readonly rows: readonly { readonly [column: string]: unknown }[] }>;

/** A migration: its name and its statements, applied in one transaction. */
export type MigrationSpec = { readonly name: string; readonly statements: readonly string[] };

/** The table that records applied migrations (a collection's table never starts with `_`). */
export const MIGRATIONS_TABLE = "_codegen_migrations";

/** A quoted identifier: `"name"`, double quotes doubled (the one way a name enters SQL). */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Applies the migrations not yet recorded, in order, each in a transaction with its record;
 * answers the names applied. `query` must run on ONE connection (a pg `Client`, or a client of
 * `pool.connect()`; PGlite is one): a transaction spans several statements. Two instances
 * starting at once take turns through an advisory lock.
 */
export async function applyMigrations(query: Query, migrations: readonly MigrationSpec[]): Promise<string[]> {
  const table = quoteIdentifier(MIGRATIONS_TABLE);
  const applied: string[] = [];
  await query(`CREATE TABLE IF NOT EXISTS ${table} ("name" text PRIMARY KEY, "applied_at" timestamptz NOT NULL DEFAULT now(), "schema" jsonb)`);
  for (const migration of migrations) {
    await query("BEGIN");
    try {
      // Why: one fixed key for every instance, held until the transaction ends.
      await query("SELECT pg_advisory_xact_lock(7316028)");
      const done = await query(`SELECT 1 FROM ${table} WHERE "name" = $1`, [migration.name]);
      if (done.rows.length === 0) {
        for (const statement of migration.statements) await query(statement);
        await query(`INSERT INTO ${table} ("name") VALUES ($1)`, [migration.name]);
        applied.push(migration.name);
      }
      await query("COMMIT");
    } catch (error) {
      await query("ROLLBACK");
      throw error;
    }
  }
  return applied;
}
