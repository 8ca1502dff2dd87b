// References between resources over HTTP (docs/http-behaviour.md, "References"): the delete of an
// object others refer to is 409 naming the reference, declared in the document; a write racing a
// delete of what it refers to is never a 5xx and never leaves a reference to nothing; a reference
// the caller may not read answers exactly as one to no object. vitest.config.ts runs this file on
// the in-memory store, PGlite and a real PostgreSQL server.

import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/serve/serve.js";
import { TEST_STORE } from "../postgres/store.js";
import { START_TIMEOUT, call, closeLocal, compileText, expectError, issueToken, listenLocal, obj, startDeclaredServer } from "./support.js";
import type { Json } from "./support.js";

const DECLARATION = `codegen: 1
info: { title: References, version: "1" }
auth:
  - guard: password
    tokenUrl: /token
    scopes:
      people:read: Read people
      people:write: Change people
      tasks:write: Change tasks
resources:
  people:
    fields:
      name: { type: string, required: true }
      mentorId: { type: integer, ref: people }
    access: { read: [people:read], write: [people:write] }
  tasks:
    fields:
      title: { type: string, required: true }
      personId: { type: integer, ref: people }
    access: { read: authenticated, write: [tasks:write] }
`;

const admin = { name: "ann", password: "secret", scopes: ["people:read", "people:write", "tasks:write"] };
const clerk = { name: "bob", password: "secret", scopes: ["tasks:write"] };
let server: RunningServer;
let base = "";
/** A token with every scope. */
let token = "";
/** A token that may write tasks but not read people. */
let clerkToken = "";

beforeAll(async () => {
  server = await startDeclaredServer(DECLARATION, [admin, clerk]);
  base = server.url;
  token = await issueToken(base, admin, admin.scopes, "/token");
  clerkToken = await issueToken(base, clerk, clerk.scopes, "/token");
}, START_TIMEOUT);
afterAll(() => server?.close());

async function created(target: string, json: Json, as = token): Promise<number> {
  const reply = await call(base, "POST", target, { json, token: as });
  expect(reply.status, reply.text).toBe(201);
  return obj(reply).id as number;
}

describe("the delete of an object others refer to", () => {
  it("is 409 naming the reference, and the object stays; once nothing refers to it, 204", async () => {
    const person = await created("/people", { name: "Ada" });
    const task = await created("/tasks", { title: "t", personId: person });
    const refused = await call(base, "DELETE", `/people/${person}`, { token });
    expect(expectError(refused, 409, ["id"])).toEqual({ id: "tasks refer to this person by personId" });
    expect((await call(base, "GET", `/people/${person}`, { token })).status).toBe(200);
    // A reference cleared no longer holds the object.
    expect((await call(base, "PATCH", `/tasks/${task}`, { json: { personId: null }, token })).status).toBe(200);
    expect((await call(base, "DELETE", `/people/${person}`, { token })).status).toBe(204);
  });

  it("names a reference from the same resource, and lets an object that refers only to itself go", async () => {
    const mentor = await created("/people", { name: "Grace" });
    const pupil = await created("/people", { name: "Alan", mentorId: mentor });
    expect(expectError(await call(base, "DELETE", `/people/${mentor}`, { token }), 409, ["id"])).toEqual({ id: "people refer to this person by mentorId" });
    expect((await call(base, "PATCH", `/people/${pupil}`, { json: { mentorId: pupil }, token })).status).toBe(200);
    expect((await call(base, "DELETE", `/people/${mentor}`, { token })).status).toBe(204);
    expect((await call(base, "DELETE", `/people/${pupil}`, { token })).status).toBe(204);
  });

  it("is declared in the document: 409 on the delete of a resource others refer to, and only there", async () => {
    const document = obj(await call(base, "GET", "/openapi.json"));
    const paths = document.paths as { [path: string]: { delete: { responses: Json } } };
    const conflict = paths["/people/{id}"]!.delete.responses["409"] as { description: string; content: { "application/json": { examples: Json } } };
    expect(conflict.description).toContain("`people.mentorId` or `tasks.personId`");
    expect(conflict.content["application/json"].examples).toEqual({
      referred: { summary: "Other objects refer to it", value: { error: "Conflict", detail: { id: "people refer to this person by mentorId" } } },
    });
    expect(Object.keys(paths["/tasks/{id}"]!.delete.responses)).not.toContain("409");
  });

  it("racing a write that refers to it: never 5xx, and no reference is left to nothing", async () => {
    for (let round = 0; round < 20; round++) {
      const person = await created("/people", { name: `p${round}` });
      const other = await created("/tasks", { title: "moved" });
      const [create, move, remove] = await Promise.all([
        call(base, "POST", "/tasks", { json: { title: "t", personId: person }, token }),
        call(base, "PATCH", `/tasks/${other}`, { json: { personId: person }, token }),
        call(base, "DELETE", `/people/${person}`, { token }),
      ]);
      expect([201, 400, 409], create.text).toContain(create.status);
      expect([200, 400, 409], move.text).toContain(move.status);
      expect([204, 409], remove.text).toContain(remove.status);
      // 400 when the server's check found the person gone; 409 when it went between the check and the write.
      for (const write of [create, move]) {
        if (write.status === 400) expect(obj(write).detail).toEqual({ personId: `no person has the id ${person}` });
        if (write.status === 409) expect(obj(write).detail).toEqual({ personId: `no person has the id ${person}: it was deleted meanwhile` });
      }
      // The person is gone exactly when nothing was left referring to it.
      const refers = create.status === 201 || move.status === 200;
      expect(remove.status, `${create.status} ${move.status} ${remove.status}`).toBe(refers ? 409 : 204);
      expect((await call(base, "GET", `/people/${person}`, { token })).status).toBe(refers ? 200 : 404);
    }
  });
});

describe("a reference the caller may not read", () => {
  it("answers as one to no object, on create, replace and update", async () => {
    const task = await created("/tasks", { title: "mine" }, clerkToken);
    const people = [await created("/people", { name: "Ada" }), await created("/people", { name: "Bob" })];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...people, 999_999, 0), fc.constantFrom("POST", "PUT", "PATCH"), async (personId, method) => {
        const target = method === "POST" ? "/tasks" : `/tasks/${task}`;
        const reply = await call(base, method, target, { json: { title: "t", personId }, token: clerkToken });
        expect(expectError(reply, 400, ["personId"])).toEqual({ personId: `no person has the id ${personId}` });
        expect(reply.headers.get("www-authenticate")).toBeNull();
      }),
      { numRuns: 24 },
    );
  });

  it("still holds for a caller who may read it", async () => {
    const person = await created("/people", { name: "Cy" });
    expect((await call(base, "POST", "/tasks", { json: { title: "t", personId: person }, token })).status).toBe(201);
    expectError(await call(base, "POST", "/tasks", { json: { title: "t", personId: 999_999 }, token }), 400, ["personId"]);
  });
});

// (The in-memory store's run only: the handlers are the application's own, whatever the store.)
describe.skipIf(TEST_STORE !== "memory")("a get handler that refuses an object not the caller's", () => {
  it("with 404 counts as no object: the same 400 as a missing one, never the refusal nor 500", async () => {
    const compiled = await compileText(DECLARATION);
    const memory = compiled.api.createMemoryHandlers();
    const people = memory.people!;
    const own = compiled.api.createServer({
      handlers: {
        ...memory,
        people: {
          ...people,
          // Each person is only its namesake's to read.
          getPerson: async (input) => {
            const found = (await people.getPerson!(input)) as Json | undefined;
            const subject = (input.principal as { subject: string } | undefined)?.subject;
            return found === undefined || found.name === subject ? found : { status: 404, error: "Not found", detail: {} };
          },
        },
      },
      verifyToken: (token) => ({ subject: token, scopes: admin.scopes }),
    });
    const url = await listenLocal(own);
    try {
      const ann = await call(url, "POST", "/people", { json: { name: "ann" }, token: "ann" });
      expect(ann.status, ann.text).toBe(201);
      const id = obj(ann).id as number;
      expect((await call(url, "POST", "/tasks", { json: { title: "t", personId: id }, token: "ann" })).status).toBe(201);
      for (const personId of [id, 999_999]) {
        const reply = await call(url, "POST", "/tasks", { json: { title: "t", personId }, token: "bob" });
        expect(expectError(reply, 400, ["personId"])).toEqual({ personId: `no person has the id ${personId}` });
      }
    } finally {
      await closeLocal(own);
      await compiled.dispose();
    }
  });
});
