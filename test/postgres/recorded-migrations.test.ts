// `codegen migrate` applies exactly the migrations codegen wrote and recorded in the output
// folder's manifest, each a regular file inside the folder as recorded: the set the generated
// migrate() holds. Anything else among them (a `.sql` added by hand, a link, an edited or
// replaced recorded file) is refused by name before anything is applied, and `generate --check`
// refuses the same. Real folders, links and PGlite databases.
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { hostIn } from "../support/host-in.js";

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-recorded-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const DECLARATION = 'codegen: 1\ninfo: { title: Shelf, version: "1.0.0" }\nresources:\n  books:\n    fields:\n      title: { type: string, required: true }\n';
/** SQL that would leave a mark were it run. */
const HOSTILE = 'CREATE TABLE "pwned" ("x" integer);\n';

let made = 0;
/** A project folder with api.yaml generated into `gen`. */
async function generated(): Promise<{ dir: string; gen: string }> {
  const dir = path.join(scratch, `case-${made++}`);
  mkdirSync(dir);
  writeFileSync(path.join(dir, "api.yaml"), DECLARATION);
  expect(await main(["api.yaml", "-o", "gen", "--quiet"], hostIn(dir))).toBe(0);
  expect(await main(["migrate", "new", "api.yaml", "initial", "-o", "gen"], hostIn(dir))).toBe(0);
  return { dir, gen: path.join(dir, "gen") };
}

/** The names of the `.sql` files each diagnostic names, with its code, sorted. */
const named = (stderr: string) => [...stderr.matchAll(/`(gen\/migrations\/[^`]*)`.*\[(output\/[a-z-]+)\]/g)].map((m) => `${m[1]} ${m[2]}`).sort();

/** Runs `migrate` and `generate --check` on the folder: their exit codes and what each refused. */
async function bothRefusals(dir: string) {
  const migrate = hostIn(dir);
  const migrateCode = await main(["migrate", "api.yaml", "-o", "gen", "--db", "db"], migrate);
  const check = hostIn(dir);
  const checkCode = await main(["api.yaml", "-o", "gen", "--check"], check);
  return { migrateCode, migrated: named(migrate.err()), checkCode, checked: named(check.err()), migrateErr: migrate.err() };
}

describe("codegen migrate applies only the recorded migrations", () => {
  it("applies the set the generated migrate() holds, and nothing else", async () => {
    const { dir, gen } = await generated();
    const host = hostIn(dir);
    expect(await main(["migrate", "api.yaml", "-o", "gen", "--db", "db"], host)).toBe(0);
    const applied = [...host.out().matchAll(/^applied (\S+)$/gm)].map((m) => m[1]);
    const embedded = [...readFileSync(path.join(gen, "postgres.gen.ts"), "utf8").matchAll(/name: "([^"]+)"/g)].map((m) => m[1]);
    expect(applied).toEqual(["0001_initial"]);
    expect(applied).toEqual(embedded);
  }, 180_000);

  it("refuses, by name and before anything is applied, every .sql the manifest does not record, as generate --check does (property)", async () => {
    const extra = fc.record({
      name: fc.oneof(
        fc.stringMatching(/^[0-9]{4}_[a-z0-9_]{1,12}\.sql$/),
        fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}\.(sql|SQL)$/),
        fc.constant("0001_initial.sql.orig.sql"),
      ),
      kind: fc.constantFrom("file", "link-outside", "link-inside", "folder"),
    });
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(extra, { minLength: 1, maxLength: 3, selector: (e) => e.name.toLowerCase() }), async (extras) => {
        const { dir, gen } = await generated();
        const outside = path.join(dir, "outside.sql");
        writeFileSync(outside, HOSTILE);
        const wanted: string[] = [];
        for (const { name, kind } of extras) {
          if (name === "0001_initial.sql") continue;
          const at = path.join(gen, "migrations", name);
          if (kind === "file") writeFileSync(at, HOSTILE);
          if (kind === "link-outside") symlinkSync(outside, at);
          if (kind === "link-inside") symlinkSync("0001_initial.sql", at);
          if (kind === "folder") mkdirSync(at);
          wanted.push(`gen/migrations/${name} output/unrecorded-migration`);
        }
        const result = await bothRefusals(dir);
        expect(result.migrateCode).toBe(1);
        expect(result.migrated).toEqual(wanted.sort());
        expect(result.checkCode).toBe(1);
        expect(result.checked).toEqual(result.migrated);
        expect(result.migrateErr).not.toMatch(/\n\s+at /);
        // Refused before the database was opened: nothing applied, not even the recorded migrations.
        expect(existsSync(path.join(dir, "db"))).toBe(false);
      }),
      { numRuns: 10 },
    );
  }, 120_000);

  it("refuses a recorded migration that is now a link (even to the same text), edited, or missing", async () => {
    const cases = [
      {
        name: "a link",
        change: (file: string, dir: string) => {
          writeFileSync(path.join(dir, "same.sql"), readFileSync(file));
          unlinkSync(file);
          symlinkSync(path.join(dir, "same.sql"), file);
        },
        code: "output/symbolic-link",
      },
      { name: "edited", change: (file: string) => writeFileSync(file, readFileSync(file, "utf8") + HOSTILE), code: "output/edited-by-hand" },
      { name: "missing", change: (file: string) => unlinkSync(file), code: "output/unrecorded-migration" },
    ];
    for (const { name, change, code } of cases) {
      const { dir, gen } = await generated();
      const file = path.join(gen, "migrations", "0001_initial.sql");
      change(file, dir);
      const result = await bothRefusals(dir);
      expect(result.migrateCode, name).toBe(1);
      expect(result.migrated, name).toEqual([`gen/migrations/0001_initial.sql ${code}`]);
      expect(result.checkCode, name).toBe(1);
      expect(existsSync(path.join(dir, "db")), name).toBe(false);
      if (name === "a link") expect(lstatSync(file).isSymbolicLink()).toBe(true);
    }
  }, 120_000);

  it("refuses a migrations folder that is a link, naming it", async () => {
    const { dir, gen } = await generated();
    const elsewhere = path.join(dir, "elsewhere");
    mkdirSync(elsewhere);
    for (const name of readdirSync(path.join(gen, "migrations"))) writeFileSync(path.join(elsewhere, name), readFileSync(path.join(gen, "migrations", name)));
    rmSync(path.join(gen, "migrations"), { recursive: true });
    symlinkSync(elsewhere, path.join(gen, "migrations"));
    const host = hostIn(dir);
    expect(await main(["migrate", "api.yaml", "-o", "gen", "--db", "db"], host)).toBe(1);
    expect(host.err()).toContain("`gen/migrations` is a symbolic link");
    expect(existsSync(path.join(dir, "db"))).toBe(false);
  }, 60_000);
});
