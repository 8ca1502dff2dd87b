// Runs a generated server (compiled to JavaScript by the harness) with the in-memory store and a
// fixed bearer token, on a random port of 127.0.0.1; prints `listening PORT` once it listens.
// Usage: node bench/serve-generated.mjs COMPILED_DIR
import path from "node:path";
import { pathToFileURL } from "node:url";
import { BENCH_TOKEN, BENCH_SCOPES } from "./hand-server.mjs";

const dir = path.resolve(process.argv[2]);
const { createServer, createMemoryHandlers } = await import(pathToFileURL(path.join(dir, "index.gen.js")).href);
const server = createServer({
  handlers: createMemoryHandlers(),
  verifyToken: async (token) => (token === BENCH_TOKEN ? { subject: "bench", scopes: BENCH_SCOPES } : undefined),
});
server.listen(0, "127.0.0.1", () => console.log(`listening ${server.address().port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
