/**
 * The PostgreSQL tables of an API (issue 15): one table per resource of the document's
 * `x-codegen-resource` schemas, as a snapshot that migrations compare (src/postgres/migrations.ts)
 * and the generated store reads (its column table). Pure: the document in, plain data out.
 */
import { createHash } from "node:crypto";
import { quoteIdentifier as quote } from "#runtime/migrate.gen.js";

type Json = { readonly [key: string]: unknown };
const asJson = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {});
const asArray = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);

/**
 * How the store converts a column's value: what PostgreSQL type holds it. Both `json` and
 * `jsonb` are jsonb columns; a `json` one may hold JSON `null` (read as its text, so `null` stays
 * apart from SQL NULL), a `jsonb` one never does (read as the driver parses it).
 */
export type ColumnKind = "text" | "integer" | "number" | "boolean" | "json" | "jsonb";

/** A column of a resource's table (every name already a PostgreSQL identifier of at most 63 bytes). */
export interface ColumnSnapshot {
  readonly field: string;
  readonly column: string;
  readonly kind: ColumnKind;
  /** The SQL type: `text`, `bigint`, `numeric`, `double precision`, `boolean`, `jsonb`, `uuid`. */
  readonly type: string;
  readonly notNull: boolean;
  /** A SQL literal, from the field's `default`. */
  readonly default?: string;
  /** A CHECK expression (enums and status values). */
  readonly check?: string;
  /** The table a `ref` field refers to (its `id`). */
  readonly references?: string;
  /** Whether lists filter or sort on it: it has an index. */
  readonly indexed: boolean;
}

/** A resource's table. */
export interface TableSnapshot {
  readonly collection: string;
  readonly table: string;
  readonly idKind: "integer" | "uuid" | "string";
  readonly columns: readonly ColumnSnapshot[];
}

/** Every table of an API: what `migrations/schema.json` keeps between runs. */
export interface SchemaSnapshot {
  readonly codegen: 1;
  readonly tables: readonly TableSnapshot[];
}

/** PostgreSQL's longest identifier, in bytes (longer ones are silently cut: two names could meet). */
const MAX_IDENTIFIER = 63;

/**
 * The one gate of every name that becomes a PostgreSQL identifier (tables, columns, constraints,
 * indexes): the name itself when it fits in 63 bytes and holds no NUL, else a cut prefix and a
 * hash of the whole name, so two long names never become one. Quoting is `quoteIdentifier`'s.
 */
export function identifier(name: string): string {
  if (Buffer.byteLength(name, "utf8") <= MAX_IDENTIFIER && !name.includes("\u0000")) return name;
  const hash = createHash("sha256").update(name, "utf8").digest("hex").slice(0, 12);
  let prefix = name.replace(/\u0000/g, "");
  while (Buffer.byteLength(prefix, "utf8") > MAX_IDENTIFIER - hash.length - 1) prefix = [...prefix].slice(0, -1).join("");
  return `${prefix}_${hash}`;
}

/** A quoted identifier: the name through `identifier`, then the generated code's own quoting (runtime/migrate.gen.ts). */
export function quoteIdentifier(name: string): string {
  return quote(identifier(name));
}

/**
 * A SQL string literal, or undefined when PostgreSQL cannot hold it (NUL). Why the escape form for
 * control characters: a migration holds one statement per line (src/postgres/migrations.ts
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
  if (typeof value === "string") return sqlString(value);
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  return undefined;
}

/** The tables of a verified document's resources, in the document's order. */
export function tablesOf(document: unknown): SchemaSnapshot {
  const schemas = asJson(asJson(asJson(document).components).schemas);
  const resources = Object.entries(schemas).filter(([, s]) => asJson(s)["x-codegen-resource"] !== undefined);
  const idKindOf = new Map(resources.map(([, s]) => [String(asJson(asJson(s)["x-codegen-resource"]).collection), idKind(asJson(s))] as const));
  const indexed = indexedFields(asJson(asJson(document).paths));
  return {
    codegen: 1,
    tables: resources.map(([, raw]) => {
      const schema = asJson(raw);
      const ext = asJson(schema["x-codegen-resource"]);
      const collection = String(ext.collection);
      const required = new Set(asArray(schema.required).map(String));
      const lists = indexed.get(collection) ?? new Set<string>();
      const filters = new Set(
        Object.entries(asJson(schema.properties))
          .filter(([, p]) => asJson(p)["x-codegen-filter"] === true)
          .map(([k]) => k),
      );
      const columns = Object.entries(asJson(schema.properties))
        .filter(([field]) => field !== "id" && field !== "links")
        .map(([field, property]) =>
          columnOf(field, asJson(property), schemas, {
            required: required.has(field) || (field === "status" && ext.status !== undefined),
            indexed: filters.has(field) || lists.has(field) || (field === "status" && ext.status !== undefined),
            table: identifier(collection),
            idKindOf,
          }),
        );
      return { collection, table: identifier(collection), idKind: idKind(schema), columns };
    }),
  };
}

function idKind(schema: Json): TableSnapshot["idKind"] {
  const id = asJson(schema["x-codegen-resource"]).id;
  return id === "uuid" || id === "string" ? id : "integer";
}

/** The fields each collection's lists sort on (`x-codegen-sort`), by collection. */
function indexedFields(paths: Json): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const [path, item] of Object.entries(paths)) {
    for (const operation of Object.values(asJson(item))) {
      const sort = asArray(asJson(operation)["x-codegen-sort"]).filter((f): f is string => typeof f === "string");
      if (sort.length === 0) continue;
      const collection = path.split("/")[1] ?? "";
      found.set(collection, new Set([...(found.get(collection) ?? []), ...sort]));
    }
  }
  return found;
}

/**
 * The SQL type of an id of each kind. Why text for uuids: PostgreSQL's uuid type compares
 * without case, and the API compares ids as stored (an upper-case uuid names no object).
 */
export const ID_TYPES = { integer: "bigint", uuid: "text", string: "text" } as const;
/** The kind of an id of each kind. */
const ID_KINDS = { integer: "integer", uuid: "text", string: "text" } as const;

function columnOf(
  field: string,
  property: Json,
  schemas: Json,
  context: { required: boolean; indexed: boolean; table: string; idKindOf: ReadonlyMap<string, TableSnapshot["idKind"]> },
): ColumnSnapshot {
  const column = identifier(field);
  const target = property["x-codegen-ref"];
  // Why: a foreign key needs the type of the id it refers to.
  const references = typeof target === "string" && context.idKindOf.has(target) ? target : undefined;
  const schema = resolved(property, schemas);
  const types = typeof schema.type === "string" ? [schema.type] : asArray(schema.type).map(String);
  const admitsNull = types.includes("null") || (schema.enum !== undefined && asArray(schema.enum).includes(null));
  const kinds = types.filter((t) => t !== "null");
  // Why: a column whose value may be JSON `null` keeps it as jsonb `null`, apart from SQL NULL
  // (the field is absent), so what was stored is what comes back; so do unions and composites.
  const scalar = !admitsNull && kinds.length === 1 && schema.anyOf === undefined && schema.oneOf === undefined ? kinds[0] : undefined;
  const { kind, type } = references
    ? { kind: ID_KINDS[context.idKindOf.get(references)!], type: ID_TYPES[context.idKindOf.get(references)!] }
    : scalar === "string"
      ? { kind: "text" as const, type: "text" }
      : scalar === "integer"
        ? { kind: "integer" as const, type: bounded(schema) ? "bigint" : "numeric" }
        : scalar === "number"
          ? { kind: "number" as const, type: "double precision" }
          : scalar === "boolean"
            ? { kind: "boolean" as const, type: "boolean" }
            : { kind: holdsNull(property, schemas) ? ("json" as const) : ("jsonb" as const), type: "jsonb" };
  const values = asArray(schema.enum).map((v) => sqlValue(v, kind));
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
    ...(references !== undefined ? { references: identifier(references) } : {}),
    indexed: context.indexed,
  };
}

/** How deep `holdsNull` follows `$ref`s and unions before it answers yes (a schema too deep to be sure of). */
const NULL_DEPTH = 8;

/**
 * Whether a property may hold JSON `null`, conservatively: yes unless every value it admits is
 * typed and none is `null`. Why it matters: a jsonb column whose values are never `null` is read
 * plainly (the driver parses it; SQL NULL is an absent field), saving PostgreSQL the `::text`
 * of every row read (issue 15); one that may hold `null` must keep it apart from SQL NULL. Why
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
  const members = [...asArray(schema.anyOf), ...asArray(schema.oneOf)];
  const types = typeof schema.type === "string" ? [schema.type] : asArray(schema.type);
  const holds =
    schema.default === null ||
    schema.const === null ||
    schema.nullable === true ||
    asArray(schema.enum).includes(null) ||
    types.some((t) => t === "null") ||
    members.some((member) => holdsNull(asJson(member), schemas, depth + 1, known)) ||
    (types.length === 0 && members.length === 0);
  known.set(schema, holds);
  return holds;
}

/** A property with its `$ref` (to a named schema) followed, once. */
function resolved(property: Json, schemas: Json): Json {
  const ref = property.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/components/schemas/")) return property;
  return asJson(schemas[decodeURIComponent(ref.slice("#/components/schemas/".length)).replace(/~1/g, "/").replace(/~0/g, "~")]);
}

/** Whether an integer schema's bounds keep it within a bigint (and JavaScript's safe integers). */
function bounded(schema: Json): boolean {
  const within = (v: unknown) => typeof v === "number" && Math.abs(v) <= Number.MAX_SAFE_INTEGER;
  return within(schema.minimum ?? schema.exclusiveMinimum) && within(schema.maximum ?? schema.exclusiveMaximum);
}
