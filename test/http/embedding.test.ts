// One HTTP suite run against the three ways of hosting a generated API (http-behaviour "Embedding
// the server", "Beyond the API's own routes"): createServer, createRequestListener mounted on a
// node:http server, and createFetchHandler behind @hono/node-server. The `lending` fixture's
// server URL has the path /v1: every route, link, Location and Link carries it.

import { createAdaptorServer } from "@hono/node-server";
import { readFileSync } from "node:fs";
import { type Server, createServer } from "node:http";
import { type AddressInfo, connect } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "../support/fixtures.js";
import { START_TIMEOUT, call, compileFixture, expectError, obj, portOf, raw } from "./support.js";
import type { Reply } from "./support.js";
import type { Json } from "./support.js";

/** What the compiled code exports beyond createServer. */
type Hosting = {
  createServer(options: object): Server;
  createRequestListener(options: object): (req: unknown, res: unknown) => void;
  createFetchHandler(options: object): (request: Request) => Promise<Response>;
  createMemoryHandlers(): { [resource: string]: { [operation: string]: (input: Json) => unknown } };
};

type Mode = "createServer" | "createRequestListener" | "createFetchHandler";
const MODES: readonly Mode[] = ["createServer", "createRequestListener", "createFetchHandler"];
const ALLOWED = "https://portal.example.org";
const principal = { subject: "ann", scopes: ["library:read", "library:write", "loans:write"] };
const reader = { subject: "rea", scopes: ["library:read"] };

/** Starts the API hosted one way on 127.0.0.1 with these options; its base URL and its stop. */
async function host(api: Hosting, mode: Mode, options: object): Promise<{ url: string; close(): Promise<void> }> {
  const server =
    mode === "createServer"
      ? api.createServer(options)
      : mode === "createRequestListener"
        ? createServer(api.createRequestListener(options))
        : (createAdaptorServer({ fetch: api.createFetchHandler(options) }) as Server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const document = readFileSync(path.join(ROOT, "fixtures/valid/lending/expected/openapi.yaml"), "utf8");
let compiled: Awaited<ReturnType<typeof compileFixture>>;
beforeAll(async () => {
  compiled = await compileFixture("lending");
}, START_TIMEOUT);
afterAll(async () => {
  await compiled?.dispose();
});

describe.each(MODES)("%s", (mode) => {
  const events: Json[] = [];
  const errors: unknown[] = [];
  let base = "";
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const api = compiled.api as unknown as Hosting;
    const memory = api.createMemoryHandlers();
    const started = await host(api, mode, {
      handlers: { ...memory, members: { ...memory.members, listMembers: () => Promise.reject(new Error("the store is down")) } },
      verifyToken: (token: string) => (token === "good" ? principal : token === "reader" ? reader : undefined),
      cors: [ALLOWED],
      bodyLimit: 1000,
      onRequest: (event: Json) => events.push({ ...event, phase: "request" }),
      onResponse: (event: Json) => events.push({ ...event, phase: "response" }),
      onError: (error: unknown) => errors.push(error),
    });
    base = started.url;
    stop = started.close;
  }, START_TIMEOUT);
  afterAll(async () => {
    await stop?.();
  });
  const at = (method: string, target: string, json?: unknown, headers: Record<string, string> = {}) =>
    call(base, method, target, { token: "good", headers, ...(json === undefined ? {} : { json }) });

  it("serves every route under the base path of the first server URL; links, Location and Link carry it", async () => {
    expectError(await at("GET", "/books"), 404);
    const index = obj(await at("GET", "/v1/"));
    expect(obj(await at("GET", "/v1")).links).toEqual(index.links);
    const links = index.links as Json[];
    expect(links.find((link) => link.rel === "books")?.href).toBe("/v1/books");
    expect(links.filter((link) => String(link.rel).startsWith("service-"))).toEqual([
      { rel: "service-desc", method: "GET", href: "/v1/openapi.json" },
      { rel: "service-doc", method: "GET", href: "/v1/docs" },
    ]);
    const created = await at("POST", "/v1/books", { title: "T", author: "A" });
    expect(created.status, created.text).toBe(201);
    const location = created.headers.get("location")!;
    expect(location).toMatch(/^\/v1\/books\/[^/]+$/);
    expect((obj(created).links as Json[])[0]).toEqual({ rel: "self", method: "GET", href: location });
    expect(obj(await at("GET", location)).id).toBe(obj(created).id);
    await at("POST", "/v1/books", { title: "U", author: "A" });
    const page = await at("GET", "/v1/books?limit=1");
    expect(page.headers.get("link")).toMatch(/^<\/v1\/books\?limit=1&cursor=[^>]+>; rel="next"$/);
  });

  it("answers HEAD on GET routes with the GET's status and headers and no body", async () => {
    for (const target of ["/v1/books", "/v1/books/999999", "/v1/openapi.json"]) {
      const get = await fetch(base + target, { headers: { Authorization: "Bearer good" } });
      const head = await fetch(base + target, { method: "HEAD", headers: { Authorization: "Bearer good" } });
      expect(head.status).toBe(get.status);
      expect(await head.text()).toBe("");
      for (const name of ["content-type", "content-length"]) expect(head.headers.get(name), name).toBe(get.headers.get(name));
      await get.text();
    }
  });

  it("answers OPTIONS on a known path 204 with Allow, and names HEAD and OPTIONS in a 405's Allow", async () => {
    const options = await at("OPTIONS", "/v1/books");
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, POST, HEAD, OPTIONS");
    expect(options.headers.get("access-control-allow-origin")).toBeNull();
    expectError(await at("OPTIONS", "/v1/nothing-here"), 404);
    const refused = await at("PUT", "/v1/books");
    expectError(refused, 405);
    expect(refused.headers.get("allow")).toBe("GET, POST, HEAD, OPTIONS");
  });

  it("answers OPTIONS and another method on /healthz and /readyz as on every known path: 204 and 405 with Allow", async () => {
    for (const target of ["/v1/healthz", "/v1/readyz"]) {
      expect((await at("GET", target)).status, target).toBe(200);
      const options = await at("OPTIONS", target);
      expect([options.status, options.headers.get("allow")], target).toEqual([204, "GET, HEAD, OPTIONS"]);
      const refused = await at("POST", target, {});
      expectError(refused, 405);
      expect(refused.headers.get("allow"), target).toBe("GET, HEAD, OPTIONS");
    }
  });

  it("CORS: a preflight from an allowed origin, its headers on every answer, nothing for other origins", async () => {
    const preflight = await call(base, "OPTIONS", "/v1/loans", {
      headers: { Origin: ALLOWED, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect(preflight.headers.get("access-control-allow-methods")).toBe("GET, POST, HEAD, OPTIONS");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("authorization, content-type");
    expect(preflight.headers.get("vary")).toBe("Origin");
    for (const reply of [
      await at("GET", "/v1/books", undefined, { Origin: ALLOWED }),
      await call(base, "GET", "/v1/loans", { headers: { Origin: ALLOWED } }),
    ]) {
      expect(reply.headers.get("access-control-allow-origin")).toBe(ALLOWED);
      expect(reply.headers.get("vary")).toBe("Origin");
      expect(reply.headers.get("access-control-expose-headers")).toBe("Location, Link, WWW-Authenticate, ETag");
    }
    const other = [
      await call(base, "OPTIONS", "/v1/loans", { headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "POST" } }),
      await at("GET", "/v1/books", undefined, { Origin: "https://evil.example" }),
    ];
    for (const reply of other) expect([...reply.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
  });

  it("CORS: answers to other origins and to requests without one say Vary: Origin, so a cache keeps them apart", async () => {
    for (const reply of [
      await call(base, "OPTIONS", "/v1/loans", { headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "POST" } }),
      await at("GET", "/v1/books", undefined, { Origin: "https://evil.example" }),
      await at("GET", "/v1/books"),
      await call(base, "GET", "/v1/nowhere"),
    ]) {
      expect(reply.headers.get("vary")).toBe("Origin");
      expect(reply.headers.get("access-control-allow-origin")).toBeNull();
    }
  });

  it("serves the document as JSON and YAML and the /docs page, public and not in the document", async () => {
    const json = await fetch(`${base}/v1/openapi.json`);
    expect(json.headers.get("content-type")).toBe("application/json");
    expect(await json.json()).toEqual(parse(document));
    const yaml = await fetch(`${base}/v1/openapi.yaml`);
    expect(yaml.headers.get("content-type")).toBe("application/yaml");
    expect(await yaml.text()).toBe(document);
    const docs = await fetch(`${base}/v1/docs`);
    expect(docs.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(docs.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await docs.text()).toContain("<main></main>");
    expect(Object.keys((parse(document) as { paths: Json }).paths).filter((p) => /openapi|docs/.test(p))).toEqual([]);
    expectError(await call(base, "POST", "/v1/docs", { body: "" }), 405);
  });

  it("keeps the body limit (413, announced or streamed) and the depth limit (400)", async () => {
    const big = JSON.stringify({ title: "x".repeat(2000), author: "A" });
    expectError(await call(base, "POST", "/v1/books", { token: "good", headers: { "Content-Type": "application/json" }, body: big }), 413);
    const chunked = await raw(
      base,
      ["POST /v1/books HTTP/1.1", "Authorization: Bearer good", "Content-Type: application/json", "Transfer-Encoding: chunked"],
      `${(2000).toString(16)}\r\n${"x".repeat(2000)}\r\n0\r\n\r\n`,
    );
    expectError(chunked, 413);
    const deep = "[".repeat(200) + "]".repeat(200);
    expectError(await call(base, "POST", "/v1/books", { token: "good", headers: { "Content-Type": "application/json" }, body: deep }), 400, ["body"]);
  });

  it("tells onRequest and onResponse of every request, with status, duration and principal", async () => {
    events.length = 0;
    await at("GET", "/v1/loans?limit=1");
    await call(base, "GET", "/v1/loans");
    expect(events.map(({ duration, ...rest }) => (rest.phase === "response" ? (expect(duration).toBeGreaterThanOrEqual(0), rest) : rest))).toEqual([
      { phase: "request", method: "GET", path: "/v1/loans" },
      { phase: "response", method: "GET", path: "/v1/loans", status: 200, principal, aborted: false },
      { phase: "request", method: "GET", path: "/v1/loans" },
      { phase: "response", method: "GET", path: "/v1/loans", status: 401, principal: undefined, aborted: false },
    ]);
  });

  it("tells onResponse the principal of a valid token that lacks a scope (403)", async () => {
    events.length = 0;
    const refused = await call(base, "POST", "/v1/books", { token: "reader", json: { title: "T", author: "A" } });
    expect(refused.status, refused.text).toBe(403);
    expect(events.map(({ duration: _duration, ...rest }) => rest)).toEqual([
      { phase: "request", method: "POST", path: "/v1/books" },
      { phase: "response", method: "POST", path: "/v1/books", status: 403, principal: reader, aborted: false },
    ]);
  });

  it("tells onResponse of a request whose client went away mid-body, as aborted with status 499", async () => {
    events.length = 0;
    const socket = connect(portOf(base), "127.0.0.1");
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    socket.on("error", () => undefined);
    const head = ["POST /v1/books HTTP/1.1", "Host: 127.0.0.1", "Authorization: Bearer good", "Content-Type: application/json", "Content-Length: 100", "", ""];
    await new Promise<void>((resolve) => socket.write(head.join("\r\n") + '{"title":', () => resolve()));
    // Why: the server must be reading the body when the client goes away.
    for (let waited = 0; waited < 5_000 && events.length === 0; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    socket.destroy();
    for (let waited = 0; waited < 5_000 && events.length < 2; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    const { duration, ...rest } = events[1] ?? {};
    expect(duration).toBeGreaterThanOrEqual(0);
    expect(rest).toEqual({ phase: "response", method: "POST", path: "/v1/books", status: 499, principal, aborted: true });
  });

  it("answers a handler's fault 500 without internals and tells onError", async () => {
    errors.length = 0;
    const reply = await at("GET", "/v1/members");
    expectError(reply, 500);
    expect(reply.text).not.toContain("store is down");
    expect(String(errors[0])).toContain("the store is down");
  });
});

describe("options of the host", () => {
  it("docs: false serves no document and the index links none; basePath overrides the document's", async () => {
    const api = compiled.api as unknown as Hosting;
    const started = await host(api, "createFetchHandler", { handlers: api.createMemoryHandlers(), verifyToken: () => undefined, docs: false, basePath: "/" });
    try {
      expectError(await call(started.url, "GET", "/docs"), 404);
      expectError(await call(started.url, "GET", "/openapi.json"), 404);
      const links = obj(await call(started.url, "GET", "/")).links as Json[];
      expect(links.map((link) => link.rel)).not.toContain("service-desc");
      expect(links.find((link) => link.rel === "books")?.href).toBe("/books");
    } finally {
      await started.close();
    }
  });

  it("the fetch handler answers 408 to a request whose body does not arrive within requestTimeout, with CORS and onResponse as every answer", async () => {
    const api = compiled.api as unknown as Hosting;
    const events: Json[] = [];
    const started = await host(api, "createFetchHandler", {
      handlers: api.createMemoryHandlers(),
      verifyToken: () => principal,
      requestTimeout: 300,
      cors: [ALLOWED],
      onResponse: (event: Json) => events.push(event),
    });
    try {
      // A body that starts and never ends, on a connection that stays open.
      const body = new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new TextEncoder().encode('{"title":')) });
      const response = await fetch(`${started.url}/v1/books`, {
        method: "POST",
        body,
        duplex: "half",
        headers: { Authorization: "Bearer good", "Content-Type": "application/json", Origin: ALLOWED },
        signal: AbortSignal.timeout(5_000),
      } as RequestInit);
      const text = await response.text();
      const reply: Reply = { status: response.status, headers: response.headers, text, body: JSON.parse(text) as unknown };
      expectError(reply, 408);
      expect(reply.headers.get("access-control-allow-origin")).toBe(ALLOWED);
      expect(events.map((event) => [event.path, event.status, event.aborted])).toEqual([["/v1/books", 408, false]]);
    } finally {
      await started.close();
    }
  });

  it("answers 500 to a request whose body a parser mounted before the listener read, with CORS and onResponse as every answer", async () => {
    const api = compiled.api as unknown as Hosting;
    const events: Json[] = [];
    const errors: unknown[] = [];
    const listener = api.createRequestListener({
      handlers: api.createMemoryHandlers(),
      verifyToken: () => principal,
      cors: [ALLOWED],
      onResponse: (event: Json) => events.push(event),
      onError: (error: unknown) => errors.push(error),
    });
    // A body parser mounted first: it reads the whole body, then hands the request on.
    const server = createServer((req, res) => {
      req.resume();
      req.once("end", () => listener(req, res));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const reply = await call(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, "POST", "/v1/books", {
        token: "good",
        headers: { Origin: ALLOWED },
        json: { title: "T", author: "A" },
      });
      expectError(reply, 500);
      expect(reply.headers.get("access-control-allow-origin")).toBe(ALLOWED);
      expect(events.map((event) => [event.path, event.status, event.aborted])).toEqual([["/v1/books", 500, false]]);
      expect(String(errors[0])).toContain("mount it before any body parser");
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("the fetch handler answers 500 to a request whose body was read before it, with CORS and onResponse as every answer", async () => {
    const api = compiled.api as unknown as Hosting;
    const events: Json[] = [];
    const errors: unknown[] = [];
    const handler = api.createFetchHandler({
      handlers: api.createMemoryHandlers(),
      verifyToken: () => principal,
      cors: [ALLOWED],
      onResponse: (event: Json) => events.push(event),
      onError: (error: unknown) => errors.push(error),
    });
    const request = new Request("http://127.0.0.1/v1/books", {
      method: "POST",
      headers: { Authorization: "Bearer good", "Content-Type": "application/json", Origin: ALLOWED },
      body: JSON.stringify({ title: "T", author: "A" }),
    });
    // A framework's body parser read it first (Hono's c.req.json() on the raw request).
    await request.text();
    const response = await handler(request);
    const text = await response.text();
    expectError({ status: response.status, headers: response.headers, text, body: JSON.parse(text) as unknown }, 500);
    expect(response.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect(events.map((event) => [event.path, event.status, event.aborted])).toEqual([["/v1/books", 500, false]]);
    expect(String(errors[0])).toContain("mount it before any body parser");
  });
});
