// A real PostgreSQL server for tests: initdb and pg_ctl from Debian's postgresql package into a
// temporary folder, listening on a free port of 127.0.0.1 only, stopped and removed afterwards.
// As root (CI) the server runs as the `postgres` user: initdb refuses root.

import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { chownSync, existsSync, readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/** The folder of PostgreSQL's binaries, if installed (the newest version). */
export function postgresBinaries(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(root, versions[0], "bin");
}

/**
 * Why a suite that needs a PostgreSQL server is skipped, or undefined when it runs: only when the
 * binaries are absent outside CI; in CI their absence fails the suite instead.
 */
export function postgresSkipReason(): string | undefined {
  if (postgresBinaries() !== undefined) return undefined;
  if (process.env.CI) throw new Error("PostgreSQL's binaries (/usr/lib/postgresql/*/bin/initdb) are missing: .ci/run installs them");
  return "skipped: PostgreSQL's binaries (/usr/lib/postgresql/*/bin/initdb) are not installed; apt-get install postgresql";
}

/** A running test server: the URL of a database on it, and its end. */
export interface PostgresServer {
  /** `postgres://` URL of the database `name` (created by createDatabase). */
  url(name: string): string;
  createDatabase(name: string): Promise<string>;
  /** Stops the server (`pg_ctl stop -m fast`: sessions ended) and keeps its data, to be started again. */
  halt(): Promise<void>;
  /** Starts the server halted, on the same port and data. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Starts a PostgreSQL server of its own (trust authentication, 127.0.0.1 only) in a temporary folder. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinaries();
  if (bin === undefined) throw new Error("PostgreSQL's binaries are not installed");
  const dir = await mkdtemp(path.join(tmpdir(), "codegen-pg-"));
  const data = path.join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  // Why: initdb and postgres refuse to run as root; as root the server runs as `postgres`.
  if (asRoot)
    chownSync(dir, Number(execFileSync("id", ["-u", "postgres"]).toString().trim()), Number(execFileSync("id", ["-g", "postgres"]).toString().trim()));
  const command = (tool: string, args: string[]): [string, string[]] =>
    asRoot ? ["runuser", ["-u", "postgres", "--", path.join(bin, tool), ...args]] : [path.join(bin, tool), args];
  const run = (tool: string, args: string[]) => execFileSync(...command(tool, args), { stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
  // Why without blocking: a restart under load must leave the servers under test answering (503)
  // while pg_ctl waits; a blocked event loop would stall every request in flight instead.
  const runAsync = (tool: string, args: string[]) => promisify(execFile)(...command(tool, args), { timeout: 60_000 });
  const port = await freePort();
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"]);
  const startArgs = () => [
    "-D",
    data,
    "-l",
    path.join(dir, "log"),
    "-w",
    "-t",
    "60",
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
    "start",
  ];
  run("pg_ctl", startArgs());
  const url = (name: string) => `postgres://postgres@127.0.0.1:${port}/${name}`;
  return {
    url,
    createDatabase: async (name) => {
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: url("postgres") });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    halt: async () => void (await runAsync("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"])),
    resume: async () => void (await runAsync("pg_ctl", startArgs())),
    stop: async () => {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
