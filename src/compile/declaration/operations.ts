/**
 * Reading what a resource says about its operations beyond CRUD defaults: the map form of
 * `operations` (summary, description, errors, and for `list` page, sort and query) and
 * `actions` (declaration.md, "Operations (map form)" and "Actions").
 */
import type { Path } from "./load.js";
import type { Access, Action, DeclaredError, Extensions, Field, Operation, OperationOptions, Page, StatusMachine } from "./model.js";
import { incompatibility } from "./action-fields.js";
import { type Raw, type Report, asString, defined, extensionsOf, readFields, strings } from "./read.js";
import { isObject, objectOf } from "../../model/json.js";
import { OPERATIONS } from "./schema.js";

/** `limit` when a list declares `page` without `size`, and the largest `limit` without `max`. */
const DEFAULT_PAGE_SIZE = 20;
const DEFAULT_PAGE_MAX = 100;

/** Query parameters every list may take (or will take once it pages or sorts): never a `query` name. */
const LIST_PARAMETERS = ["limit", "cursor", "sort", "status"];

/** The operations a resource offers, their options, and the `x-` keys of the `operations` map. */
export interface ReadOperations {
  readonly operations: readonly Operation[];
  readonly options: Readonly<Partial<Record<Operation, OperationOptions>>>;
  /** `x-` keys of the map form, copied onto every operation of the resource. */
  readonly extensions: Extensions;
}

/** Read `operations` in its list form or its map form; absent, every operation with defaults. */
export function readOperations(raw: Raw, path: Path, fields: readonly Field[], report: Report): ReadOperations {
  const at = [...path, "operations"];
  const defaults = (): OperationOptions => ({ errors: [], query: [], extensions: {} });
  if (!("operations" in raw) || Array.isArray(raw.operations)) {
    const seen = new Set<string>();
    if (Array.isArray(raw.operations)) {
      strings(raw.operations).forEach((op, i) => {
        if (seen.has(op)) report("decl/duplicate-operation", { operation: op }, [...at, i]);
        seen.add(op);
      });
    }
    // Canonical order, whatever order they were listed in: the paths read the same way always.
    const operations = OPERATIONS.filter((op) => !("operations" in raw) || seen.has(op));
    return { operations, options: Object.fromEntries(operations.map((op) => [op, defaults()])), extensions: {} };
  }
  const map = objectOf(raw.operations);
  const operations = OPERATIONS.filter((op) => op in map);
  const options: Partial<Record<Operation, OperationOptions>> = {};
  for (const op of operations) options[op] = readOptions(op, objectOf(map[op]), [...at, op], fields, report);
  return { operations, options, extensions: extensionsOf(map) };
}

function readOptions(operation: Operation, raw: Raw, path: Path, fields: readonly Field[], report: Report): OperationOptions {
  for (const key of ["page", "sort", "query"]) {
    if (operation !== "list" && key in raw) report("decl/list-only", { key, operation }, [...path, key], "key");
  }
  return defined({
    summary: asString(raw.summary),
    description: asString(raw.description),
    errors: readErrors(raw.errors),
    page: "page" in raw ? readPage(objectOf(raw.page), [...path, "page"], report) : undefined,
    sort: "sort" in raw ? readSort(raw.sort, [...path, "sort"], fields, report) : undefined,
    query: readQuery(raw.query, [...path, "query"], fields, report),
    extensions: extensionsOf(raw),
  });
}

/** Declared refusals in ascending order of status (the shape check vouches for the statuses). */
function readErrors(raw: unknown): DeclaredError[] {
  return Object.entries(objectOf(raw))
    .filter(([status]) => !status.startsWith("x-"))
    .map(([status, description]) => ({ status, description: asString(description) ?? "" }))
    .sort((a, b) => Number(a.status) - Number(b.status));
}

function readPage(raw: Raw, path: Path, report: Report): Page {
  const size = typeof raw.size === "number" ? raw.size : DEFAULT_PAGE_SIZE;
  // Why: a declared `size` above the default `max` raises the default rather than failing a
  // declaration that never mentioned `max`.
  const max = typeof raw.max === "number" ? raw.max : Math.max(DEFAULT_PAGE_MAX, size);
  if (size > max) report("decl/min-above-max", { min: "size", max: "max" }, [...path, "size"]);
  return { size, max };
}

function readSort(raw: unknown, path: Path, fields: readonly Field[], report: Report): string[] {
  const names = strings(raw);
  const seen = new Set<string>();
  names.forEach((name, i) => {
    if (seen.has(name)) report("decl/duplicate-sort-field", { field: name }, [...path, i]);
    seen.add(name);
    if (name === "id") return;
    const field = fields.find((f) => f.name === name);
    const reason = !field
      ? "this resource declares no such field"
      : field.type === "array" || field.type === "object"
        ? `it is an ${field.type}`
        : field.writeOnly
          ? "it is `writeOnly`, so its order would reveal what responses hide"
          : undefined;
    if (reason) report("decl/bad-sort-field", { field: name, reason }, [...path, i]);
  });
  return [...seen];
}

function readQuery(raw: unknown, path: Path, fields: readonly Field[], report: Report): Field[] {
  const query = readFields(raw, path, report, "query");
  for (const { name } of query) {
    const by = LIST_PARAMETERS.includes(name)
      ? "`limit`, `cursor`, `sort` and `status` are the list's own parameters"
      : fields.some((f) => f.filter && f.name === name)
        ? `the field \`${name}\` has \`filter: true\`, which makes it a query parameter`
        : undefined;
    if (by !== undefined) report("decl/query-name-taken", { name, by }, [...path, name], "key");
  }
  return query;
}

/** What reading actions needs of the resource and of the declaration. */
export interface ActionContext {
  /** The resource's fields: a body field of the same name is stored in it. */
  readonly fields: readonly Field[];
  readonly status: StatusRead | undefined;
  /** Rels the server computes (`self`, and one per `ref` field): no action may take them. */
  readonly reservedRels: readonly string[];
  /** The resource's `write` access: an action's default. */
  readonly writeAccess: Access;
  readonly hasAuth: boolean;
  /** Reads an `access` value (reporting undeclared scopes). */
  readonly parseAccess: (value: unknown, path: Path) => Access | undefined;
  readonly report: Report;
}

/** Read `actions` in declaration order. */
export function readActions(raw: unknown, path: Path, ctx: ActionContext): Action[] {
  const out: Action[] = [];
  for (const [name, value] of Object.entries(objectOf(raw))) {
    if (name.startsWith("x-") || !isObject(value)) continue;
    out.push(readAction(name, value, [...path, name], ctx));
  }
  return out;
}

function readAction(name: string, raw: Raw, path: Path, ctx: ActionContext): Action {
  const { status, report } = ctx;
  if (ctx.reservedRels.includes(name)) report("decl/link-rel-reserved", { rel: name }, path, "key");
  const when = readWhen(raw, path, status, report);
  const to = asString(raw.to);
  if (to !== undefined && !status) report("decl/when-without-status", { key: "to" }, [...path, "to"], "key");
  else if (to !== undefined && status && knownState(to, [...path, "to"], status, report)) {
    // Declaration "Actions": `to` must be a declared transition from every state the action is allowed in.
    const from = (when ?? status.machine.values).filter((state) => status.states.has(state));
    const missing = from.filter((state) => state !== to && !(status.machine.transitions.get(state) ?? []).includes(to));
    if (missing.length > 0) report("decl/action-transition-undeclared", { to, from: missing }, [...path, "to"]);
  }
  if ("access" in raw && !ctx.hasAuth) report("decl/access-without-auth", {}, [...path, "access"], "key");
  const access = "access" in raw ? ctx.parseAccess(raw.access, [...path, "access"]) : undefined;
  const method = raw.method === "PUT" || raw.method === "DELETE" ? raw.method : "POST";
  const body = "body" in raw ? readFields(raw.body, [...path, "body"], report, "body") : undefined;
  const stores: string[] = [];
  for (const field of body ?? []) {
    const target = ctx.fields.find((f) => f.name === field.name);
    if (target === undefined) continue;
    const problem = incompatibility(field, target);
    if (problem === undefined) stores.push(field.name);
    else report("decl/action-field-incompatible", { field: field.name, action: name, problem }, [...path, "body", field.name], "key");
  }
  return defined({
    name,
    method,
    when,
    to,
    body,
    stores: stores.length > 0 ? stores : undefined,
    access: access ?? ctx.writeAccess,
    summary: asString(raw.summary),
    description: asString(raw.description),
    errors: readErrors(raw.errors),
    extensions: extensionsOf(raw),
  });
}

/** A link's or an action's `when`, if declared: states of the resource's status, which it must have. */
export function readWhen(raw: Raw, path: Path, status: StatusRead | undefined, report: Report): string[] | undefined {
  if (!("when" in raw)) return undefined;
  const when = strings(raw.when);
  if (!status) report("decl/when-without-status", { key: "when" }, [...path, "when"], "key");
  else when.forEach((state, i) => knownState(state, [...path, "when", i], status, report));
  return when;
}

/**
 * A resource's status as it is read: its machine, and its states as a Set for every check of a
 * state name (a long list of states checked against as many names stays linear).
 */
export interface StatusRead {
  readonly machine: StatusMachine;
  readonly states: ReadonlySet<string>;
}

/** Whether a state is one the status declares; one it does not is reported, unless it declares none (the shape check's to report). */
export function knownState(state: string, at: Path, status: StatusRead, report: Report, part: "value" | "key" = "value"): boolean {
  const known = status.states.has(state);
  if (!known && status.machine.values.length > 0) report("decl/unknown-state", { state, known: status.machine.values }, at, part);
  return known;
}
