// Deadlines (http-behaviour "Running in production", "Deadlines"), over real HTTP on the
// in-memory store, PGlite and a real PostgreSQL server: a request whose deadline passes is
// answered 504 with the error body and changes nothing, then or later; a row held locked by
// another session makes only the requests on that row wait (504 at their deadline) while the
// others answer, and leaves no session waiting behind; a client that goes away cancels its
// query in the database.

import { request as httpRequest } from "node:http";
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CompiledApi, type HandlerFunction, type Json, call, closeLocal, compileFixture, listenLocal, obj } from "../http/support.js";
import { type PostgresServer, postgresSkipReason, startPostgres } from "./server.js";

const skip = postgresSkipReason();
const principal = { subject: "ann", scopes: ["articles:read", "articles:write", "authors:write"] };
const token = "good";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Query = (text: string, params?: unknown[]) => Promise<{ rows: Json[] }>;
/** What the compiled blog API exports beside CompiledApi's. */
type StoreApi = CompiledApi & {
  createPostgresStore(options: { query: Query } | { pool: unknown }): { [resource: string]: { [operation: string]: HandlerFunction } };
  migrate(options: { query: Query }): Promise<string[]>;
};
type Handlers = { [resource: string]: { [operation: string]: HandlerFunction } };

let compiled: { api: CompiledApi; dispose(): Promise<void> };
let postgres: PostgresServer | undefined;
const api = () => compiled.api as StoreApi;
/** Opened by the tests, closed after them (servers, pools, databases). */
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  compiled = await compileFixture("blog");
  if (skip === undefined) postgres = await startPostgres();
}, 120_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await postgres?.stop();
  await compiled?.dispose();
});

/** A server of the blog API on these handlers, with this deadline. */
async function serve(handlers: Handlers, handlerTimeout: number): Promise<string> {
  const server: Server = api().createServer({ handlers, verifyToken: () => principal, handlerTimeout } as Parameters<CompiledApi["createServer"]>[0]);
  const base = await listenLocal(server);
  cleanups.push(() => closeLocal(server));
  return base;
}

/** A fresh database on the test server, migrated; a pg Pool of `max` connections on it, and an admin client. */
async function serverDatabase(name: string, max: number) {
  const { default: pg } = await import("pg");
  const url = await postgres!.createDatabase(name);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  cleanups.push(() => admin.end());
  await api().migrate({ query: (text, params) => admin.query(text, params) as Promise<{ rows: Json[] }> });
  const pool = new pg.Pool({ connectionString: url, max, application_name: "codegen-store" });
  cleanups.push(() => pool.end());
  return { url, admin, pool };
}

/** The sessions of the store's pool that wait for a lock (pg_stat_activity). */
async function waitingSessions(admin: { query: Query }): Promise<number> {
  const { rows } = await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'codegen-store' AND wait_event_type = 'Lock'`);
  return rows[0]!.n as number;
}

/** Polls `check` until it holds (generous bound: a failure, not a measure of time). */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 400; tries++) {
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`never: ${what}`);
}

const stores = ["memory", "pglite", ...(skip === undefined ? ["postgres"] : [])] as const;

// The handler's own work ends within the grace after the deadline, or after the 504 was sent.
const waits = stores.flatMap(
  (store) =>
    [
      [store, "within the grace", 50],
      [store, "after the 504", 900],
    ] as const,
);

describe.each(waits)("a deadline that passes while a handler waits (%s store, its store call %s)", (store, _when, beyond) => {
  it("answers 504 with the error body, and the store applies nothing then or later", async () => {
    let handlers: Handlers;
    if (store === "memory") handlers = api().createMemoryHandlers();
    else if (store === "pglite") {
      const { PGlite } = await import("@electric-sql/pglite");
      const db = await PGlite.create();
      cleanups.push(() => db.close());
      const query: Query = (text, params) => db.query(text, params) as Promise<{ rows: Json[] }>;
      await api().migrate({ query });
      handlers = api().createPostgresStore({ query });
    } else handlers = api().createPostgresStore({ pool: (await serverDatabase(`late_${beyond}`, 4)).pool });
    const DEADLINE = 400;
    const authors = handlers["authors"]!;
    let slowCalls = 0;
    // The application's handler does slow work of its own that ignores the signal, then writes
    // through the store with the request's signal: past the deadline, the store must refuse.
    const slowUpdate: HandlerFunction = async (input) => {
      slowCalls++;
      await sleep(DEADLINE + beyond);
      return authors["updateAuthor"]!(input);
    };
    const base = await serve({ ...handlers, authors: { ...authors, updateAuthor: slowUpdate } }, DEADLINE);
    const created = await call(base, "POST", "/authors", { token, json: { name: "Ann", email: "ann@example.org" } });
    expect(created.status, created.text).toBe(201);
    const href = `/authors/${String(obj(created).id)}`;
    const late = await call(base, "PATCH", href, { token, json: { name: "Changed too late" } });
    expect(late.status, late.text).toBe(504);
    expect(late.body).toEqual({ error: "Gateway timeout", detail: {} });
    expect(slowCalls).toBe(1);
    // Well after the handler's own work ended: still nothing applied.
    await sleep(DEADLINE + beyond);
    expect(obj(await call(base, "GET", href)).name).toBe("Ann");
  }, 120_000);
});

describe.skipIf(skip !== undefined)(`a row locked by another session (PostgreSQL)${skip ? ` (${skip})` : ""}`, () => {
  it("makes only the requests on that row wait, 504 at their deadline, none left waiting, nothing applied", async () => {
    const { admin, url, pool } = await serverDatabase("locked", 4);
    const DEADLINE = 3_000;
    const base = await serve(api().createPostgresStore({ pool }), DEADLINE);
    const ids: string[] = [];
    for (const name of ["Locked", "Free"]) ids.push(String(obj(await call(base, "POST", "/authors", { token, json: { name, email: "a@example.org" } })).id));
    const [locked, free] = ids as [string, string];
    const { default: pg } = await import("pg");
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    cleanups.push(() => holder.end());
    await holder.query("BEGIN");
    await holder.query(`SELECT * FROM "authors" WHERE "id" = $1 FOR UPDATE`, [locked]);

    // Three times the pool's size of writers on the locked row (fetch without call's own time limit, which is below the deadline).
    let settled = 0;
    const writes = Array.from({ length: 12 }, (_, i) =>
      fetch(`${base}/authors/${locked}`, {
        method: "PUT",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ name: `w${i}`, email: "w@example.org" }),
      })
        .then(async (response) => ({ status: response.status, body: (await response.json()) as unknown }))
        .finally(() => settled++),
    );
    await eventually(async () => (await waitingSessions(admin)) > 0, "a writer waits for the row");
    // Meanwhile other rows, lists and creates answer, while every writer of the locked row still waits.
    for (let i = 0; i < 3; i++) {
      expect((await call(base, "GET", `/authors/${free}`)).status).toBe(200);
      const changed = await call(base, "PATCH", `/authors/${free}`, { token, json: { name: `Free ${i}` } });
      expect(changed.status, changed.text).toBe(200);
      expect((await call(base, "GET", "/authors")).status).toBe(200);
      expect((await call(base, "GET", `/authors/${locked}`)).status).toBe(200);
      expect((await call(base, "POST", "/authors", { token, json: { name: `New ${i}`, email: "n@example.org" } })).status).toBe(201);
    }
    expect(settled).toBe(0);

    const replies = await Promise.all(writes);
    for (const reply of replies) {
      expect(reply.status).toBe(504);
      expect(reply.body).toEqual({ error: "Gateway timeout", detail: {} });
    }
    // Nothing of them is left waiting in the database once they are answered.
    expect(await waitingSessions(admin)).toBe(0);
    await holder.query("COMMIT");
    // Nothing is applied after the 504s, even once the row is free.
    await sleep(300);
    const { rows } = await admin.query(`SELECT "name" FROM "authors" WHERE "id" = $1`, [locked]);
    expect(rows[0]!.name).toBe("Locked");
    const now = await call(base, "PUT", `/authors/${locked}`, { token, json: { name: "Unlocked", email: "u@example.org" } });
    expect(now.status, now.text).toBe(200);
  }, 60_000);

  it("a client that goes away cancels its query: nothing left running, nothing written", async () => {
    const { admin, url, pool } = await serverDatabase("gone", 4);
    const base = await serve(api().createPostgresStore({ pool }), 60_000);
    const id = String(obj(await call(base, "POST", "/authors", { token, json: { name: "Kept", email: "k@example.org" } })).id);
    const { default: pg } = await import("pg");
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    cleanups.push(() => holder.end());
    // The whole table locked: every statement on it waits, reads included.
    await holder.query("BEGIN");
    await holder.query(`LOCK TABLE "authors" IN ACCESS EXCLUSIVE MODE`);
    const { port } = new URL(base);
    const sent = [
      { method: "GET", path: "/authors", body: undefined },
      { method: "PUT", path: `/authors/${id}`, body: JSON.stringify({ name: "Written after its client left", email: "x@example.org" }) },
    ].map(({ method, path, body }) => {
      const req = httpRequest({
        host: "127.0.0.1",
        port,
        method,
        path,
        headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
      });
      req.on("error", () => undefined);
      req.end(body);
      return req;
    });
    await eventually(async () => (await waitingSessions(admin)) === 2, "both requests wait in the database");
    for (const req of sent) req.destroy();
    // The database is told: no query of theirs is left waiting, long before any deadline.
    await eventually(async () => (await waitingSessions(admin)) === 0, "the queries are cancelled");
    await holder.query("COMMIT");
    await sleep(300);
    const { rows } = await admin.query(`SELECT "name" FROM "authors" WHERE "id" = $1`, [id]);
    expect(rows[0]!.name).toBe("Kept");
    expect((await call(base, "GET", `/authors/${id}`)).status).toBe(200);
  }, 60_000);
});
