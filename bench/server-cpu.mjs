// CPU per request over real HTTP: each server's CPU time (all its threads, kernel time included,
// from /proc/PID/task/*/schedstat, in ns) over a fixed number of requests of autocannon on
// 127.0.0.1, in interleaved rounds. Why: on a machine other jobs share, req/s follows the load of
// the moment, and CPU per request much less so; the figure counts what a server spends, not what
// it gets. Linux only. Each server is `name:script[:arg]`, started as `node script arg` and
// printing `listening PORT` (bench/serve-generated.mjs with a compiled folder, bench/hand-server.mjs);
// the last one is the reference of the ratios.
// Usage: SERVERS="old:bench/serve-generated.mjs:/tmp/old,new:bench/serve-generated.mjs:bench/.work/server-100,hand:bench/hand-server.mjs"
//        [N=10000] [ROUNDS=9] [ROUTES=get,post] node bench/server-cpu.mjs
import { spawn } from "node:child_process";
import autocannon from "autocannon";
import { cpuTimeOf } from "./cpu-time.mjs";
import { BENCH_TOKEN } from "./hand-server.mjs";

const N = Number(process.env.N ?? 10000);
const ROUNDS = Number(process.env.ROUNDS ?? 9);
const ROUTES = (process.env.ROUTES ?? "get,post").split(",");
const servers = (process.env.SERVERS ?? "")
  .split(",")
  .filter(Boolean)
  .map((text) => {
    const [name, script, ...args] = text.split(":");
    return { name, script, args };
  });
if (servers.length === 0) throw new Error("SERVERS names no server (name:script[:arg],...)");

const ORDER = JSON.stringify({ name: "Widget", quantity: 3, price: 9.5, tags: ["a", "b"], email: "ann@example.com" });
const HEADERS = { authorization: `Bearer ${BENCH_TOKEN}`, accept: "application/json" };
const POST = { method: "POST", path: "/r1-orders", headers: { ...HEADERS, "content-type": "application/json" }, body: ORDER };
const request = (route) => (route === "get" ? { method: "GET", path: "/r1-orders/1", headers: HEADERS } : POST);
const load = (port, route, amount) => autocannon({ url: `http://127.0.0.1:${port}`, connections: 10, amount, requests: [request(route)] });

/** Starts a server; resolves with it and its port once it prints `listening PORT`. */
function start(server) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [server.script, ...server.args], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const port = /listening (\d+)/.exec(out)?.[1];
      if (port !== undefined) resolve({ ...server, child, port: Number(port) });
    });
    child.on("exit", (code) => reject(new Error(`${server.name} exited (${code})`)));
  });
}

const started = [];
try {
  for (const server of servers) started.push(await start(server));
  // Warm-up: the object GET reads, then one load of each route.
  for (const server of started) {
    await fetch(`http://127.0.0.1:${server.port}/r1-orders`, { method: "POST", headers: POST.headers, body: ORDER });
    for (const route of ROUTES) await load(server.port, route, N);
  }
  const samples = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const route of ROUTES) {
      for (const server of round % 2 === 0 ? started : [...started].reverse()) {
        const before = cpuTimeOf(server.child.pid);
        const result = await load(server.port, route, N);
        const spent = cpuTimeOf(server.child.pid) - before;
        if (result.non2xx || result.errors) throw new Error(`${server.name} ${route}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        ((samples[route] ??= {})[server.name] ??= []).push(spent / 1000 / result.requests.total);
      }
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const reference = started[started.length - 1].name;
  for (const [route, by] of Object.entries(samples)) {
    const cells = Object.entries(by).map(([name, xs]) => `${name} ${Math.min(...xs).toFixed(1)} / ${median(xs).toFixed(1)}`);
    const ratios = Object.entries(by).map(([name, xs]) => `${name} ${(median(by[reference]) / median(xs)).toFixed(3)}`);
    console.log(`${route}: µs CPU per request (min / median of ${ROUNDS}): ${cells.join(", ")}; ${reference}'s median / each median: ${ratios.join(", ")}`);
  }
} finally {
  for (const server of started) server.child.kill();
}
