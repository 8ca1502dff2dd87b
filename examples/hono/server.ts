// The blog API in Hono: its fetch handler mounted under /api with `app.mount`, the request
// kept whole (`replaceRequest: false`) so links carry /api. Run: `npx tsx examples/hono/server.ts`.
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { createFetchHandler } from "../../fixtures/valid/blog/expected/index.gen.js";
import { blogOptions } from "../shared/options.js";

/** A Hono application with the blog API under /api beside a route of its own. */
export function createApp(log?: (line: string) => void): Hono {
  const app = new Hono();
  app.get("/health", (c) => c.json({ ok: true }));
  app.mount("/api", createFetchHandler(blogOptions("/api", log)), { replaceRequest: false });
  return app;
}

if (import.meta.url === `file://${process.argv[1] ?? ""}`) serve({ fetch: createApp().fetch, port: 3000 });
