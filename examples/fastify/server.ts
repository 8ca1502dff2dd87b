// The blog API in Fastify 5: the listener answers the raw request and reply of every route
// under /api (the reply hijacked, so Fastify leaves it alone). Run: `npx tsx examples/fastify/server.ts`.
import Fastify from "fastify";
import type { FastifyInstance } from "fastify";
import { createRequestListener } from "../../fixtures/valid/blog/expected/index.gen.js";
import { blogOptions } from "../shared/options.js";

/** A Fastify application with the blog API under /api beside a route of its own. */
export function createApp(log?: (line: string) => void): FastifyInstance {
  const app = Fastify();
  app.get("/health", () => ({ ok: true }));
  const listener = createRequestListener(blogOptions("/api", log));
  void app.register(async (api) => {
    // The listener reads request bodies itself: in this scope Fastify parses none.
    api.removeAllContentTypeParsers();
    api.addContentTypeParser("*", (_request, _payload, done) => done(null));
    for (const url of ["/api", "/api/*"]) {
      api.all(url, (request, reply) => {
        reply.hijack();
        listener(request.raw, reply.raw);
      });
    }
  });
  return app;
}

if (import.meta.url === `file://${process.argv[1] ?? ""}`) await createApp().listen({ port: 3000 });
