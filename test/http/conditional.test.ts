// Conditional requests over HTTP (docs/http-behaviour.md, "Conditional requests"; RFC 9110
// section 13) and the answers of races (docs/http-behaviour.md, "Running in production"): every
// answer carrying one object has a strong ETag; If-None-Match gives 304; a stale If-Match is 412
// and changes nothing, decided in the store's write itself, so concurrent read-modify-write
// clients lose no update; requireIfMatch makes a change without If-Match 428; a change racing a
// delete is 404, a write racing the delete of what it refers to is 409 naming the field.
// vitest.config.ts runs this file on the in-memory store, PGlite and a real PostgreSQL server.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { START_TIMEOUT, call, expectError, obj } from "./support.js";
import type { Json, Reply } from "./support.js";
import { storeOfDeclaration } from "./test-store.js";
import type { Handlers } from "./test-store.js";

const DECLARATION = `codegen: 1
info: { title: Conditional, version: "1" }
resources:
  counters:
    fields:
      name: { type: string, required: true }
      count: { type: integer, required: true }
  people:
    fields:
      name: { type: string, required: true }
  tasks:
    fields:
      title: { type: string, required: true }
      personId: { type: integer, ref: people }
    status:
      values: [open, done]
      initial: open
      transitions:
        open: [done]
        done: [open]
    actions:
      close: { when: [open], to: done }
      touch: {}
`;

let store: Handlers;
let serve: Awaited<ReturnType<typeof storeOfDeclaration>>["serve"];
let close: (() => Promise<void>) | undefined;
/** The server on this run's store. */
let base = "";
/** The same store served with `requireIfMatch`. */
let strict = "";

beforeAll(async () => {
  ({ store, serve, close } = await storeOfDeclaration(DECLARATION));
  base = await serve(store);
  strict = await serve(store, { requireIfMatch: true });
  // (Twice the usual: a database and a compilation, on a machine the suites share.)
}, 2 * START_TIMEOUT);
afterAll(() => close?.());

async function created(target: string, json: Json, at = base): Promise<{ id: number; etag: string }> {
  const reply = await call(at, "POST", target, { json });
  expect(reply.status, reply.text).toBe(201);
  // (Not etagOf: the races below check their own answers, whatever the ETag.)
  return { id: obj(reply).id as number, etag: reply.headers.get("etag") ?? "" };
}

/** A reply's ETag: present, and strong (RFC 9110 section 8.8.3: no `W/`). */
function etagOf(reply: Reply): string {
  const etag = reply.headers.get("etag");
  expect(etag, `an ETag on ${reply.status} ${reply.text}`).toMatch(/^"[^"]+"$/);
  return etag!;
}

describe("ETag", () => {
  it("comes with every answer carrying one object, changes with every change and only then", async () => {
    const made = await call(base, "POST", "/tasks", { json: { title: "a" } });
    const [id, etag] = [obj(made).id as number, etagOf(made)];
    const read = await call(base, "GET", `/tasks/${id}`);
    expect(etagOf(read)).toBe(etag);
    expect((await fetch(`${base}/tasks/${id}`, { method: "HEAD" })).headers.get("etag")).toBe(etag);
    const patched = await call(base, "PATCH", `/tasks/${id}`, { json: { title: "b" } });
    expect(patched.status).toBe(200);
    expect(etagOf(patched)).not.toBe(etag);
    expect(etagOf(await call(base, "GET", `/tasks/${id}`))).toBe(etagOf(patched));
    const replaced = await call(base, "PUT", `/tasks/${id}`, { json: { title: "a" } });
    // The same fields and status as at creation: the same version, whichever write made it.
    expect(etagOf(replaced)).toBe(etag);
    const closed = await call(base, "POST", `/tasks/${id}/close`);
    expect(closed.status, closed.text).toBe(200);
    expect(etagOf(closed)).not.toBe(etag);
    // An object's ETag is its own: another object with the same fields has another id.
    expect((await created("/tasks", { title: "a" })).etag).not.toBe(etag);
  });
});

describe("If-None-Match on a read", () => {
  it("is 304 with the ETag and no body for the current version (weak comparison, or *); 200 otherwise", async () => {
    const { id, etag } = await created("/counters", { name: "n", count: 0 });
    for (const header of [etag, `W/${etag}`, `"x", ${etag}`, "*"]) {
      const reply = await call(base, "GET", `/counters/${id}`, { headers: { "If-None-Match": header } });
      expect(reply.status, header).toBe(304);
      expect(reply.headers.get("etag")).toBe(etag);
    }
    const stale = await call(base, "GET", `/counters/${id}`, { headers: { "If-None-Match": '"other"' } });
    expect(stale.status).toBe(200);
    expect(obj(stale)).toMatchObject({ id, count: 0 });
  });
});

describe("If-Match on a change", () => {
  it("applies the change for the current version (or *), and is 412 for any other, changing nothing", async () => {
    const { id, etag } = await created("/counters", { name: "n", count: 0 });
    for (const header of ['"stale"', `W/${etag}`, "garbage"]) {
      const refused = await call(base, "PATCH", `/counters/${id}`, { json: { count: 5 }, headers: { "If-Match": header } });
      expect(expectError(refused, 412, ["If-Match"]), header).toEqual({ "If-Match": "matches no current version of the object; read it again" });
    }
    expect(obj(await call(base, "GET", `/counters/${id}`))).toMatchObject({ count: 0 });
    const applied = await call(base, "PUT", `/counters/${id}`, { json: { name: "n", count: 1 }, headers: { "If-Match": `"x", ${etag}` } });
    expect(applied.status, applied.text).toBe(200);
    // The version read before that change is stale now.
    expectError(await call(base, "PATCH", `/counters/${id}`, { json: { count: 9 }, headers: { "If-Match": etag } }), 412, ["If-Match"]);
    expect((await call(base, "PATCH", `/counters/${id}`, { json: { count: 2 }, headers: { "If-Match": "*" } })).status).toBe(200);
    expect(obj(await call(base, "GET", `/counters/${id}`))).toMatchObject({ count: 2 });
  });

  it("guards DELETE and actions too", async () => {
    const { id, etag } = await created("/tasks", { title: "t" });
    expectError(await call(base, "POST", `/tasks/${id}/close`, { headers: { "If-Match": '"stale"' } }), 412, ["If-Match"]);
    expectError(await call(base, "DELETE", `/tasks/${id}`, { headers: { "If-Match": '"stale"' } }), 412, ["If-Match"]);
    expect(obj(await call(base, "GET", `/tasks/${id}`))).toMatchObject({ status: "open" });
    const closed = await call(base, "POST", `/tasks/${id}/close`, { headers: { "If-Match": etag } });
    expect(closed.status, closed.text).toBe(200);
    expectError(await call(base, "DELETE", `/tasks/${id}`, { headers: { "If-Match": etag } }), 412, ["If-Match"]);
    expect((await call(base, "DELETE", `/tasks/${id}`, { headers: { "If-Match": etagOf(closed) } })).status).toBe(204);
    expect((await call(base, "GET", `/tasks/${id}`)).status).toBe(404);
  });

  it("lets concurrent read-modify-write clients lose nothing: the final count is the number of writes acknowledged", async () => {
    const { id } = await created("/counters", { name: "shared", count: 0 });
    const clients = 4;
    const increments = 5;
    let acknowledged = 0;
    let refused = 0;
    const client = async () => {
      for (let done = 0, attempts = 0; done < increments; attempts++) {
        // Bounded: a client that keeps losing would fail the test rather than spin.
        expect(attempts).toBeLessThan(increments * clients * 4);
        const read = await call(base, "GET", `/counters/${id}`);
        const count = obj(read).count as number;
        const write = await call(base, "PUT", `/counters/${id}`, { json: { name: "shared", count: count + 1 }, headers: { "If-Match": etagOf(read) } });
        if (write.status === 412) {
          refused++;
          continue;
        }
        expect(write.status, write.text).toBe(200);
        acknowledged++;
        done++;
      }
    };
    await Promise.all(Array.from({ length: clients }, client));
    expect(acknowledged).toBe(clients * increments);
    expect(obj(await call(base, "GET", `/counters/${id}`))).toMatchObject({ count: acknowledged });
    // The clients did race: some writes were refused (each read was of a version another changed).
    expect(refused).toBeGreaterThan(0);
  });
});

describe("requireIfMatch", () => {
  it("makes a change without If-Match 428 naming it, and changes nothing; reads and creates are unaffected", async () => {
    const at = strict;
    const { id, etag } = await created("/tasks", { title: "t" }, at);
    for (const [method, target, json] of [
      ["PUT", `/tasks/${id}`, { title: "u" }],
      ["PATCH", `/tasks/${id}`, { title: "u" }],
      ["POST", `/tasks/${id}/close`, undefined],
      ["DELETE", `/tasks/${id}`, undefined],
    ] as const) {
      const reply = await call(at, method, target, json === undefined ? {} : { json });
      expect(expectError(reply, 428, ["If-Match"]), `${method} ${target}`).toEqual({ "If-Match": "is required: send the ETag of the version you read" });
    }
    expect(obj(await call(at, "GET", `/tasks/${id}`))).toMatchObject({ title: "t", status: "open" });
    expect((await call(at, "PATCH", `/tasks/${id}`, { json: { title: "u" }, headers: { "If-Match": etag } })).status).toBe(200);
    // An unknown id is still 404: the lookup comes before the precondition.
    expect((await call(at, "PATCH", "/tasks/999999", { json: { title: "u" } })).status).toBe(404);
  });
});

// Why staged, not raced: the window between the server's lookup and the store's write is too
// short for concurrent requests to hit it reliably (in memory, never); a handler that does what a
// concurrent request would, then the store's own write, hits it on every run and every store.
describe("a race staged between the server's checks and the store's write", () => {
  /** The store's handler `resource.operation`. */
  const real = (resource: string, operation: string) => (input: Json) => store[resource]![operation]!(input);
  let staged = "";
  beforeAll(async () => {
    // Each handler first does what a concurrent request would do after the server's lookup and
    // checks, then the store's own write: what the store answers is then the race's answer.
    const { counters, tasks } = store;
    staged = await serve({
      ...store,
      counters: {
        ...counters,
        updateCounter: async (input) => {
          await real("counters", "updateCounter")({ ...input, patch: { name: "meanwhile" }, ifMatch: undefined });
          return real("counters", "updateCounter")(input);
        },
        deleteCounter: async (input) => {
          await real("counters", "updateCounter")({ id: input.id, patch: { name: "meanwhile" }, current: input.current });
          return real("counters", "deleteCounter")(input);
        },
        replaceCounter: async (input) => {
          await real("counters", "deleteCounter")({ id: input.id, current: input.current });
          return real("counters", "replaceCounter")(input);
        },
      },
      tasks: {
        ...tasks,
        closeTask: async (input) => {
          await real("tasks", "deleteTask")({ id: input.id, current: input.current });
          return real("tasks", "closeTask")(input);
        },
        createTask: async (input) => {
          const personId = (input.body as Json).personId;
          await real("people", "deletePerson")({ id: personId, current: { id: personId } });
          return real("tasks", "createTask")(input);
        },
        updateTask: async (input) => {
          const personId = (input.patch as Json).personId;
          await real("people", "deletePerson")({ id: personId, current: { id: personId } });
          return real("tasks", "updateTask")(input);
        },
      },
    });
  }, START_TIMEOUT);

  it("a change under If-Match after another change is 412, and the other change stands; without If-Match it applies", async () => {
    const { id, etag } = await created("/counters", { name: "n", count: 0 }, staged);
    const refused = await call(staged, "PATCH", `/counters/${id}`, { json: { count: 7 }, headers: { "If-Match": etag } });
    expect(expectError(refused, 412, ["If-Match"])).toEqual({ "If-Match": "matches no current version of the object; read it again" });
    expect(obj(await call(base, "GET", `/counters/${id}`))).toMatchObject({ name: "meanwhile", count: 0 });
    const applied = await call(staged, "PATCH", `/counters/${id}`, { json: { count: 7 } });
    expect(applied.status, applied.text).toBe(200);
    expect(obj(applied)).toMatchObject({ name: "meanwhile", count: 7 });
  });

  it("a DELETE under If-Match after another change is 412, and the object stays", async () => {
    const { id, etag } = await created("/counters", { name: "n", count: 0 }, staged);
    expectError(await call(staged, "DELETE", `/counters/${id}`, { headers: { "If-Match": etag } }), 412, ["If-Match"]);
    expect(obj(await call(base, "GET", `/counters/${id}`))).toMatchObject({ name: "meanwhile" });
  });

  it("a change or an action of an object deleted meanwhile is 404 naming the id, and nothing comes back", async () => {
    const counter = await created("/counters", { name: "n", count: 0 }, staged);
    const replaced = await call(staged, "PUT", `/counters/${counter.id}`, { json: { name: "x", count: 1 } });
    expect(expectError(replaced, 404, ["id"])).toEqual({ id: `no counter has the id ${counter.id}: it was deleted meanwhile` });
    expect((await call(base, "GET", `/counters/${counter.id}`)).status).toBe(404);
    const task = await created("/tasks", { title: "t" }, staged);
    const closed = await call(staged, "POST", `/tasks/${task.id}/close`, { headers: { "If-Match": task.etag } });
    expect(expectError(closed, 404, ["id"])).toEqual({ id: `no task has the id ${task.id}: it was deleted meanwhile` });
    expect((await call(base, "GET", `/tasks/${task.id}`)).status).toBe(404);
  });

  it("a write whose reference was deleted meanwhile is 409 naming the field, and nothing is written", async () => {
    const first = await created("/people", { name: "a" }, staged);
    const refused = await call(staged, "POST", "/tasks", { json: { title: "t", personId: first.id } });
    expect(expectError(refused, 409, ["personId"])).toEqual({ personId: `no person has the id ${first.id}: it was deleted meanwhile` });
    const task = await created("/tasks", { title: "kept" }, staged);
    const second = await created("/people", { name: "b" }, staged);
    const moved = await call(staged, "PATCH", `/tasks/${task.id}`, { json: { personId: second.id } });
    expect(expectError(moved, 409, ["personId"])).toEqual({ personId: `no person has the id ${second.id}: it was deleted meanwhile` });
    expect(obj(await call(base, "GET", `/tasks/${task.id}`))).not.toHaveProperty("personId");
  });

  it("is declared: 409 on the writes of a resource with references, 404 and 412 on every change", async () => {
    const document = obj(await call(base, "GET", "/openapi.json"));
    const paths = document.paths as { [path: string]: { [method: string]: { responses: Json; parameters?: Json[] } } };
    for (const method of ["post"]) expect(Object.keys(paths["/tasks"]![method]!.responses)).toContain("409");
    for (const method of ["put", "patch", "delete"]) {
      const operation = paths["/tasks/{id}"]![method]!;
      expect(Object.keys(operation.responses), method).toEqual(expect.arrayContaining(["404", "412", "428"]));
      expect(operation.parameters?.map((p) => p.name)).toContain("If-Match");
    }
    expect(Object.keys(paths["/tasks/{id}/close"]!.post!.responses)).toEqual(expect.arrayContaining(["404", "412", "428"]));
    expect(Object.keys(paths["/tasks/{id}"]!.get!.responses)).toContain("304");
    expect(paths["/tasks/{id}"]!.get!.parameters?.map((p) => p.name)).toContain("If-None-Match");
    expect(Object.keys(paths["/counters/{id}"]!.patch!.responses)).not.toContain("409");
  });
});
