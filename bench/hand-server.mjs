// The hand-written baseline: the benchmark's first resource (`r1-orders`) served with nothing
// but node:http, doing by hand what the generated server does for GET /r1-orders/{id} and
// POST /r1-orders: route, check the bearer token and its scope, check Accept and Content-Type,
// limit and parse the body, validate it against the schema (every bad field reported), apply
// the default and the initial state, store it, and answer with its links and its ETag (with 304
// for a matching If-None-Match), as the contract asks of every single-object answer.
// Usage: node bench/hand-server.mjs   (prints `listening PORT`)
import { createHash } from "node:crypto";
import http from "node:http";
import { fileURLToPath } from "node:url";

/** The token both servers accept in the benchmark, and the scopes it grants. */
export const BENCH_TOKEN = "bench-token";
export const BENCH_SCOPES = ["orders:read", "orders:write"];
/** The connections of each server's `pg` Pool in the PostgreSQL rounds (the same for both). */
export const POOL_SIZE = 10;

const COLLECTION = "/r1-orders";
const BODY_LIMIT = 1024 * 1024;
const STATES = ["draft", "open", "closed"];
const LINKS = [
  { rel: "edit", method: "PATCH", when: ["draft", "open"] },
  { rel: "cancel", method: "DELETE", when: ["draft"] },
];
const EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

const rows = new Map();
/** Each stored row's ETag, made once when it is stored. */
const tags = new Map();
let lastId = 0;

/** Answers JSON. */
export function send(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The principal of a bearer token, or an error answer. */
export function authorize(req, res, scope) {
  const header = req.headers.authorization;
  const match = header && /^Bearer +(\S+)$/i.exec(header);
  if (!match || match[1] !== BENCH_TOKEN) {
    send(res, 401, { detail: "Not authenticated" }, { "www-authenticate": "Bearer" });
    return undefined;
  }
  const principal = { subject: "bench", scopes: BENCH_SCOPES };
  if (!principal.scopes.includes(scope)) {
    send(res, 403, { detail: "Not enough permissions" });
    return undefined;
  }
  return principal;
}

/** Whether the request's Accept allows JSON, else the 406 answer. */
export function accepts(req, res) {
  const accept = req.headers.accept;
  if (accept === undefined || /(^|,)\s*(\*\/\*|application\/\*|application\/json)\s*(;|,|$)/i.test(accept)) return true;
  send(res, 406, { error: "not_acceptable", detail: { accept: "must allow application/json" } });
  return false;
}

/** Validate an R1OrderInput; every bad field is reported. */
export function validate(body) {
  const detail = {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { "": "must be an object" };
  const known = new Set(["id", "links", "name", "quantity", "price", "active", "tags", "email", "status"]);
  for (const key of Object.keys(body)) if (!known.has(key)) detail[key] = "is not allowed";
  if (body.name === undefined) detail.name = "is required";
  else if (typeof body.name !== "string") detail.name = "must be a string";
  else if (body.name.length < 1 || body.name.length > 100) detail.name = "must be 1 to 100 characters";
  if (body.quantity === undefined) detail.quantity = "is required";
  else if (!Number.isInteger(body.quantity)) detail.quantity = "must be an integer";
  else if (body.quantity < 0) detail.quantity = "must be at least 0";
  if (body.price !== undefined && body.price !== null && (typeof body.price !== "number" || body.price < 0)) detail.price = "must be a number of at least 0";
  if (body.active !== undefined && typeof body.active !== "boolean") detail.active = "must be a boolean";
  if (body.tags !== undefined) {
    if (!Array.isArray(body.tags)) detail.tags = "must be an array";
    else body.tags.forEach((tag, i) => typeof tag !== "string" && (detail[`tags[${i}]`] = "must be a string"));
  }
  if (body.email !== undefined && (typeof body.email !== "string" || !EMAIL.test(body.email))) detail.email = "must be an email address";
  if (body.status !== undefined && !STATES.includes(body.status)) detail.status = "must be one of draft, open, closed";
  if (body.id !== undefined && !(Number.isInteger(body.id) && body.id >= 1)) detail.id = "must be an integer of at least 1";
  return Object.keys(detail).length > 0 ? detail : undefined;
}

/** The row as the API shows it: with its links for its state. */
export function represent(row) {
  const href = `${COLLECTION}/${row.id}`;
  const links = [{ rel: "self", method: "GET", href }];
  for (const link of LINKS) if (link.when.includes(row.status)) links.push({ rel: link.rel, method: link.method, href });
  return { ...row, links };
}

/**
 * POST's work before the store: guards, Content-Type, the body limited, parsed and validated;
 * calls `done(fields)` with the fields to store (id and links dropped, default and initial state applied).
 */
export function readOrder(req, res, done) {
  if (!authorize(req, res, "orders:write") || !accepts(req, res)) return;
  if (!/^application\/json\s*(;|$)/i.test(req.headers["content-type"] ?? "")) {
    res.shouldKeepAlive = false;
    return send(res, 415, { error: "unsupported_media_type", detail: {} }, { connection: "close" });
  }
  const chunks = [];
  let size = 0;
  req.on("data", (chunk) => {
    size += chunk.length;
    if (size <= BODY_LIMIT) chunks.push(chunk);
  });
  req.on("end", () => {
    if (size > BODY_LIMIT) return send(res, 413, { error: "payload_too_large", detail: {} });
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return send(res, 400, { error: "invalid_json", detail: { "": "must be JSON" } });
    }
    const detail = validate(body);
    if (detail) return send(res, 400, { error: "validation_failed", detail });
    const { id: _id, links: _links, ...fields } = body;
    done({ active: true, ...fields, status: fields.status ?? "draft" });
  });
}

/** GET's work before the store: guards and the id; answers the id, or undefined after answering. */
export function readId(req, res, idText) {
  if (!authorize(req, res, "orders:read") || !accepts(req, res)) return undefined;
  const id = /^[1-9][0-9]*$/.test(idText) ? Number(idText) : NaN;
  if (Number.isSafeInteger(id)) return id;
  send(res, 400, { error: "validation_failed", detail: { id: "must be an integer of at least 1" } });
  return undefined;
}

/** A row's strong ETag (RFC 9110 section 8.8.3): a digest of its stored fields, as one would write it by hand. */
export function etagOf(row) {
  return `"${createHash("sha256").update(JSON.stringify(row)).digest("base64url")}"`;
}

/** Answers a found row (200 with links and ETag; 304 when If-None-Match names its ETag) or 404. */
export function sendFound(req, res, row, etag = row && etagOf(row)) {
  if (!row) return send(res, 404, { error: "not_found", detail: {} });
  if (req.headers["if-none-match"] === etag) {
    res.writeHead(304, { etag });
    return res.end();
  }
  send(res, 200, represent(row), { etag });
}

/** Answers a created row: 201 with its links, Location and ETag. */
export function sendCreated(res, row, etag = etagOf(row)) {
  send(res, 201, represent(row), { location: `${COLLECTION}/${row.id}`, etag });
}

function handleGet(req, res, idText) {
  const id = readId(req, res, idText);
  if (id !== undefined) sendFound(req, res, rows.get(id), tags.get(id));
}

function handlePost(req, res) {
  readOrder(req, res, (fields) => {
    const row = { ...fields, id: ++lastId };
    const etag = etagOf(row);
    rows.set(row.id, row);
    tags.set(row.id, etag);
    sendCreated(res, row, etag);
  });
}

/**
 * The routing of both hand-written servers: GET /r1-orders/{id} and POST /r1-orders to the
 * given handlers, anything else 404.
 */
export function route(handleGet, handlePost) {
  return (req, res) => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const pathname = q === -1 ? url : url.slice(0, q);
    if (pathname === COLLECTION) {
      if (req.method === "POST") return handlePost(req, res);
    } else if (pathname.startsWith(COLLECTION + "/")) {
      const id = pathname.slice(COLLECTION.length + 1);
      if (!id.includes("/") && req.method === "GET") return handleGet(req, res, id);
    }
    send(res, 404, { error: "not_found", detail: {} });
  };
}

/** The server: two routes of one resource, kept in memory. */
export function createHandServer() {
  return http.createServer(route(handleGet, handlePost));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = createHandServer();
  server.listen(0, "127.0.0.1", () => console.log(`listening ${server.address().port}`));
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}
