// Where a request's CPU goes on PostgreSQL: the generated server (one or more compiled
// folders, e.g. before and after a change) beside bench/hand-server-pg.mjs, each on a database of
// its own on one PostgreSQL server (bench/postgres.mjs). Per route, rounds alternate the servers;
// each round sends a fixed number of requests (autocannon, 10 connections, 127.0.0.1) and reads
// the CPU time (/proc/PID/task/*/schedstat) of the node server and of every PostgreSQL process
// (the postmaster and its children) before and after: CPU per request, median of the rounds, is
// far less noisy than req/s on a shared machine. Then what each server sent PostgreSQL per
// request (pg_stat_statements: statements, calls, execution and planning time).
// Usage: [N=4000] [ROUNDS=5] node bench/pg-cpu.mjs NAME=COMPILED_DIR... [NAME=HAND_SCRIPT.mjs...]
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import pg from "pg";
import { cpuTimeOf } from "./cpu-time.mjs";
import { postgresBinaries, startPostgres } from "./postgres.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const per = Number(process.env.N ?? 4000);
const rounds = Number(process.env.ROUNDS ?? 5);
const ORDER = { name: "Widget", quantity: 3, price: 9.5, tags: ["a", "b"], email: "ann@example.com" };
const HEADERS = { authorization: "Bearer bench-token", accept: "application/json" };

/** Every process whose parent is `pid` (the PostgreSQL backends and helpers). */
function childrenOf(pid) {
  const found = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Why after the last ')': a command name may hold spaces or parentheses.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) found.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

/** CPU of each PostgreSQL process by pid (a process started during a round counts from zero). */
const postgresCpu = (postmaster) => new Map([postmaster, ...childrenOf(postmaster)].map((pid) => [pid, cpuTimeOf(pid) ?? 0]));

function startServer(script, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /listening (\d+)/.exec(out);
      if (match) resolve({ port: Number(match[1]), pid: child.pid, stop: () => new Promise((done) => (child.once("exit", done), child.kill("SIGTERM"))) });
    });
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

const request = (route) =>
  route === "get"
    ? { method: "GET", path: "/r1-orders/1", headers: HEADERS }
    : { method: "POST", path: "/r1-orders", headers: { ...HEADERS, "content-type": "application/json" }, body: JSON.stringify(ORDER) };

async function send(port, route, amount) {
  const result = await autocannon({ url: `http://127.0.0.1:${port}`, connections: Math.min(10, amount), amount, requests: [request(route)] });
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) throw new Error(`${route} on port ${port}: ${bad} failed requests`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const postgres = await startPostgres(postgresBinaries(), ["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track_planning=on"]);
const servers = [];
try {
  const targets = [...process.argv.slice(2).map((arg) => arg.split("=")), ["hand", undefined]];
  for (const [name, dir] of targets) {
    const url = await postgres.createDatabase(`cpu_${name.replace(/\W/g, "_")}`);
    // Why a script too: a variant of the hand-written server (NAME=FILE.mjs, given the URL) beside it.
    const server =
      dir === undefined
        ? await startServer(path.join(here, "hand-server-pg.mjs"), [url])
        : dir.endsWith(".mjs")
          ? await startServer(path.resolve(dir), [url])
          : await startServer(path.join(here, "serve-generated.mjs"), [dir, url]);
    servers.push({ name, database: new URL(url).pathname.slice(1), ...server, figures: {} });
  }
  for (const server of servers) {
    await send(server.port, "post", 1);
    for (const route of ["get", "post"]) await send(server.port, route, 2000);
  }
  const postmaster = postgres.postmasterPid();
  for (const route of ["get", "post"]) {
    for (let round = 0; round < rounds; round++) {
      for (const server of round % 2 ? [...servers].reverse() : servers) {
        const [nodeBefore, pgBefore] = [cpuTimeOf(server.pid) ?? 0, postgresCpu(postmaster)];
        await send(server.port, route, per);
        const [nodeAfter, pgAfter] = [cpuTimeOf(server.pid) ?? 0, postgresCpu(postmaster)];
        let pgSpent = 0;
        for (const [pid, ns] of pgAfter) pgSpent += ns - (pgBefore.get(pid) ?? 0);
        const figures = (server.figures[route] ??= { node: [], pg: [] });
        figures.node.push((nodeAfter - nodeBefore) / per / 1000);
        figures.pg.push(pgSpent / per / 1000);
      }
    }
  }
  console.log(`CPU per request, us (median of ${rounds} rounds of ${per} requests; min-max in brackets)`);
  for (const route of ["get", "post"]) {
    for (const { name, figures } of servers) {
      const { node, pg: db } = figures[route];
      const range = (xs) => `[${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}]`;
      console.log(
        `${route.padEnd(5)}${name.padEnd(12)}node ${median(node).toFixed(1).padStart(6)} ${range(node).padEnd(10)} postgres ${median(db).toFixed(1).padStart(6)} ${range(db).padEnd(10)} sum ${(median(node) + median(db)).toFixed(1)}`,
      );
    }
  }
  const admin = new pg.Client({ connectionString: await postgres.createDatabase("cpu_admin") });
  await admin.connect();
  await admin.query("CREATE EXTENSION pg_stat_statements");
  const { rows } = await admin.query(
    `SELECT d.datname, s.calls, s.total_exec_time, s.total_plan_time, s.plans, s.query FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname LIKE 'cpu_%' AND s.calls > 100 ORDER BY d.datname, s.calls DESC`,
  );
  await admin.end();
  console.log("\nstatements with more than 100 calls (exec and plan time per call, us)");
  for (const row of rows) {
    console.log(
      `${row.datname.padEnd(14)} ${String(row.calls).padStart(7)}  exec ${((row.total_exec_time * 1000) / row.calls).toFixed(1).padStart(5)}  plan ${((row.total_plan_time * 1000) / Math.max(1, row.plans)).toFixed(1).padStart(5)}  ${row.query.slice(0, 400)}`,
    );
  }
} finally {
  for (const server of servers) await server.stop();
  postgres.stop();
}
