// Which store the HTTP suites' servers keep their objects in: the in-memory one, or the
// PostgreSQL store on PGlite or on a real PostgreSQL server (vitest.config.ts runs a subset of
// the suites once more for each, with CODEGEN_TEST_STORE set). Each server gets a fresh database.

import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import type { Database } from "../../src/postgres/database.js";

/** The store of this run of the suites. */
export const TEST_STORE = (process.env.CODEGEN_TEST_STORE ?? "memory") as "memory" | "pglite" | "postgres";

declare module "vitest" {
  export interface ProvidedContext {
    /** The URL of the PostgreSQL server test/postgres/global-setup.ts started (its `postgres` database). */
    postgresUrl: string;
  }
}

/** An in-memory PGlite database. */
export async function pgliteDatabase(): Promise<Database> {
  const { PGlite } = await import("@electric-sql/pglite");
  const db = await PGlite.create();
  const query: Database["query"] = async (text, params) => db.query(text, params);
  return { query, session: (work) => work(query), close: () => db.close() };
}

/** A fresh database on the server at `serverUrl` (its `postgres` database), opened through a pg pool. */
export async function serverDatabase(serverUrl: string): Promise<Database> {
  const { default: pg } = await import("pg");
  const { openDatabase } = await import("../../src/postgres/database.js");
  const name = `t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  return openDatabase(serverUrl.replace(/\/postgres$/, `/${name}`), process.cwd());
}

/** A fresh database of this run's store, or undefined for the in-memory store. */
export async function testDatabase(): Promise<Database | undefined> {
  if (TEST_STORE === "pglite") return pgliteDatabase();
  if (TEST_STORE === "postgres") return serverDatabase(inject("postgresUrl"));
  return undefined;
}
