// A clinic's declaration evolves through one kind of change per version (docs/migrations.md,
// "Safe to evolve"): `codegen migrate new` writes each migration, the generated `migrate()` applies
// it on PGlite and on a real PostgreSQL server, and the rows version N wrote are read, listed,
// updated and deleted over HTTP through version N+1. A change stored rows would not survive is
// refused at its line; `generate` writes no migration and `generate --check` names the change;
// `serve --db` brings its own database along by the same rules, without files.

import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeHost } from "../../src/host.js";
import { type Database, DatabaseProblem, evolveSchema } from "../../src/postgres/database.js";
import { tablesOf } from "../../src/compile/tables.js";
import { generateIntoFolder, openapiFromText } from "../../src/pipeline.js";
import { type Json, call, list, obj } from "../http/support.js";
import { listen, stop } from "../runtime/wire.js";
import { postgresSkipReason, type PostgresServer, startPostgres } from "./server.js";
import { pgliteDatabase, serverDatabase } from "./store.js";
import { type VersionApi, importGenerated } from "./versions.js";

const head = 'codegen: 1\ninfo: { title: Clinic, version: "1.0.0" }\nresources:\n  pets:\n    fields:\n';
const declaration = (...fields: string[]) => head + fields.map((f) => `      ${f}\n`).join("");

const NAME = "name: { type: string, required: true }";
const WEIGHT = "weight: { type: integer, minimum: 0, maximum: 1000 }";
/** Each version: its fields, and the words of its migration. */
const VERSIONS = [
  { name: "initial", fields: [NAME, "colour: { type: string, filter: true }", "tag: { type: string, required: true }", "notes: string", WEIGHT] },
  {
    name: "rename",
    fields: [NAME, "color: { type: string, filter: true, renamedFrom: colour }", "tag: { type: string, required: true }", "notes: string", WEIGHT],
  },
  {
    name: "add_required",
    fields: [
      NAME,
      "color: { type: string, filter: true }",
      "tag: { type: string, required: true }",
      "notes: string",
      WEIGHT,
      "species: { type: string, required: true, default: dog }",
    ],
  },
  {
    name: "remove_required",
    fields: [NAME, "color: { type: string, filter: true }", "notes: string", WEIGHT, "species: { type: string, required: true, default: dog }"],
  },
  {
    name: "becomes_required",
    fields: [
      NAME,
      "color: { type: string, filter: true }",
      'notes: { type: string, required: true, default: "none" }',
      WEIGHT,
      "species: { type: string, required: true, default: dog }",
    ],
  },
  {
    name: "integer_to_string",
    fields: [
      NAME,
      "color: { type: string, filter: true }",
      'notes: { type: string, required: true, default: "none" }',
      "weight: string",
      "species: { type: string, required: true, default: dog }",
    ],
  },
] as const;

const skip = postgresSkipReason();

describe("the clinic's tables evolve, version by version, and every operation works on the rows of the version before", () => {
  let dir = "";
  let postgres: PostgresServer | undefined;
  /** The databases: PGlite, and a real PostgreSQL server where its binaries are installed. */
  const stores: { name: string; database: Database }[] = [];
  /** Per store, the ids of the pets each version created, by the name given. */
  const created = new Map<string, Map<string, unknown>>();
  const host = () => ({ ...nodeHost(), cwd: dir });
  const options = { outDir: "out", check: false, force: false, format: false };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "codegen-evolution-"));
    stores.push({ name: "pglite", database: await pgliteDatabase() });
    if (skip === undefined) {
      postgres = await startPostgres();
      stores.push({ name: "postgres", database: await serverDatabase(postgres.url("postgres")) });
    }
    for (const store of stores) created.set(store.name, new Map());
  }, 120_000);
  afterAll(async () => {
    for (const store of stores) await store.database.close();
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** The output folder's generated server, compiled to a folder of its own and imported. */
  const compiled = (version: number): Promise<VersionApi> => importGenerated(path.join(dir, "out"), path.join(dir, `compiled-${version}`));

  /** Writes version `i`'s migration, migrates every store with the generated migrate(), and runs `work` on each over HTTP. */
  async function atVersion(i: number, work: (base: string, ids: Map<string, unknown>) => Promise<void>): Promise<void> {
    const text = declaration(...VERSIONS[i]!.fields);
    await writeFile(path.join(dir, "api.yaml"), text);
    const outcome = await generateIntoFolder(host(), "api.yaml", text, { ...options, migration: { name: VERSIONS[i]!.name } });
    expect(outcome.diagnostics).toEqual([]);
    expect(outcome.migration).toBe(`migrations/${String(i + 1).padStart(4, "0")}_${VERSIONS[i]!.name}.sql`);
    const api = await compiled(i);
    for (const store of stores) {
      const applied = await store.database.session((query) => api.migrate({ query }));
      expect(applied, store.name).toEqual([`${String(i + 1).padStart(4, "0")}_${VERSIONS[i]!.name}`]);
      const server = api.createServer({ handlers: api.createPostgresStore({ query: store.database.query }) });
      try {
        await work(`http://127.0.0.1:${await listen(server)}`, created.get(store.name)!);
      } finally {
        await stop(server);
      }
    }
  }

  const create = async (base: string, ids: Map<string, unknown>, body: Json) => {
    const reply = await call(base, "POST", "/pets", { json: body });
    expect(reply.status, reply.text).toBe(201);
    ids.set(String(body.name), obj(reply).id);
    return obj(reply);
  };
  const get = async (base: string, ids: Map<string, unknown>, name: string) => {
    const reply = await call(base, "GET", `/pets/${String(ids.get(name))}`);
    expect(reply.status, reply.text).toBe(200);
    return obj(reply);
  };
  /** Updates a pet and deletes another, both written by an earlier version; both must answer as they should. */
  const updateAndDelete = async (base: string, ids: Map<string, unknown>, updated: string, deleted: string) => {
    const patch = await call(base, "PATCH", `/pets/${String(ids.get(updated))}`, {
      json: { name: `${updated}!` },
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    expect(patch.status, patch.text).toBe(200);
    expect(obj(patch).name).toBe(`${updated}!`);
    expect((await call(base, "DELETE", `/pets/${String(ids.get(deleted))}`)).status).toBe(204);
    expect((await call(base, "GET", `/pets/${String(ids.get(deleted))}`)).status).toBe(404);
    ids.set(`${updated}!`, ids.get(updated));
    ids.delete(updated);
    ids.delete(deleted);
  };

  it("version 1: the first migration creates the table, and rows are written", async () => {
    await atVersion(0, async (base, ids) => {
      for (const name of ["Rex", "Tom", "Kit", "Bo", "Max", "Ada", "Pip"]) await create(base, ids, { name, colour: "brown", tag: `t-${name}`, weight: 12 });
      await create(base, ids, { name: "Zed", tag: "t-Zed", notes: "kept", colour: "black" });
    });
  }, 120_000);

  it("renamedFrom: the column is renamed and keeps its data; the filter on it still finds the rows", async () => {
    await atVersion(1, async (base, ids) => {
      expect(await get(base, ids, "Rex")).toMatchObject({ name: "Rex", color: "brown", tag: "t-Rex", weight: 12 });
      expect((await get(base, ids, "Rex")).colour).toBeUndefined();
      expect(list(await call(base, "GET", "/pets?color=black")).map((p) => p.name)).toEqual(["Zed"]);
      await updateAndDelete(base, ids, "Rex", "Tom");
    });
    const sql = await readFile(path.join(dir, "out/migrations/0002_rename.sql"), "utf8");
    expect(sql).toMatch(/^ALTER TABLE "pets" RENAME COLUMN "colour" TO "color";$/m);
  }, 120_000);

  it("a new required field with a default: stored rows get the default, and are read, listed, updated and deleted", async () => {
    await atVersion(2, async (base, ids) => {
      expect(await get(base, ids, "Kit")).toMatchObject({ name: "Kit", species: "dog", color: "brown" });
      expect(list(await call(base, "GET", "/pets")).every((p) => p.species === "dog")).toBe(true);
      await updateAndDelete(base, ids, "Kit", "Bo");
      await create(base, ids, { name: "Cleo", species: "cat", tag: "t-Cleo" });
    });
  }, 120_000);

  it("a removed required field: its NOT NULL is dropped at once, so creates work; its column is kept (DROP COLUMN withheld)", async () => {
    await atVersion(3, async (base, ids) => {
      expect(await get(base, ids, "Max")).toMatchObject({ name: "Max", species: "dog" });
      expect((await get(base, ids, "Max")).tag).toBeUndefined();
      await create(base, ids, { name: "Nox", species: "cat" });
      await updateAndDelete(base, ids, "Max", "Cleo");
    });
    const sql = await readFile(path.join(dir, "out/migrations/0004_remove_required.sql"), "utf8");
    expect(sql).toMatch(/^ALTER TABLE "pets" ALTER COLUMN "tag" DROP NOT NULL;$/m);
    expect(sql).toMatch(/^-- ALTER TABLE "pets" DROP COLUMN "tag";$/m);
  }, 120_000);

  it("an optional field becomes required with a default: stored rows without it are backfilled, the others keep theirs", async () => {
    await atVersion(4, async (base, ids) => {
      expect(await get(base, ids, "Ada")).toMatchObject({ name: "Ada", notes: "none" });
      expect(await get(base, ids, "Zed")).toMatchObject({ name: "Zed", notes: "kept" });
      expect(list(await call(base, "GET", "/pets")).every((p) => typeof p.notes === "string")).toBe(true);
      await updateAndDelete(base, ids, "Ada", "Nox");
    });
  }, 120_000);

  it("integer to string: stored numbers are converted to their text, and the API takes text", async () => {
    await atVersion(5, async (base, ids) => {
      expect(await get(base, ids, "Pip")).toMatchObject({ name: "Pip", weight: "12" });
      await create(base, ids, { name: "Tux", notes: "new", species: "dog", weight: "three" });
      expect(await get(base, ids, "Tux")).toMatchObject({ weight: "three" });
      await updateAndDelete(base, ids, "Pip", "Tux");
      expect(
        list(await call(base, "GET", "/pets"))
          .map((p) => p.name)
          .sort(),
      ).toEqual(["Ada!", "Kit!", "Max!", "Pip!", "Rex!", "Zed"]);
    });
  }, 120_000);
});

describe("changes no migration may make, and migrations only on request", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "codegen-evolution-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const run = async (text: string, more: { check?: boolean; migration?: { name?: string } } = {}) => {
    await writeFile(path.join(dir, "api.yaml"), text);
    return generateIntoFolder({ ...nodeHost(), cwd: dir }, "api.yaml", text, { outDir: "out", check: false, force: false, format: false, ...more });
  };
  const migrations = async () => (await readdir(path.join(dir, "out/migrations"))).filter((f) => f.endsWith(".sql")).sort();

  it("generate writes none; a typo fixed before migrate new leaves one file; --check names the change at its line", async () => {
    expect((await run(declaration(NAME), { migration: { name: "initial" } })).migration).toBe("migrations/0001_initial.sql");
    // The user adds a field with a typo, generates, fixes the typo, generates again.
    const typo = await run(declaration(NAME, "colour: string"));
    expect(typo.diagnostics).toEqual([]);
    expect(typo.warnings).toEqual([expect.stringMatching(/adds `pets\.colour`, which no migration captures/)]);
    await run(declaration(NAME, "color: string"));
    expect(await migrations()).toEqual(["0001_initial.sql"]);
    const check = await run(declaration(NAME, "color: string"), { check: true });
    expect(check.diagnostics.map((d) => [d.code, d.location?.line])).toEqual([["migrate/not-captured", 7]]);
    expect(check.diagnostics[0]!.message).toMatch(/^the declaration adds `pets\.color`, which no migration in `out` captures/);
    expect((await run(declaration(NAME, "color: string"), { migration: {} })).migration).toBe("migrations/0002_add_pets_color.sql");
    expect(await migrations()).toEqual(["0001_initial.sql", "0002_add_pets_color.sql"]);
    expect((await run(declaration(NAME, "color: string"), { check: true })).diagnostics).toEqual([]);
    // Nothing changed: migrate new writes nothing.
    expect((await run(declaration(NAME, "color: string"), { migration: {} })).migration).toBeUndefined();
  });

  it("refuses, at each field's line with the fix named, a new required field without a default, one that becomes required without one, and a lossy type change", async () => {
    await run(declaration(NAME, "color: string", "age: string"), { migration: {} });
    const before = await migrations();
    const refused = await run(declaration(NAME, "color: { type: string, required: true }", "age: integer", "chip: { type: string, required: true }"), {
      migration: {},
    });
    expect(refused.diagnostics.map((d) => [d.code, d.location?.line])).toEqual([
      ["migrate/became-required", 7],
      ["migrate/lossy-type", 8],
      ["migrate/required-added", 9],
    ]);
    expect(refused.diagnostics[2]!.message).toMatch(/give it a `default`/);
    expect(refused.diagnostics[1]!.message).toMatch(/changes from text to numeric/);
    expect(await migrations()).toEqual(before);
  });

  it("--check names a status machine added or changed at its `status`, not at a field of the resource", async () => {
    const status = (values: string) => `    status:\n      values: [${values}]\n      transitions: { new: [done] }\n`;
    await run(declaration(NAME, "color: string", "age: string"), { migration: {} });
    // (generate first: --check also names the files it would write, which is not what is tested here.)
    await run(declaration(NAME, "color: string", "age: string") + status("new, done"));
    const added = await run(declaration(NAME, "color: string", "age: string") + status("new, done"), { check: true });
    expect(added.diagnostics.map((d) => [d.code, d.location?.line, d.message.slice(0, 37)])).toEqual([
      ["migrate/not-captured", 10, "the declaration adds `pets.status`, w"],
    ]);
    await run(declaration(NAME, "color: string", "age: string") + status("new, done"), { migration: {} });
    await run(declaration(NAME, "color: string", "age: string") + status("new, done, gone"));
    const changed = await run(declaration(NAME, "color: string", "age: string") + status("new, done, gone"), { check: true });
    expect(changed.diagnostics.map((d) => [d.code, d.location?.line])).toEqual([["migrate/not-captured", 10]]);
  });
});

describe("serve --db brings its own database to the declaration by the same rules, without files", () => {
  it("renames for renamedFrom, keeping the data; refuses a change the rows would not survive, leaving the table as it was; applies it to a table without rows", async () => {
    const database = await pgliteDatabase();
    try {
      const evolve = async (...fields: string[]) => {
        const text = declaration(...fields) + "  owners:\n    fields:\n      name: string\n";
        const document = (await openapiFromText("api.yaml", text)).value!;
        return evolveSchema(database, (last) => tablesOf(document, { snapshot: last }));
      };
      const columns = async (table: string) =>
        (await database.query("SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY column_name", [table])).rows.map(
          (r) => r.column_name,
        );
      expect((await evolve(NAME, "colour: string")).applied).toBe(true);
      await database.query(`INSERT INTO "pets" ("name", "colour") VALUES ('Rex', 'brown')`);
      await evolve(NAME, "color: { type: string, renamedFrom: colour }");
      expect((await database.query(`SELECT "name", "color" FROM "pets"`)).rows).toEqual([{ name: "Rex", color: "brown" }]);
      const refused = await evolve(NAME, "color: string", "chip: { type: string, required: true }").catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DatabaseProblem);
      expect((refused as DatabaseProblem).reason).toMatch(/^`chip` is new and required, but the rows `pets` already holds have no value for it/);
      expect(await columns("pets")).toEqual(["color", "id", "name"]);
      // `owners` holds no rows: a new required field without a default loses nothing there.
      const text = declaration(NAME, "color: string") + "  owners:\n    fields:\n      name: string\n      phone: { type: string, required: true }\n";
      const document = (await openapiFromText("api.yaml", text)).value!;
      expect((await evolveSchema(database, (last) => tablesOf(document, { snapshot: last }))).applied).toBe(true);
      expect(await columns("owners")).toEqual(["id", "name", "phone"]);
    } finally {
      await database.close();
    }
  }, 60_000);
});
