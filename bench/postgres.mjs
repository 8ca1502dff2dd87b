// A PostgreSQL server for the benchmark, the way test/postgres/server.ts starts one for the tests
// (that file is TypeScript, which this Node cannot import): initdb and pg_ctl from Debian's
// postgresql package into a temporary folder, trust authentication, 127.0.0.1 only, fsync off,
// stopped and removed afterwards. As root the server runs as the `postgres` user (initdb refuses root).
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";

/** The folder of PostgreSQL's binaries (the newest version installed), or undefined. */
export function postgresBinaries() {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(root, versions[0], "bin");
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/**
 * Starts a server; answers `createDatabase(name)` (its URL), `postmasterPid()` (to read the
 * server's processes' CPU, bench/pg-cpu.mjs) and `stop()`. `settings`: more `-c name=value`.
 */
export async function startPostgres(bin, settings = []) {
  const dir = mkdtempSync(path.join(tmpdir(), "codegen-bench-pg-"));
  const data = path.join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const id = (flag) => Number(execFileSync("id", [flag, "postgres"]).toString().trim());
    chownSync(dir, id("-u"), id("-g"));
  }
  const run = (tool, args) =>
    execFileSync(asRoot ? "runuser" : path.join(bin, tool), asRoot ? ["-u", "postgres", "--", path.join(bin, tool), ...args] : args, {
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 60_000,
    });
  const port = await freePort();
  const url = (name) => `postgres://postgres@127.0.0.1:${port}/${name}`;
  try {
    run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"]);
    const options = [`-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`, ...settings.map((s) => `-c ${s}`)].join(" ");
    run("pg_ctl", ["-D", data, "-l", path.join(dir, "log"), "-w", "-t", "60", "-o", options, "start"]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    createDatabase: async (name) => {
      const client = new pg.Client({ connectionString: url("postgres") });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    postmasterPid: () => Number(readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]),
    stop: () => {
      try {
        run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
