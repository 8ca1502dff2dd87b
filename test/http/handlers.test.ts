// The blog fixture's compiled code started with handlers and hooks of the test's own: a handler
// or hook that throws answers 500 without internals and the server keeps serving; what the
// token check and the handlers receive (the scopes helper, the principal, the token as read);
// the configurable limits (body size, time to send the request: 408).

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { START_TIMEOUT, call, compileFixture, expectAuthError, expectError, form, obj, raw } from "./support.js";
import type { CompiledApi, HandlerFunction, Json, RawReply } from "./support.js";
import { exchange } from "../runtime/wire.js";

const SECRET = "db password is hunter2 at /srv/app/secret.ts:42";
const principal = { subject: "ann", scopes: ["articles:read", "articles:write", "authors:write"] };

let compiled: { api: CompiledApi; dispose(): Promise<void> };
let server: Server;
let slow: Server;
let base = "";
let slowBase = "";
const errors: unknown[] = [];
const verified: { token: string; scopes: Json; guard: Json }[] = [];
const seen: Json[] = [];

function throwing(): HandlerFunction {
  return () => {
    throw new Error(SECRET);
  };
}

async function listen(target: Server): Promise<string> {
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${String((target.address() as AddressInfo).port)}`;
}

async function stop(target: Server | undefined): Promise<void> {
  if (!target?.listening) return;
  target.closeAllConnections();
  await new Promise<void>((resolve) => target.close(() => resolve()));
}

beforeAll(async () => {
  compiled = await compileFixture("blog");
  const memory = compiled.api.createMemoryHandlers();
  const articles = memory.articles!;
  const authors = memory.authors!;
  const record =
    (name: string, handler: HandlerFunction): HandlerFunction =>
    (input) => {
      seen.push({ name, input });
      return handler(input);
    };
  server = compiled.api.createServer({
    handlers: {
      authors: {
        ...authors,
        createAuthor: record("createAuthor", authors.createAuthor!),
        listAuthors: async () => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          throw new TypeError(SECRET);
        },
        // Not even an Error: a thrown string.
        deleteAuthor: () => {
          throw SECRET;
        },
        // A handler that answers nothing where an object is due.
        updateAuthor: () => undefined,
      },
      articles: {
        ...articles,
        getArticle: (input) => (input.id === 666 ? throwing()(input) : articles.getArticle!(input)),
        createArticle: record("createArticle", articles.createArticle!),
        listArticles: record("listArticles", articles.listArticles!),
        replaceArticle: throwing(),
      },
    },
    verifyToken: (token, scopes, guard) => {
      verified.push({ token, scopes, guard });
      if (token === "explode") throw new Error(SECRET);
      return token === "good" || token === "a b" ? principal : undefined;
    },
    issueToken: (request) => {
      if (request.username === "explode") throw new Error(SECRET);
      if (request.password !== "pw") return { error: "invalid_grant" };
      return { access_token: `token-for-${String(request.username)}`, token_type: "bearer", expires_in: 60 };
    },
    onError: (error) => errors.push(error),
    bodyLimit: 256,
  });
  base = await listen(server);
  slow = compiled.api.createServer({
    handlers: compiled.api.createMemoryHandlers(),
    verifyToken: () => principal,
    headersTimeout: 300,
    requestTimeout: 600,
    connectionsCheckingInterval: 50,
  });
  slowBase = await listen(slow);
}, START_TIMEOUT);
afterAll(async () => {
  await Promise.all([stop(server), stop(slow)]);
  await compiled?.dispose();
});

/** A 500: the fixed error body, nothing of the error, and the server still answers. */
async function expectInternalError(reply: Awaited<ReturnType<typeof call>>): Promise<void> {
  expect(reply.status, reply.text).toBe(500);
  expect(reply.body).toEqual({ error: "Internal server error", detail: {} });
  for (const leak of ["hunter2", "secret", "/srv", "Error", "at "]) expect(reply.text).not.toContain(leak);
  const again = await call(base, "GET", "/");
  expect(again.status).toBe(200);
}

describe("a handler that throws: 500 without internals, and the server keeps serving", () => {
  it("an Error thrown at once", async () => {
    const before = errors.length;
    const created = obj(await call(base, "POST", "/articles", { json: { title: "t" }, token: "good" }));
    await expectInternalError(await call(base, "PUT", `/articles/${String(created.id)}`, { json: { title: "u" }, token: "good" }));
    expect(errors.length).toBe(before + 1);
    expect(String(errors.at(-1))).toContain(SECRET);
  });

  it("a rejected promise", async () => {
    await expectInternalError(await call(base, "GET", "/authors"));
  });

  it("a thrown string", async () => {
    const created = obj(await call(base, "POST", "/authors", { json: { name: "n", email: "n@example.com" }, token: "good" }));
    await expectInternalError(await call(base, "DELETE", `/authors/${String(created.id)}`, { token: "good" }));
  });

  it("a handler that answers nothing where an object is due", async () => {
    const created = obj(await call(base, "POST", "/authors", { json: { name: "n", email: "n@example.com" }, token: "good" }));
    await expectInternalError(await call(base, "PATCH", `/authors/${String(created.id)}`, { json: { name: "m" }, token: "good" }));
  });

  it("a lookup that throws (the get handler behind PUT, PATCH and DELETE)", async () => {
    await expectInternalError(await call(base, "GET", "/articles/666"));
    await expectInternalError(await call(base, "DELETE", "/articles/666", { token: "good" }));
  });

  it("the token check throwing", async () => {
    await expectInternalError(await call(base, "POST", "/articles", { json: { title: "t" }, token: "explode" }));
  });

  it("the token issuer throwing", async () => {
    await expectInternalError(
      await call(base, "POST", "/token", {
        body: form([
          ["grant_type", "password"],
          ["username", "explode"],
          ["password", "pw"],
        ]),
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      }),
    );
  });

  it("many failures in a row leave the server serving, with keep-alive requests after them", async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, () => call(base, "GET", "/articles/666")));
    for (const reply of replies) expect(reply.status).toBe(500);
    const created = await call(base, "POST", "/articles", { json: { title: "still here" }, token: "good" });
    expect(created.status).toBe(201);
  });
});

describe("what the token check and the handlers receive", () => {
  it("the token as read from the header, the scopes helper and the guard", async () => {
    verified.length = 0;
    const reply = await raw(
      base,
      ["POST /articles HTTP/1.1", "Authorization: Bearer  a b ", "Content-Type: application/json", "Content-Length: 13"],
      '{"title":"x"}',
    );
    expect(reply.status, reply.text).toBe(201);
    expect(verified).toEqual([
      {
        token: "a b",
        scopes: { scopes: ["articles:write"], scopeStr: "articles:write" },
        guard: { kind: "bearer", name: "OAuth2PasswordBearer", autoError: true },
      },
    ]);
  });

  it("the empty token is never handed to the token check", async () => {
    verified.length = 0;
    expectAuthError(await raw(base, ["GET /articles HTTP/1.1", "Authorization: Bearer  "]), 401, "Bearer");
    expect(verified).toEqual([]);
  });

  it("an optional operation tries each bearer guard in turn, with the empty scopes helper", async () => {
    verified.length = 0;
    expectAuthError(await call(base, "GET", "/articles", { token: "bad" }), 401, "Bearer");
    expect(verified.map((v) => [v.token, v.scopes, v.guard.name])).toEqual([
      ["bad", { scopes: [], scopeStr: "" }, "OAuth2PasswordBearer"],
      ["bad", { scopes: [], scopeStr: "" }, "OAuth2AuthorizationCodeBearer"],
    ]);
  });

  it("handlers get the principal (or none with optional access), the scopes helper and the request's signal", async () => {
    const signal = expect.any(AbortSignal) as unknown;
    seen.length = 0;
    await call(base, "POST", "/articles", { json: { title: "p", status: "published", id: 9 }, token: "good" });
    await call(base, "GET", "/articles?published=false");
    await call(base, "GET", "/articles", { token: "good" });
    expect(seen).toEqual([
      {
        name: "createArticle",
        input: {
          body: { title: "p", published: false, status: "draft" },
          principal,
          scopes: { scopes: ["articles:write"], scopeStr: "articles:write" },
          signal,
        },
      },
      { name: "listArticles", input: { query: { published: false }, principal: undefined, scopes: { scopes: [], scopeStr: "" }, signal } },
      { name: "listArticles", input: { query: {}, principal, scopes: { scopes: [], scopeStr: "" }, signal } },
    ]);
    // Each request's own signal, not aborted once it is answered.
    const signals = seen.map((s) => (s.input as { signal: AbortSignal }).signal);
    expect(new Set(signals).size).toBe(3);
    expect(signals.some((s) => s.aborted)).toBe(false);
    // One getter for every input's signal: a getter of its own per request gave each input a
    // shape of its own in V8, which cost more garbage collection than the rest of the request.
    const getters = seen.map((s) => Object.getOwnPropertyDescriptor(s.input, "signal")?.get);
    expect(getters[0]).toBeTypeOf("function");
    expect(new Set(getters).size).toBe(1);
  });

  it("the issuer's answers: a token with no-store, or an RFC 6749 error", async () => {
    const post = (body: string) => call(base, "POST", "/token", { body, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    const ok = await post(
      form([
        ["grant_type", "password"],
        ["username", "u"],
        ["password", "pw"],
      ]),
    );
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ access_token: "token-for-u", token_type: "bearer", expires_in: 60 });
    expect(ok.headers.get("cache-control")).toBe("no-store");
    const refused = await post(
      form([
        ["grant_type", "password"],
        ["username", "u"],
        ["password", "no"],
      ]),
    );
    expectError(refused, 400);
    expect(obj(refused).error).toBe("invalid_grant");
    expect(refused.headers.get("cache-control")).toBe("no-store");
  });
});

describe("configurable limits", () => {
  it("bodyLimit: a body over the configured limit is 413", async () => {
    const body = JSON.stringify({ title: "x".repeat(300) });
    expectError(await call(base, "POST", "/articles", { body, headers: { "Content-Type": "application/json" }, token: "good" }), 413, ["body"]);
    const fits = JSON.stringify({ title: "x".repeat(200) });
    expect((await call(base, "POST", "/articles", { body: fits, headers: { "Content-Type": "application/json" }, token: "good" })).status).toBe(201);
  });

  it("headers not sent in time: 408 with an error body, then the connection closes", async () => {
    const complete = await raw(slowBase, ["GET /authors HTTP/1.1"]);
    expect(complete.status).toBe(200);
    // The client waits until the server closes (10 s at most: a loaded machine runs timers late).
    const partial = await rawPartial(slowBase, "GET /authors HTTP/1.1\r\nHost: 127.0.0.1\r\n", 10_000);
    expectError(partial, 408);
    expect(partial.closed).toBe(true);
  });

  it("a body not sent in time: 408, then the connection closes", async () => {
    const partial = await rawPartial(
      slowBase,
      `POST /articles HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{"title"`,
      10_000,
    );
    expectError(partial, 408);
    expect(partial.closed).toBe(true);
  });
});

/** Writes `text` (an incomplete request) and reads until the server closes or `waitMs` pass. */
async function rawPartial(base: string, text: string, waitMs: number): Promise<RawReply> {
  const reply = await exchange(Number(new URL(base).port), text, { waitMs });
  const body = reply.body;
  expect(reply.headers.get("content-type")).toBe("application/json");
  return { ...reply, text: body, body: JSON.parse(body) as unknown, rest: "" };
}
