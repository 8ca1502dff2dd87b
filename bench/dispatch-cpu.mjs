// CPU per request of the generated server's listener beside the hand-written server's functions
// (bench/hand-server.mjs), in one process and without sockets: what the runtime itself costs per
// GET by id and per POST, steadier than req/s on a shared machine (the minimum of interleaved
// rounds is read). Each compiled folder (as bench/run.mjs compiles it: bench/.work/server-100) is
// loaded in turn, so two versions of the runtime can be compared in one run.
// Usage: ROUTE=get|post [PER=10000] [ROUNDS=12] node bench/dispatch-cpu.mjs COMPILED_DIR...
import path from "node:path";
import { PassThrough } from "node:stream";
import { pathToFileURL } from "node:url";
import * as hand from "./hand-server.mjs";
const dirs = process.argv.slice(2);
const route = process.env.ROUTE ?? "post";
const per = Number(process.env.PER ?? 10000),
  rounds = Number(process.env.ROUNDS ?? 12);
const ORDER = JSON.stringify({ name: "Widget", quantity: 3, price: 9.5, tags: ["a", "b"], email: "ann@example.com" });
const getHeaders = { authorization: "Bearer bench-token", accept: "application/json", host: "127.0.0.1" };
const postHeaders = { ...getHeaders, "content-type": "application/json", "content-length": String(Buffer.byteLength(ORDER)) };
const gd = Object.fromEntries(Object.entries(getHeaders).map(([k, v]) => [k, [v]])),
  pd = Object.fromEntries(Object.entries(postHeaders).map(([k, v]) => [k, [v]]));
let last;
const fakeRes = (resolve) => ({
  statusCode: 0,
  writeHead(s) {
    this.statusCode = s;
    return this;
  },
  end(b) {
    last = [this.statusCode, b];
    resolve();
  },
  once() {},
  destroy() {
    throw new Error("destroyed");
  },
  setHeader() {},
  on() {},
});
const getReq = () => ({
  method: "GET",
  url: "/r1-orders/1",
  headers: getHeaders,
  headersDistinct: gd,
  httpVersionMajor: 1,
  readableEnded: false,
  complete: true,
  socket: {},
  on() {},
  once() {},
});
function postReq() {
  const s = new PassThrough();
  Object.assign(s, { method: "POST", url: "/r1-orders", headers: postHeaders, headersDistinct: pd, httpVersionMajor: 1, complete: false, socket: {} });
  s.end(ORDER);
  return s;
}
const subjects = [];
for (const dir of dirs) {
  const api = await import(pathToFileURL(path.join(path.resolve(dir), "index.gen.js")).href);
  const listener = api.createRequestListener({
    handlers: api.createMemoryHandlers(),
    verifyToken: (t) => (t === hand.BENCH_TOKEN ? { subject: "bench", scopes: hand.BENCH_SCOPES } : undefined),
  });
  await new Promise((r) => listener(postReq(), fakeRes(r)));
  subjects.push([
    path.basename(dir),
    route === "get" ? () => new Promise((r) => listener(getReq(), fakeRes(r))) : () => new Promise((r) => listener(postReq(), fakeRes(r))),
  ]);
}
const rows = new Map([[1, { active: true, name: "Widget", quantity: 3, price: 9.5, tags: ["a", "b"], email: "ann@example.com", status: "draft", id: 1 }]]);
const tags = new Map([[1, hand.etagOf(rows.get(1))]]);
let lastId = 1;
subjects.push([
  "hand",
  route === "get"
    ? () =>
        new Promise((r) => {
          const req = getReq(),
            res = fakeRes(r);
          const id = hand.readId(req, res, "1");
          if (id !== undefined) hand.sendFound(req, res, rows.get(id), tags.get(id));
        })
    : () =>
        new Promise((r) => {
          const req = postReq(),
            res = fakeRes(r);
          hand.readOrder(req, res, (f) => {
            const row = { ...f, id: ++lastId };
            const etag = hand.etagOf(row);
            rows.set(row.id, row);
            tags.set(row.id, etag);
            hand.sendCreated(res, row, etag);
          });
        }),
]);
const times = subjects.map(() => []);
for (let round = 0; round < rounds; round++)
  for (const [i, [, one]] of subjects.entries()) {
    const t = process.cpuUsage();
    for (let k = 0; k < per; k++) await one();
    const u = process.cpuUsage(t);
    if (round > 0) times[i].push((u.user + u.system) / per);
    if (last[0] >= 300) throw new Error(`status ${last[0]} ${last[1]}`);
  }
for (const [i, [name]] of subjects.entries()) {
  const s = times[i].sort((a, b) => a - b);
  console.log(route, name.padEnd(16), "min", s[0].toFixed(2), "median", s[s.length >> 1].toFixed(2), "us");
}
