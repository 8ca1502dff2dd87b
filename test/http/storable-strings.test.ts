// Strings a store cannot keep exactly (docs/http-behaviour.md, "Strings a store keeps exactly"):
// U+0000 and unpaired surrogates, anywhere a resource operation is given a string (body fields at
// any depth, path ids, list filters), are a 400 naming the field on every store, never a 5xx and
// never stored changed; the texts stored sort alike on every store, by code point. vitest.config.ts runs this file on the in-memory store, PGlite and a real
// PostgreSQL server.

import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/serve/serve.js";
import { START_TIMEOUT, call, expectError, obj, startDeclaredServer } from "./support.js";
import type { Json } from "./support.js";

const DECLARATION = `codegen: 1
info: { title: Strings, version: "1" }
resources:
  notes:
    fields:
      title: { type: string, filter: true }
      body: string
      tags: string[]
      address:
        type: object
        fields:
          city: string
          lines: string[]
      extra: { type: object, nullable: true, fields: { note: string } }
  labels:
    id: string
    fields:
      name: { type: string, required: true, filter: true }
  words:
    fields:
      word: { type: string, required: true, filter: true }
      set: { type: string, filter: true }
      note: { type: string, nullable: true }
    operations:
      list: { sort: [word, note], page: { size: 2, max: 50 } }
      create: {}
`;

let server: RunningServer;
let base = "";

beforeAll(async () => {
  server = await startDeclaredServer(DECLARATION, []);
  base = server.url;
}, START_TIMEOUT);
afterAll(() => server?.close());

/** Whether PostgreSQL can keep a text exactly (an oracle apart from the runtime's own check). */
function storable(text: string): boolean {
  return !text.includes("\u0000") && (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/** Texts of plain pieces and hostile code units at random places (two halves may meet and pair). */
const text = fc
  .array(fc.oneof(fc.constantFrom("\u0000", "\ud800", "\udbff", "\udc00", "\udfff", "\ud83d\ude00", "é"), fc.string({ maxLength: 4 })), { maxLength: 6 })
  .map((pieces) => pieces.join(""));

/** A note's fields, each present or not, with texts at every depth. */
const note = fc.record(
  {
    title: text,
    body: text,
    tags: fc.array(text, { maxLength: 3 }),
    address: fc.record({ city: text, lines: fc.array(text, { maxLength: 3 }) }, { requiredKeys: [] }),
    extra: fc.record({ note: text }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);

/** The paths (as `detail` names them) of the texts of a value a store cannot keep. */
function badPaths(value: unknown, path = ""): string[] {
  if (typeof value === "string") return storable(value) ? [] : [path];
  if (Array.isArray(value)) return value.flatMap((item, i) => badPaths(item, `${path}[${i}]`));
  if (typeof value === "object" && value !== null) return Object.entries(value).flatMap(([key, item]) => badPaths(item, path === "" ? key : `${path}.${key}`));
  return [];
}

/** The fields of a stored note as sent (no id, no links). */
function fieldsOf(body: Json): Json {
  const { id: _id, links: _links, ...fields } = body;
  return fields;
}

describe("texts a store cannot keep exactly", () => {
  it("a create is 400 naming each such text, or stores every text exactly", async () => {
    await fc.assert(
      fc.asyncProperty(note, async (fields) => {
        const reply = await call(base, "POST", "/notes", { json: fields });
        const bad = badPaths(fields);
        if (bad.length > 0) {
          const detail = expectError(reply, 400, bad);
          for (const message of Object.values(detail)) expect(message).toMatch(/^must not contain (U\+0000|an unpaired surrogate)/);
          return;
        }
        expect(reply.status, reply.text).toBe(201);
        const read = await call(base, "GET", `/notes/${String(obj(reply).id)}`);
        expect(read.status, read.text).toBe(200);
        expect(fieldsOf(obj(read))).toEqual(fields);
      }),
      { numRuns: 60 },
    );
  });

  it("a replace and a merge patch are 400 naming each such text, and leave the object as it was", async () => {
    const created = await call(base, "POST", "/notes", { json: { title: "kept", tags: ["a"] } });
    expect(created.status, created.text).toBe(201);
    const id = String(obj(created).id);
    let current: Json = fieldsOf(obj(created));
    await fc.assert(
      fc.asyncProperty(note, fc.boolean(), async (fields, replace) => {
        const reply = replace ? await call(base, "PUT", `/notes/${id}`, { json: fields }) : await call(base, "PATCH", `/notes/${id}`, { json: fields });
        const bad = badPaths(fields);
        if (bad.length > 0) expectError(reply, 400, bad);
        else {
          expect(reply.status, reply.text).toBe(200);
          current = fieldsOf(obj(reply));
        }
        const read = await call(base, "GET", `/notes/${id}`);
        expect(fieldsOf(obj(read))).toEqual(current);
      }),
      { numRuns: 40 },
    );
  });

  it("a list filter with U+0000 at any place is 400 naming the filter", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), async (before, after) => {
        const value = encodeURIComponent(`${before}\u0000${after}`);
        expectError(await call(base, "GET", `/notes?title=${value}`), 400, ["title"]);
        expectError(await call(base, "GET", `/labels?name=${value}`), 400, ["name"]);
      }),
      { numRuns: 20 },
    );
  });

  it("a string id with U+0000 is 400 naming the id, on every operation of one object", async () => {
    for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
      const reply = await call(base, method, "/labels/a%00b", method === "PUT" || method === "PATCH" ? { json: { name: "x" } } : {});
      expectError(reply, 400, ["id"]);
    }
  });

  it("a string id keeps its other texts: paired surrogates and other letters round-trip", async () => {
    const name = "\ud83d\ude00 é \u2028";
    const created = await call(base, "POST", "/labels", { json: { name } });
    expect(created.status, created.text).toBe(201);
    const listed = await call(base, "GET", `/labels?name=${encodeURIComponent(name)}`);
    expect(listed.status, listed.text).toBe(200);
    expect((listed.body as Json[]).map((label) => label.name)).toEqual([name]);
  });
});

/** What `pick` reads of every object a list answers, following `next` from `target`. */
async function follow(target: string, pick: (object: Json) => unknown): Promise<unknown[]> {
  const found: unknown[] = [];
  for (let next: string | undefined = target; next !== undefined;) {
    const reply = await call(base, "GET", next);
    expect(reply.status, reply.text).toBe(200);
    found.push(...(reply.body as Json[]).map(pick));
    next = /^<([^>]+)>; rel="next"$/.exec(reply.headers.get("link") ?? "")?.[1];
  }
  return found;
}

describe("texts sort by code point on every store", () => {
  it("a character past U+FFFF sorts after U+E000 to U+FFFF, in a list and across its pages", async () => {
    // Code point order; UTF-16 code units would put the surrogate pair of U+1F600 before U+E000.
    const words = ["a", "z", "\u00e9", "\ue000", "\uffff", "\ud83d\ude00", "\ud83d\ude00!"];
    for (const word of [...words].reverse()) {
      const created = await call(base, "POST", "/words", { json: { word, set: "order" } });
      expect(created.status, created.text).toBe(201);
    }
    const listed = (target: string) => follow(target, (object) => object.word);
    expect(await listed("/words?set=order&sort=word&limit=50")).toEqual(words);
    expect(await listed("/words?set=order&sort=-word")).toEqual([...words].reverse());
  });

  it("a nullable text's null sorts apart from an absent one: absent, then null, then the texts", async () => {
    // Created interleaved, so that the tie-break by id cannot put them in this order by itself.
    const made = ["null", "absent", "b", "null", "absent", "a"].map((note, i) => ({ word: String(i), note }));
    for (const { word, note } of made) {
      const json: Json = { word, set: "nulls", ...(note === "absent" ? {} : { note: note === "null" ? null : note }) };
      const created = await call(base, "POST", "/words", { json });
      expect(created.status, created.text).toBe(201);
    }
    const notes = (target: string) => follow(target, (object) => (Object.hasOwn(object, "note") ? object.note : "absent"));
    const order = ["absent", "absent", null, null, "a", "b"];
    expect(await notes("/words?set=nulls&sort=note&limit=50")).toEqual(order);
    expect(await notes("/words?set=nulls&sort=note")).toEqual(order);
    expect(await notes("/words?set=nulls&sort=-note")).toEqual([...order].reverse());
  });
});
