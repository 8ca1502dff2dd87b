// The blog API mounted in Express 5 under /api: `app.use("/api", listener)`, the way Express
// mounts a sub-application. Run: `npx tsx examples/express/server.ts`, then GET /api/articles.
import express from "express";
import type { Express } from "express";
import { createRequestListener } from "../../fixtures/valid/blog/expected/index.gen.js";
import { blogOptions } from "../shared/options.js";

/** An Express application with the blog API under /api beside a route of its own. */
export function createApp(log?: (line: string) => void): Express {
  const app = express();
  app.get("/health", (_req, res) => {
    res.json({ ok: true });
  });
  // The listener reads request bodies itself; behind express.json() it takes the parsed body from req.body.
  app.use("/api", createRequestListener(blogOptions("/api", log)));
  return app;
}

if (import.meta.url === `file://${process.argv[1] ?? ""}`) createApp().listen(3000, () => console.log("http://localhost:3000/api/docs"));
