// A list without `sort` answers in the order of creation, and its pages follow that order
// (http-behaviour "Lists": pages do not skip or repeat objects): also where the ids are uuids or
// strings, which the server makes growing (UUID version 7) so that the PostgreSQL store's order by
// id is the order of creation. On every store (vitest.config.ts, ON_POSTGRES).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/serve/serve.js";
import { START_TIMEOUT, call, list, obj, startDeclaredServer } from "./support.js";

const DECLARATION = `
codegen: 1
info: { title: Harbour, version: "1.0" }
resources:
  ships:
    id: uuid
    fields:
      name: { type: string, required: true, filter: true }
    operations:
      list: { page: { size: 3, max: 50 } }
      get: {}
      create: {}
      update: {}
      delete: {}
  berths:
    id: string
    fields:
      name: { type: string, required: true, filter: true }
    operations:
      list: { page: { size: 3, max: 50 } }
      create: {}
`;

let server: RunningServer;
beforeAll(async () => {
  server = await startDeclaredServer(DECLARATION, []);
}, START_TIMEOUT);
afterAll(() => server?.close());

/** Every id the list answers, following `next` from `target`. */
async function follow(target: string): Promise<unknown[]> {
  const ids: unknown[] = [];
  for (let next: string | undefined = target; next !== undefined;) {
    const reply = await call(server.url, "GET", next);
    expect(reply.status, reply.text).toBe(200);
    ids.push(...list(reply).map((object) => object["id"]));
    next = /^<([^>]+)>; rel="next"$/.exec(reply.headers.get("link") ?? "")?.[1];
  }
  return ids;
}

describe("a list without sort, with string ids", () => {
  it("answers the objects in creation order, page after page", async () => {
    const created: unknown[] = [];
    for (let i = 0; i < 10; i++) {
      const reply = await call(server.url, "POST", "/berths", { json: { name: "Paged" } });
      expect(reply.status, reply.text).toBe(201);
      created.push(obj(reply)["id"]);
    }
    expect(await follow("/berths?name=Paged")).toEqual(created);
    expect(await follow("/berths?name=Paged&limit=50")).toEqual(created);
  });
});

describe("a list without sort, with uuid ids", () => {
  it("following next visits every object exactly once, in creation order, changed ones at their place", async () => {
    const created: unknown[] = [];
    for (let i = 0; i < 14; i++) {
      const reply = await call(server.url, "POST", "/ships", { json: { name: "Paged" } });
      expect(reply.status, reply.text).toBe(201);
      created.push(obj(reply)["id"]);
    }
    const changed = await call(server.url, "PATCH", `/ships/${String(created[4])}`, { json: { name: "Paged" } });
    expect(changed.status, changed.text).toBe(200);
    expect(await follow("/ships?name=Paged")).toEqual(created);
    expect(await follow("/ships?name=Paged&limit=1")).toEqual(created);
  });
});
