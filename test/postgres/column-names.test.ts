// Column names are unique by construction (src/compile/tables.ts, tablesOf): PostgreSQL cuts
// identifiers at 63 bytes and holds no lone surrogate (UTF-8 turns each into U+FFFD), so a long
// name is written as a cut prefix and a hash. No two fields may meet in one column: not a name
// crafted to equal another's cut-and-hash form, not names that differ only in lone surrogates,
// and not a field added later whose column an earlier migration of the folder already created
// (dropping a column is withheld, so it is still there, and `ADD COLUMN IF NOT EXISTS` would
// quietly share it).

import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeHost } from "../../src/host.js";
import { applyMigrationFiles, type Database } from "../../src/postgres/database.js";
import { folderMigrations } from "../../src/postgres/recorded.js";
import { migrationText, schemaChange } from "../../src/emit/postgres/migrations.js";
import type { SchemaSnapshot } from "../../src/model/tables.js";
import { identifier } from "../../src/model/tables.js";
import { tablesOf } from "../../src/compile/tables.js";
import { generateIntoFolder } from "../../src/pipeline.js";
import { pgliteDatabase } from "./store.js";

/** An OpenAPI document with one resource (`items`) whose properties are `fields`, all strings. */
const documentOf = (fields: readonly string[]) => ({
  openapi: "3.1.0",
  paths: {},
  components: {
    schemas: {
      Item: {
        type: "object",
        "x-codegen-resource": { collection: "items" },
        properties: { id: { type: "integer" }, ...Object.fromEntries(fields.map((f) => [f, { type: "string" }])) },
      },
    },
  },
});

/** A name as PostgreSQL receives it: its UTF-8 bytes, read back. */
const asSent = (name: string) => Buffer.from(name, "utf8").toString("utf8");

/** Field names: short and long, ASCII and not, with lone surrogates and NULs. */
const unit = fc.oneof(
  fc.constantFrom("a", "b", "_", "é", "\u{1F600}", "\u0000", "\uD800", "\uDBFF", "\uDC00", "\uDFFF"),
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
);
const fieldName = fc.oneof(
  fc.array(unit, { minLength: 1, maxLength: 8 }).map((units) => units.join("")),
  fc
    .tuple(fc.constantFrom("a", "é", "x_"), fc.integer({ min: 20, max: 90 }), fc.array(unit, { maxLength: 3 }))
    .map(([c, n, tail]) => c.repeat(n) + tail.join("")),
);
/** Names and, for some, a crafted twin: the cut-and-hash form of another, or a lone surrogate swapped for another. */
const fieldNames = fc.tuple(fc.uniqueArray(fieldName, { minLength: 1, maxLength: 12 }), fc.array(fc.nat(), { maxLength: 6 })).map(([names, picks]) => {
  const twins = picks.flatMap((p) => {
    const name = names[p % names.length]!;
    return [identifier(name), name.replace(/[\uD800-\uDFFF]/g, (s) => (s === "\uD800" ? "\uDC00" : "\uD800")), `${name}\uD800`, `${name}\uDC00`];
  });
  return [...new Set([...names, ...twins])].filter((n) => n !== "id" && n !== "links");
});

function expectDistinctColumns(snapshot: SchemaSnapshot) {
  for (const table of snapshot.tables) {
    const sent = table.columns.map((c) => asSent(c.column));
    expect(new Set(["id", ...sent]).size, JSON.stringify(table.columns.map((c) => [c.field, c.column]))).toBe(sent.length + 1);
    for (const column of table.columns) {
      expect(Buffer.byteLength(column.column, "utf8")).toBeLessThanOrEqual(63);
      expect(asSent(column.column)).toBe(column.column);
      expect(column.column).not.toContain("\u0000");
    }
  }
}

describe("column names of one table", () => {
  it("are distinct as PostgreSQL receives them, whatever the names (crafted cut-and-hash forms, lone surrogates)", () => {
    fc.assert(
      fc.property(fieldNames, (names) => {
        expectDistinctColumns(tablesOf(documentOf(names)));
      }),
      { numRuns: 300 },
    );
  });

  it("a field named as another's cut-and-hash form, or differing only in a lone surrogate, gets its own column", () => {
    const long = "a".repeat(80);
    expectDistinctColumns(tablesOf(documentOf([long, identifier(long)])));
    expectDistinctColumns(tablesOf(documentOf(["x\uD800", "x\uDC00", "x\uFFFD"])));
    expectDistinctColumns(tablesOf(documentOf([`${long}\uD800`, `${long}\uDC00`])));
  });
});

describe("column names across a folder's history", () => {
  it("a field keeps its column; a field added later never gets a column an earlier migration created", () => {
    fc.assert(
      fc.property(fieldNames, fc.array(fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), { minLength: 2, maxLength: 5 }), (pool, steps) => {
        let before: SchemaSnapshot | undefined;
        const migrations: string[] = [];
        const everCreated = new Set<string>();
        for (const step of steps) {
          const fields = [...new Set(step.map((i) => pool[i % pool.length]!))];
          const after = tablesOf(documentOf(fields), { snapshot: before, migrations });
          expectDistinctColumns(after);
          const was = new Map((before?.tables[0]?.columns ?? []).map((c) => [c.field, c.column]));
          for (const column of after.tables[0]!.columns) {
            const kept = was.get(column.field);
            if (kept !== undefined) expect(column.column).toBe(kept);
            else expect(everCreated.has(asSent(column.column)), `${JSON.stringify(column.field)} -> ${JSON.stringify(column.column)}`).toBe(false);
          }
          for (const column of after.tables[0]!.columns) everCreated.add(asSent(column.column));
          migrations.push(migrationText(schemaChange(before, after)));
          before = after;
        }
      }),
      { numRuns: 200 },
    );
  });

  it("the history is read from the migrations themselves: a column created there is never given to another field", () => {
    const first = tablesOf(documentOf(["title", "mood"]));
    const created = migrationText(schemaChange(undefined, first));
    const handWritten = `ALTER TABLE "items" ADD COLUMN "extra" text, ADD "other" int DEFAULT 'a, "x"', ADD CONSTRAINT "x" CHECK (true);\n`;
    const after = tablesOf(documentOf(["title", "extra", "other", "x"]), { snapshot: first, migrations: [created, handWritten] });
    const columns = new Map(after.tables[0]!.columns.map((c) => [c.field, c.column]));
    expect(columns.get("title")).toBe("title");
    expect(columns.get("extra")).not.toBe("extra");
    expect(columns.get("other")).not.toBe("other");
    expect(columns.get("x")).toBe("x");
  });
});

describe("table names across a folder's history", () => {
  it("a resource declared again after its removal gets a new table: CREATE TABLE of the old name would fail", () => {
    const first = tablesOf(documentOf(["title"]));
    const created = migrationText(schemaChange(undefined, first));
    const without = { codegen: 1 as const, tables: [] };
    const again = tablesOf(documentOf(["title"]), { snapshot: without, migrations: [created, migrationText(schemaChange(first, without))] });
    expect(first.tables[0]!.table).toBe("items");
    expect(again.tables[0]!.table).not.toBe("items");
    expect(schemaChange(without, again).statements[0]).toMatch(/^CREATE TABLE "items_[0-9a-f]{12}" /);
  });
});

describe("on PGlite, through generate's folder", () => {
  let dir = "";
  let database: Database;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "codegen-columns-"));
    database = await pgliteDatabase();
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const long = `long${"x".repeat(76)}`;
  const twin = identifier(long);
  const head = 'codegen: 1\ninfo: { title: Shelf, version: "1.0.0" }\nresources:\n  notes:\n    fields:\n      title: string\n';
  const STEPS = [
    { name: "a long integer field", fields: { [long]: "integer" } },
    { name: "a string field named as its cut-and-hash form", fields: { [long]: "integer", [twin]: "string" } },
    { name: "the long field removed", fields: { [twin]: "string" } },
    { name: "the long field declared again as a string", fields: { [twin]: "string", [long]: "string" } },
  ] as const;

  it("each field has a column of its own type at every step, and a row of every field is stored and read back", async () => {
    const host = { ...nodeHost(), cwd: dir };
    for (const step of STEPS) {
      const text =
        head +
        Object.entries(step.fields)
          .map(([field, type]) => `      ${field}: ${type}\n`)
          .join("");
      await writeFile(path.join(dir, "api.yaml"), text);
      const outcome = await generateIntoFolder(host, "api.yaml", text, { outDir: "out", check: false, force: false, format: false, migration: {} });
      expect(outcome.diagnostics, step.name).toEqual([]);
      await applyMigrationFiles(database, folderMigrations(path.join(dir, "out")).migrations);
      const snapshot = JSON.parse(await readFile(path.join(dir, "out", "migrations", "schema.json"), "utf8")) as SchemaSnapshot;
      expectDistinctColumns(snapshot);
      const columns = snapshot.tables[0]!.columns;
      const values = columns.map((c) => (c.type === "text" ? `${step.name} ${c.field}` : 7));
      const names = columns.map((c) => `"${c.column.replace(/"/g, '""')}"`).join(", ");
      const inserted = await database.query(
        `INSERT INTO "notes" (${names}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")}) RETURNING ${names}`,
        values,
      );
      expect(Object.values(inserted.rows[0]!).map(String), step.name).toEqual(values.map(String));
    }
  }, 120_000);
});
