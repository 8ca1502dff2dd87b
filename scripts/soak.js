#!/usr/bin/env node
// The load soak, run by hand: `npm run build && node scripts/soak.js [SECONDS]`.
//
// Generates and compiles the blog fixture's server, runs it in a child process on 127.0.0.1 with
// the in-memory store, then drives it with autocannon: a warm-up, then SECONDS (default 60) of a
// mix of valid requests and hostile ones (bad JSON, prototype keys, wrong types, oversized bodies,
// bad percent-encoding, repeated and unknown query parameters, wrong methods and media types).
// Every answer's status is checked against the one its request must get. It passes when the
// server never crashed, no status was unexpected, `onError` was never called, and the server's
// resident memory at the end is within 10% of its level after the warm-up. It prints the figures.
import { fork } from "node:child_process";
import { mkdtemp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import autocannon from "autocannon";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const seconds = Number(process.argv[2] ?? 60);
const WARM_UP = Number(process.env.SOAK_WARM_UP ?? 15);
const CONNECTIONS = 16;
const BODY_LIMIT = 4096;
const TOKEN = "soak-token";

const { generateFiles } = await import(pathToFileURL(path.join(root, "dist/pipeline.js")).href);
const { compileToJavaScript } = await import(pathToFileURL(path.join(root, "dist/serve/compile.js")).href);

/** The child: the generated server with the in-memory store, reporting its memory and errors. */
const SERVER = `
import { createMemoryHandlers, createServer } from "./index.gen.js";
let errors = 0;
const principal = { subject: "soak", scopes: ["articles:read", "articles:write", "authors:write"] };
const server = createServer({
  handlers: createMemoryHandlers(),
  verifyToken: (token) => (token === ${JSON.stringify(TOKEN)} ? principal : undefined),
  issueToken: (request) => (request.password === "pw" ? { access_token: ${JSON.stringify(TOKEN)}, token_type: "bearer" } : { error: "invalid_grant" }),
  onError: () => void errors++,
  bodyLimit: ${BODY_LIMIT},
});
server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
process.on("message", () => {
  globalThis.gc?.();
  process.send({ rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed, errors });
});
`;

const dir = await mkdtemp(path.join(tmpdir(), "codegen-soak-"));
let child;
try {
  const declaration = "fixtures/valid/blog/declaration.yaml";
  const text = await readFile(path.join(root, declaration), "utf8");
  const result = await generateFiles({ cwd: root }, declaration, text, { outDir: "generated", format: false });
  if (!result.value) throw new Error("the blog fixture does not generate");
  for (const file of await compileToJavaScript(result.value)) {
    await mkdir(path.dirname(path.join(dir, file.path)), { recursive: true });
    await writeFile(path.join(dir, file.path), file.contents);
  }
  await writeFile(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
  await writeFile(path.join(dir, "server.js"), SERVER);

  let crashes = 0;
  let stopping = false;
  child = fork(path.join(dir, "server.js"), { cwd: dir, execArgv: ["--expose-gc"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  child.on("exit", (code, signal) => {
    if (!stopping) {
      crashes++;
      console.error(`soak: the server exited (${code ?? signal})`);
    }
  });
  const port = await new Promise((resolve) => child.once("message", (m) => resolve(m.port)));
  const base = `http://127.0.0.1:${port}`;
  const measure = () =>
    new Promise((resolve) => {
      child.once("message", resolve);
      child.send("measure");
    });

  // Two articles that stay: reads and updates go to them; creates are deleted again at once.
  for (const title of ["kept one", "kept two"]) {
    await fetch(`${base}/articles`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ title }),
    });
  }

  const auth = { Authorization: `Bearer ${TOKEN}` };
  const json = { ...auth, "Content-Type": "application/json" };
  /** The mix, in the order each connection sends it: [name, expected status, request]. */
  const mix = [
    ["index", 200, { method: "GET", path: "/" }],
    ["get", 200, { method: "GET", path: "/articles/1" }],
    ["list filtered", 200, { method: "GET", path: "/articles?published=false&status=draft" }],
    ["create", 201, { method: "POST", path: "/articles", headers: json, body: JSON.stringify({ title: "soak", tags: ["a", "b"], rating: 3 }) }],
    ["delete created", 204, { method: "DELETE", path: "/articles/0", headers: auth }],
    [
      "patch",
      200,
      {
        method: "PATCH",
        path: "/articles/2",
        headers: { ...auth, "Content-Type": "application/merge-patch+json" },
        body: JSON.stringify({ body: "patched", rating: null }),
      },
    ],
    [
      "token",
      200,
      { method: "POST", path: "/token", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "grant_type=password&username=u&password=pw" },
    ],
    ["bad JSON", 400, { method: "POST", path: "/articles", headers: json, body: '{"title": "x",' }],
    ["__proto__ key", 400, { method: "POST", path: "/articles", headers: json, body: '{"title":"x","__proto__":{"polluted":true}}' }],
    ["constructor key", 400, { method: "PUT", path: "/articles/2", headers: json, body: '{"title":"x","constructor":{"prototype":{"polluted":true}}}' }],
    ["wrong types", 400, { method: "POST", path: "/articles", headers: json, body: JSON.stringify({ title: 5, tags: "x", rating: "high" }) }],
    ["deep nesting", 400, { method: "POST", path: "/articles", headers: json, body: `{"title":${"[".repeat(1000)}${"]".repeat(1000)}}` }],
    [
      "invalid UTF-8",
      400,
      { method: "POST", path: "/articles", headers: json, body: Buffer.from([0x7b, 0x22, 0x74, 0x69, 0x74, 0x6c, 0x65, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]) },
    ],
    ["bad percent-encoding", 400, { method: "GET", path: "/articles/%E0%A4%A" }],
    ["__proto__ query", 400, { method: "GET", path: "/articles?__proto__=1" }],
    ["repeated query", 400, { method: "GET", path: "/articles?published=true&published=false" }],
    ["unknown id", 404, { method: "GET", path: "/articles/999999" }],
    ["unknown path", 404, { method: "GET", path: "/nothing/here" }],
    ["method not offered", 405, { method: "DELETE", path: "/articles", headers: auth }],
    ["no credential", 401, { method: "DELETE", path: "/articles/1" }],
    ["not acceptable", 406, { method: "GET", path: "/articles/1", headers: { Accept: "text/html" } }],
    ["transition", 409, { method: "PATCH", path: "/articles/1", headers: json, body: JSON.stringify({ status: "published" }) }],
    ["after the hostile ones", 200, { method: "GET", path: "/articles/2" }],
  ];
  /** Answers that close the connection (http-behaviour: 413 and 415 do): each on connections of its own. */
  const closing = [
    ["too large", 413, { method: "POST", path: "/articles", headers: json, body: JSON.stringify({ title: "x".repeat(BODY_LIMIT) }) }],
    ["wrong media type", 415, { method: "POST", path: "/articles", headers: { ...auth, "Content-Type": "text/plain" }, body: "title=x" }],
  ];
  const statuses = new Map();
  const unexpected = new Map();
  const requestsOf = (list) =>
    list.map(([name, status, request]) => ({
      ...request,
      ...(name === "delete created" ? { setupRequest: (req, context) => ({ ...req, path: `/articles/${context.created}` }) } : {}),
      onResponse: (actual, body, context) => {
        statuses.set(actual, (statuses.get(actual) ?? 0) + 1);
        if (name === "create" && actual === 201) context.created = JSON.parse(body).id;
        if (actual !== status) unexpected.set(`${name}: ${actual} (want ${status})`, (unexpected.get(`${name}: ${actual} (want ${status})`) ?? 0) + 1);
      },
    }));
  const load = async (duration) => {
    const [main, ...others] = await Promise.all([
      autocannon({ url: base, connections: CONNECTIONS, duration, requests: requestsOf(mix), timeout: 10 }),
      ...closing.map((entry) => autocannon({ url: base, connections: 1, duration, requests: requestsOf([entry]), timeout: 10 })),
    ]);
    main.closingErrors = 0;
    for (const other of others) {
      main.requests.total += other.requests.total;
      main.closingErrors += other.errors;
      main.timeouts += other.timeouts;
    }
    return main;
  };

  console.log(
    `soak: blog server on ${base} (pid ${child.pid}); warm-up ${WARM_UP} s, then ${seconds} s with ${CONNECTIONS} connections, ${mix.length + closing.length} requests in the mix (${[...mix, ...closing].filter(([, s]) => s >= 400).length} hostile)`,
  );
  await load(WARM_UP);
  const warm = await measure();
  statuses.clear();
  unexpected.clear();
  const samples = [];
  const sampler = setInterval(async () => samples.push(((await measure()).rss / 2 ** 20).toFixed(1)), 10_000);
  const run = await load(seconds);
  clearInterval(sampler);
  const end = await measure();
  stopping = true;

  const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  const growth = (end.rss - warm.rss) / warm.rss;
  const unexpectedCount = [...unexpected.values()].reduce((a, b) => a + b, 0);
  console.log(
    `requests: ${run.requests.total} in ${run.duration.toFixed(1)} s (${Math.round(run.requests.total / run.duration)}/s), latency p50 ${run.latency.p50} ms, p99 ${run.latency.p99} ms, max ${run.latency.max} ms`,
  );
  console.log(
    `statuses: ${[...statuses]
      .sort((a, b) => a[0] - b[0])
      .map(([s, n]) => `${s}: ${n}`)
      .join(", ")}`,
  );
  // The server closes after 413 and 415 without reading the body, so a client still writing it
  // may see its connection reset: counted apart, and expected.
  console.log(
    `client errors: ${run.errors} on keep-alive connections, ${run.closingErrors} resets on connections closed after 413/415; time-outs: ${run.timeouts}`,
  );
  console.log(`unexpected statuses: ${unexpectedCount}${unexpectedCount ? ` (${[...unexpected].map(([k, n]) => `${k} x${n}`).join("; ")})` : ""}`);
  console.log(`server: crashes ${crashes}, onError calls ${end.errors}`);
  console.log(
    `memory (rss after gc): after warm-up ${mib(warm.rss)}, every 10 s ${samples.join(", ")} MiB, at the end ${mib(end.rss)} (${(growth * 100).toFixed(1)}%); heap ${mib(warm.heap)} -> ${mib(end.heap)}`,
  );
  const passed = crashes === 0 && unexpectedCount === 0 && end.errors === 0 && run.errors === 0 && run.timeouts === 0 && Math.abs(growth) <= 0.1;
  console.log(`soak: ${passed ? "PASSED" : "FAILED"}`);
  process.exitCode = passed ? 0 : 1;
} finally {
  child?.kill();
  await rm(dir, { recursive: true, force: true });
}
