// Array query parameters as clients write them: openapi-fetch (by default) and orval explode every
// array (`?sort=-startsAt&sort=id`), others join it as the document's style says
// (`?sort=-startsAt,id`). Where the style is delimited (form without explode, pipe, space), both
// are the same list; where it is exploded form, a comma stays inside its value (RFC 6570).
// The generated servers are spoken to over real HTTP on 127.0.0.1.
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, closeLocal, compileText, expectError, listenLocal, obj, START_TIMEOUT } from "./support.js";
import type { Json } from "./support.js";

const VISITS = `codegen: 1
info: { title: Clinic, version: "1" }
resources:
  visits:
    fields:
      startsAt: { type: string, format: date-time, required: true }
    operations:
      list:
        page: { size: 2, max: 10 }
        sort: [startsAt, id]
      create: {}
`;

const SEARCH = `openapi: 3.1.0
info: { title: Search, version: "1" }
paths:
  /search:
    get:
      operationId: search
      parameters:
        - { name: ids, in: query, style: form, explode: false, schema: { type: array, items: { type: integer } } }
        - { name: tags, in: query, schema: { type: array, items: { type: string } } }
        - { name: words, in: query, style: pipeDelimited, explode: false, schema: { type: array, items: { type: string } } }
        - { name: limit, in: query, schema: { type: integer } }
      responses:
        "200": { description: the query as read, content: { application/json: { schema: { type: object } } } }
`;

describe("sort, exploded or comma-separated", () => {
  let server: Server;
  let at = "";
  let dispose = async () => {};
  beforeAll(async () => {
    const compiled = await compileText(VISITS);
    dispose = compiled.dispose;
    server = compiled.api.createServer({ handlers: compiled.api.createMemoryHandlers(), verifyToken: () => undefined });
    at = await listenLocal(server);
    for (const startsAt of ["2026-01-02T09:00:00Z", "2026-01-03T09:00:00Z", "2026-01-02T09:00:00Z"]) {
      const created = await call(at, "POST", "/visits", { json: { startsAt } });
      expect(created.status, created.text).toBe(201);
    }
  }, START_TIMEOUT);
  afterAll(async () => {
    await closeLocal(server);
    await dispose();
  });

  const ids = (reply: { body: unknown }) => (reply.body as Json[]).map((visit) => visit.id);

  it("reads ?sort=-startsAt&sort=id as ?sort=-startsAt,id", async () => {
    const joined = await call(at, "GET", "/visits?sort=-startsAt,id&limit=10");
    const exploded = await call(at, "GET", "/visits?sort=-startsAt&sort=id&limit=10");
    expect([joined.status, exploded.status]).toEqual([200, 200]);
    expect(ids(joined)).toEqual([2, 1, 3]);
    expect(ids(exploded)).toEqual(ids(joined));
    expect(ids(await call(at, "GET", "/visits?sort=-startsAt&sort=-id&limit=10"))).toEqual([2, 3, 1]);
  });

  it("takes the cursor of one form in the other: the same order", async () => {
    const first = await call(at, "GET", "/visits?sort=-startsAt&sort=id");
    const next = /cursor=([^&>]+)/.exec(first.headers.get("link") ?? "")?.[1];
    expect(next).toBeDefined();
    const second = await call(at, "GET", `/visits?sort=-startsAt,id&cursor=${next!}`);
    expect(second.status, second.text).toBe(200);
    expect([...ids(first), ...ids(second)]).toEqual([2, 1, 3]);
  });

  it("still refuses a field twice, an unknown field or an empty item, however written", async () => {
    for (const target of ["/visits?sort=id&sort=-id", "/visits?sort=startsAt&sort=colour", "/visits?sort=id&sort="]) {
      expectError(await call(at, "GET", target), 400, ["sort"]);
    }
  });
});

describe("array parameters of other styles", () => {
  let server: Server;
  let at = "";
  let dispose = async () => {};
  beforeAll(async () => {
    const compiled = await compileText(SEARCH);
    dispose = compiled.dispose;
    const echo = (input: Json) => ({ status: 200, body: input.query });
    server = compiled.api.createServer({ handlers: { search: { search: echo } }, verifyToken: () => undefined });
    at = await listenLocal(server);
  }, START_TIMEOUT);
  afterAll(async () => {
    await closeLocal(server);
    await dispose();
  });

  const query = async (target: string) => {
    const reply = await call(at, "GET", target);
    expect(reply.status, reply.text).toBe(200);
    return obj(reply);
  };

  it("form without explode: comma-separated, repeated, or both", async () => {
    expect(await query("/search?ids=1,2")).toEqual({ ids: [1, 2] });
    expect(await query("/search?ids=1&ids=2")).toEqual({ ids: [1, 2] });
    expect(await query("/search?ids=1,2&ids=3")).toEqual({ ids: [1, 2, 3] });
    expectError(await call(at, "GET", "/search?ids=1&ids=x"), 400, ["ids[1]"]);
  });

  it("pipeDelimited: joined by | or repeated", async () => {
    expect(await query("/search?words=a|b&words=c")).toEqual({ words: ["a", "b", "c"] });
  });

  it("exploded form (the default): repeated; a comma belongs to its value", async () => {
    expect(await query("/search?tags=a&tags=b")).toEqual({ tags: ["a", "b"] });
    expect(await query("/search?tags=a,b")).toEqual({ tags: ["a,b"] });
  });

  it("a scalar is still given once", async () => {
    expectError(await call(at, "GET", "/search?limit=1&limit=2"), 400, ["limit"]);
  });
});
