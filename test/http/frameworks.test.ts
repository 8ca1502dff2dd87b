// The framework examples (examples/express, examples/fastify, examples/hono) run for real: each
// mounts the generated blog API under /api the way its users mount things, beside a route of
// its own, and the API answers through it as it does alone (http-behaviour "Embedding the server").

import { serve } from "@hono/node-server";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createApp as expressApp } from "../../examples/express/server.js";
import { createApp as fastifyApp } from "../../examples/fastify/server.js";
import { createApp as honoApp } from "../../examples/hono/server.js";
import { DEMO_TOKEN } from "../../examples/shared/options.js";
import { call, expectError, obj } from "./support.js";
import type { Json } from "./support.js";

type Started = { url: string; close(): Promise<void> };

async function listening(server: Server): Promise<Started> {
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const FRAMEWORKS: [string, (log: (line: string) => void) => Promise<Started>][] = [
  ["Express 5", (log) => listening(expressApp(log).listen(0, "127.0.0.1"))],
  [
    "Fastify 5",
    async (log) => {
      const app = fastifyApp(log);
      await app.listen({ port: 0, host: "127.0.0.1" });
      return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
    },
  ],
  ["Hono", (log) => listening(serve({ fetch: honoApp(log).fetch, port: 0, hostname: "127.0.0.1" }) as Server)],
];

describe.each(FRAMEWORKS)("%s", (_name, start) => {
  it("serves the API under /api beside its own route: links, Location, guards, HEAD, OPTIONS, docs, log lines", async () => {
    const lines: string[] = [];
    const app = await start((line) => lines.push(line));
    try {
      expect(await (await fetch(`${app.url}/health`)).json()).toEqual({ ok: true });
      const links = obj(await call(app.url, "GET", "/api/")).links as Json[];
      expect(links.find((link) => link.rel === "articles")?.href).toBe("/api/articles");
      expect(links.find((link) => link.rel === "service-doc")?.href).toBe("/api/docs");
      expect((await call(app.url, "POST", "/api/articles", { json: { title: "T" } })).status).toBe(401);
      const created = await call(app.url, "POST", "/api/articles", { json: { title: "Hello" }, token: DEMO_TOKEN });
      expect(created.status, created.text).toBe(201);
      expect(created.headers.get("location")).toBe(`/api/articles/${String(obj(created).id)}`);
      expectError(await call(app.url, "POST", "/api/articles", { json: { title: 3 }, token: DEMO_TOKEN }), 400, ["title"]);
      const head = await fetch(`${app.url}/api/articles`, { method: "HEAD" });
      expect([head.status, await head.text()]).toEqual([200, ""]);
      const options = await fetch(`${app.url}/api/articles`, { method: "OPTIONS" });
      expect([options.status, options.headers.get("allow")]).toEqual([204, "GET, POST, HEAD, OPTIONS"]);
      const docs = await fetch(`${app.url}/api/docs`);
      expect(docs.headers.get("content-type")).toBe("text/html; charset=utf-8");
      await docs.text();
      expect(lines.some((line) => /^POST \/api\/articles 201 \d+\.\d ms$/.test(line))).toBe(true);
      expect(lines.some((line) => /^GET \/api\/ 200 \d+\.\d ms$/.test(line))).toBe(true);
    } finally {
      await app.close();
    }
  });
});
