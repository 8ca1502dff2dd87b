// The rules of docs/migrations.md left after evolution.test.ts, on one database per store (PGlite,
// and a real PostgreSQL server where its binaries are installed) that meets version after
// version: a `date-time` stored as text (how codegen stored it before instants) becomes a
// timestamptz, and the rows written with mixed offsets list in time order; a `status` arrives on
// a table with rows, which get the initial state; an enum narrowed while a row holds a removed
// value stops its migration, changing nothing, until that row is changed through the API. Rows
// version N wrote are read, listed, updated and deleted through version N+1 over HTTP.

import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresCollection } from "../../runtime/postgres.gen.js";
import type { ResourceSpec } from "../../runtime/resources.gen.js";
import { tablesOf } from "../../src/compile/tables.js";
import { nodeHost } from "../../src/host.js";
import { type Database, DatabaseProblem, evolveSchema } from "../../src/postgres/database.js";
import { generateIntoFolder, openapiFromText } from "../../src/pipeline.js";
import { type Json, call, list, obj } from "../http/support.js";
import { listen, stop } from "../runtime/wire.js";
import { postgresSkipReason, type PostgresServer, startPostgres } from "./server.js";
import { pgliteDatabase, serverDatabase } from "./store.js";
import { type VersionApi, importGenerated } from "./versions.js";

const OPERATIONS =
  "    operations:\n      list: { page: { size: 10, max: 10 }, sort: [startsAt] }\n      get: {}\n      create: {}\n      update: {}\n      delete: {}\n";
const declaration = (fields: readonly string[], status = "") =>
  `codegen: 1\ninfo: { title: Clinic, version: "1.0.0" }\nresources:\n  visits:\n    fields:\n${fields.map((f) => `      ${f}\n`).join("")}${status}${OPERATIONS}`;

const PET = "pet: { type: string, required: true }";
const KIND = "kind: { type: string, enum: [checkup, vaccine, surgery] }";
const STATUS = "    status:\n      values: [booked, done]\n      transitions: { booked: [done] }\n";
/** Each version: its declaration, and the words of its migration. */
const VERSIONS = [
  // How codegen stored a `date-time` before: text, sorted as text.
  { name: "initial", text: declaration([PET, "startsAt: { type: string, required: true, filter: true }", KIND]) },
  { name: "instants", text: declaration([PET, "startsAt: { type: string, format: date-time, required: true, filter: true }", KIND]) },
  { name: "add_status", text: declaration([PET, "startsAt: { type: string, format: date-time, required: true, filter: true }", KIND], STATUS) },
  {
    name: "narrow_kind",
    text: declaration(
      [PET, "startsAt: { type: string, format: date-time, required: true, filter: true }", "kind: { type: string, enum: [checkup, vaccine] }"],
      STATUS,
    ),
  },
] as const;

/** The visits version 1 writes: as text, their order is C, D, B, A; in time, A, D, C, B. */
const WRITTEN = [
  { pet: "A", startsAt: "2026-01-01T10:00:00+02:00", kind: "checkup" },
  { pet: "B", startsAt: "2026-01-01T09:00:00Z", kind: "surgery" },
  { pet: "C", startsAt: "2026-01-01T03:30:00-05:00", kind: "vaccine" },
  { pet: "D", startsAt: "2026-01-01T08:00:00.5Z" },
  { pet: "E", startsAt: "2026-01-02T06:00:00+23:00" },
];

const skip = postgresSkipReason();

describe("date-time, status and enum changes on tables whose rows an earlier version wrote", () => {
  let dir = "";
  let postgres: PostgresServer | undefined;
  const stores: { name: string; database: Database; ids: Map<string, unknown> }[] = [];
  const apis: VersionApi[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "codegen-evolution-"));
    stores.push({ name: "pglite", database: await pgliteDatabase(), ids: new Map() });
    if (skip === undefined) {
      postgres = await startPostgres();
      stores.push({ name: "postgres", database: await serverDatabase(postgres.url("postgres")), ids: new Map() });
    }
  }, 120_000);
  afterAll(async () => {
    for (const store of stores) await store.database.close();
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Writes version `i`'s migration (`codegen migrate new`) and compiles its server. */
  async function version(i: number): Promise<VersionApi> {
    const { name, text } = VERSIONS[i]!;
    await writeFile(path.join(dir, "api.yaml"), text);
    const outcome = await generateIntoFolder({ ...nodeHost(), cwd: dir }, "api.yaml", text, {
      outDir: "out",
      check: false,
      force: false,
      format: false,
      migration: { name },
    });
    expect(outcome.diagnostics).toEqual([]);
    expect(outcome.migration).toBe(`migrations/${String(i + 1).padStart(4, "0")}_${name}.sql`);
    apis[i] = await importGenerated(path.join(dir, "out"), path.join(dir, `compiled-${i}`));
    return apis[i];
  }

  /** Runs `work` on each store over HTTP through version `i`'s server. */
  async function serve(i: number, work: (base: string, ids: Map<string, unknown>, store: string) => Promise<void>): Promise<void> {
    for (const store of stores) {
      const server = apis[i]!.createServer({ handlers: apis[i]!.createPostgresStore({ query: store.database.query }) });
      try {
        await work(`http://127.0.0.1:${await listen(server)}`, store.ids, store.name);
      } finally {
        await stop(server);
      }
    }
  }

  const migrate = async (i: number) => {
    for (const store of stores) {
      expect(await store.database.session((query) => apis[i]!.migrate({ query })), store.name).toEqual([
        `${String(i + 1).padStart(4, "0")}_${VERSIONS[i]!.name}`,
      ]);
    }
  };
  const pets = (items: readonly Json[]) => items.map((item) => item.pet);
  const patch = (base: string, id: unknown, body: unknown) =>
    call(base, "PATCH", `/visits/${String(id)}`, { json: body, headers: { "Content-Type": "application/merge-patch+json" } });
  /** Every page of a list, by its `next` links. */
  const allPages = async (base: string, target: string) => {
    const seen: Json[] = [];
    for (let next: string | undefined = target, pages = 0; next !== undefined && pages < 20; pages++) {
      const reply = await call(base, "GET", next);
      expect(reply.status, reply.text).toBe(200);
      seen.push(...list(reply));
      next = /<([^>]+)>; rel="next"/.exec(reply.headers.get("link") ?? "")?.[1];
    }
    return seen;
  };

  it("version 1 stores the date-times as text, in the offsets clients sent", async () => {
    await version(0);
    await migrate(0);
    await serve(0, async (base, ids) => {
      for (const body of WRITTEN) {
        const reply = await call(base, "POST", "/visits", { json: body });
        expect(reply.status, reply.text).toBe(201);
        ids.set(body.pet, obj(reply).id);
      }
      // Text order: what the issue's user met.
      expect(pets(list(await call(base, "GET", "/visits?sort=startsAt")))).toEqual(["C", "D", "B", "A", "E"]);
    });
  }, 120_000);

  it("date-time becomes a timestamptz: version 1's rows are answered in UTC and list, page and filter in time order", async () => {
    await version(1);
    const sql = await readFile(path.join(dir, "out/migrations/0002_instants.sql"), "utf8");
    expect(sql).toMatch(/^ALTER TABLE "visits" ALTER COLUMN "startsAt" TYPE timestamptz USING CASE WHEN "startsAt" ~ .* END;$/m);
    await migrate(1);
    await serve(1, async (base, ids, store) => {
      const a = obj(await call(base, "GET", `/visits/${String(ids.get("A"))}`));
      expect(a, store).toMatchObject({ pet: "A", startsAt: "2026-01-01T08:00:00.000000Z", kind: "checkup" });
      expect(pets(list(await call(base, "GET", "/visits?sort=startsAt"))), store).toEqual(["E", "A", "D", "C", "B"]);
      expect(pets(list(await call(base, "GET", "/visits?sort=-startsAt"))), store).toEqual(["B", "C", "D", "A", "E"]);
      expect(pets(await allPages(base, "/visits?sort=startsAt&limit=2")), store).toEqual(["E", "A", "D", "C", "B"]);
      expect(pets(list(await call(base, "GET", "/visits?startsAt=2026-01-01T03:00:00-05:00"))), store).toEqual(["A"]);
      // A row of version 1 moved, in another offset; a new one written in a third.
      const moved = await patch(base, ids.get("B"), { startsAt: "2026-01-01T12:59:00+05:00" });
      expect(moved.status, moved.text).toBe(200);
      expect(obj(moved).startsAt).toBe("2026-01-01T07:59:00.000000Z");
      const created = await call(base, "POST", "/visits", { json: { pet: "F", startsAt: "2026-01-01T02:45:00-05:30" } });
      expect(created.status, created.text).toBe(201);
      ids.set("F", obj(created).id);
      expect((await call(base, "DELETE", `/visits/${String(ids.get("E"))}`)).status).toBe(204);
      ids.delete("E");
      expect(pets(await allPages(base, "/visits?sort=startsAt&limit=2")), store).toEqual(["B", "A", "D", "F", "C"]);
    });
  }, 120_000);

  it("a status arrives on a table with rows: they get the initial state, and its transitions work on them", async () => {
    await version(2);
    const sql = await readFile(path.join(dir, "out/migrations/0003_add_status.sql"), "utf8");
    expect(sql).toMatch(/^ALTER TABLE "visits" ADD COLUMN IF NOT EXISTS "status" text NOT NULL DEFAULT 'booked';$/m);
    await migrate(2);
    await serve(2, async (base, ids, store) => {
      expect(obj(await call(base, "GET", `/visits/${String(ids.get("C"))}`)), store).toMatchObject({ pet: "C", status: "booked" });
      expect(list(await call(base, "GET", "/visits?status=booked")).length, store).toBe(5);
      const done = await patch(base, ids.get("C"), { status: "done" });
      expect(done.status, done.text).toBe(200);
      expect(obj(done).status).toBe("done");
      const created = await call(base, "POST", "/visits", { json: { pet: "G", startsAt: "2026-01-03T00:00:00Z" } });
      expect(obj(created).status).toBe("booked");
      expect((await call(base, "DELETE", `/visits/${String(obj(created).id)}`)).status).toBe(204);
    });
  }, 120_000);

  it("an enum narrowed while a row holds the removed value: the migration stops, changing nothing, until the row is changed", async () => {
    await version(3);
    for (const store of stores) {
      const failed = await store.database.session((query) => apis[3]!.migrate({ query })).catch((error: unknown) => error);
      expect(String((failed as Error).message), store.name).toMatch(/^visits\.kind holds values the declaration no longer allows: change them through the API/);
    }
    // Nothing of it was kept: version 3 still works, and changes the row the message is about.
    await serve(2, async (base, ids) => {
      expect(obj(await call(base, "GET", `/visits/${String(ids.get("B"))}`)).kind).toBe("surgery");
      expect((await patch(base, ids.get("B"), { kind: "checkup" })).status).toBe(200);
    });
    await migrate(3);
    await serve(3, async (base, ids, store) => {
      expect(obj(await call(base, "GET", `/visits/${String(ids.get("B"))}`)), store).toMatchObject({ kind: "checkup", status: "booked" });
      expect((await call(base, "POST", "/visits", { json: { pet: "H", startsAt: "2026-01-03T00:00:00Z", kind: "surgery" } })).status).toBe(400);
      expect(pets(list(await call(base, "GET", "/visits?sort=startsAt"))), store).toEqual(["B", "A", "D", "F", "C"]);
      expect((await call(base, "DELETE", `/visits/${String(ids.get("A"))}`)).status).toBe(204);
    });
  }, 120_000);
});

describe("serve --db: the same rules on its own database", () => {
  it("a date-time stored as text becomes a timestamptz; an enum or the status values narrowed under rows that hold a removed value is refused, naming the fix", async () => {
    const database = await pgliteDatabase();
    try {
      const evolve = async (text: string) => {
        const document = (await openapiFromText("api.yaml", text)).value!;
        return evolveSchema(database, (last) => tablesOf(document, { snapshot: last }));
      };
      await evolve(VERSIONS[0].text);
      await database.query(
        `INSERT INTO "visits" ("pet", "startsAt", "kind") VALUES ('B', '2026-01-01T09:00:00Z', 'surgery'), ('A', '2026-01-01T10:00:00+02:00', NULL)`,
      );
      await evolve(VERSIONS[2].text);
      expect((await database.query(`SELECT "pet", "status" FROM "visits" ORDER BY "startsAt"`)).rows).toEqual([
        { pet: "A", status: "booked" },
        { pet: "B", status: "booked" },
      ]);
      const refused = await evolve(VERSIONS[3].text).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DatabaseProblem);
      expect((refused as DatabaseProblem).reason).toMatch(/^visits\.kind holds values the declaration no longer allows/);
      expect((await database.query(`SELECT "kind" FROM "visits" WHERE "pet" = 'B'`)).rows).toEqual([{ kind: "surgery" }]);
      // Status values narrowed the same way: a row in the removed state stops the change.
      await database.query(`UPDATE "visits" SET "status" = 'done' WHERE "pet" = 'A'`);
      const states = VERSIONS[2].text.replace("values: [booked, done]", "values: [booked, cancelled]").replace("booked: [done]", "booked: [cancelled]");
      const stopped = await evolve(states).catch((error: unknown) => error);
      expect((stopped as DatabaseProblem).reason).toMatch(/^visits\.status holds values the declaration no longer allows/);
      expect((await database.query(`SELECT "status" FROM "visits" WHERE "pet" = 'A'`)).rows).toEqual([{ status: "done" }]);
    } finally {
      await database.close();
    }
  }, 60_000);
});

describe("the PostgreSQL store's instant columns, written by a handler of the application's own", () => {
  it("takes any RFC 3339 offset (PostgreSQL alone refuses one past 15:59), answers UTC, filters and sorts by the instant", async () => {
    const database = await pgliteDatabase();
    try {
      await database.query(`CREATE TABLE "visits" ("id" bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, "startsAt" timestamptz)`);
      // A spec without `instants`: the column's kind alone decides (a handler may call the store with values as clients sent them).
      const spec: ResourceSpec = { collection: "visits", singular: "visit", idKind: "integer", readOnly: [], writeOnly: [], refs: [], links: [] };
      const store = new PostgresCollection(database.query, spec, {
        table: "visits",
        idKind: "integer",
        columns: [{ field: "startsAt", column: "startsAt", kind: "instant" }],
      });
      for (const startsAt of ["2026-01-02T06:00:00+23:00", "2026-01-01T06:30:00Z"])
        expect(await store.create({ startsAt })).toMatchObject({ startsAt: expect.any(String) });
      expect((await store.list({}, [{ field: "startsAt", descending: false }])).map((v) => v.startsAt)).toEqual([
        "2026-01-01T06:30:00.000000Z",
        "2026-01-01T07:00:00.000000Z",
      ]);
      expect((await store.list({ startsAt: "2026-01-01T07:00:00-00:00" }, [], ["startsAt"])).map((v) => v.id)).toEqual([1]);
    } finally {
      await database.close();
    }
  }, 60_000);
});
