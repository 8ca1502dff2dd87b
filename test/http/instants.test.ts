// `date-time` fields in time order (docs/http-behaviour.md "Dates and times"): whatever offsets
// clients send, a list sorts, filters and pages by the instant, and every store answers the
// instant in one form, UTC. Here on this run's store over real HTTP (the in-memory one in the
// memory project); test/postgres/evolution-instants.test.ts covers PGlite and PostgreSQL.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/serve/serve.js";
import { START_TIMEOUT, call, expectError, list, obj, startDeclaredServer } from "./support.js";

const DECLARATION = `codegen: 1
info: { title: Clinic, version: "1.0.0" }
resources:
  visits:
    fields:
      pet: { type: string, required: true }
      startsAt: { type: string, format: date-time, required: true, filter: true }
      endsAt: { type: string, format: date-time, nullable: true }
    operations:
      list: { page: { size: 10, max: 10 }, sort: [startsAt, endsAt] }
      get: {}
      create: {}
      update: {}
      delete: {}
`;

let server: RunningServer;
let base = "";
beforeAll(async () => {
  server = await startDeclaredServer(DECLARATION, []);
  base = server.url;
}, START_TIMEOUT);
afterAll(() => server?.close());

/** Each visit as sent: text order and time order differ (A is the earliest, B the latest). */
const SENT = [
  { pet: "A", startsAt: "2026-01-01T10:00:00+02:00", endsAt: "2026-01-01T11:00:00+02:00" },
  { pet: "B", startsAt: "2026-01-01T09:00:00Z", endsAt: "2026-01-01T09:30:00Z" },
  { pet: "C", startsAt: "2026-01-01T03:30:00-05:00", endsAt: null },
  { pet: "D", startsAt: "2026-01-01t08:00:00.5z", endsAt: "2026-01-01T03:15:00.1234567-05:00" },
];
const ids = new Map<string, unknown>();
const pets = (items: readonly { [key: string]: unknown }[]) => items.map((item) => item.pet);
const patch = (id: unknown, body: unknown) =>
  call(base, "PATCH", `/visits/${String(id)}`, { json: body, headers: { "Content-Type": "application/merge-patch+json" } });

describe("date-time fields are kept as instants, answered in UTC", () => {
  it("create answers each instant in one form: UTC, six digits of a second", async () => {
    for (const body of SENT) {
      const reply = await call(base, "POST", "/visits", { json: body });
      expect(reply.status, reply.text).toBe(201);
      ids.set(body.pet, obj(reply).id);
    }
    const a = obj(await call(base, "GET", `/visits/${String(ids.get("A"))}`));
    expect(a).toMatchObject({ startsAt: "2026-01-01T08:00:00.000000Z", endsAt: "2026-01-01T09:00:00.000000Z" });
    const d = obj(await call(base, "GET", `/visits/${String(ids.get("D"))}`));
    // A fraction past the microsecond is rounded to it, as PostgreSQL does.
    expect(d).toMatchObject({ startsAt: "2026-01-01T08:00:00.500000Z", endsAt: "2026-01-01T08:15:00.123457Z" });
    expect(obj(await call(base, "GET", `/visits/${String(ids.get("C"))}`)).endsAt).toBeNull();
  });

  it("sorts by the instant, ascending and descending, nullable fields too", async () => {
    expect(pets(list(await call(base, "GET", "/visits?sort=startsAt")))).toEqual(["A", "D", "C", "B"]);
    expect(pets(list(await call(base, "GET", "/visits?sort=-startsAt")))).toEqual(["B", "C", "D", "A"]);
    // C's `endsAt` is JSON null: below every instant.
    expect(pets(list(await call(base, "GET", "/visits?sort=endsAt")))).toEqual(["C", "D", "A", "B"]);
  });

  it("pages by the instant: cursors neither skip nor repeat a visit", async () => {
    const seen: unknown[] = [];
    let target: string | undefined = "/visits?sort=startsAt&limit=1";
    for (let pages = 0; target !== undefined && pages < 10; pages++) {
      const reply = await call(base, "GET", target);
      expect(reply.status, reply.text).toBe(200);
      seen.push(...pets(list(reply)));
      target = /<([^>]+)>; rel="next"/.exec(reply.headers.get("link") ?? "")?.[1];
    }
    expect(seen).toEqual(["A", "D", "C", "B"]);
  });

  it("filters by the instant, whatever offset the filter is written in", async () => {
    for (const value of ["2026-01-01T08:00:00Z", "2026-01-01T10:00:00%2B02:00", "2026-01-01T03:00:00.000-05:00"]) {
      expect(pets(list(await call(base, "GET", `/visits?startsAt=${value}`))), value).toEqual(["A"]);
    }
    expect(list(await call(base, "GET", "/visits?startsAt=2026-01-01T10:00:00Z"))).toEqual([]);
  });

  it("a change keeps the order by instant; a date-time outside the years 0001 to 9999 in UTC is refused", async () => {
    const moved = await patch(ids.get("B"), { startsAt: "2026-01-01T12:59:00+05:00" });
    expect(moved.status, moved.text).toBe(200);
    expect(obj(moved).startsAt).toBe("2026-01-01T07:59:00.000000Z");
    expect(pets(list(await call(base, "GET", "/visits?sort=startsAt")))).toEqual(["B", "A", "D", "C"]);
    expectError(await call(base, "POST", "/visits", { json: { pet: "E", startsAt: "0000-06-01T00:00:00Z" } }), 400, ["startsAt"]);
    expectError(await call(base, "POST", "/visits", { json: { pet: "E", startsAt: "9999-12-31T23:00:00-05:00" } }), 400, ["startsAt"]);
  });
});
