// A database that cannot be opened, or a step on it that fails, is a diagnostic naming what
// failed, which database (a URL's password hidden) and the database's own message on one line:
// exit 1, never a stack trace or a line of a library's minified source (docs/cli.md, "--db").
// `codegen migrate` and `codegen serve --db`, on real PGlite folders, a real PostgreSQL server,
// and real sockets that refuse or drop the connection.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { openDatabase } from "../../src/postgres/database.js";
import { hostIn } from "../support/host-in.js";
import { type PostgresServer, postgresSkipReason, startPostgres } from "./server.js";

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-db-errors-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const DECLARATION = 'codegen: 1\ninfo: { title: Shelf, version: "1.0.0" }\nresources:\n  books:\n    fields:\n      title: { type: string, required: true }\n';

let made = 0;
/** A project folder with api.yaml generated into `gen`. */
async function project(): Promise<string> {
  const dir = path.join(scratch, `case-${made++}`);
  mkdirSync(dir);
  writeFileSync(path.join(dir, "api.yaml"), DECLARATION);
  expect(await main(["api.yaml", "-o", "gen", "--quiet"], hostIn(dir))).toBe(0);
  expect(await main(["migrate", "new", "api.yaml", "initial", "-o", "gen"], hostIn(dir))).toBe(0);
  return dir;
}

/** Runs a command; its exit code and stderr, which must be diagnostics only: no stack, no long line. */
async function run(dir: string, argv: string[]): Promise<{ code: number; err: string; out: string }> {
  const host = hostIn(dir);
  const code = await main(argv, host);
  const err = host.err();
  expect(err).not.toMatch(/\n\s+at /);
  for (const line of err.split("\n")) expect(line.length).toBeLessThan(500);
  return { code, err, out: host.out() };
}

const migrate = (db: string) => ["migrate", "api.yaml", "-o", "gen", "--db", db];
const serve = (db: string) => ["serve", "api.yaml", "--port", "0", "--quiet", "--db", db];

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("--db that cannot be opened", () => {
  let dropping: Server;
  let dropPort = 0;
  beforeAll(async () => {
    // A server that takes the connection and closes it at once, as a dying or mistaken service does.
    dropping = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => dropping.listen(0, "127.0.0.1", resolve));
    dropPort = (dropping.address() as { port: number }).port;
  });
  afterAll(() => new Promise((resolve) => dropping.close(resolve)));

  it("a regular file: named, left as it was, for migrate and serve", async () => {
    const dir = await project();
    writeFileSync(path.join(dir, "notes.txt"), "mine\n");
    for (const argv of [migrate("notes.txt"), serve("notes.txt")]) {
      const { code, err } = await run(dir, argv);
      expect(code, argv[0]).toBe(1);
      expect(err).toMatch(/^codegen: error: cannot open the database `notes\.txt`: it is a regular file, not a folder.*\[db\/unavailable\]$/m);
    }
    expect(readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("mine\n");
  }, 120_000);

  it("a server that never answers: given up after the connection timeout, named", async () => {
    const dir = await project();
    const held: Socket[] = [];
    const silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const db = `postgres://127.0.0.1:${(silent.address() as { port: number }).port}/app`;
      const { code, err } = await run(dir, migrate(db));
      expect(code).toBe(1);
      expect(err).toMatch(/cannot open the database `postgres:\/\/127\.0\.0\.1:\d+\/app`: .*timeout.* \[db\/unavailable\]/i);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 120_000);

  it("a server that refuses the connection, or drops it: the reason, and the URL's password hidden", async () => {
    const dir = await project();
    const refused = `postgres://ann:s3cret-word@127.0.0.1:${await closedPort()}/app`;
    const dropped = `postgres://ann:s3cret-word@127.0.0.1:${dropPort}/app`;
    for (const [db, reason] of [
      [refused, /ECONNREFUSED/],
      [dropped, /terminated|closed|ECONNRESET/i],
    ] as const) {
      for (const argv of [migrate(db), serve(db)]) {
        const { code, err } = await run(dir, argv);
        expect(code, `${argv[0]} ${db}`).toBe(1);
        expect(err).toContain("cannot open the database `postgres://ann:***@127.0.0.1:");
        expect(err).toMatch(reason);
        expect(err).toContain("[db/unavailable]");
        expect(err).not.toContain("s3cret-word");
      }
    }
  }, 120_000);
});

describe("a step on the database that fails", () => {
  it("a failing migration under PGlite: named, rolled back, the database's message on one line", async () => {
    const dir = await project();
    // A table of that name already there: 0001_initial's CREATE TABLE fails.
    const database = await openDatabase("db", dir);
    await database.query('CREATE TABLE "books" ("other" integer)');
    await database.close();
    const { code, err, out } = await run(dir, migrate("db"));
    expect(code).toBe(1);
    expect(out).not.toContain("applied");
    expect(err).toMatch(
      /^codegen: error: the migration 0001_initial failed and was rolled back, on the database `db`: relation "books" already exists \[db\/failed\]$/m,
    );
    // serve --db brings the same database to the declaration: the same failure, named.
    const served = await run(dir, serve("db"));
    expect(served.code).toBe(1);
    expect(served.err).toMatch(/bringing the tables to the declaration failed, on the database `db`: relation "books" already exists \[db\/failed\]/);
    // Why so long a limit: each of the three opens of a new PGlite folder runs initdb (tens of seconds on a busy machine).
  }, 400_000);
});

const skip = postgresSkipReason();
describe.skipIf(skip !== undefined)("a real PostgreSQL server", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(() => server?.stop());

  it("a database that does not exist, and a migration that fails there", async () => {
    const dir = await project();
    const missing = await run(dir, migrate(server.url("no_such_database")));
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/cannot open the database `postgres:\/\/.*no_such_database`: database "no_such_database" does not exist \[db\/unavailable\]/);

    const url = await server.createDatabase("taken");
    const database = await openDatabase(url, dir);
    await database.query('CREATE TABLE "books" ("other" integer)');
    await database.close();
    const failed = await run(dir, migrate(url));
    expect(failed.code).toBe(1);
    expect(failed.err).toMatch(
      /the migration 0001_initial failed and was rolled back, on the database `postgres:\/\/\S+`: relation "books" already exists \[db\/failed\]/,
    );
  }, 120_000);
});
