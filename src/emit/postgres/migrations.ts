/**
 * Migrations of the PostgreSQL tables: the SQL that takes the tables of one snapshot
 * to those of the next, by the rules of docs/migrations.md. Pure.
 */
import path from "node:path";
import type { MigrationSpec } from "#runtime/migrate.gen.js";
import { type ColumnSnapshot, ID_TYPES, type SchemaSnapshot, type TableSnapshot, identifier, quoteIdentifier } from "../../model/tables.js";

/**
 * A change of the tables that would break a table with rows, refused rather than written
 * (docs/migrations.md, "Safe to evolve"): a new required field without a default, a field that
 * becomes required without one, a type change that loses values, a change of the ids' type.
 */
export type Refusal =
  | { readonly rule: "required-added" | "became-required"; readonly collection: string; readonly field: string }
  | { readonly rule: "lossy-type"; readonly collection: string; readonly field: string; readonly from: string; readonly to: string }
  | { readonly rule: "id-type"; readonly collection: string; readonly from: string; readonly to: string };

/** One change of the tables in words (`adds \`pets.color\``), where it is declared: the collection, and the field if any. */
export interface NamedChange {
  readonly collection: string;
  readonly field?: string;
  /** The field is the resource's `status` machine, declared beside `fields`, not in them. */
  readonly status?: true;
  readonly text: string;
}

/** What changed between two snapshots: statements to apply, statements left commented out, and why. */
export interface SchemaChange {
  readonly statements: readonly string[];
  /** Destructive statements: written commented out, never applied. */
  readonly withheld: readonly string[];
  /** One line per withheld change, for stderr. */
  readonly warnings: readonly string[];
  /** Changes no migration may make: the declaration must change first. */
  readonly refused: readonly Refusal[];
  /** Every change, in words, for `generate --check`. */
  readonly named: readonly NamedChange[];
  /** Words naming the change, for the file name (`add_loans`). */
  readonly summary: string;
}

const q = quoteIdentifier;

/** Marks a change of the status machine's column (it alone has an initial state), located at `status`. */
function statusOf(column: ColumnSnapshot): { status?: true } {
  return column.initial === undefined ? {} : { status: true };
}

/** The name of a constraint or index of a table's column: `<table>_<column>_<suffix>`, through the identifier gate. */
const objectName = (table: string, column: string, suffix: string) => identifier(`${table}_${column}_${suffix}`);

function columnDefinition(column: ColumnSnapshot): string {
  return [q(column.column), column.type, ...(column.notNull ? ["NOT NULL"] : []), ...(column.default !== undefined ? [`DEFAULT ${column.default}`] : [])].join(
    " ",
  );
}

function checkStatement(table: string, column: ColumnSnapshot): string[] {
  return column.check === undefined ? [] : [`ALTER TABLE ${q(table)} ADD CONSTRAINT ${q(objectName(table, column.column, "check"))} CHECK (${column.check});`];
}

/** The values a check allows, as its text lists them (`'a', 'b'`): a check without its column's name. */
const allowed = (check: string) => check.slice(check.indexOf(" IN ("));

/**
 * A statement that stops the migration, before anything else of it is kept, when a stored row
 * holds a value the column's new check refuses (an enum or status values narrowed, or an enum
 * given to a field that had none): PostgreSQL's own refusal of the CHECK would name only the
 * constraint, and never the fix. Why a DO block: it is the one statement that can test the rows
 * and raise, on every PostgreSQL and on PGlite; its dollar quote is a tag the body does not hold.
 */
function valuesGuard(table: TableSnapshot, column: ColumnSnapshot): string {
  const at = `${table.collection}.${column.field}`.replace(/[^A-Za-z0-9_.-]/g, "?");
  // The fix in the message itself: the CLI shows an error's first line, never its hint.
  const message = `${at} holds values the declaration no longer allows: change them through the API to an allowed one, then apply again (or keep them in the declaration)`;
  const body = `BEGIN IF EXISTS (SELECT 1 FROM ${q(table.table)} WHERE NOT (${column.check})) THEN RAISE EXCEPTION '${message}' USING ERRCODE = 'check_violation'; END IF; END`;
  let tag = "$codegen$";
  for (let i = 1; body.includes(tag); i++) tag = `$codegen${i}$`;
  return `DO ${tag} ${body} ${tag};`;
}

function foreignKeyStatement(table: string, column: ColumnSnapshot): string[] {
  return column.references === undefined
    ? []
    : [
        `ALTER TABLE ${q(table)} ADD CONSTRAINT ${q(objectName(table, column.column, "fkey"))} FOREIGN KEY (${q(column.column)}) REFERENCES ${q(column.references)} ("id");`,
      ];
}

function indexStatement(table: string, column: ColumnSnapshot): string[] {
  if (!column.indexed) return [];
  // Why: lists sort text by code point (COLLATE "C", as the in-memory store does), so the index does too.
  const key = column.kind === "text" ? `${q(column.column)} COLLATE "C"` : q(column.column);
  return [`CREATE INDEX IF NOT EXISTS ${q(objectName(table, column.column, "idx"))} ON ${q(table)} (${key});`];
}

function createTable(table: TableSnapshot): string {
  const id = table.idKind === "integer" ? `"id" bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY` : `"id" ${ID_TYPES[table.idKind]} PRIMARY KEY`;
  return `CREATE TABLE ${q(table.table)} (${[id, ...table.columns.map((c) => columnDefinition(c))].join(", ")});`;
}

/**
 * The expression that converts a stored value of type `from` to `to` without losing it, or
 * undefined when some value would not survive (text to a number, a number to a narrower one,
 * JSON to a scalar). Why these: every integer, number and boolean has one exact text, bigint
 * columns hold only integers within JavaScript's safe range (tables.ts `bounded`), and jsonb
 * holds any scalar as itself.
 */
function conversion(from: string, to: string, column: string): string | undefined {
  const c = q(column);
  // A timestamptz leaves as the text the store answers (runtime/instants.gen.ts), not in the session's DateStyle.
  const instant = `to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
  if (from === "timestamptz" && to === "text") return instant;
  if (from === "timestamptz" && to === "jsonb") return `to_jsonb(${instant})`;
  // Why text may become timestamptz: the API stored RFC 3339 date-times as text (its `date-time`
  // fields before they were instants). Why an offset is taken apart: PostgreSQL reads one of at
  // most 15:59, RFC 3339 writes up to 23:59. A value it cannot read stops the migration, rolled
  // back, and nothing is lost (docs/migrations.md).
  if (from === "text" && to === "timestamptz")
    return `CASE WHEN ${c} ~ '[+-][0-9]{2}:[0-9]{2}$' THEN (left(${c}, -6)::timestamp AT TIME ZONE 'UTC') - right(${c}, 6)::interval ELSE ${c}::timestamptz END`;
  if (to === "jsonb" && from !== "jsonb") return `to_jsonb(${c})`;
  if (to === "text" && ["bigint", "numeric", "double precision", "boolean"].includes(from)) return `${c}::text`;
  if (from === "bigint" && (to === "numeric" || to === "double precision")) return `${c}::${to}`;
  return undefined;
}

/**
 * The change from `before` (undefined: an empty database) to `after`, by the rules of
 * docs/migrations.md: additions and lossless changes are applied; a field no longer declared
 * loses its NOT NULL at once (creates, which no longer give it, keep working) while its DROP
 * COLUMN, like a DROP TABLE, is withheld (written commented out, named as a warning); a field
 * renamed with `renamedFrom` is a RENAME COLUMN; a change that would break stored rows is
 * refused. Tables are created before any foreign key is added, so resources may refer to each
 * other in any order.
 */
export function schemaChange(before: SchemaSnapshot | undefined, after: SchemaSnapshot): SchemaChange {
  const statements: string[] = [];
  const constraints: string[] = [];
  const withheld: string[] = [];
  const warnings: string[] = [];
  const refused: Refusal[] = [];
  const named: NamedChange[] = [];
  const words: string[] = [];
  const old = new Map((before?.tables ?? []).map((t) => [t.table, t]));
  for (const table of after.tables) {
    const previous = old.get(table.table);
    const t = q(table.table);
    const { collection } = table;
    if (previous === undefined) {
      statements.push(createTable(table));
      for (const column of table.columns) {
        statements.push(...checkStatement(table.table, column), ...indexStatement(table.table, column));
        constraints.push(...foreignKeyStatement(table.table, column));
      }
      named.push({ collection, text: `adds the resource \`${collection}\`` });
      words.push(`add_${table.table}`);
      continue;
    }
    if (previous.idKind !== table.idKind) refused.push({ rule: "id-type", collection, from: previous.idKind, to: table.idKind });
    const columns = new Map(previous.columns.map((c) => [c.column, c]));
    const kept = new Set<string>();
    for (const column of table.columns) {
      const at = `${collection}.${column.field}`;
      const renamed = !columns.has(column.column) && column.renamedFrom !== undefined ? columns.get(column.renamedFrom) : undefined;
      let was = columns.get(column.column) ?? renamed;
      if (was === undefined) {
        // A status arriving on a table with rows: they get its initial state.
        const fill = column.default ?? column.initial;
        if (column.notNull && fill === undefined) refused.push({ rule: "required-added", collection, field: column.field });
        // Why the default with NOT NULL in one statement: PostgreSQL fills the rows already stored with it.
        statements.push(
          `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS ${columnDefinition({ ...column, ...(fill === undefined ? {} : { default: fill }) })};`,
          ...(column.default === undefined && fill !== undefined ? [`ALTER TABLE ${t} ALTER COLUMN ${q(column.column)} DROP DEFAULT;`] : []),
          ...checkStatement(table.table, column),
          ...indexStatement(table.table, column),
        );
        constraints.push(...foreignKeyStatement(table.table, column));
        named.push({ collection, field: column.field, ...statusOf(column), text: `adds \`${at}\`` });
        words.push(`add_${table.table}_${column.column}`);
        continue;
      }
      kept.add(was.column);
      const c = q(column.column);
      if (renamed !== undefined) {
        statements.push(`ALTER TABLE ${t} RENAME COLUMN ${q(renamed.column)} TO ${c};`);
        // The column's index and constraints follow it, so that later migrations find them by name.
        for (const [suffix, has] of [
          ["check", renamed.check !== undefined],
          ["fkey", renamed.references !== undefined],
        ] as const) {
          if (has)
            statements.push(
              `ALTER TABLE ${t} RENAME CONSTRAINT ${q(objectName(table.table, renamed.column, suffix))} TO ${q(objectName(table.table, column.column, suffix))};`,
            );
        }
        if (renamed.indexed)
          statements.push(
            `ALTER INDEX IF EXISTS ${q(objectName(table.table, renamed.column, "idx"))} RENAME TO ${q(objectName(table.table, column.column, "idx"))};`,
          );
        named.push({ collection, field: column.field, text: `renames \`${collection}.${renamed.field}\` to \`${column.field}\`` });
        words.push(`rename_${table.table}_${column.column}`);
        // The old check's text names the old column, so it differs from the new one's and is written anew.
        was = { ...renamed, column: column.column };
      }
      const typeChanged = was.type !== column.type;
      const lossless = typeChanged ? conversion(was.type, column.type, column.column) : undefined;
      if (typeChanged && lossless === undefined) refused.push({ rule: "lossy-type", collection, field: column.field, from: was.type, to: column.type });
      // A refused change keeps its statement for a table without rows (`serve --db`, docs/migrations.md); no file holds it.
      const using = lossless ?? `${c}::${column.type}`;
      // Why the old check and key go first: they are written for the old type, which a type change would break.
      if (was.check !== undefined && (was.check !== column.check || typeChanged))
        statements.push(`ALTER TABLE ${t} DROP CONSTRAINT IF EXISTS ${q(objectName(table.table, column.column, "check"))};`);
      if (was.references !== undefined && (was.references !== column.references || typeChanged))
        statements.push(`ALTER TABLE ${t} DROP CONSTRAINT IF EXISTS ${q(objectName(table.table, column.column, "fkey"))};`);
      if (was.default !== undefined && (was.default !== column.default || typeChanged)) statements.push(`ALTER TABLE ${t} ALTER COLUMN ${c} DROP DEFAULT;`);
      // Why the index too: its key is the old type's (text's COLLATE "C", which a timestamptz refuses), so it is made anew below.
      if (was.indexed && (typeChanged || !column.indexed)) statements.push(`DROP INDEX IF EXISTS ${q(objectName(table.table, column.column, "idx"))};`);
      if (typeChanged) statements.push(`ALTER TABLE ${t} ALTER COLUMN ${c} TYPE ${column.type} USING ${using};`);
      if (column.default !== undefined && (was.default !== column.default || typeChanged))
        statements.push(`ALTER TABLE ${t} ALTER COLUMN ${c} SET DEFAULT ${column.default};`);
      if (was.notNull && !column.notNull) statements.push(`ALTER TABLE ${t} ALTER COLUMN ${c} DROP NOT NULL;`);
      if (!was.notNull && column.notNull) {
        // Why the default fills the rows stored without the field first: SET NOT NULL refuses them.
        const fill = column.default ?? column.initial;
        if (fill === undefined) refused.push({ rule: "became-required", collection, field: column.field });
        else statements.push(`UPDATE ${t} SET ${c} = ${fill} WHERE ${c} IS NULL;`);
        statements.push(`ALTER TABLE ${t} ALTER COLUMN ${c} SET NOT NULL;`);
      }
      if (column.check !== undefined && (was.check !== column.check || typeChanged)) {
        // Why a guard first: the rows were written under the old values, which may allow more.
        if (was.check === undefined || allowed(was.check) !== allowed(column.check)) statements.push(valuesGuard(table, column));
        statements.push(...checkStatement(table.table, column));
      }
      if (column.references !== undefined && (was.references !== column.references || typeChanged))
        constraints.push(...foreignKeyStatement(table.table, column));
      if ((!was.indexed || typeChanged) && column.indexed) statements.push(...indexStatement(table.table, column));
      const changed =
        typeChanged ||
        was.notNull !== column.notNull ||
        was.check !== column.check ||
        was.indexed !== column.indexed ||
        was.default !== column.default ||
        was.references !== column.references;
      if (changed && renamed === undefined) {
        named.push({ collection, field: column.field, ...statusOf(column), text: `changes \`${at}\`` });
        words.push(`change_${table.table}_${column.column}`);
      }
    }
    for (const column of previous.columns.filter((c) => !kept.has(c.column))) {
      // Why at once: creates no longer give the field, and a NOT NULL column would refuse every one.
      if (column.notNull) statements.push(`ALTER TABLE ${t} ALTER COLUMN ${q(column.column)} DROP NOT NULL;`);
      withheld.push(`ALTER TABLE ${t} DROP COLUMN ${q(column.column)};`);
      warnings.push(`${collection}.${column.field} is no longer declared: dropping its column would lose its data`);
      named.push({ collection, text: `removes \`${collection}.${column.field}\`` });
      words.push(`drop_${table.table}_${column.column}`);
    }
  }
  const declared = new Set(after.tables.map((t) => t.table));
  for (const table of (before?.tables ?? []).filter((t) => !declared.has(t.table))) {
    withheld.push(`DROP TABLE ${q(table.table)};`);
    warnings.push(`${table.collection} is no longer declared: dropping its table would lose its data`);
    // Why named at the first resource: the removed one has no place left in the declaration.
    named.push({ collection: "", text: `removes the resource \`${table.collection}\`` });
    words.push(`drop_${table.table}`);
  }
  const applied = [...statements, ...constraints];
  const summary = before === undefined ? "initial" : words.join("_");
  return { statements: applied, withheld, warnings, refused, named, summary: slug(summary) };
}

/** A file name's words: lower-case letters, digits and `_`, at most 40 characters. */
function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "")
      .slice(0, 40)
      .replace(/_+$/, "") || "change"
  );
}

/** Whether a change has anything to write. */
export function isEmpty(change: SchemaChange): boolean {
  return change.named.length === 0;
}

/** The text of a migration file: applied statements one per line, withheld ones commented out with their reasons. */
export function migrationText(change: SchemaChange): string {
  const lines = ["-- Generated by codegen: a migration of the PostgreSQL tables. Kept across runs; applied once, in order.", ...change.statements];
  if (change.withheld.length > 0) {
    lines.push("", "-- Destructive changes, never applied by codegen: apply them by hand after a backup.");
    for (const warning of change.warnings) lines.push(`-- ${warning.replace(/[\r\n\u2028\u2029]/g, " ")}`);
    for (const statement of change.withheld) lines.push(`-- ${statement.replace(/[\r\n\u2028\u2029]/g, " ")}`);
  }
  return lines.join("\n") + "\n";
}

/**
 * The statements of a migration file: every line that is not a comment or blank, statements
 * ending with `;` at a line's end (codegen writes one per line; a statement written by hand may
 * span lines).
 */
export function statementsOf(sql: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  for (const line of sql.split(/\r?\n/)) {
    if (line.trim() === "" || line.trim().startsWith("--")) continue;
    current.push(line);
    if (line.trimEnd().endsWith(";")) {
      statements.push(current.join("\n"));
      current = [];
    }
  }
  if (current.length > 0) statements.push(current.join("\n"));
  return statements;
}

/**
 * A migration file as it is applied (the generated `migrate()`, `codegen migrate`): named without
 * its folder and `.sql` (`0002_add_loans`), its statements as statementsOf reads them.
 */
export const migrationSpec = (file: string, sql: string): MigrationSpec => ({ name: path.posix.basename(file, ".sql"), statements: statementsOf(sql) });

/** The file names of migrations: `NNNN_words.sql`, numbered from 0001. */
export const MIGRATION_FILE = /^migrations\/([0-9]{4})_[a-z0-9_]+\.sql$/;

/** The name of the migration after `count` others: `name` (the user's, as a file name's words) or the change's own summary. */
export function migrationName(count: number, change: SchemaChange, name?: string): string {
  return `${String(count + 1).padStart(4, "0")}_${name === undefined ? change.summary : slug(name)}.sql`;
}
