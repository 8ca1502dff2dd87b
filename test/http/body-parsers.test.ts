// An API mounted behind the body parsers a team already has (`app.use(express.json())` above the
// mount): the body a parser read is validated like any other, within the same limits, and never
// answered 500 (http-behaviour "Embedding"). Real Express 5 and Fastify 5 over real HTTP.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRequestListener } from "../../fixtures/valid/blog/expected/index.gen.js";
import { DEMO_TOKEN, blogOptions } from "../../examples/shared/options.js";
import { call, expectError, obj } from "./support.js";

const LIMITS = { bodyLimit: 300, bodyDepthLimit: 8 };
const errors: unknown[] = [];
const listener = () => createRequestListener({ ...blogOptions("/api", () => {}), ...LIMITS, onError: (error) => errors.push(error) });

type Started = { url: string; close(): Promise<void> };
const apps: [string, () => Promise<Started>][] = [
  [
    "Express 5 behind express.json(), express.urlencoded() and express.text()",
    async () => {
      const app = express();
      // The parsers' own limits are larger than the API's: the API's apply.
      app.use(express.json({ limit: "1mb" }), express.urlencoded({ extended: false }), express.text({ type: "text/*" }));
      app.use("/api", listener());
      const server: Server = app.listen(0, "127.0.0.1");
      await new Promise<void>((resolve) => server.once("listening", resolve));
      return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: async () => {
          server.closeAllConnections();
          await new Promise<void>((resolve) => server.close(() => resolve()));
        },
      };
    },
  ],
  [
    "Fastify 5 with its JSON parser, the parsed body handed on as req.body",
    async () => {
      const app = Fastify();
      const api = listener();
      for (const url of ["/api", "/api/*"]) {
        app.all(url, (request, reply) => {
          reply.hijack();
          api(Object.assign(request.raw, { body: request.body }), reply.raw);
        });
      }
      await app.listen({ port: 0, host: "127.0.0.1" });
      return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
    },
  ],
];

describe.each(apps)("%s", (_name, start) => {
  let app: Started;
  beforeAll(async () => {
    app = await start();
  });
  afterAll(() => app.close());

  it("creates from a valid body and answers 400 for an invalid one, field by field", async () => {
    errors.length = 0;
    const created = await call(app.url, "POST", "/api/articles", { json: { title: "Hello" }, token: DEMO_TOKEN });
    expect(created.status, created.text).toBe(201);
    expect(obj(created).title).toBe("Hello");
    expectError(await call(app.url, "POST", "/api/articles", { json: { title: 3 }, token: DEMO_TOKEN }), 400, ["title"]);
    expectError(await call(app.url, "POST", "/api/articles", { json: [1], token: DEMO_TOKEN }), 400);
    expect(errors).toEqual([]);
  });

  it("holds a parsed body to the API's bodyLimit and bodyDepthLimit", async () => {
    errors.length = 0;
    expectError(await call(app.url, "POST", "/api/articles", { json: { title: "x".repeat(400) }, token: DEMO_TOKEN }), 413);
    let deep: unknown = 1;
    for (let i = 0; i < 20; i++) deep = { a: deep };
    expectError(await call(app.url, "POST", "/api/articles", { json: { title: "T", deep }, token: DEMO_TOKEN }), 400);
    expect(errors).toEqual([]);
  });

  it("refuses a body of another media type with 415, as one read by the API", async () => {
    const reply = await call(app.url, "POST", "/api/articles", { body: "title=T", headers: { "Content-Type": "text/plain" }, token: DEMO_TOKEN });
    expectError(reply, 415);
  });
});

describe("Express 5 behind express.urlencoded()", () => {
  it("answers the token endpoint's form as one it read itself", async () => {
    const app = express();
    app.use(express.urlencoded({ extended: false }));
    app.use("/api", listener());
    const server: Server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const form = { "Content-Type": "application/x-www-form-urlencoded" };
      const issued = await call(url, "POST", "/api/token", { body: "grant_type=password&username=demo&password=x", headers: form });
      expect([issued.status, obj(issued).access_token]).toEqual([200, DEMO_TOKEN]);
      expect((await call(url, "POST", "/api/token", { body: "grant_type=password&username=eve&password=x", headers: form })).status).toBe(400);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
