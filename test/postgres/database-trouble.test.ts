// A database restart under load (http-behaviour "Running in production"): writes answered 201
// before, during and after `pg_ctl stop` / `start` are all there afterwards; while the database is
// away the server answers 503 with `Retry-After` and the error body, never 500; the same process
// answers again once it is back. And a pool given to the store handles its idle-connection errors
// itself, and refuses at once past its waiting queue.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/postgres/database.js";
import { type RunningServer, serveFiles } from "../../src/serve/serve.js";
import { StoreUnavailableError } from "#runtime/http.gen.js";
import { poolQuery } from "#runtime/postgres.gen.js";
import { call, issueToken, obj } from "../http/support.js";
import { ROOT } from "../support/fixtures.js";
import { open, statusOf } from "../support/raw-connection.js";
import { generateFixture } from "../support/generated.js";
import { type PostgresServer, postgresSkipReason, startPostgres } from "./server.js";

const skip = postgresSkipReason();
const user = { name: "ann", password: "secret", scopes: ["library:read", "library:write", "loans:write"] };

describe.skipIf(skip !== undefined)(`a PostgreSQL restart under load${skip ? ` (${skip})` : ""}`, () => {
  let postgres: PostgresServer;
  let database: Database;
  let server: RunningServer;
  let base: string;
  let token: string;

  beforeAll(async () => {
    postgres = await startPostgres();
    const url = await postgres.createDatabase("trouble");
    database = await openDatabase(url, ROOT);
    server = await serveFiles(await generateFixture("lending"), { port: 0, host: "127.0.0.1", users: [user], database });
    base = server.url + server.basePath;
    token = await issueToken(base, user, user.scopes);
  }, 120_000);

  /** Whether the last test shut the server down already. */
  let closed = false;

  afterAll(async () => {
    if (!closed) await server?.close();
    await database?.close();
    await postgres?.stop();
  });

  it("no acknowledged write is lost; 503 with Retry-After while away; the same process answers after", async () => {
    const acknowledged: number[] = [];
    const statuses = new Map<number, number>();
    let writing = true;
    // 8 writers, each one request at a time, until told to stop (bounded load).
    const writer = async (w: number) => {
      for (let i = 0; writing && i < 500; i++) {
        const reply = await call(base, "POST", "/books", { token, json: { title: `w${w}-${i}`, author: "Herbert" } });
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        if (reply.status === 201) acknowledged.push(obj(reply).id as number);
        else {
          expect(reply.status, reply.text).toBe(503);
          expect(reply.headers.get("retry-after")).toMatch(/^[0-9]+$/);
          expect(obj(reply).error).toBe("Service unavailable");
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    while (acknowledged.length < 40) await new Promise((resolve) => setTimeout(resolve, 20));
    await postgres.halt();
    // While the database is away: every request touching it is 503 at once, never 500.
    const away = await call(base, "GET", "/books", { token });
    expect(away.status, away.text).toBe(503);
    expect(away.headers.get("retry-after")).toMatch(/^[0-9]+$/);
    const before = acknowledged.length;
    await postgres.resume();
    // The same process answers again by itself.
    for (let tries = 0; tries < 200; tries++) {
      if ((await call(base, "GET", "/books?limit=1", { token })).status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    while (acknowledged.length < before + 40) await new Promise((resolve) => setTimeout(resolve, 20));
    writing = false;
    await Promise.all(writers);
    expect([...statuses.keys()].sort()).toEqual([201, 503]);
    // Every write answered 201 is there.
    const { rows } = await database.query(`SELECT "id" FROM "books"`);
    const stored = new Set(rows.map((r) => Number(r.id)));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
  }, 120_000);

  it("a pool given to the store survives its idle connections being ended, and refuses at once past its queue", async () => {
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({ connectionString: postgres.url("trouble"), max: 1 });
    const told: Error[] = [];
    const query = poolQuery(pool, { maxQueue: 2, onError: (error) => told.push(error) });
    try {
      await query("SELECT 1");
      // The idle connection ended by the server: pg emits 'error' on the pool (no listener: the process would exit).
      const admin = new pg.Client({ connectionString: postgres.url("trouble") });
      await admin.connect();
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'trouble' AND pid <> pg_backend_pid() AND application_name = ''`,
      );
      await admin.end();
      for (let tries = 0; told.length === 0 && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(told.length).toBeGreaterThan(0);
      expect((await query("SELECT 1 AS one")).rows[0]).toEqual({ one: 1 });
      // One query holds the connection, two wait: the fourth is refused at once.
      const sleeping = query("SELECT pg_sleep(0.5)");
      for (let tries = 0; pool.waitingCount > 0 && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 5));
      const queued = [query("SELECT 1"), query("SELECT 1")];
      expect(pool.waitingCount).toBe(2);
      await expect(query("SELECT 1")).rejects.toBeInstanceOf(StoreUnavailableError);
      await Promise.all([sleeping, ...queued]);
    } finally {
      await pool.end();
    }
  }, 60_000);
  // Last: it shuts the server down.
  it("a shutdown with writes in flight answers every one 201, and each is in the database", async () => {
    const url = new URL(base);
    const body = JSON.stringify({ title: "In flight at shutdown", author: "Herbert" });
    const half = Math.floor(body.length / 2);
    // 20 writes whose bodies are half sent when the shutdown begins (codegen serve's SIGTERM).
    const writes = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const connection = await open(url);
        connection.socket.write(
          `POST ${url.pathname.replace(/\/$/, "")}/books HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`,
        );
        return connection;
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    closed = true;
    const closing = server.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const { socket } of writes) socket.write(body.slice(half));
    const answers = await Promise.all(writes.map((w) => w.answer));
    expect(answers.map(statusOf), answers[0]).toEqual(Array.from({ length: 20 }, () => 201));
    await closing;
    const ids = answers.map((answer) => (JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as { id: number }).id);
    const { rows } = await database.query(`SELECT "id" FROM "books" WHERE "id" = ANY($1::bigint[])`, [ids]);
    expect(rows.length).toBe(20);
  }, 60_000);
});
