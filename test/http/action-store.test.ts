// Stores do the data work of every declared operation (docs/http-behaviour.md, "The stores'
// typed API"): an action's body fields that name resource fields are stored with its `to` state
// in one write (a trigger on PostgreSQL counts the row's writes), and the typed store API a
// handler calls, transaction(work) included, is atomic: a failing step or an aborted signal
// leaves nothing, and concurrent bookings of one slot (examples/clinic/booking.ts) have exactly
// one winner. vitest.config.ts runs this file on the in-memory store, PGlite and PostgreSQL.

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { clinicHandlers } from "../../examples/clinic/booking.js";
import {
  type Query,
  type Store,
  createMemoryHandlers,
  createPostgresStore,
  createServer,
  isRefusal,
  migrate,
  openMemoryStore,
  openPostgresStore,
} from "../../fixtures/valid/clinic/expected/index.gen.js";
import { TEST_STORE } from "../postgres/store.js";
import { ROOT } from "../support/fixtures.js";
import { call, closeLocal, expectError, listenLocal, obj } from "./support.js";

/** One row's write of `appointments`, as the trigger records it. */
type Write = { before: string; after: string; notes: string | null; reason: string | null; startsAt: string };

/**
 * Every UPDATE of a row of `appointments`, one row each (FOR EACH ROW): the status before and
 * after, and the stored fields after. Why a trigger: it sees the writes themselves, so "one
 * write" is counted, not inferred from the object read afterwards.
 */
const TRIGGER = [
  'CREATE TABLE "writes" ("n" serial, "before" text, "after" text, "notes" text, "reason" text, "startsAt" text)',
  `CREATE FUNCTION "record_write"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
     INSERT INTO "writes" ("before", "after", "notes", "reason", "startsAt") VALUES (OLD."status", NEW."status", NEW."notes", NEW."reason", to_char(NEW."startsAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'));
     RETURN NEW; END $$`,
  'CREATE TRIGGER "appointments_writes" AFTER UPDATE ON "appointments" FOR EACH ROW EXECUTE FUNCTION "record_write"()',
];

/** This run's store: its typed API, its handlers, the writes it recorded (PostgreSQL), and its closing. */
type Opened = { store: Store; handlers: ReturnType<typeof createMemoryHandlers>; writes?: () => Promise<Write[]>; close(): Promise<void> };

async function openStore(): Promise<Opened> {
  if (TEST_STORE === "memory") {
    const store = openMemoryStore();
    return { store, handlers: createMemoryHandlers(store), close: async () => undefined };
  }
  let query: Query;
  let close: () => Promise<void>;
  let store: Store;
  if (TEST_STORE === "pglite") {
    const { PGlite } = await import("@electric-sql/pglite");
    const db = await PGlite.create();
    query = async (text, params) => db.query(text, params);
    await migrate({ query });
    store = openPostgresStore({ query });
    close = () => db.close();
  } else {
    const { default: pg } = await import("pg");
    const url = inject("postgresUrl");
    const name = `t_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`).finally(() => admin.end());
    const pool = new pg.Pool({ connectionString: url.replace(/\/postgres$/, `/${name}`), max: 6 });
    const client = await pool.connect();
    await migrate({ query: (text, params) => client.query(text, params) }).finally(() => client.release());
    query = (text, params) => pool.query(text, params);
    store = openPostgresStore({ pool });
    close = () => pool.end();
  }
  for (const statement of TRIGGER) await query(statement, []);
  const writes = async () => (await query('SELECT "before", "after", "notes", "reason", "startsAt" FROM "writes" ORDER BY "n"', [])).rows as Write[];
  return { store, handlers: createPostgresStore({ store }), writes, close };
}

const skipped = TEST_STORE === "postgres" && inject("postgresUrl") === "";
let opened: Opened;
let server: Server | undefined;
let base = "";

beforeAll(async () => {
  if (skipped) return;
  opened = await openStore();
  server = createServer({ handlers: clinicHandlers(opened.store, opened.handlers) });
  base = await listenLocal(server);
});

afterAll(async () => {
  await closeLocal(server);
  await opened?.close();
});

/** A pet of a new owner, and its id. */
async function newPet(): Promise<number> {
  const owner = obj(await call(base, "POST", "/owners", { json: { name: "Ada" } }));
  const pet = obj(await call(base, "POST", "/pets", { json: { name: "Rex", species: "dog", ownerId: owner.id } }));
  return pet.id as number;
}

/** A slot no other test of the file books: a time of its own for the vet. */
let slots = 0;
// (In the form the stores answer a date-time in: UTC with six digits of a second.)
const nextSlot = () => `2030-01-01T${String(8 + slots++).padStart(2, "0")}:00:00.000000Z`;

describe.skipIf(skipped)(`actions and the typed store API (${TEST_STORE})`, () => {
  it("stores an action's body fields that name resource fields with its `to` state, in one write; other fields reach only the handler", async () => {
    const petId = await newPet();
    const book = async () => obj(await call(base, "POST", "/appointments", { json: { petId, vet: "Dr Who", startsAt: nextSlot() } }));
    const [first, second, third] = [await book(), await book(), await book()];
    const before = (await opened.writes?.())?.length ?? 0;

    const completed = await call(base, "POST", `/appointments/${first.id}/complete`, { json: { notes: "healthy" } });
    expect(completed.status, completed.text).toBe(200);
    expect(obj(completed)).toMatchObject({ status: "completed", notes: "healthy" });

    // A stale If-Match: nothing written (the version is compared in the write itself).
    const stale = await call(base, "POST", `/appointments/${second.id}/cancel`, { json: { reason: "ill" }, headers: { "If-Match": '"stale"' } });
    expectError(stale, 412);
    const cancelled = await call(base, "POST", `/appointments/${second.id}/cancel`, { json: { reason: "ill" } });
    expect(obj(cancelled)).toMatchObject({ status: "cancelled", reason: "ill" });

    const moved = nextSlot();
    const rescheduled = await call(base, "POST", `/appointments/${third.id}/reschedule`, { json: { startsAt: moved, notify: false } });
    expect(obj(rescheduled)).toMatchObject({ status: "booked", startsAt: moved });
    expect(obj(rescheduled)).not.toHaveProperty("notify");

    // The objects as stored, read back through the typed API.
    expect(await opened.store.appointments.get(first.id as number)).toMatchObject({ status: "completed", notes: "healthy" });
    expect(await opened.store.appointments.get(third.id as number)).toMatchObject({ status: "booked", startsAt: moved });
    if (opened.writes !== undefined) {
      // One UPDATE per action, each writing the fields and the status together.
      expect((await opened.writes()).slice(before)).toEqual([
        { before: "booked", after: "completed", notes: "healthy", reason: null, startsAt: first.startsAt },
        { before: "booked", after: "cancelled", notes: null, reason: "ill", startsAt: second.startsAt },
        { before: "booked", after: "booked", notes: null, reason: null, startsAt: expect.any(String) as string },
      ]);
    }
  });

  it("offers get, list, page, create, update, replace, transition and delete, typed", async () => {
    const { store } = opened;
    const owner = await store.owners.create({ name: "Grace" });
    if (isRefusal(owner)) throw new Error(owner.error);
    const pet = await store.pets.create({ name: "Tom", species: "cat", ownerId: owner.id });
    if (isRefusal(pet)) throw new Error(pet.error);
    const slots = [nextSlot(), nextSlot(), nextSlot()];
    for (const startsAt of slots.toReversed()) {
      const made = await store.appointments.create({ petId: pet.id, vet: "Dr Typed", startsAt });
      expect(made).toMatchObject({ status: "booked", startsAt });
    }
    const sorted = await store.appointments.list({ where: { vet: "Dr Typed" }, sort: [{ field: "startsAt", descending: false }] });
    expect(sorted.map((a) => a.startsAt)).toEqual(slots);
    const first = await store.appointments.page({ where: { vet: "Dr Typed" }, sort: [{ field: "startsAt", descending: true }], limit: 2 });
    expect(first.items.map((a) => a.startsAt)).toEqual([slots[2], slots[1]]);
    const rest = await store.appointments.page({ where: { vet: "Dr Typed" }, sort: [{ field: "startsAt", descending: true }], limit: 2, cursor: first.next! });
    expect(rest).toEqual({ items: [expect.objectContaining({ startsAt: slots[0] })] });

    const target = sorted[0]!;
    expect(await store.appointments.update(target.id, { notes: "bring the card" })).toMatchObject({ notes: "bring the card", status: "booked" });
    expect(await store.appointments.update(target.id, { notes: null })).not.toHaveProperty("notes");
    expect(await store.appointments.transition(target.id, "cancelled", { fields: { reason: "moved away" } })).toMatchObject({
      status: "cancelled",
      reason: "moved away",
    });
    // No declared transition leaves `cancelled`: 409 naming `status`, nothing written.
    const refused = await store.appointments.transition(target.id, "booked");
    expect(refused).toMatchObject({ status: 409, detail: { status: expect.stringContaining("final state") as string } });
    expect(await store.appointments.get(target.id)).toMatchObject({ status: "cancelled" });
    // A version that is no longer current: 412.
    expect(await store.owners.replace(owner.id, { name: "Grace H." }, { ifMatch: '"old"' })).toMatchObject({ status: 412 });
    expect(await store.owners.replace(owner.id, { name: "Grace H." })).toMatchObject({ id: owner.id, name: "Grace H." });
    // Still referred to: 409, and the pet stays.
    expect(await store.pets.delete(pet.id)).toMatchObject({ status: 409 });
    for (const appointment of sorted) expect(await store.appointments.delete(appointment.id)).toBeUndefined();
    expect(await store.pets.delete(pet.id)).toBeUndefined();
    expect(await store.pets.get(pet.id)).toBeUndefined();
    expect(await store.pets.delete(pet.id)).toMatchObject({ status: 404 });
  });

  it("rolls a transaction back whole when a step throws or its signal aborts", async () => {
    const { store } = opened;
    const count = async () => (await store.owners.list({ where: { name: "Rolled back" } })).length;
    await expect(
      store.transaction(async (tx) => {
        await tx.owners.create({ name: "Rolled back" });
        expect(await tx.owners.list({ where: { name: "Rolled back" } })).toHaveLength(1);
        throw new Error("a later step failed");
      }),
    ).rejects.toThrow("a later step failed");
    expect(await count()).toBe(0);

    // The store outside, and a transaction begun inside, join the running one (they would
    // otherwise wait for it forever on one connection), and are rolled back with it.
    await expect(
      store.transaction(async () => {
        await store.owners.create({ name: "Rolled back" });
        await store.transaction(async (inner) => inner.owners.create({ name: "Rolled back" }));
        expect(await count()).toBe(2);
        throw new Error("the last step failed");
      }),
    ).rejects.toThrow("the last step failed");
    expect(await count()).toBe(0);

    const controller = new AbortController();
    await expect(
      store.transaction(
        async (tx) => {
          await tx.owners.create({ name: "Rolled back" }, { signal: controller.signal });
          controller.abort(new Error("the client went away"));
          return "done";
        },
        { signal: controller.signal },
      ),
    ).rejects.toThrow("the client went away");
    expect(await count()).toBe(0);

    // Committed when it ends well, its writes seen by the store outside.
    const made = await store.transaction(async (tx) => tx.owners.create({ name: "Committed" }));
    expect(made).toMatchObject({ name: "Committed" });
    expect(await store.owners.list({ where: { name: "Committed" } })).toHaveLength(1);
  });

  it("a delete rolled back puts the object back at its place: a list without sort keeps the order of creation", async () => {
    const { store } = opened;
    const made: number[] = [];
    for (const name of ["Kept 1", "Kept 2", "Kept 3"]) {
      const owner = await store.owners.create({ name, email: "kept@example.org" });
      if (isRefusal(owner)) throw new Error(owner.error);
      made.push(owner.id);
    }
    await expect(
      store.transaction(async (tx) => {
        await tx.owners.delete(made[1]!);
        throw new Error("a later step failed");
      }),
    ).rejects.toThrow("a later step failed");
    expect((await store.owners.list({ where: { email: "kept@example.org" } })).map((owner) => owner.id)).toEqual(made);
  });

  it("books one slot once, however many requests race for it (examples/clinic/booking.ts)", async () => {
    const petId = await newPet();
    const startsAt = nextSlot();
    const replies = await Promise.all(Array.from({ length: 8 }, () => call(base, "POST", "/appointments", { json: { petId, vet: "Dr Race", startsAt } })));
    const statuses = replies.map((reply) => reply.status).sort();
    expect(statuses, replies.map((reply) => reply.text).join("\n")).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const reply of replies.filter((r) => r.status === 409)) expectError(reply, 409, ["startsAt"]);
    const booked = await opened.store.appointments.list({ where: { vet: "Dr Race", startsAt } });
    expect(booked).toHaveLength(1);

    // Rescheduling onto a taken slot is refused too, and leaves the appointment where it was.
    const other = obj(await call(base, "POST", "/appointments", { json: { petId, vet: "Dr Race", startsAt: nextSlot() } }));
    const onto = await call(base, "POST", `/appointments/${other.id}/reschedule`, { json: { startsAt } });
    expectError(onto, 409, ["startsAt"]);
    expect((await opened.store.appointments.get(other.id as number))?.startsAt).toBe(other.startsAt);
  });
});

describe("the example of docs/http-behaviour.md", () => {
  it("is examples/clinic/booking.ts, the code the tests above run, from its import on", () => {
    const example = readFileSync(path.join(ROOT, "examples/clinic/booking.ts"), "utf8");
    const docs = readFileSync(path.join(ROOT, "docs/http-behaviour.md"), "utf8");
    expect(docs).toContain("```ts\n" + example.slice(example.indexOf("import type")) + "```");
  });
});

/** Type checks of the typed API (compiled by `npm run typecheck`, never run). */
export function typedApiRefuses(store: Store): void {
  // @ts-expect-error -- `done` is no state of an appointment.
  void store.appointments.transition(1, "done");
  // @ts-expect-error -- owners have no status to move.
  void store.owners.transition(1, "booked");
  // @ts-expect-error -- a pet's id is a number.
  void store.pets.get("1");
  // @ts-expect-error -- `color` is no field of a pet.
  void store.pets.update(1, { color: "red" });
  // @ts-expect-error -- a create needs the required fields.
  void store.pets.create({ name: "Rex" });
}
