// What the framework examples share: the blog API's options with its in-memory store and a toy
// token check. A real application checks a signed token (a JWT) and keeps its data in a database.
import { createMemoryHandlers } from "../../fixtures/valid/blog/expected/index.gen.js";
import type { Principal, ServerOptions } from "../../fixtures/valid/blog/expected/index.gen.js";

/** The one token these examples accept, standing for a user with every scope. */
export const DEMO_TOKEN = "demo-token";

const demo: Principal = { subject: "demo", scopes: ["articles:read", "articles:write", "authors:write"] };

/** The blog's options under `basePath` (where the framework mounts it), logging one line per request. */
export function blogOptions(basePath: string, log: (line: string) => void = console.log): ServerOptions {
  return {
    handlers: createMemoryHandlers(),
    verifyToken: (token) => (token === DEMO_TOKEN ? demo : undefined),
    issueToken: ({ username }) => (username === "demo" ? { access_token: DEMO_TOKEN, token_type: "bearer" } : { error: "invalid_grant" }),
    basePath,
    cors: ["http://localhost:5173"],
    onResponse: ({ method, path, status, duration }) => log(`${method} ${path} ${status} ${duration.toFixed(1)} ms`),
  };
}
