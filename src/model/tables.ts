/**
 * The PostgreSQL tables as the ApiModel holds them (one per resource, built by
 * src/compile/tables.ts), and the one gate of every name that becomes a PostgreSQL identifier:
 * shared by the compile stage, which names tables and columns, and the emitters, which name
 * constraints and indexes and write the migrations' SQL (src/emit/postgres/migrations.ts).
 */
import { createHash } from "node:crypto";
import type { TableSpec } from "#runtime/postgres.gen.js";

/**
 * How the store converts a column's value: the runtime's own kinds (runtime/postgres.gen.ts), an
 * `instant` a `date-time` field in a timestamptz column (docs/migrations.md, "Dates and times").
 */
export type { ColumnKind } from "#runtime/postgres.gen.js";

/**
 * A column of a resource's table (every name already a PostgreSQL identifier of at most 63
 * bytes): the store's (TableSpec's field, column and kind), and what the migrations read.
 */
export interface ColumnSnapshot extends ColumnSpec {
  /** The SQL type: `text`, `bigint`, `numeric`, `double precision`, `boolean`, `jsonb`, `timestamptz`. */
  readonly type: string;
  readonly notNull: boolean;
  /** A SQL literal, from the field's `default`. */
  readonly default?: string;
  /**
   * A SQL literal: a status's initial state, which rows already stored get when the status
   * column arrives (or becomes required) without a `default`. Never the column's default: a
   * create always gives the status.
   */
  readonly initial?: string;
  /** A CHECK expression (enums and status values). */
  readonly check?: string;
  /** The table a `ref` field refers to (its `id`). */
  readonly references?: string;
  /** Whether lists filter or sort on it: it has an index. */
  readonly indexed: boolean;
  /**
   * The column this field's data stands in until the next migration renames it: the column of
   * the field its `renamedFrom` names, when the recorded tables have that field and not this one.
   */
  readonly renamedFrom?: string;
}

type ColumnSpec = TableSpec["columns"][number];

/** A resource's table: the store's TableSpec, its resource's collection and its columns' snapshots. */
export interface TableSnapshot extends TableSpec {
  readonly collection: string;
  readonly columns: readonly ColumnSnapshot[];
}

/** Every table of an API: what `migrations/schema.json` keeps between runs. */
export interface SchemaSnapshot {
  readonly codegen: 1;
  readonly tables: readonly TableSnapshot[];
}

/** PostgreSQL's longest identifier, in bytes (longer ones are silently cut: two names could meet). */
export const MAX_IDENTIFIER = 63;

/** The shape of a cut-and-hash identifier: `_` and twelve hex digits at its end. */
const HASHED = /_[0-9a-f]{12}$/;
/** A lone surrogate: UTF-8 cannot hold one (Node writes U+FFFD in its place). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * The one gate of every name that becomes a PostgreSQL identifier (tables, columns, constraints,
 * indexes): the name itself when PostgreSQL holds it as it is (at most 63 bytes, no NUL, no lone
 * surrogate) and it does not look like a cut-and-hash form, else a cut prefix and a hash of the
 * whole name. So a name kept as it is never equals another's cut-and-hash form, and two names
 * meet only where their hashes do (tablesOf's columns make even that impossible). Linear in the
 * name: the hash reads it once and the prefix stops at 50 bytes. Quoting is `quoteIdentifier`'s.
 */
export function identifier(name: string): string {
  return isKeptAsItIs(name) ? name : hashedIdentifier(name, 0);
}

function isKeptAsItIs(name: string): boolean {
  // Why the length first: a name of more than 63 UTF-16 code units has more than 63 UTF-8 bytes.
  return name.length <= MAX_IDENTIFIER && Buffer.byteLength(name, "utf8") <= MAX_IDENTIFIER && isStorable(name) && !HASHED.test(name);
}

/** Whether PostgreSQL stores the text as it is: no NUL and no lone surrogate. */
export const isStorable = (text: string): boolean => !text.includes("\u0000") && !LONE_SURROGATE.test(text);

/**
 * The cut-and-hash form of a name: its first code points (at most 50 bytes, NULs left out, a
 * lone surrogate written U+FFFD), `_` and 12 hex digits of a SHA-256. Why the hash reads a name
 * with a lone surrogate as UTF-16 behind a byte 0xFF: as UTF-8 every lone surrogate is U+FFFD,
 * so names that differ only there would hash alike; no UTF-8 text holds 0xFF (nor 0xFE, which
 * starts the input of a later `attempt`, tablesOf's answer to a column already taken).
 */
export function hashedIdentifier(name: string, attempt: number): string {
  const hash = createHash("sha256");
  if (attempt > 0) hash.update(Buffer.from([0xfe])).update(`${attempt}:`);
  if (LONE_SURROGATE.test(name)) hash.update(Buffer.from([0xff])).update(Buffer.from(name, "utf16le"));
  else hash.update(name, "utf8");
  const digest = hash.digest("hex").slice(0, 12);
  let prefix = "";
  let bytes = 0;
  for (const char of name) {
    if (char === "\u0000") continue;
    const kept = char.length === 1 && char >= "\uD800" && char <= "\uDFFF" ? "\uFFFD" : char;
    const size = Buffer.byteLength(kept, "utf8");
    if (bytes + size > MAX_IDENTIFIER - digest.length - 1) break;
    prefix += kept;
    bytes += size;
  }
  return `${prefix}_${digest}`;
}

/**
 * An identifier `identifier` or tablesOf made, quoted as the generated code quotes it: the
 * runtime's own function (runtime/migrate.gen.ts). Why not through `identifier` again: a
 * cut-and-hash form is never kept as it is, so a second pass would hash it anew.
 */
export { quoteIdentifier } from "#runtime/migrate.gen.js";

/**
 * The SQL type of an id of each kind. Why text for uuids: PostgreSQL's uuid type compares
 * without case, and the API compares ids as stored (an upper-case uuid names no object).
 */
export const ID_TYPES = { integer: "bigint", uuid: "text", string: "text" } as const;
