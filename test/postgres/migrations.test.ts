// A declaration walks through five edits (add a resource, add a field, add
// a filter, rename a field, drop a field); each `migrate new` writes one migration beside the
// kept ones, each applies on the database the ones before left, and the destructive changes are
// written commented out, named as warnings and not applied.

import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeHost } from "../../src/host.js";
import { applyMigrationFiles, type Database } from "../../src/postgres/database.js";
import { folderMigrations } from "../../src/postgres/recorded.js";
import { identifier, quoteIdentifier } from "../../src/model/tables.js";
import { generateIntoFolder } from "../../src/pipeline.js";
import { pgliteDatabase } from "./store.js";

/** The migrations `codegen migrate` applies from a folder, which must hold nothing it refuses. */
function recorded(folder: string) {
  const { migrations, refused } = folderMigrations(folder);
  expect(refused).toEqual([]);
  return migrations;
}

const head = 'codegen: 1\ninfo: { title: Shelf, version: "1.0.0" }\nresources:\n';
const books = (fields: string) => `  books:\n    fields:\n      title: { type: string, required: true }\n${fields}`;
const STEPS = [
  { name: "the first run", text: head + books("      author: string\n") },
  {
    name: "add a resource",
    text:
      head + books("      author: string\n") + "  reviews:\n    fields:\n      bookId: { type: integer, ref: books, required: true }\n      stars: integer\n",
  },
  {
    name: "add a field",
    text:
      head +
      books("      author: string\n      pages: { type: integer, default: 0 }\n") +
      "  reviews:\n    fields:\n      bookId: { type: integer, ref: books, required: true }\n      stars: integer\n",
  },
  {
    name: "add a filter",
    text:
      head +
      books("      author: { type: string, filter: true }\n      pages: { type: integer, default: 0 }\n") +
      "  reviews:\n    fields:\n      bookId: { type: integer, ref: books, required: true }\n      stars: integer\n",
  },
  {
    name: "rename a field",
    text:
      head +
      books("      author: { type: string, filter: true }\n      pages: { type: integer, default: 0 }\n") +
      "  reviews:\n    fields:\n      bookId: { type: integer, ref: books, required: true }\n      rating: integer\n",
  },
  {
    name: "drop a field",
    text:
      head +
      books("      author: { type: string, filter: true }\n") +
      "  reviews:\n    fields:\n      bookId: { type: integer, ref: books, required: true }\n      rating: integer\n",
  },
];

describe("migrations across five edits, each applied on the database the ones before left", () => {
  let dir = "";
  let database: Database;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "codegen-migrations-"));
    database = await pgliteDatabase();
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const columns = async (table: string) =>
    (await database.query("SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY column_name", [table])).rows.map(
      (r) => r.column_name,
    );
  const indexes = async (table: string) =>
    (await database.query("SELECT indexname FROM pg_indexes WHERE tablename = $1", [table])).rows.map((r) => r.indexname);

  it("writes one migration per edit, keeps the earlier ones, applies the additions and withholds the destructive changes", async () => {
    const host = { ...nodeHost(), cwd: dir };
    const seen = new Map<string, string>();
    for (const [i, step] of STEPS.entries()) {
      await writeFile(path.join(dir, "api.yaml"), step.text);
      const outcome = await generateIntoFolder(host, "api.yaml", step.text, { outDir: "out", check: false, force: false, format: false, migration: {} });
      expect(outcome.diagnostics, step.name).toEqual([]);
      const files = (await readdir(path.join(dir, "out", "migrations"))).filter((f) => f.endsWith(".sql")).sort();
      expect(files.length, `${step.name}: ${files.join(", ")}`).toBe(i + 1);
      // The earlier migrations are kept as they were.
      for (const [name, text] of seen) expect(await readFile(path.join(dir, "out", "migrations", name), "utf8")).toBe(text);
      for (const name of files) seen.set(name, await readFile(path.join(dir, "out", "migrations", name), "utf8"));
      const newest = seen.get(files[files.length - 1]!)!;
      const applied = await applyMigrationFiles(database, recorded(path.join(dir, "out")));
      expect(applied, step.name).toEqual([files[files.length - 1]!.replace(/\.sql$/, "")]);

      if (step.name === "the first run") expect(await columns("books")).toEqual(["author", "id", "title"]);
      if (step.name === "add a resource") {
        expect(await columns("reviews")).toEqual(["bookId", "id", "stars"]);
        expect(newest).toMatch(/FOREIGN KEY \("bookId"\) REFERENCES "books"/);
      }
      if (step.name === "add a field") {
        expect(await columns("books")).toEqual(["author", "id", "pages", "title"]);
        expect(outcome.warnings).toEqual([]);
      }
      if (step.name === "add a filter") expect(await indexes("books")).toContain("books_author_idx");
      if (step.name === "rename a field") {
        // A rename is a drop and an add: the add applies, the drop is withheld (the data stays).
        expect(await columns("reviews")).toEqual(["bookId", "id", "rating", "stars"]);
        expect(newest).toMatch(/^-- ALTER TABLE "reviews" DROP COLUMN "stars";$/m);
        expect(outcome.warnings).toEqual([expect.stringMatching(/^reviews\.stars is no longer declared.*not applied\)$/)]);
      }
      if (step.name === "drop a field") {
        expect(await columns("books")).toEqual(["author", "id", "pages", "title"]);
        expect(newest).toMatch(/^-- ALTER TABLE "books" DROP COLUMN "pages";$/m);
        expect(outcome.warnings).toEqual([expect.stringMatching(/^books\.pages is no longer declared/)]);
      }
    }
    // Rows written under the first tables are still read after every migration.
    await database.query('INSERT INTO "books" ("title") VALUES ($1)', ["Kept"]);
    expect((await database.query('SELECT "title" FROM "books"')).rows).toEqual([{ title: "Kept" }]);
    // A run with nothing changed writes no migration.
    await generateIntoFolder(host, "api.yaml", STEPS[STEPS.length - 1]!.text, { outDir: "out", check: false, force: false, format: false, migration: {} });
    expect((await readdir(path.join(dir, "out", "migrations"))).filter((f) => f.endsWith(".sql"))).toHaveLength(STEPS.length);
  }, 120_000);
});

describe("values in migrations", () => {
  it("an enum value with a line break, a quote, a backslash and `;` stays one literal of one statement", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "codegen-migrations-"));
    const database = await pgliteDatabase();
    try {
      const hostile = 'a\';\nDROP TABLE "notes"; --\\';
      const text = `${head}  notes:\n    fields:\n      mood: { type: string, enum: ${JSON.stringify([hostile, "b"])}, default: ${JSON.stringify(hostile)} }\n`;
      await writeFile(path.join(dir, "api.yaml"), text);
      const outcome = await generateIntoFolder({ ...nodeHost(), cwd: dir }, "api.yaml", text, {
        outDir: "out",
        check: false,
        force: false,
        format: false,
        migration: {},
      });
      expect(outcome.diagnostics).toEqual([]);
      await applyMigrationFiles(database, recorded(path.join(dir, "out")));
      const inserted = await database.query('INSERT INTO "notes" DEFAULT VALUES RETURNING "mood"');
      expect(inserted.rows).toEqual([{ mood: hostile }]);
      await expect(database.query('INSERT INTO "notes" ("mood") VALUES ($1)', ["a"])).rejects.toThrow(/check/);
    } finally {
      await database.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("identifiers", () => {
  it("fit PostgreSQL's 63 bytes without two names meeting, and are quoted with quotes doubled", () => {
    const long = "a".repeat(80);
    expect(Buffer.byteLength(identifier(long))).toBeLessThanOrEqual(63);
    expect(identifier(long)).not.toBe(identifier(`${long}b`));
    expect(identifier("é".repeat(40))).not.toBe(identifier("é".repeat(41)));
    expect(quoteIdentifier('x"; DROP TABLE books; --')).toBe('"x""; DROP TABLE books; --"');
    expect(identifier("a\u0000b")).not.toContain("\u0000");
  });
});
