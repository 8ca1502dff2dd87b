/**
 * The PostgreSQL tables of an API: one table per resource of the document's
 * `x-codegen-resource` schemas, as a snapshot that migrations compare (src/emit/postgres/migrations.ts)
 * and the generated store reads (its column table). Pure: the document in, plain data out.
 */
import { instantText } from "#runtime/instants.gen.js";
import { MIGRATIONS_TABLE } from "#runtime/migrate.gen.js";
import {
  type ColumnKind,
  type ColumnSnapshot,
  ID_TYPES,
  MAX_IDENTIFIER,
  type SchemaSnapshot,
  type TableSnapshot,
  hashedIdentifier,
  identifier,
  isStorable,
  quoteIdentifier,
} from "../model/tables.js";
import { unescapeToken } from "./pointer.js";
import { type Json, listOf, objectOf as asJson } from "../model/json.js";
import { stringsOf } from "./api/document.js";

/**
 * A SQL string literal, or undefined when PostgreSQL cannot hold it (NUL). Why the escape form for
 * control characters: a migration holds one statement per line (src/emit/postgres/migrations.ts
 * statementsOf), so no literal may span lines; `E'...'` writes them as escapes.
 */
function sqlString(text: string): string | undefined {
  if (text.includes("\u0000")) return undefined;
  if (!/[\u0001-\u001f\u007f\u2028\u2029\\]/.test(text)) return `'${text.replace(/'/g, "''")}'`;
  const escaped = text.replace(/[\u0001-\u001f\u007f\u2028\u2029\\']/g, (c) =>
    c === "'" ? "\\'" : c === "\\" ? "\\\\" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return `E'${escaped}'`;
}

/** A JSON value as a SQL literal of a column of this kind, or undefined when it cannot be one. */
function sqlValue(value: unknown, kind: ColumnKind): string | undefined {
  if (kind === "json" || kind === "jsonb") {
    const text = sqlString(JSON.stringify(value));
    return text && `${text}::jsonb`;
  }
  if (kind === "instant" && typeof value === "string") {
    // The stores' own form (runtime/instants.gen.ts), so a default reads back as a written value does.
    const instant = instantText(value);
    return instant && sqlString(instant);
  }
  if (typeof value === "string") return sqlString(value);
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  return undefined;
}

/**
 * What a migrations folder holds of earlier tables: its last snapshot (each field keeps the
 * column recorded there) and the SQL of its migrations (no column they ever created is given to
 * another field: a column of a field no longer declared stays in the database, since dropping it
 * is withheld, and `ADD COLUMN IF NOT EXISTS` would quietly share it).
 */
export interface TableHistory {
  readonly snapshot?: SchemaSnapshot | undefined;
  readonly migrations?: readonly string[];
}

/**
 * The tables of a verified document's resources, in the document's order, after the folder's
 * `history`. Table and column names are unique by construction (see `uniqueIdentifiers`).
 */
export function tablesOf(document: unknown, history: TableHistory = {}): SchemaSnapshot {
  const schemas = asJson(asJson(asJson(document).components).schemas);
  const resources = Object.entries(schemas).filter(([, s]) => asJson(s)["x-codegen-resource"] !== undefined);
  const collections = resources.map(([, s]) => String(asJson(asJson(s)["x-codegen-resource"]).collection));
  const recorded = listOf(history.snapshot?.tables).map(asJson);
  // Why only beside a snapshot: without one there is no field -> column to keep, so a column of
  // the migrations is taken to be the field's own (postgresFiles then writes no migration).
  const created = history.snapshot === undefined ? new Map<string, Set<string>>() : createdIdentifiers(history.migrations ?? []);
  const tableOf = uniqueIdentifiers(
    collections,
    recordedNames(recorded, "collection", "table"),
    new Set([MIGRATIONS_TABLE, ...created.keys(), ...recorded.map((t) => t.table).filter(isRecordable)]),
  );
  const recordedColumns = new Map<unknown, Json[]>();
  for (const t of recorded) recordedColumns.set(t.table, [...(recordedColumns.get(t.table) ?? []), ...listOf(t.columns).map(asJson)]);
  const idKindOf = new Map(resources.map(([, s], i) => [collections[i]!, idKind(asJson(s))] as const));
  const indexed = indexedFields(asJson(asJson(document).paths));
  return {
    codegen: 1,
    tables: resources.map(([, raw], i) => {
      const schema = asJson(raw);
      const ext = asJson(schema["x-codegen-resource"]);
      const collection = collections[i]!;
      const table = tableOf.get(collection)!;
      const required = new Set(listOf(schema.required).map(String));
      const lists = indexed.get(collection) ?? new Set<string>();
      const filters = new Set(filterFields(schema));
      const properties = Object.entries(asJson(schema.properties)).filter(([field]) => field !== "id" && field !== "links");
      const before = recordedColumns.get(table) ?? [];
      const columnNames = uniqueIdentifiers(
        properties.map(([field]) => field),
        recordedNames(before, "field", "column"),
        new Set(["id", ...(created.get(table) ?? []), ...before.map((c) => c.column).filter(isRecordable)]),
      );
      const columns = properties.map(([field, property]) => {
        const column = columnOf(field, columnNames.get(field)!, asJson(property), schemas, {
          required: required.has(field) || (field === "status" && ext.status !== undefined),
          indexed: filters.has(field) || lists.has(field),
          idKindOf,
          tableOf,
        });
        const renamedFrom = renamedColumn(field, asJson(property)["x-codegen-renamed-from"], before, properties);
        const initial = field === "status" && typeof asJson(ext.status).initial === "string" ? sqlValue(asJson(ext.status).initial, column.kind) : undefined;
        return { ...column, ...(renamedFrom === undefined ? {} : { renamedFrom }), ...(initial === undefined ? {} : { initial }) };
      });
      return { collection, table, idKind: idKind(schema), columns };
    }),
  };
}

/**
 * The recorded column of the field `from` that `field` (declaring `renamedFrom: from`) takes over,
 * or undefined when there is nothing to rename: the recorded tables already have `field`, lack
 * `from`, or `from` is still declared.
 */
function renamedColumn(field: string, from: unknown, recorded: readonly Json[], properties: readonly (readonly [string, unknown])[]): string | undefined {
  if (typeof from !== "string" || recorded.some((c) => c.field === field) || properties.some(([name]) => name === from)) return undefined;
  const column = recorded.find((c) => c.field === from)?.column;
  return isRecordable(column) ? column : undefined;
}

/** Whether a recorded value can be an identifier as it is (a hand-edited snapshot may hold anything). */
const isRecordable = (value: unknown): value is string =>
  typeof value === "string" && value !== "" && Buffer.byteLength(value, "utf8") <= MAX_IDENTIFIER && isStorable(value);

/** A snapshot's recorded name -> identifier pairs (collection -> table, field -> column), the first of each name. */
function recordedNames(entries: readonly Json[], name: "collection" | "field", value: "table" | "column"): Map<string, string> {
  const names = new Map<string, string>();
  for (const entry of entries) {
    const key = entry[name];
    if (typeof key === "string" && isRecordable(entry[value]) && !names.has(key)) names.set(key, entry[value]);
  }
  return names;
}

/**
 * An identifier for each name, no two alike, none of them `taken` unless recorded for it. A name
 * keeps the identifier `recorded` for it (so a table's columns stay where the data is), unless an
 * earlier name already has it; any other name gets `identifier(name)`, or when that is taken (by
 * the history, or another name: a crafted name equal to another's cut-and-hash form, two hashes
 * alike) the cut-and-hash form of a later attempt, until one is free.
 */
function uniqueIdentifiers(names: readonly string[], recorded: ReadonlyMap<string, string>, taken: ReadonlySet<string>): Map<string, string> {
  const given = new Map<string, string>();
  const used = new Set<string>();
  for (const name of names) {
    const kept = recorded.get(name);
    if (kept !== undefined && !used.has(kept) && !given.has(name)) {
      given.set(name, kept);
      used.add(kept);
    }
  }
  for (const name of names) {
    if (given.has(name)) continue;
    let candidate = identifier(name);
    for (let attempt = 1; used.has(candidate) || taken.has(candidate); attempt++) candidate = hashedIdentifier(name, attempt);
    given.set(name, candidate);
    used.add(candidate);
  }
  return given;
}

/**
 * The tables and columns the migrations create, by table: what `CREATE TABLE "t" ("c" ...)` and
 * `ALTER TABLE "t" ADD [COLUMN] [IF NOT EXISTS] "c" ...` name (as codegen writes them; a bare
 * name is PostgreSQL's lower-cased one). One scan of each text, string literals and comments
 * skipped; the rest of the SQL is not understood, only passed over.
 */
function createdIdentifiers(migrations: readonly string[]): Map<string, Set<string>> {
  const created = new Map<string, Set<string>>();
  const add = (table: string, column?: string) => {
    let columns = created.get(table);
    if (columns === undefined) created.set(table, (columns = new Set()));
    if (column !== undefined) columns.add(column);
  };
  for (const sql of migrations) {
    const tokens = sqlTokens(sql);
    const word = (i: number, w: string) => tokens[i]?.kind === "word" && tokens[i]!.text === w;
    const name = (i: number) => (tokens[i]?.kind === "name" || tokens[i]?.kind === "word" ? tokens[i]!.text : undefined);
    const mark = (i: number, c: string) => tokens[i]?.kind === "other" && tokens[i]!.text === c;
    const definition = (table: string, j: number) => {
      const column = name(j);
      if (column !== undefined && !(tokens[j]!.kind === "word" && TABLE_CONSTRAINTS.has(column))) add(table, column);
    };
    for (let i = 0; i < tokens.length; i++) {
      if (word(i, "create") && word(i + 1, "table")) {
        let at = i + 2;
        if (word(at, "if") && word(at + 1, "not") && word(at + 2, "exists")) at += 3;
        const table = name(at);
        if (table === undefined || !mark(at + 1, "(")) continue;
        add(table);
        // Each definition starts after the `(` or a `,` at the outer depth.
        for (let j = at + 1, depth = 0; j < tokens.length; j++) {
          if (mark(j, "(") && ++depth === 1) definition(table, j + 1);
          else if (mark(j, ")") && --depth === 0) break;
          else if (mark(j, ",") && depth === 1) definition(table, j + 1);
        }
      } else if (word(i, "alter") && word(i + 1, "table")) {
        let at = i + 2;
        if (word(at, "if") && word(at + 1, "exists")) at += 2;
        if (word(at, "only")) at++;
        const table = name(at);
        if (table === undefined) continue;
        // Why a loop: one ALTER TABLE may add several columns, `ADD ..., ADD ...`.
        for (let j = at + 1; j < tokens.length && !mark(j, ";"); j++) {
          if (!word(j, "add") || !(j === at + 1 || mark(j - 1, ","))) continue;
          let c = j + 1;
          if (word(c, "column")) c++;
          if (word(c, "if") && word(c + 1, "not") && word(c + 2, "exists")) c += 3;
          definition(table, c);
        }
      }
    }
  }
  return created;
}

/** The keywords a table constraint starts with (never a column of CREATE TABLE or ADD). */
const TABLE_CONSTRAINTS: ReadonlySet<string> = new Set(["constraint", "primary", "unique", "check", "foreign", "exclude", "like"]);

/** A token of SQL: a quoted name (its text unquoted), a bare word (lower-cased, as PostgreSQL folds it), or one other character. */
type SqlToken = { readonly kind: "name" | "word" | "other"; readonly text: string };

/** The tokens of SQL text, in one pass; string literals (`'...'`, `E'...'`) and comments are left out. */
function sqlTokens(sql: string): SqlToken[] {
  const tokens: SqlToken[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end + 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === '"') {
      let text = "";
      let j = i + 1;
      for (;;) {
        const end = sql.indexOf('"', j);
        if (end < 0) return tokens;
        text += sql.slice(j, end);
        if (sql[end + 1] !== '"') {
          i = end + 1;
          break;
        }
        text += '"';
        j = end + 2;
      }
      tokens.push({ kind: "name", text });
    } else if (c === "'" || ((c === "E" || c === "e") && sql[i + 1] === "'")) {
      const escapes = c !== "'";
      let j = escapes ? i + 2 : i + 1;
      while (j < sql.length && !(sql[j] === "'" && sql[j + 1] !== "'")) j += (escapes && sql[j] === "\\") || sql[j] === "'" ? 2 : 1;
      i = j + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < sql.length && /[A-Za-z0-9_$]/.test(sql[j]!)) j++;
      tokens.push({ kind: "word", text: sql.slice(i, j).toLowerCase() });
      i = j;
    } else {
      if (!/\s/.test(c)) tokens.push({ kind: "other", text: c });
      i++;
    }
  }
  return tokens;
}

/** The kind of a resource's ids (`x-codegen-resource` `id`): its table's, its ResourceSpec's and its handlers' id type's. */
export function idKind(schema: Json): TableSnapshot["idKind"] {
  const id = asJson(schema["x-codegen-resource"]).id;
  return id === "uuid" || id === "string" ? id : "integer";
}

/** The fields a resource may be filtered on (`x-codegen-filter`, and `status` with a state machine): each column has an index. */
export function filterFields(schema: Json): string[] {
  const filters = Object.entries(asJson(schema.properties))
    .filter(([, p]) => asJson(p)["x-codegen-filter"] === true)
    .map(([k]) => k);
  return asJson(schema["x-codegen-resource"]).status !== undefined && !filters.includes("status") ? [...filters, "status"] : filters;
}

/** The fields each collection's lists sort on (`x-codegen-sort`), by collection. */
function indexedFields(paths: Json): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const [path, item] of Object.entries(paths)) {
    for (const operation of Object.values(asJson(item))) {
      const sort = stringsOf(asJson(operation)["x-codegen-sort"]);
      if (sort.length === 0) continue;
      const collection = path.split("/")[1] ?? "";
      found.set(collection, new Set([...(found.get(collection) ?? []), ...sort]));
    }
  }
  return found;
}

/** The kind of an id of each kind. */
const ID_KINDS = { integer: "integer", uuid: "text", string: "text" } as const;

function columnOf(
  field: string,
  column: string,
  property: Json,
  schemas: Json,
  context: {
    required: boolean;
    indexed: boolean;
    idKindOf: ReadonlyMap<string, TableSnapshot["idKind"]>;
    tableOf: ReadonlyMap<string, string>;
  },
): ColumnSnapshot {
  const target = property["x-codegen-ref"];
  // Why: a foreign key needs the type of the id it refers to.
  const references = typeof target === "string" && context.idKindOf.has(target) ? target : undefined;
  const schema = resolved(property, schemas);
  const types = typeof schema.type === "string" ? [schema.type] : listOf(schema.type).map(String);
  const admitsNull = types.includes("null") || (schema.enum !== undefined && listOf(schema.enum).includes(null));
  const kinds = types.filter((t) => t !== "null");
  // Why: a column whose value may be JSON `null` keeps it as jsonb `null`, apart from SQL NULL
  // (the field is absent), so what was stored is what comes back; so do unions and composites.
  const scalar = !admitsNull && kinds.length === 1 && schema.anyOf === undefined && schema.oneOf === undefined ? kinds[0] : undefined;
  const { kind, type } = references
    ? { kind: ID_KINDS[context.idKindOf.get(references)!], type: ID_TYPES[context.idKindOf.get(references)!] }
    : scalar === "string"
      ? // Why timestamptz for a date-time without an enum: its lists sort and filter by instant, whatever offsets clients send.
        schema.format === "date-time" && schema.enum === undefined
        ? { kind: "instant" as const, type: "timestamptz" }
        : { kind: "text" as const, type: "text" }
      : scalar === "integer"
        ? { kind: "integer" as const, type: bounded(schema) ? "bigint" : "numeric" }
        : scalar === "number"
          ? { kind: "number" as const, type: "double precision" }
          : scalar === "boolean"
            ? { kind: "boolean" as const, type: "boolean" }
            : { kind: holdsNull(property, schemas) ? ("json" as const) : ("jsonb" as const), type: "jsonb" };
  const values = listOf(schema.enum).map((v) => sqlValue(v, kind));
  const quoted = quoteIdentifier(column);
  const check = values.length > 0 && type !== "jsonb" && values.every((v) => v !== undefined) ? `${quoted} IN (${values.join(", ")})` : undefined;
  const defaultValue = property.default !== undefined ? sqlValue(property.default, kind) : undefined;
  return {
    field,
    column,
    kind,
    type,
    notNull: context.required && !admitsNull,
    ...(defaultValue !== undefined ? { default: defaultValue } : {}),
    ...(check !== undefined ? { check } : {}),
    ...(references !== undefined ? { references: context.tableOf.get(references)! } : {}),
    indexed: context.indexed,
  };
}

/** How deep `holdsNull` follows `$ref`s and unions before it answers yes (a schema too deep to be sure of). */
const NULL_DEPTH = 8;

/**
 * Whether a property may hold JSON `null`, conservatively: yes unless every value it admits is
 * typed and none is `null`. Why it matters: a jsonb column whose values are never `null` is read
 * plainly (the driver parses it; SQL NULL is an absent field), saving PostgreSQL the `::text`
 * of every row read; one that may hold `null` must keep it apart from SQL NULL. Why
 * conservative: a wrong "no" reads a stored `null` back as an absent field; a wrong "yes" costs
 * only a little CPU. So an untyped schema (`{}`, only `allOf`), a `$ref` that leads nowhere, a
 * `null` type, enum, const or default, OpenAPI 3.0's `nullable`, and a union with any such
 * member all answer yes, even where `type` beside the union would refuse `null`.
 * `known` holds each schema's answer, so a schema reached by many paths is looked at once (without
 * it, eight levels of ten-member unions of `$ref`s took seconds, and a few more took minutes); a
 * schema met again while its own answer is pending (a cycle) answers yes.
 */
function holdsNull(property: Json, schemas: Json, depth = 0, known = new Map<Json, boolean>()): boolean {
  if (depth > NULL_DEPTH) return true;
  const schema = resolved(property, schemas);
  if (typeof property.$ref === "string" && (schema === property || Object.keys(schema).length === 0)) return true;
  if (property.default === null) return true;
  const answer = known.get(schema);
  if (answer !== undefined) return answer;
  known.set(schema, true);
  const members = [...listOf(schema.anyOf), ...listOf(schema.oneOf)];
  const types = typeof schema.type === "string" ? [schema.type] : listOf(schema.type);
  const holds =
    schema.default === null ||
    schema.const === null ||
    schema.nullable === true ||
    listOf(schema.enum).includes(null) ||
    types.some((t) => t === "null") ||
    members.some((member) => holdsNull(asJson(member), schemas, depth + 1, known)) ||
    (types.length === 0 && members.length === 0);
  known.set(schema, holds);
  return holds;
}

/**
 * The fields of a resource's properties that are `date-time`s (through a `$ref` too, as columnOf
 * reads them): each store keeps them as instants (runtime/instants.gen.ts, ResourceSpec.instants).
 */
export function instantFields(properties: Json, schemas: Json): string[] {
  return Object.entries(properties)
    .filter(([field, property]) => field !== "id" && field !== "links" && resolved(asJson(property), schemas).format === "date-time")
    .map(([field]) => field);
}

/** A property with its `$ref` (to a named schema) followed, once. */
function resolved(property: Json, schemas: Json): Json {
  const ref = property.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/components/schemas/")) return property;
  return asJson(schemas[unescapeToken(decodeURIComponent(ref.slice("#/components/schemas/".length)))]);
}

/** Whether an integer schema's bounds keep it within a bigint (and JavaScript's safe integers). */
function bounded(schema: Json): boolean {
  const within = (v: unknown) => typeof v === "number" && Math.abs(v) <= Number.MAX_SAFE_INTEGER;
  return within(schema.minimum ?? schema.exclusiveMinimum) && within(schema.maximum ?? schema.exclusiveMaximum);
}
