// Migrations that any number of instances run at once on a fresh database (docs/cli.md,
// "codegen migrate"): every runner takes the advisory lock before anything else, so all but one
// wait and none fails; and `serve --db` and `codegen migrate` prepare one database in either order.

import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrationFiles, openDatabase } from "../../src/postgres/database.js";
import { MIGRATION_FILE, statementsOf } from "../../src/emit/postgres/migrations.js";
import { serveFiles } from "../../src/serve/serve.js";
import { type MigrationSpec, applyMigrations } from "#runtime/migrate.gen.js";
import { call, issueToken, obj } from "../http/support.js";
import { ROOT } from "../support/fixtures.js";
import { generateFixture } from "../support/generated.js";
import { type PostgresServer, postgresSkipReason, startPostgres } from "./server.js";

const skip = postgresSkipReason();
const user = { name: "ann", password: "secret", scopes: ["library:read", "library:write", "loans:write"] };

/** The lending fixture's migrations as a generation writes them (and the generated `migrate()` holds). */
let migrations: MigrationSpec[] = [];
const lendingMigrations = () => migrations;

describe.skipIf(skip !== undefined)(`migrations on a fresh PostgreSQL database${skip ? ` (${skip})` : ""}`, () => {
  let postgres: PostgresServer;

  beforeAll(async () => {
    postgres = await startPostgres();
    migrations = (await generateFixture("lending"))
      .filter((f) => MIGRATION_FILE.test(f.path))
      .map((f) => ({ name: path.posix.basename(f.path, ".sql"), statements: statementsOf(f.contents) }));
    expect(migrations.length).toBeGreaterThan(0);
  }, 120_000);

  afterAll(async () => {
    await postgres?.stop();
  });

  it("24 concurrent migrate() runs on their own connections all succeed, and the migrations apply once", async () => {
    const url = await postgres.createDatabase("concurrent");
    const { default: pg } = await import("pg");
    const clients = Array.from({ length: 24 }, () => new pg.Client({ connectionString: url }));
    await Promise.all(clients.map((c) => c.connect()));
    try {
      const results = await Promise.allSettled(clients.map((c) => applyMigrations((text, params) => c.query(text, params), migrations)));
      const rejected = results.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason));
      expect(rejected).toEqual([]);
      const applied = results.flatMap((r) => (r.status === "fulfilled" ? r.value : []));
      // Each migration applied by exactly one runner.
      expect(applied.sort()).toEqual(migrations.map((m) => m.name).sort());
      const { rows } = await clients[0]!.query(`SELECT "name" FROM "_codegen_migrations" ORDER BY "name"`);
      expect(rows.map((r: { name: string }) => r.name)).toEqual(migrations.map((m) => m.name));
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  }, 60_000);

  it("two instances started at once on one fresh database both start, migrate it once and answer", async () => {
    const url = await postgres.createDatabase("two_instances");
    const files = await generateFixture("lending");
    const databases = await Promise.all([openDatabase(url, ROOT), openDatabase(url, ROOT)]);
    const servers = await Promise.allSettled(databases.map((database) => serveFiles(files, { port: 0, host: "127.0.0.1", users: [user], database })));
    try {
      expect(servers.filter((s) => s.status === "rejected").map((s) => String((s as PromiseRejectedResult).reason))).toEqual([]);
      const ids: number[] = [];
      for (const started of servers) {
        const server = (started as PromiseFulfilledResult<Awaited<ReturnType<typeof serveFiles>>>).value;
        const base = server.url + server.basePath;
        const token = await issueToken(base, user, user.scopes);
        const book = await call(base, "POST", "/books", { token, json: { title: "Dune", author: "Herbert" } });
        expect(book.status, book.text).toBe(201);
        ids.push(obj(book).id as number);
      }
      // One table for both: each instance reads what the other wrote.
      const { rows } = await databases[0]!.query(`SELECT "id" FROM "books" ORDER BY "id"`);
      expect(rows.map((r) => Number(r.id))).toEqual(ids.sort((a, b) => a - b));
    } finally {
      for (const started of servers) if (started.status === "fulfilled") await started.value.close();
      for (const database of databases) await database.close();
    }
  }, 60_000);

  it("serve --db works on a database codegen migrate prepared", async () => {
    const url = await postgres.createDatabase("migrate_then_serve");
    const migrating = await openDatabase(url, ROOT);
    try {
      expect(await applyMigrationFiles(migrating, lendingMigrations())).toEqual(lendingMigrations().map((m) => m.name));
    } finally {
      await migrating.close();
    }
    const database = await openDatabase(url, ROOT);
    const server = await serveFiles(await generateFixture("lending"), { port: 0, host: "127.0.0.1", users: [user], database });
    try {
      const base = server.url + server.basePath;
      const token = await issueToken(base, user, user.scopes);
      const book = await call(base, "POST", "/books", { token, json: { title: "Dune", author: "Herbert" } });
      expect(book.status, book.text).toBe(201);
      expect(obj(await call(base, "GET", `/books/${String(obj(book).id)}`, { token })).title).toBe("Dune");
    } finally {
      await server.close();
      await database.close();
    }
  }, 60_000);

  it("codegen migrate works on a database serve --db prepared, and keeps its rows", async () => {
    const url = await postgres.createDatabase("serve_then_migrate");
    const database = await openDatabase(url, ROOT);
    const server = await serveFiles(await generateFixture("lending"), { port: 0, host: "127.0.0.1", users: [user], database });
    const base = server.url + server.basePath;
    try {
      const token = await issueToken(base, user, user.scopes);
      const book = await call(base, "POST", "/books", { token, json: { title: "Dune", author: "Herbert" } });
      expect(book.status, book.text).toBe(201);
      const migrating = await openDatabase(url, ROOT);
      try {
        expect(await applyMigrationFiles(migrating, lendingMigrations())).toEqual(lendingMigrations().map((m) => m.name));
        // A second run finds them applied.
        expect(await applyMigrationFiles(migrating, lendingMigrations())).toEqual([]);
      } finally {
        await migrating.close();
      }
      expect(obj(await call(base, "GET", `/books/${String(obj(book).id)}`, { token })).title).toBe("Dune");
    } finally {
      await server.close();
      await database.close();
    }
  }, 60_000);
});
