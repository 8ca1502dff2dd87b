// What the one runtime path adds to resource operations (deliverable 1): the `next`
// link of a paged list never repeats an API key sent in the query, a refusal of the referenced
// resource's `get` during a reference check is answered like a refusal of the lookup, and
// instances sharing a `cursorKey` accept each other's cursors. Over real HTTP, on the lending
// fixture's document with its book list behind an API key in the query.

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { START_TIMEOUT, call, compileText, expectError, fixtureDocument, generateText, list, obj } from "./support.js";
import type { CompiledApi, HandlerFunction, Json } from "./support.js";

const principal = { subject: "ann", scopes: ["library:read", "library:write", "loans:write"] };
const errors: unknown[] = [];
const servers: Server[] = [];
let compiled: { api: CompiledApi; dispose(): Promise<void> };
/** Two instances with the same cursorKey and one memory store, as behind a load balancer; a third with its own key. */
let first = "";
let second = "";
let other = "";
let member: Json = {};

/** Book ids whose lookup the test's getBook refuses: with a status createLoan declares, and with one it does not. */
const LOCKED = 900001;
const TEAPOT = 900002;

beforeAll(async () => {
  const document = fixtureDocument("lending") as { paths: { [path: string]: { [method: string]: Json } }; components: { securitySchemes: Json } };
  document.components.securitySchemes.ApiKey = { type: "apiKey", in: "query", name: "api_key" };
  document.paths["/books"]!.get!.security = [{ ApiKey: [] }];
  compiled = await compileText(stringify(document));
  const memory = compiled.api.createMemoryHandlers();
  const books = memory.books!;
  const getBook: HandlerFunction = (input) =>
    input.id === LOCKED
      ? { status: 409, error: "The catalogue is being rebuilt" }
      : input.id === TEAPOT
        ? { status: 418, error: "teapot" }
        : books.getBook!(input);
  const start = async (cursorKey?: string): Promise<string> => {
    const server = compiled.api.createServer({
      handlers: { ...memory, books: { ...books, getBook } },
      verifyToken: (token) => (token === "good" ? principal : undefined),
      securityHooks: { ApiKey: ({ value }) => (value === "k&=1" ? { subject: "key", scopes: [] } : undefined) },
      onError: (error) => errors.push(error),
      basePath: "",
      ...(cursorKey === undefined ? {} : { cursorKey }),
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  };
  first = await start("a key the instances share, 32 bytes or more");
  second = await start("a key the instances share, 32 bytes or more");
  other = await start();
  for (const title of ["A", "B", "C"]) {
    expect((await call(first, "POST", "/books", { json: { title, author: "Shared" }, token: "good" })).status).toBe(201);
  }
  member = obj(await call(first, "POST", "/members", { json: { name: "Ann", email: "ann@example.org" }, token: "good" }));
}, START_TIMEOUT);
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await compiled?.dispose();
});

/** The target of a `Link: <...>; rel="next"` header. */
function nextTarget(link: string | null): string {
  const match = /^<([^>]*)>; rel="next"$/.exec(link ?? "");
  expect(match, String(link)).not.toBeNull();
  return match![1]!;
}

describe("the next link of a paged list", () => {
  it("keeps the request's own query but not the API key it carried", async () => {
    const reply = await call(first, "GET", "/books?author=Shared&api_key=k%26%3D1&limit=1");
    expect(reply.status, reply.text).toBe(200);
    const target = nextTarget(reply.headers.get("link"));
    expect(target).not.toContain("api_key");
    expect(target).not.toContain("k%26");
    expect(target).toMatch(/^\/books\?author=Shared&limit=1&cursor=[^&]+$/);
    // The client adds its key again to follow it.
    const next = await call(first, "GET", `${target}&api_key=k%26%3D1`);
    expect(next.status, next.text).toBe(200);
    expect(list(next).map((b) => b.title)).toEqual(["B"]);
  });
});

describe("cursorKey: instances sharing a key accept each other's cursors", () => {
  it("a cursor of one instance pages on the other; an instance with its own key refuses it (400 on cursor)", async () => {
    const page = await call(first, "GET", "/books?api_key=k%26%3D1&limit=2");
    expect(list(page).map((b) => b.title)).toEqual(["A", "B"]);
    const target = `${nextTarget(page.headers.get("link"))}&api_key=k%26%3D1`;
    const elsewhere = await call(second, "GET", target);
    expect(elsewhere.status, elsewhere.text).toBe(200);
    expect(list(elsewhere).map((b) => b.title)).toEqual(["C"]);
    expectError(await call(other, "GET", target), 400, ["cursor"]);
  });
});

describe("a refusal of the referenced resource's get during a reference check", () => {
  const loan = (bookId: number): Json => ({ bookId, memberId: member.id, dueOn: "2026-12-01" });

  it("is answered with its status when the operation declares it (createLoan declares 409)", async () => {
    const before = errors.length;
    const reply = await call(first, "POST", "/loans", { json: loan(LOCKED), token: "good" });
    expect(reply.status, reply.text).toBe(409);
    expect(reply.body).toEqual({ error: "The catalogue is being rebuilt", detail: {} });
    expect(errors.length).toBe(before);
  });

  it("is a fault (500, onError told) when the operation does not declare its status", async () => {
    const expectFault = async (reply: Awaited<ReturnType<typeof call>>, before: number) => {
      expect(reply.status, reply.text).toBe(500);
      expect(reply.body).toEqual({ error: "Internal server error", detail: {} });
      expect(errors.length).toBe(before + 1);
      expect((errors.at(-1) as Error).name).toBe("HandlerResultError");
    };
    let before = errors.length;
    await expectFault(await call(first, "POST", "/loans", { json: loan(TEAPOT), token: "good" }), before);
    // updateLoan declares no errors: the lookup's 409 is a fault there.
    const book = list(await call(first, "GET", "/books?api_key=k%26%3D1&limit=1"))[0]!;
    const created = obj(await call(first, "POST", "/loans", { json: loan(Number(book.id)), token: "good" }));
    before = errors.length;
    await expectFault(await call(first, "PATCH", `/loans/${String(created.id)}`, { json: { bookId: LOCKED }, token: "good" }), before);
  });
});

describe("handlers are bound by operationId", () => {
  // Why this matters now: every handler is found by its operationId in one table, so no two
  // operations may share one; a resource operation keeps its own (its store's handler has it).
  it("a hand-written document giving an operation the id of a resource operation names that one's handler otherwise, with a warning", async () => {
    const document = fixtureDocument("lending") as { paths: Json };
    // Before the resource's path and after it: the resource operation keeps its id either way.
    const shelves = { get: { operationId: "listBooks", responses: { "200": { description: "The shelves" } } } };
    const late = await generateText(stringify({ ...document, paths: { ...document.paths, "/shelves": shelves } }));
    const early = await generateText(stringify({ ...document, paths: { "/shelves": shelves, ...document.paths } }));
    for (const result of [late, early]) {
      expect(result.value, JSON.stringify(result.diagnostics)).toBeDefined();
      expect(result.diagnostics.map((d) => [d.code, d.severity])).toEqual([["openapi/rendered-otherwise", "warning"]]);
      expect(result.diagnostics[0]!.message).toContain('the operationId "listBooks" is a resource operation\'s too');
      expect(result.diagnostics[0]!.message).toContain("names this operation's handler listBooks2");
      const shelvesFile = result.value!.find((f) => f.path === "operations/shelves.gen.ts")!.contents;
      expect(shelvesFile).toContain("listBooks2(input: ListBooks2Input): Awaitable<ListBooks2Result>;");
      const api = result.value!.find((f) => f.path === "api.gen.ts")!.contents;
      expect([api.includes('operationId: "listBooks"'), api.includes('operationId: "listBooks2"')]).toEqual([true, true]);
    }
  });
});
