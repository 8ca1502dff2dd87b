// The lending fixture over real HTTP, started with the in-memory store and handlers of
// the test's own: handlers that refuse with declared statuses, references checked, lists that page
// and sort with declared query parameters, actions with their states, links and `to`, and the
// check order with these steps; and the handler interfaces type-checked with a user's handlers.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { ROOT } from "../support/fixtures.js";
import { generatedOptions, tsFilesUnder, typeCheck } from "../support/type-check.js";
import type { RunningServer } from "../../src/serve/serve.js";
import { generateFixture, startFixtureServer } from "../support/generated.js";
import { START_TIMEOUT, call, compileFixture, expectError, generateText, issueToken, obj } from "./support.js";
import type { CompiledApi, HandlerFunction, Json } from "./support.js";

const principal = { subject: "ann", scopes: ["library:read", "library:write", "loans:write"] };
const errors: unknown[] = [];
const calls: string[] = [];
const listed: Json[] = [];
const acted: Json[] = [];
let compiled: { api: CompiledApi; dispose(): Promise<void> };
let server: Server;
let base = "";
let book: Json = {};
let member: Json = {};

/** What a test's createLoan answers, chosen by the loan's note. */
const REFUSALS: { [note: string]: unknown } = {
  "no copy": { status: 409, error: "No copy of the book is available", detail: { bookId: "every copy is on loan" } },
  "five loans": { status: 422, error: "The member already holds five loans" },
  teapot: { status: 418, error: "I'm a teapot" },
  "no message": { status: 409, detail: {} },
  "bad detail": { status: 409, error: "x", detail: { bookId: 3 } },
};

beforeAll(async () => {
  compiled = await compileFixture("lending");
  const memory = compiled.api.createMemoryHandlers();
  const loans = memory.loans!;
  const books = memory.books!;
  const createLoan: HandlerFunction = (input) => {
    calls.push("createLoan");
    const note = (input.body as Json).note;
    if (note === "throw") throw new Error("the store is down");
    return typeof note === "string" && Object.hasOwn(REFUSALS, note) ? REFUSALS[note] : loans.createLoan!(input);
  };
  const deleteLoan: HandlerFunction = (input) => {
    const current = input.current as Json;
    if (current.status !== "returned") return { status: 409, error: "A loan that is not returned cannot be deleted" };
    return loans.deleteLoan!(input);
  };
  // Declares no errors: any refusal of it is a fault of the handler.
  const updateLoan: HandlerFunction = (input) => ((input.patch as Json).note === "refuse" ? { status: 409, error: "no" } : loans.updateLoan!(input));
  // Declares no errors either: a refusal from a list handler is a fault too.
  // It records what it is given, and answers a page too long or no page at all on request.
  const listBooks: HandlerFunction = (input) => {
    listed.push(input);
    const author = (input.query as Json).author;
    if (author === "refuse") return { status: 409, error: "no" };
    if (author === "array") return [];
    if (author === "too long") return { items: [book, book], next: "x" };
    return books.listBooks!(input);
  };
  // Renewing counts the renewals and stores the `to` state in the same write; a third renewal is refused.
  const renewLoan: HandlerFunction = (input) => {
    acted.push(input);
    const current = input.current as Json;
    const renewals = typeof current.renewals === "number" ? current.renewals : 0;
    if (renewals >= 2) return { status: 422, error: "The loan was renewed twice already" };
    return loans.updateLoan!({ id: input.id, patch: { status: input.to, renewals: renewals + 1 }, current });
  };
  // A return that forgets to store its `to` state when the note says so.
  const returnLoan: HandlerFunction = (input) => ((input.current as Json).note === "stubborn" ? input.current : loans.returnLoan!(input));
  server = compiled.api.createServer({
    handlers: { ...memory, loans: { ...loans, createLoan, deleteLoan, updateLoan, renewLoan, returnLoan }, books: { ...books, listBooks } },
    verifyToken: (token) => (token === "good" ? principal : token === "reader" ? { subject: "rea", scopes: ["library:read"] } : undefined),
    onError: (error) => errors.push(error),
    // The fixture's server URL has the path /v1 (test/http/embedding.test.ts serves it there); here at the root.
    basePath: "",
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  book = obj(await call(base, "POST", "/books", { json: { title: "Refactoring", author: "Fowler" }, token: "good" }));
  member = obj(await call(base, "POST", "/members", { json: { name: "Ann", email: "ann@example.org" }, token: "good" }));
}, START_TIMEOUT);
afterAll(async () => {
  if (server?.listening) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await compiled?.dispose();
});

const loan = (note?: string): Json => ({ bookId: book.id, memberId: member.id, dueOn: "2026-12-01", ...(note === undefined ? {} : { note }) });
const NO_MEMBER = "0f8fad5b-d9cb-469f-a165-70867728950e";

/** A 500 with the fixed body, and onError told of a HandlerResultError. */
function expectHandlerFault(before: number, reply: Awaited<ReturnType<typeof call>>): void {
  expect(reply.status, reply.text).toBe(500);
  expect(reply.body).toEqual({ error: "Internal server error", detail: {} });
  expect(errors.length).toBe(before + 1);
  expect((errors.at(-1) as Error).name).toBe("HandlerResultError");
}

describe("handlers that refuse (declared errors)", () => {
  it("a declared status is answered with the handler's error and detail", async () => {
    const reply = await call(base, "POST", "/loans", { json: loan("no copy"), token: "good" });
    expect(reply.status, reply.text).toBe(409);
    expect(reply.body).toEqual({ error: "No copy of the book is available", detail: { bookId: "every copy is on loan" } });
  });

  it("a refusal without detail is answered with an empty detail", async () => {
    const reply = await call(base, "POST", "/loans", { json: loan("five loans"), token: "good" });
    expect(reply.status, reply.text).toBe(422);
    expect(reply.body).toEqual({ error: "The member already holds five loans", detail: {} });
  });

  it("a refusal of DELETE leaves the object, and the same handler deletes once it may", async () => {
    const created = obj(await call(base, "POST", "/loans", { json: loan(), token: "good" }));
    const target = `/loans/${String(created.id)}`;
    const refused = await call(base, "DELETE", target, { token: "good" });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body).toEqual({ error: "A loan that is not returned cannot be deleted", detail: {} });
    expect((await call(base, "GET", target, { token: "good" })).status).toBe(200);
    expect((await call(base, "PATCH", target, { json: { status: "returned" }, token: "good" })).status).toBe(200);
    expect((await call(base, "DELETE", target, { token: "good" })).status).toBe(204);
  });

  it("an undeclared status is a fault of the handler: 500 and onError", async () => {
    expectHandlerFault(errors.length, await call(base, "POST", "/loans", { json: loan("teapot"), token: "good" }));
  });

  it("a status the operation does not declare is a fault, even one the server answers itself (409 on PATCH)", async () => {
    const created = obj(await call(base, "POST", "/loans", { json: loan(), token: "good" }));
    expectHandlerFault(errors.length, await call(base, "PATCH", `/loans/${String(created.id)}`, { json: { note: "refuse" }, token: "good" }));
    expectHandlerFault(errors.length, await call(base, "GET", "/books?author=refuse"));
  });

  it("a refusal without a string error, or with a detail that is not strings, is a fault", async () => {
    expectHandlerFault(errors.length, await call(base, "POST", "/loans", { json: loan("no message"), token: "good" }));
    expectHandlerFault(errors.length, await call(base, "POST", "/loans", { json: loan("bad detail"), token: "good" }));
  });

  it("a thrown error is still 500 and onError", async () => {
    const before = errors.length;
    const reply = await call(base, "POST", "/loans", { json: loan("throw"), token: "good" });
    expect(reply.body).toEqual({ error: "Internal server error", detail: {} });
    expect(errors.length).toBe(before + 1);
  });

  it("validation comes before the handler: an invalid body that the handler would refuse is 400", async () => {
    const before = calls.length;
    const reply = await call(base, "POST", "/loans", { json: { ...loan("no copy"), dueOn: "soon" }, token: "good" });
    expectError(reply, 400, ["dueOn"]);
    expect(calls.length).toBe(before);
  });
});

describe("references checked (a ref naming no object is 400 naming the field)", () => {
  it("on create, through the referenced resource's get, before the handler runs", async () => {
    const before = calls.length;
    expect(expectError(await call(base, "POST", "/loans", { json: { ...loan(), bookId: 999 }, token: "good" }), 400, ["bookId"])).toEqual({
      bookId: "no book has the id 999",
    });
    expectError(await call(base, "POST", "/loans", { json: { ...loan(), memberId: NO_MEMBER }, token: "good" }), 400, ["memberId"]);
    expectError(await call(base, "POST", "/loans", { json: { ...loan(), bookId: 999, memberId: NO_MEMBER }, token: "good" }), 400, ["bookId", "memberId"]);
    expect(calls.length).toBe(before);
    const created = await call(base, "POST", "/loans", { json: loan(), token: "good" });
    expect(created.status, created.text).toBe(201);
    expect((obj(created).links as Json[]).map((l) => l.href)).toEqual(expect.arrayContaining([`/books/${String(book.id)}`, `/members/${String(member.id)}`]));
  });

  it("on update, only for the references the patch sets", async () => {
    const created = obj(await call(base, "POST", "/loans", { json: loan(), token: "good" }));
    const target = `/loans/${String(created.id)}`;
    expectError(await call(base, "PATCH", target, { json: { bookId: 999 }, token: "good" }), 400, ["bookId"]);
    expect((await call(base, "PATCH", target, { json: { note: "fine" }, token: "good" })).status).toBe(200);
    expect(obj(await call(base, "GET", target, { token: "good" })).bookId).toBe(book.id);
  });

  it("check order: validation, then lookup (404), then references (400), then the transition (409)", async () => {
    expectError(await call(base, "POST", "/loans", { json: { ...loan(), bookId: 999, dueOn: "soon" }, token: "good" }), 400, ["dueOn"]);
    expectError(await call(base, "PATCH", "/loans/9999", { json: { bookId: 999 }, token: "good" }), 404, ["id"]);
    const created = obj(await call(base, "POST", "/loans", { json: loan(), token: "good" }));
    const target = `/loans/${String(created.id)}`;
    expect((await call(base, "PATCH", target, { json: { status: "returned" }, token: "good" })).status).toBe(200);
    expectError(await call(base, "PATCH", target, { json: { bookId: 999, status: "active" }, token: "good" }), 400, ["bookId"]);
    expectError(await call(base, "PATCH", target, { json: { bookId: book.id, status: "active" }, token: "good" }), 409, ["status"]);
  });

  it("a hand-written document whose action or page cannot be rendered as it says is warned of there, the operation rendered as written", async () => {
    const golden = readFileSync(path.join(ROOT, "fixtures/valid/lending/expected/openapi.yaml"), "utf8");
    const moved = parse(golden) as { paths: Json };
    moved.paths["/loans/{id}/renewal"] = moved.paths["/loans/{id}/renew"];
    delete moved.paths["/loans/{id}/renew"];
    const pages = parse(golden) as { paths: { [path: string]: { get: Json } } };
    pages.paths["/books"]!.get["x-codegen-page"] = { size: 0, max: 100 };
    pages.paths["/loans"]!.get["x-codegen-page"] = { size: 200, max: 100 };
    const reasons = async (document: unknown) => {
      const result = await generateText(stringify(document));
      // (A document written by others: generated, its extensions' misplacement warned of.)
      expect(result.value).toBeDefined();
      return result.diagnostics.map((d) => `${d.code} ${d.message}`);
    };
    const ignored = /Instead, the server ignores codegen's extensions of this operation and renders it as an operation written by others/;
    const [renew] = await reasons(moved);
    expect(renew).toMatch(/^openapi\/rendered-otherwise .*the action "renew" must be the operation of a path/);
    expect(renew).toMatch(ignored);
    expect(await reasons(pages)).toEqual([
      expect.stringMatching(/^openapi\/rendered-otherwise .*`size` and `max`/),
      expect.stringMatching(/^openapi\/rendered-otherwise .*`size` and `max`/),
    ]);
    expect((await generateText(golden)).diagnostics).toEqual([]);
  });

  it("a ref to a resource that offers no get is refused at generation, at the ref", async () => {
    const yaml = `codegen: 1
info: { title: T, version: "1" }
resources:
  tags:
    fields: { name: string }
    operations: [list, create]
  posts:
    fields: { tagId: { type: integer, ref: tags } }
`;
    const result = await generateText(yaml);
    expect(result.value).toBeUndefined();
    expect(result.diagnostics.map((d) => [d.code, d.location?.line])).toEqual([["openapi/unsupported", 8]]);
    expect(result.diagnostics[0]!.message).toContain('"tags" offers no `get`');
  });
});

/** Creates books by one author (public reads list them back), titled as given, in order. */
async function createBooks(author: string, titles: readonly string[], publishedOn?: (i: number) => string): Promise<Json[]> {
  const created: Json[] = [];
  for (const [i, title] of titles.entries()) {
    const json = { title, author, ...(publishedOn ? { publishedOn: publishedOn(i) } : {}) };
    created.push(obj(await call(base, "POST", "/books", { json, token: "good" })));
  }
  return created;
}

/** Every page of a list from `target` on, following `Link: rel="next"`: the pages' ids and the links followed. */
async function follow(target: string): Promise<{ pages: unknown[][]; links: string[] }> {
  const pages: unknown[][] = [];
  const links: string[] = [];
  for (let next: string | undefined = target; next !== undefined && pages.length < 100;) {
    const reply = await call(base, "GET", next, { token: "good" });
    expect(reply.status, reply.text).toBe(200);
    pages.push((reply.body as Json[]).map((b) => b.id));
    const link = reply.headers.get("link");
    const match = link === null ? undefined : /^<([^>]+)>; rel="next"$/.exec(link);
    if (link !== null) expect(match, link).toBeTruthy();
    next = match?.[1];
    if (next !== undefined) links.push(next);
  }
  return { pages, links };
}

describe("lists: pagination", () => {
  it("following next visits every object exactly once, in creation order, keeping the other query parameters", async () => {
    const created = await createBooks(
      "Paged",
      Array.from({ length: 45 }, (_, i) => `Book ${String(i)}`),
    );
    const { pages, links } = await follow("/books?author=Paged&limit=7");
    expect(pages.map((p) => p.length)).toEqual([7, 7, 7, 7, 7, 7, 3]);
    expect(pages.flat()).toEqual(created.map((b) => b.id));
    for (const link of links) expect(link).toMatch(/^\/books\?author=Paged&limit=7&cursor=[\w.-]+$/);
  });

  it("the default limit is the declared size; no Link when nothing remains", async () => {
    await createBooks(
      "Default",
      Array.from({ length: 21 }, (_, i) => `D${String(i)}`),
    );
    const first = await call(base, "GET", "/books?author=Default");
    expect((first.body as Json[]).length).toBe(20);
    expect(first.headers.get("link")).toMatch(/^<\/books\?author=Default&limit=20&cursor=[\w.-]+>; rel="next"$/);
    const all = await call(base, "GET", "/books?author=Default&limit=21");
    expect((all.body as Json[]).length).toBe(21);
    expect(all.headers.get("link")).toBeNull();
  });

  it.each(["0", "-1", "101", "1.5", "abc", "", "1e1", "0x10"])("limit=%s is 400 naming limit", async (limit) => {
    expectError(await call(base, "GET", `/books?limit=${limit}`), 400, ["limit"]);
  });

  it("a cursor the server did not issue, changed, or issued for another list or order is 400 naming cursor", async () => {
    await createBooks("Cursor", ["a", "b", "c"]);
    const link = (await call(base, "GET", "/books?author=Cursor&limit=1")).headers.get("link")!;
    const cursor = decodeURIComponent(/cursor=([^>]+)>/.exec(link)![1]!);
    expect((await call(base, "GET", `/books?author=Cursor&limit=1&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
    const [payload, mac] = cursor.split(".") as [string, string];
    const forged = Buffer.from(JSON.stringify(["", JSON.stringify([0])])).toString("base64url");
    for (const bad of ["abc", `${payload}.${mac.slice(0, -2)}AA`, `${forged}.${mac}`, `${cursor}.x`, "x".repeat(5000)]) {
      expectError(await call(base, "GET", `/books?author=Cursor&limit=1&cursor=${encodeURIComponent(bad)}`), 400, ["cursor"]);
    }
    expectError(await call(base, "GET", `/books?author=Cursor&limit=1&sort=title&cursor=${encodeURIComponent(cursor)}`), 400, ["cursor"]);
    expectError(await call(base, "GET", `/loans?cursor=${encodeURIComponent(cursor)}`, { token: "good" }), 400, ["cursor"]);
  });

  it("a paged list handler that answers no page, or more than the limit, is a fault: 500 and onError", async () => {
    expectHandlerFault(errors.length, await call(base, "GET", "/books?author=array"));
    expectHandlerFault(errors.length, await call(base, "GET", "/books?author=too%20long&limit=1"));
  });
});

describe("lists: sorting", () => {
  it("ascending, descending, several fields, ties broken by id", async () => {
    const created = await createBooks("Sorted", ["b", "a", "c", "a", "b"], (i) => `2020-01-0${String(5 - i)}`);
    const ids = async (sort: string) => (await call(base, "GET", `/books?author=Sorted&sort=${sort}`)).body as Json[];
    const id = (i: number) => created[i]!.id;
    expect((await ids("title")).map((b) => b.id)).toEqual([id(1), id(3), id(0), id(4), id(2)]);
    expect((await ids("-title")).map((b) => b.id)).toEqual([id(2), id(0), id(4), id(1), id(3)]);
    expect((await ids("-title,publishedOn")).map((b) => b.id)).toEqual([id(2), id(4), id(0), id(3), id(1)]);
    expect((await ids("publishedOn")).map((b) => b.id)).toEqual([id(4), id(3), id(2), id(1), id(0)]);
    const sorted = listed.at(-1)!;
    expect(sorted.sort).toEqual([{ field: "publishedOn", descending: false }]);
  });

  it("sorted pages visit every object once, in the sorted order", async () => {
    const created = await createBooks("SortPaged", ["m", "c", "x", "c", "a", "m", "c"]);
    const order = [...created].sort((a, b) => (a.title === b.title ? Number(a.id) - Number(b.id) : String(b.title) < String(a.title) ? -1 : 1));
    const { pages, links } = await follow("/books?author=SortPaged&sort=-title&limit=2");
    expect(pages.flat()).toEqual(order.map((b) => b.id));
    for (const link of links) expect(link).toContain("sort=-title");
  });

  it.each(["author", "title,title", "title,-title", "-", "title,", "TITLE", "id"])("sort=%s is 400 naming sort", async (sort) => {
    expectError(await call(base, "GET", `/books?sort=${encodeURIComponent(sort)}`), 400, ["sort"]);
  });
});

describe("lists: declared query parameters", () => {
  it("reach the handler, validated like filters; the in-memory store ignores them", async () => {
    await createBooks("Queried", ["x"]);
    const reply = await call(base, "GET", "/books?author=Queried&q=refactor");
    expect((reply.body as Json[]).length).toBe(1);
    expect(listed.at(-1)!.query).toEqual({ author: "Queried", q: "refactor" });
    expect(listed.at(-1)!.page).toEqual({ limit: 20, cursor: undefined });
    expectError(await call(base, "GET", "/books?q="), 400, ["q"]);
    expectError(await call(base, "GET", "/loans?dueBefore=tomorrow", { token: "good" }), 400, ["dueBefore"]);
    expect((await call(base, "GET", "/loans?dueBefore=2030-01-01", { token: "good" })).status).toBe(200);
  });

  it("check order: validation of the query (400) comes after the guards (401)", async () => {
    expect((await call(base, "GET", "/loans?limit=0&sort=nope")).status).toBe(401);
    expectError(await call(base, "GET", "/loans?limit=0&sort=nope&cursor=x", { token: "good" }), 400, ["limit", "sort", "cursor"]);
  });
});

describe("actions", () => {
  const newLoan = async (note?: string) => obj(await call(base, "POST", "/loans", { json: loan(note), token: "good" }));
  const rels = (object: Json) => (object.links as Json[]).map((l) => `${String(l.rel)} ${String(l.method)} ${String(l.href)}`);

  it("renew in an allowed state: the handler gets id, body, current and to; 200 with the complete object and its links", async () => {
    const created = await newLoan();
    const before = acted.length;
    const reply = await call(base, "POST", `/loans/${String(created.id)}/renew`, { json: { days: 7 }, token: "good" });
    expect(reply.status, reply.text).toBe(200);
    const renewed = obj(reply);
    expect(renewed).toMatchObject({ id: created.id, status: "active", renewals: 1, bookId: book.id });
    expect(acted.length).toBe(before + 1);
    expect(acted.at(-1)).toMatchObject({
      id: created.id,
      body: { days: 7 },
      current: { id: created.id, status: "active" },
      to: "active",
      principal,
      scopes: expect.anything(),
    });
    expect(obj(await call(base, "GET", `/loans/${String(created.id)}`, { token: "good" })).renewals).toBe(1);
  });

  it("links offer each action in exactly its when states, at <object>/<action> with its method", async () => {
    const created = await newLoan();
    const self = `/loans/${String(created.id)}`;
    const common = [`self GET ${self}`, `book GET /books/${String(book.id)}`, `member GET /members/${String(member.id)}`];
    expect(rels(created)).toEqual([
      ...common,
      `edit PATCH ${self}`,
      `return POST ${self}/return`,
      `renew POST ${self}/renew`,
      `report-lost PUT ${self}/report-lost`,
      `remind POST ${self}/remind`,
    ]);
    const overdue = obj(await call(base, "PATCH", self, { json: { status: "overdue" }, token: "good" }));
    expect(rels(overdue)).toEqual([
      ...common,
      `edit PATCH ${self}`,
      `return POST ${self}/return`,
      `report-lost PUT ${self}/report-lost`,
      `remind POST ${self}/remind`,
    ]);
    const lost = obj(await call(base, "PUT", `${self}/report-lost`, { token: "good" }));
    expect(lost.status).toBe("lost");
    expect(rels(lost)).toEqual([...common, `return POST ${self}/return`, `remind POST ${self}/remind`]);
    const returned = obj(await call(base, "POST", `${self}/return`, { token: "good" }));
    expect(returned.status).toBe("returned");
    expect(rels(returned)).toEqual([...common, `remind POST ${self}/remind`]);
    // An action without `to` (remind) leaves the state; the in-memory store answers the object unchanged.
    const reminded = await call(base, "POST", `${self}/remind`, { token: "good" });
    expect(reminded.status, reminded.text).toBe(200);
    expect(obj(reminded)).toEqual(returned);
  });

  it("outside its when states: 409 naming status, as the document's example says, and the handler does not run", async () => {
    const created = await newLoan();
    const self = `/loans/${String(created.id)}`;
    await call(base, "PATCH", self, { json: { status: "returned" }, token: "good" });
    const before = acted.length;
    const reply = await call(base, "POST", `${self}/renew`, { json: { days: 7 }, token: "good" });
    expect(reply.status).toBe(409);
    expect(reply.text).toBe('{"error":"Conflict","detail":{"status":"renew is allowed only in active; the status is returned"}}');
    expect(acted.length).toBe(before);
    expectError(await call(base, "PUT", `${self}/report-lost`, { token: "good" }), 409, ["status"]);
  });

  it("its declared refusal, and a handler that does not store the to state (500, onError)", async () => {
    const created = await newLoan("stubborn");
    const self = `/loans/${String(created.id)}`;
    for (let i = 0; i < 2; i++) expect((await call(base, "POST", `${self}/renew`, { json: { days: 1 }, token: "good" })).status).toBe(200);
    const third = await call(base, "POST", `${self}/renew`, { json: { days: 1 }, token: "good" });
    expect(third.status).toBe(422);
    expect(third.body).toEqual({ error: "The loan was renewed twice already", detail: {} });
    expectHandlerFault(errors.length, await call(base, "POST", `${self}/return`, { token: "good" }));
  });

  it("check order: route (404, 405), guards (401, 403), Content-Type (415), validation (400), lookup (404), state (409)", async () => {
    const created = await newLoan();
    const self = `/loans/${String(created.id)}`;
    expect((await call(base, "POST", `${self}/renew/again`, { json: { days: 1 }, token: "good" })).status).toBe(404);
    const wrong = await call(base, "GET", `${self}/renew`, { token: "good" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST, OPTIONS");
    expect((await call(base, "POST", "/loans/9999/renew", { json: { days: 0 } })).status).toBe(401);
    expect((await call(base, "POST", "/loans/9999/remind", {})).status).toBe(401);
    expect((await call(base, "POST", "/loans/9999/renew", { json: { days: 0 }, token: "reader" })).status).toBe(403);
    expect((await call(base, "PUT", `${self}/report-lost`, { token: "reader" })).status).toBe(403);
    expect((await call(base, "POST", "/loans/9999/renew", { body: "days=1", headers: { "Content-Type": "text/plain" }, token: "good" })).status).toBe(415);
    expectError(await call(base, "POST", "/loans/9999/renew", { json: { days: 0 }, token: "good" }), 400, ["days"]);
    expectError(await call(base, "POST", `${self}/renew`, { json: {}, token: "good" }), 400, ["days"]);
    expectError(await call(base, "POST", `${self}/renew`, { json: { days: 1, extra: true }, token: "good" }), 400, ["extra"]);
    expectError(await call(base, "POST", `${self}/renew`, { json: [1], token: "good" }), 400, ["body"]);
    expectError(await call(base, "POST", "/loans/9999/renew", { json: { days: 1 }, token: "good" }), 404, ["id"]);
    expectError(await call(base, "POST", "/loans/abc/return", { token: "good" }), 400, ["id"]);
    await call(base, "PATCH", self, { json: { status: "overdue" }, token: "good" });
    expectError(await call(base, "POST", `${self}/renew`, { json: { days: 0 }, token: "good" }), 400, ["days"]);
    expectError(await call(base, "POST", `${self}/renew`, { json: { days: 1 }, token: "good" }), 409, ["status"]);
  });
});

describe("codegen serve runs the fixture with its in-memory store", () => {
  const user = { name: "ann", password: "pw", scopes: ["library:read", "library:write", "loans:write"] };
  let served: RunningServer | undefined;
  afterAll(async () => {
    await served?.close();
  });

  it(
    "a loan is created, renewed, listed a page at a time and returned",
    async () => {
      served = await startFixtureServer("lending", [user]);
      // The fixture's server URL has the path /v1: serve answers every route under it, its token endpoint too.
      const token = await issueToken(served.url, user, user.scopes, "/v1/_codegen/token");
      const at = (method: string, target: string, json?: unknown) =>
        call(served!.url, method, target.startsWith("/v1/") ? target : `/v1${target}`, { token, ...(json === undefined ? {} : { json }) });
      const book1 = obj(await at("POST", "/books", { title: "T", author: "A" }));
      const member1 = obj(await at("POST", "/members", { name: "M", email: "m@example.org" }));
      const loans = [];
      for (let i = 0; i < 3; i++) loans.push(obj(await at("POST", "/loans", { bookId: book1.id, memberId: member1.id, dueOn: `2026-12-0${String(i + 1)}` })));
      const renewed = await at("POST", `/loans/${String(loans[0]!.id)}/renew`, { days: 3 });
      expect(renewed.status, renewed.text).toBe(200);
      expect(obj(renewed).status).toBe("active");
      // The id is a sort key the declaration names (`sort: [dueOn, id]`): a page at a time, descending.
      const byId = await at("GET", "/loans?sort=-id&limit=2");
      expect(byId.status, byId.text).toBe(200);
      expect((byId.body as Json[]).map((l) => l.id)).toEqual([loans[2]!.id, loans[1]!.id]);
      const afterId = /^<([^>]+)>; rel="next"$/.exec(byId.headers.get("link") ?? "")![1]!;
      expect(((await at("GET", afterId)).body as Json[]).map((l) => l.id)).toEqual([loans[0]!.id]);
      const first = await at("GET", "/loans?sort=-dueOn&limit=2");
      expect((first.body as Json[]).map((l) => l.id)).toEqual([loans[2]!.id, loans[1]!.id]);
      const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.get("link") ?? "")![1]!;
      expect(((await at("GET", next)).body as Json[]).map((l) => l.id)).toEqual([loans[0]!.id]);
      expect(obj(await at("POST", `/loans/${String(loans[0]!.id)}/return`)).status).toBe("returned");
      expectError(await at("POST", `/loans/${String(loans[0]!.id)}/renew`, { days: 3 }), 409, ["status"]);
    },
    START_TIMEOUT,
  );
});

/** The users' files of the checks below, each a case: type-checked beside the generated code, all in one program. */
const USER_FILES: Record<string, string> = {
  "declared.ts": `import type { LoansHandlers } from "./handlers.gen.js";
export const createLoan: LoansHandlers["createLoan"] = () => (Math.random() < 0.5 ? { status: 409, error: "No copy", detail: { bookId: "none left" } } : { status: 422, error: "Five loans" });
`,
  "undeclared.ts": `import type { LoansHandlers } from "./handlers.gen.js";
export const createLoan: LoansHandlers["createLoan"] = () => ({ status: 418, error: "teapot" });
`,
  "no-errors.ts": `import type { LoansHandlers } from "./handlers.gen.js";
export const updateLoan: LoansHandlers["updateLoan"] = () => ({ status: 409, error: "no" });
`,
};

let userErrors: Promise<string[]> | undefined;

/**
 * tsc's complaints about the generated code with the users' files beside it, one line each, under
 * the golden tree's strict options (test/support/tsconfig.generated.json): one program for every
 * case, made once; each case reads the lines of its own file.
 */
function typeCheckUsers(): Promise<string[]> {
  userErrors ??= generateFixture("lending").then((generated) => {
    const dir = mkdtempSync(path.join(tmpdir(), "codegen-lending-types-"));
    try {
      const files = [...generated, ...Object.entries(USER_FILES).map(([name, contents]) => ({ path: name, contents }))];
      for (const file of files) {
        mkdirSync(path.dirname(path.join(dir, file.path)), { recursive: true });
        writeFileSync(path.join(dir, file.path), file.contents);
      }
      writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
      return typeCheck(tsFilesUnder(dir), generatedOptions()).map((line) => line.replace(`${path.relative(ROOT, dir)}/`, ""));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  return userErrors;
}

describe("refusals are typed in the handler interfaces", () => {
  it("a declared status type-checks, with or without detail, and so does the in-memory store", async () => {
    // Every complaint but those about the two cases that must fail: none in the generated code, none in declared.ts.
    expect((await typeCheckUsers()).filter((line) => !/^(undeclared|no-errors)\.ts\(/.test(line))).toEqual([]);
  }, 60_000);

  it("an undeclared status, or an operation without errors refusing, does not", async () => {
    const errors = await typeCheckUsers();
    expect(errors.filter((line) => line.startsWith("undeclared.ts(")).join("\n")).toMatch(/TS\d+/);
    expect(errors.filter((line) => line.startsWith("no-errors.ts(")).join("\n")).toMatch(/TS\d+/);
  }, 60_000);
});
