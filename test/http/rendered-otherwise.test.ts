// A document written by others with one of each construct codegen cannot render as written
// (fixtures/openapi/rendered-otherwise) generates, and its server, spoken to over real HTTP on
// 127.0.0.1, does what the warnings say (docs/openapi.md, "What is handed raw, and what is left
// out"): a raw query, header, cookie or path parameter reaches the handler as sent; a keyword the
// validator does not check is skipped while the rest of its schema is checked; the path no router
// can match and the operation whose security codegen cannot check are left out (never let in
// unchecked); the operations of a selector path group with their path. The warnings' places are
// checked by test/compile/api/rendered-otherwise.test.ts; the output compiles under tsc --strict in
// test/compile/openapi/examples.test.ts.

import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../support/fixtures.js";
import { START_TIMEOUT, call, closeLocal, compileText, expectError, listenLocal, obj } from "./support.js";
import type { Json } from "./support.js";

const DOCUMENT = readFileSync(path.join(ROOT, "fixtures/openapi/rendered-otherwise/openapi.yaml"), "utf8");

describe("a server from a document with constructs codegen renders otherwise", () => {
  let server: Server;
  let at = "";
  let dispose = async () => {};
  /** How many times each handler ran. */
  const calls: Record<string, number> = {};

  beforeAll(async () => {
    const compiled = await compileText(DOCUMENT);
    dispose = compiled.dispose;
    const echo = (name: string, status: number) => (input: Json) => {
      calls[name] = (calls[name] ?? 0) + 1;
      return { status, body: { path: input.path, query: input.query, headers: input.headers, cookies: input.cookies, body: input.body } };
    };
    const counted = (name: string) => () => {
      calls[name] = (calls[name] ?? 0) + 1;
      return { status: 200, body: {} };
    };
    server = compiled.api.createServer({
      // The selector path's operation is in a group of its own, named after its path and selector.
      handlers: {
        items: { listItems: echo("listItems", 200), getItem: echo("getItem", 200), createOrder: echo("createOrder", 201) },
        analyze: { analyze: counted("analyze") },
        analyzeOverloadStream: { analyzeStream: counted("analyzeStream") },
      },
      // (The document's only token check is of the operation left out; no call reaches this.)
      verifyToken: () => undefined,
    });
    at = await listenLocal(server);
  }, START_TIMEOUT);
  afterAll(async () => {
    await closeLocal(server);
    await dispose();
  });

  it("hands raw query, header and cookie parameters to the handler as sent: a text, or the texts where repeated", async () => {
    const reply = await call(at, "GET", "/items?q=a%20b%2Cc&filter=%7B%22field%22%3A1%7D&filter=x&limit=3", {
      headers: { "X-Trace": "[[1,2]], [3]", Cookie: "prefs=%5B%7B%7D%5D; other=1; prefs=two" },
    });
    expect(reply.status, reply.text).toBe(200);
    const body = obj(reply) as { query: Json; headers: Json; cookies: Json };
    expect(body.query).toEqual({ q: "a b,c", filter: ['{"field":1}', "x"], limit: 3 });
    expect(body.headers).toEqual({ "X-Trace": "[[1,2]], [3]" });
    expect(body.cookies).toEqual({ prefs: ["[{}]", "two"] });
  });

  it("checks a raw parameter for nothing but being present when required", async () => {
    // Not JSON, not an array of objects: handed on as written.
    const reply = await call(at, "GET", "/items?q=&filter=not%20json", { headers: { "X-Trace": "anything" } });
    expect(reply.status, reply.text).toBe(200);
    expect((obj(reply) as { query: Json }).query).toEqual({ q: "", filter: "not json" });
    const before = calls.listItems;
    expectError(await call(at, "GET", "/items?filter=x"), 400, ["q"]);
    expect(calls.listItems).toBe(before);
  });

  it("validates the rest of the operation's parameters as before", async () => {
    expectError(await call(at, "GET", "/items?q=x&limit=11"), 400, ["limit"]);
    expectError(await call(at, "GET", "/items?q=x&unknown=1"), 400, ["unknown"]);
    // `contains` is not checked (the warning says so); `maxItems` beside it is.
    const without = await call(at, "GET", "/items?q=x&tags=b&tags=c");
    expect(without.status, without.text).toBe(200);
    expect((obj(without) as { query: Json }).query).toEqual({ q: "x", tags: ["b", "c"] });
    expectError(await call(at, "GET", "/items?q=x&tags=a&tags=b&tags=c"), 400, ["tags"]);
  });

  it("hands a raw path parameter to the handler as its segment, percent-decoded", async () => {
    const reply = await call(at, "GET", "/items/part%3D%7Bx%7D");
    expect(reply.status, reply.text).toBe(200);
    expect((obj(reply) as { path: Json }).path).toEqual({ key: "part={x}" });
  });

  it("checks a body whose schema has a keyword it does not check by the rest of its schema", async () => {
    const created = await call(at, "POST", "/orders", { json: { amount: 2, note: "n" } });
    expect(created.status, created.text).toBe(201);
    expectError(await call(at, "POST", "/orders", { json: { amount: 0 } }), 400, ["amount"]);
  });

  it("leaves out the path no router can match and the operation whose security it cannot check", async () => {
    // Never let in unchecked: the server has no handler for it (none was given), and answers that
    // no operation is there (404, or 405 where its path has no other method).
    expect((await call(at, "GET", "/pairs/ab")).status).toBe(404);
    expect((await call(at, "GET", "/guarded")).status).toBe(405);
    expect((await call(at, "GET", "/guarded", { headers: { Authorization: "not a token" } })).status).toBe(405);
  });

  it("routes a selector path's operation, and ignores a response key that is no status code", async () => {
    expect((await call(at, "POST", "/analyze")).status).toBe(200);
    expect((await call(at, "POST", "/analyze?overload=stream")).status).toBe(200);
    expect([calls.analyze, calls.analyzeStream]).toEqual([1, 1]);
  });
});
