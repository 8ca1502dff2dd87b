// Runs a generated server (compiled to JavaScript by the harness) with a fixed bearer token, on a
// random port of 127.0.0.1; prints `listening PORT` once it listens. With a database URL it keeps
// its objects in PostgreSQL (`migrate` on one connection, then `createPostgresStore` on a `pg`
// Pool of POOL_SIZE connections, as bench/hand-server-pg.mjs), else in memory.
// Usage: node bench/serve-generated.mjs COMPILED_DIR [DATABASE_URL]
import path from "node:path";
import { pathToFileURL } from "node:url";
import { BENCH_TOKEN, BENCH_SCOPES, POOL_SIZE } from "./hand-server.mjs";

const [dir, databaseUrl] = [path.resolve(process.argv[2]), process.argv[3]];
const api = await import(pathToFileURL(path.join(dir, "index.gen.js")).href);
let pool;
let handlers;
if (databaseUrl === undefined) handlers = api.createMemoryHandlers();
else {
  const { default: pg } = await import("pg");
  pool = new pg.Pool({ connectionString: databaseUrl, max: POOL_SIZE });
  const client = await pool.connect();
  try {
    await api.migrate({ query: client.query.bind(client) });
  } finally {
    client.release();
  }
  handlers = api.createPostgresStore({ query: pool.query.bind(pool) });
}
const server = api.createServer({
  handlers,
  // Why synchronous: the hand-written servers compare the token in place; an async check would
  // charge the generated server a promise the hand-written one does not pay.
  verifyToken: (token) => (token === BENCH_TOKEN ? { subject: "bench", scopes: BENCH_SCOPES } : undefined),
});
server.listen(0, "127.0.0.1", () => console.log(`listening ${server.address().port}`));
process.on("SIGTERM", () => server.close(() => (pool ? pool.end() : Promise.resolve()).then(() => process.exit(0))));
