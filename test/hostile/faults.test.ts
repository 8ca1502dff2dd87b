// Handlers that return what no representation can be built from
// (500), and handlers or hooks that never answer (504 after `handlerTimeout`). The client gets the
// fixed JSON error body and nothing of the fault; `onError` is told; the server keeps serving.
// (Handlers that throw or reject: test/http/handlers.test.ts.)

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_HANDLER_TIMEOUT } from "../../fixtures/valid/blog/expected/runtime/dispatch.gen.js";
import { START_TIMEOUT, call, compileFixture, form, obj } from "../http/support.js";
import type { CompiledApi, HandlerFunction, Json, Reply } from "../http/support.js";

const SECRET = "row 7 of /var/db/secret.sqlite";
const principal = { subject: "ann", scopes: ["articles:read", "articles:write", "authors:write"] };
const TIMEOUT = 200;
const circular: Json = { id: 1, title: "loop" };
circular.self = circular;

/** What a wrong-shaped `createAuthor` returns, chosen per request by the author's name. */
const wrongCreates: { [name: string]: unknown } = {
  string: SECRET,
  number: 7,
  null: null,
  array: [{ id: 1, name: SECRET }],
  "no id": { name: SECRET, email: "a@example.com" },
  "id NaN": { id: Number.NaN, name: SECRET },
  "id an object": { id: { secret: SECRET }, name: SECRET },
  "id empty": { id: "", name: SECRET },
  bigint: { id: 1, name: SECRET, big: 10n },
  circular,
  "a throwing getter": Object.defineProperty({ id: 1 }, "name", {
    enumerable: true,
    get: () => {
      throw new Error(SECRET);
    },
  }),
};

let compiled: { api: CompiledApi; dispose(): Promise<void> };
let server: Server;
let base = "";
const errors: unknown[] = [];
let late = 0;

const never = (): Promise<never> => new Promise<never>(() => undefined);

beforeAll(async () => {
  compiled = await compileFixture("blog");
  const memory = compiled.api.createMemoryHandlers();
  const authors = memory.authors!;
  const articles = memory.articles!;
  const options = {
    handlers: {
      authors: {
        ...authors,
        createAuthor: ((input) => {
          const name = (input.body as Json).name as string;
          if (name === "crlf") return { id: "7\r\nSet-Cookie: a=b", name, email: "a@example.com" };
          return Object.hasOwn(wrongCreates, name) ? wrongCreates[name] : authors.createAuthor!(input);
        }) as HandlerFunction,
        listAuthors: ((input) =>
          (input.principal as Json | undefined) === undefined
            ? { not: "a list" }
            : [{ id: 1, name: "ok", email: "a@example.com" }, "a string"]) as HandlerFunction,
        getAuthor: ((input) => (input.id === 404 ? undefined : input.id === 500 ? "not an object" : authors.getAuthor!(input))) as HandlerFunction,
        updateAuthor: () => undefined,
        replaceAuthor: () => [1, 2],
      },
      articles: {
        ...articles,
        // Never answers for ids above 1000; answers late (after the time-out) for 999.
        getArticle: ((input) => {
          const id = input.id as number;
          if (id === 999) return new Promise((resolve) => setTimeout(() => resolve((late++, undefined)), TIMEOUT * 2));
          if (id === 998) return new Promise((_, reject) => setTimeout(() => reject(new Error(SECRET)), TIMEOUT * 2));
          return id > 1000 ? never() : articles.getArticle!(input);
        }) as HandlerFunction,
        listArticles: never,
      },
    },
    verifyToken: (token: string) => (token === "slow" ? never() : token === "good" ? principal : undefined),
    issueToken: () => never(),
    onError: (error: unknown) => errors.push(error),
    handlerTimeout: TIMEOUT,
  };
  server = compiled.api.createServer(options as Parameters<CompiledApi["createServer"]>[0]);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}, START_TIMEOUT);
afterAll(async () => {
  if (server?.listening) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await compiled?.dispose();
});

/** The fixed fault answer: this status, the fixed body, nothing of the fault; one more error logged; the server still serves. */
async function expectFault(send: () => Promise<Reply>, status: 500 | 504, errorName: string): Promise<void> {
  const before = errors.length;
  const reply = await send();
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual({ error: status === 500 ? "Internal server error" : "Gateway timeout", detail: {} });
  for (const leak of ["secret", "sqlite", "Error", "handler", " at "]) expect(reply.text).not.toContain(leak);
  expect(errors.length).toBe(before + 1);
  expect((errors.at(-1) as Error).name).toBe(errorName);
  expect((await call(base, "GET", "/")).status).toBe(200);
}

describe("a handler that returns a wrong shape: 500, onError told, the server keeps serving", () => {
  it.each(Object.keys(wrongCreates).filter((k) => !["bigint", "circular", "a throwing getter"].includes(k)))("createAuthor returns %s", async (name) => {
    await expectFault(() => call(base, "POST", "/authors", { json: { name, email: "a@example.com" }, token: "good" }), 500, "HandlerResultError");
  });

  it.each(["bigint", "circular", "a throwing getter"])("createAuthor returns an object JSON cannot write (%s)", async (name) => {
    const before = errors.length;
    const reply = await call(base, "POST", "/authors", { json: { name, email: "a@example.com" }, token: "good" });
    expect(reply.status).toBe(500);
    expect(reply.body).toEqual({ error: "Internal server error", detail: {} });
    expect(reply.text).not.toContain("secret");
    expect(errors.length).toBe(before + 1);
  });

  it("listAuthors returns an object, or an array holding a string", async () => {
    await expectFault(() => call(base, "GET", "/authors"), 500, "HandlerResultError");
    expect(String(errors.at(-1))).toContain("listAuthors handler returned an object");
    await expectFault(() => call(base, "GET", "/authors", { token: "good" }), 500, "HandlerResultError");
  });

  it("getAuthor returns a string (and undefined is a 404, not a fault)", async () => {
    await expectFault(() => call(base, "GET", "/authors/500"), 500, "HandlerResultError");
    expect((await call(base, "GET", "/authors/404")).status).toBe(404);
  });

  it("updateAuthor returns nothing, replaceAuthor an array", async () => {
    const created = obj(await call(base, "POST", "/authors", { json: { name: "real", email: "a@example.com" }, token: "good" }));
    await expectFault(() => call(base, "PATCH", `/authors/${String(created.id)}`, { json: { name: "m" }, token: "good" }), 500, "HandlerResultError");
    await expectFault(
      () => call(base, "PUT", `/authors/${String(created.id)}`, { json: { name: "m", email: "b@example.com" }, token: "good" }),
      500,
      "HandlerResultError",
    );
  });
});

describe("what a handler returns cannot split the response", () => {
  it("an id with CR LF goes into Location percent-encoded, and into the body as JSON", async () => {
    const reply = await call(base, "POST", "/authors", { json: { name: "crlf", email: "a@example.com" }, token: "good" });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get("location")).toBe("/authors/7%0D%0ASet-Cookie%3A%20a%3Db");
    expect(reply.headers.get("set-cookie")).toBeNull();
    expect(obj(reply).id).toBe("7\r\nSet-Cookie: a=b");
  });
});

describe("a handler or hook that never answers: 504 after handlerTimeout, onError told, the server keeps serving", () => {
  it("the default time-out is 30 s", () => {
    expect(DEFAULT_HANDLER_TIMEOUT).toBe(30_000);
  });

  it("a list handler", async () => {
    const started = Date.now();
    await expectFault(() => call(base, "GET", "/articles"), 504, "HandlerTimeoutError");
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT - 5);
    expect(String(errors.at(-1))).toContain("listArticles");
  });

  it("the lookup behind GET, PUT, PATCH and DELETE", async () => {
    await expectFault(() => call(base, "GET", "/articles/1001"), 504, "HandlerTimeoutError");
    await expectFault(() => call(base, "DELETE", "/articles/1002", { token: "good" }), 504, "HandlerTimeoutError");
    await expectFault(() => call(base, "PATCH", "/articles/1003", { json: { title: "x" }, token: "good" }), 504, "HandlerTimeoutError");
  });

  it("the token check", async () => {
    await expectFault(() => call(base, "POST", "/articles", { json: { title: "t" }, token: "slow" }), 504, "HandlerTimeoutError");
  });

  it("the token issuer", async () => {
    await expectFault(
      () =>
        call(base, "POST", "/token", {
          body: form([
            ["grant_type", "password"],
            ["username", "u"],
            ["password", "p"],
          ]),
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
        }),
      504,
      "HandlerTimeoutError",
    );
  });

  it("many at once, then a handler answering or failing after its time-out: ignored, nothing crashes", async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => call(base, "GET", `/articles/${2000 + i}`)));
    for (const reply of replies) expect(reply.status).toBe(504);
    await expectFault(() => call(base, "GET", "/articles/999"), 504, "HandlerTimeoutError");
    await expectFault(() => call(base, "GET", "/articles/998"), 504, "HandlerTimeoutError");
    const count = errors.length;
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT * 3));
    expect(late).toBe(1);
    expect(errors.length).toBe(count);
    const created = await call(base, "POST", "/articles", { json: { title: "still serving" }, token: "good" });
    expect(created.status).toBe(201);
    expect((await call(base, "GET", `/articles/${String(obj(created).id)}`)).status).toBe(200);
  });
});
