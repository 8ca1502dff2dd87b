import { type Diagnostic, type DiagnosticArgs, type DiagnosticCode, diagnostic } from "../diagnostics/index.js";
import type { LoadedDocument, Path } from "./load.js";
import type {
  Access,
  Declaration,
  EnumValue,
  Extensions,
  Field,
  FieldType,
  Guard,
  LinkRule,
  Operation,
  Resource,
  Server,
  StatusMachine,
  StringFormat,
} from "./model.js";
import { guardScopes } from "./model.js";
import { inflectCollection, pascalCase } from "./names.js";
import { ACCESS_KEYS, OPERATIONS, RESOURCE_NAME, declarationDefs, declarationShape } from "./schema.js";
import { checkShape } from "./shape.js";
import { checkValue } from "./values.js";
import { type PatternOptions, patternProblem } from "../verify/patterns.js";

/** The schema names codegen emits itself; a resource may not take them. */
export const OWN_SCHEMA_NAMES = ["Error", "AuthError", "Link", "Index", "TokenRequest", "TokenResponse"] as const;

/** Default security scheme name per guard kind (seed: "the guard's own kind name"). */
const DEFAULT_GUARD_NAMES = {
  password: "OAuth2PasswordBearer",
  authorizationCode: "OAuth2AuthorizationCodeBearer",
  oauth2: "OAuth2",
} as const;

/** The operation a link's method calls on the object's address. */
const OPERATION_OF_METHOD = { GET: "get", POST: "create", PUT: "replace", PATCH: "update", DELETE: "delete" } as const;

/** Result of validation: the normalized declaration when there were no problems. */
export interface ValidateResult {
  readonly declaration?: Declaration;
  readonly diagnostics: readonly Diagnostic[];
}

type Raw = Record<string, unknown>;
const isRecord = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);
const asRecord = (v: unknown): Raw => (isRecord(v) ? v : {});
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const asString = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const strings = (v: unknown): string[] => asArray(v).filter((x): x is string => typeof x === "string");

/** The `x-` keys of a raw map. */
function extensionsOf(raw: Raw): Extensions {
  return Object.fromEntries(Object.entries(raw).filter(([k]) => k.startsWith("x-")));
}

/** Keys whose value may be undefined become optional keys. */
type Defined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** Copy of a map without undefined values, so optional keys are absent rather than undefined. */
function defined<const T extends object>(value: T): Defined<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Defined<T>;
}

/**
 * Check a loaded declaration against every rule of the format and build the normalized
 * declaration. Shape and meaning are both checked in one run, so every problem is reported.
 */
export function validateDeclaration(document: LoadedDocument, options: PatternOptions = {}): ValidateResult {
  const diagnostics: Diagnostic[] = checkShape(document, declarationShape, declarationDefs);
  const report = <C extends DiagnosticCode>(code: C, args: DiagnosticArgs<C>, path: Path, part: "value" | "key" = "value") => {
    // The user's explicit opt-in lets patterns through that only V8's backtracking engine can run.
    if (code === "schema/unsafe-pattern" && options.allowUnsafePatterns === true) return;
    diagnostics.push(diagnostic(code, args, document.locate(path, part)));
  };
  const root = asRecord(document.value);
  const shapeOk = diagnostics.length === 0;

  const guards = readGuards(asArray(root.auth), report);
  // A guard the shape check refused is missing here: its scopes cannot be judged undeclared.
  const guardsComplete = guards.length === asArray(root.auth).length;
  const resourceNames = Object.keys(asRecord(root.resources)).filter((k) => !k.startsWith("x-"));
  const rawResources = asRecord(root.resources);
  const idTypes = new Map(resourceNames.map((name) => [name, idTypeOf(asRecord(rawResources[name]))]));

  const resources: Resource[] = [];
  const typeNames = new Map<string, string>();
  for (const name of resourceNames) {
    const raw = asRecord(rawResources[name]);
    const path = ["resources", name];
    const resource = readResource(name, raw, path, { report, idTypes, hasAuth: "auth" in root, guards, guardsComplete });
    if (!resource) continue;
    resources.push(resource);
    // Every schema name the resource brings must be free (openapi.md: components.schemas).
    const derived = [resource.typeName, `${resource.typeName}Input`, `${resource.typeName}Patch`];
    if (resource.status) derived.push(`${resource.typeName}Status`);
    const at: Path = "singular" in raw ? [...path, "singular"] : path;
    for (const typeName of derived) {
      const other = typeNames.get(typeName);
      if ((OWN_SCHEMA_NAMES as readonly string[]).includes(typeName)) {
        report("decl/reserved-type-name", { typeName, name }, at, "singular" in raw ? "value" : "key");
        break;
      }
      if (other !== undefined) {
        report("decl/duplicate-type-name", { typeName, name, other: `resource \`${other}\`` }, at, "singular" in raw ? "value" : "key");
        break;
      }
    }
    for (const typeName of derived) typeNames.set(typeName, name);
  }

  checkTokenEndpoints(guards, resourceNames, report);
  checkGuardNames(guards, report);

  if (diagnostics.length > 0 || !shapeOk) return { diagnostics };
  const info = root.info as Declaration["info"];
  const servers: Server[] = asArray(root.servers).map((s) =>
    typeof s === "string" ? { url: s, extensions: {} } : defined({ url: asString(asRecord(s).url) ?? "", description: asString(asRecord(s).description), extensions: extensionsOf(asRecord(s)) }),
  );
  return {
    declaration: { info, servers, guards: guards.map((g) => g.guard), resources, extensions: extensionsOf(root) },
    diagnostics: [],
  };
}

type Report = <C extends DiagnosticCode>(code: C, args: DiagnosticArgs<C>, path: Path, part?: "value" | "key") => void;

interface ReadGuard {
  readonly guard: Guard;
  readonly path: Path;
  readonly named: boolean;
}

function readGuards(raw: unknown[], report: Report): ReadGuard[] {
  const out: ReadGuard[] = [];
  raw.forEach((entry, i) => {
    const g = asRecord(entry);
    const kind = g.guard;
    if (kind !== "password" && kind !== "authorizationCode" && kind !== "oauth2") return;
    const path = ["auth", i];
    const base = defined({
      name: asString(g.name) ?? DEFAULT_GUARD_NAMES[kind],
      description: asString(g.description),
      autoError: g.autoError !== false,
      extensions: extensionsOf(g),
    });
    const url = (key: string, tokenUrl: boolean): string => {
      const value = asString(g[key]);
      // A missing or mistyped URL is the shape check's to report.
      if (value === undefined) return "";
      if (!isUrl(value, true)) {
        report(tokenUrl ? "decl/bad-token-url" : "decl/bad-url", { url: value }, [...path, key]);
      }
      return value;
    };
    const scopes = Object.fromEntries(Object.entries(asRecord(g.scopes)).map(([k, v]) => [k, asString(v) ?? ""]));
    let guard: Guard;
    if (kind === "password") {
      guard = { ...base, kind, tokenUrl: url("tokenUrl", true), form: g.form === "strict" ? "strict" : "permissive", scopes };
    } else if (kind === "authorizationCode") {
      guard = defined({
        ...base,
        kind,
        authorizationUrl: url("authorizationUrl", false),
        tokenUrl: url("tokenUrl", true),
        refreshUrl: "refreshUrl" in g ? url("refreshUrl", false) : undefined,
        scopes,
      });
    } else {
      guard = { ...base, kind, flows: asRecord(g.flows) };
    }
    out.push({ guard, path, named: "name" in g });
  });
  return out;
}

/** An absolute http(s) URL, or (where allowed) a path served by this API. */
function isUrl(value: string, pathAllowed: boolean): boolean {
  if (pathAllowed && value.startsWith("/") && !value.startsWith("//")) return !/[\s?#]/.test(value);
  try {
    const parsed = new URL(value);
    return parsed.protocol === "https:" || parsed.protocol === "http:";
  } catch {
    return false;
  }
}

function checkGuardNames(guards: readonly ReadGuard[], report: Report): void {
  const seen = new Set<string>();
  for (const { guard, path, named } of guards) {
    if (seen.has(guard.name)) report("decl/duplicate-guard-name", { name: guard.name }, named ? [...path, "name"] : path);
    seen.add(guard.name);
  }
}

function checkTokenEndpoints(guards: readonly ReadGuard[], resourceNames: readonly string[], report: Report): void {
  let served = false;
  for (const { guard, path } of guards) {
    if (guard.kind !== "password" || !guard.tokenUrl.startsWith("/")) continue;
    if (served) {
      report("decl/second-token-endpoint", {}, [...path, "tokenUrl"]);
      continue;
    }
    served = true;
    const segment = guard.tokenUrl.split("/")[1] ?? "";
    if (guard.tokenUrl === "/") report("decl/token-path-taken", { path: guard.tokenUrl, by: "the index (`GET /`)" }, [...path, "tokenUrl"]);
    else if (resourceNames.includes(segment)) {
      report("decl/token-path-taken", { path: guard.tokenUrl, by: `under resource \`${segment}\`` }, [...path, "tokenUrl"]);
    }
  }
}

function idTypeOf(raw: Raw): Resource["id"] {
  return raw.id === "uuid" || raw.id === "string" ? raw.id : "integer";
}

interface ResourceContext {
  readonly report: Report;
  readonly idTypes: ReadonlyMap<string, Resource["id"]>;
  readonly hasAuth: boolean;
  readonly guards: readonly ReadGuard[];
  readonly guardsComplete: boolean;
}

function readResource(name: string, raw: Raw, path: Path, ctx: ResourceContext): Resource | undefined {
  const { report } = ctx;
  const inflection = inflectCollection(name);
  const declaredSingular = asString(raw.singular);
  // A name that is no path segment is the shape check's to report; its grammar is not judged too.
  if (new RegExp(RESOURCE_NAME.regex).test(name)) {
    if (!inflection.isPlural) {
      report("decl/not-plural", { name, singular: inflection.singular, plural: inflection.plural }, path, "key");
    } else if (declaredSingular === undefined && inflection.sameWord) {
      report("decl/singular-equals-plural", { name }, path, "key");
    } else if (declaredSingular === name) {
      report("decl/singular-same-as-name", { name }, [...path, "singular"]);
    }
  }
  const singular = declaredSingular ?? inflection.singular;

  const operations = readOperations(raw, path, report);
  const status = readStatus(asRecord(raw.status), [...path, "status"], "status" in raw, report);
  const reserved = new Set(["id", "links", ...(status ? ["status"] : [])]);
  const rawFields = asRecord(raw.fields);
  const fields: Field[] = [];
  for (const fieldName of Object.keys(rawFields)) {
    if (fieldName.startsWith("x-")) continue;
    const fieldPath = [...path, "fields", fieldName];
    if (reserved.has(fieldName)) report("decl/reserved-field", { field: fieldName }, fieldPath, "key");
    const field = readField(fieldName, rawFields[fieldName], fieldPath, report, true);
    if (!field) continue;
    fields.push(field);
    if (field.ref !== undefined) checkRef(field, fieldPath, ctx);
  }

  const refSingulars = fields.filter((f) => f.ref !== undefined).map((f) => inflectCollection(f.ref!).singular);
  const links = readLinks(asRecord(raw.links), [...path, "links"], { operations, status, refSingulars, report });
  const access = readAccess(raw, path, operations, ctx);

  return defined({
    name,
    singular,
    typeName: pascalCase(singular),
    pluralTypeName: pascalCase(name),
    description: asString(raw.description),
    id: idTypeOf(raw),
    fields,
    status,
    links,
    operations,
    access,
    extensions: extensionsOf(raw),
    accessExtensions: extensionsOf(asRecord(raw.access)),
  });
}

function readOperations(raw: Raw, path: Path, report: Report): Operation[] {
  if (!("operations" in raw)) return [...OPERATIONS];
  const listed = strings(raw.operations);
  const seen = new Set<string>();
  listed.forEach((op, i) => {
    if (seen.has(op)) report("decl/duplicate-operation", { operation: op }, [...path, "operations", i]);
    seen.add(op);
  });
  // Canonical order, whatever order they were listed in: the paths read the same way always.
  return OPERATIONS.filter((op) => seen.has(op));
}

function readStatus(raw: Raw, path: Path, declared: boolean, report: Report): StatusMachine | undefined {
  if (!declared) return undefined;
  const values = strings(raw.values);
  // Without a list of states (the shape check reports that), no state can be judged unknown.
  const statesKnown = Array.isArray(raw.values) && values.length > 0;
  const seen = new Set<string>();
  values.forEach((v, i) => {
    if (seen.has(v)) report("decl/duplicate-state", { state: v }, [...path, "values", i]);
    seen.add(v);
  });
  const known = (state: string, at: Path, part: "value" | "key" = "value") => {
    if (statesKnown && !seen.has(state)) report("decl/unknown-state", { state, known: values }, at, part);
  };
  const initial = asString(raw.initial) ?? values[0] ?? "";
  if ("initial" in raw) known(initial, [...path, "initial"]);
  const transitions = new Map<string, string[]>();
  for (const [from, to] of Object.entries(asRecord(raw.transitions))) {
    if (from.startsWith("x-")) continue;
    known(from, [...path, "transitions", from], "key");
    const targets = strings(to);
    targets.forEach((state, i) => known(state, [...path, "transitions", from, i]));
    transitions.set(from, targets);
  }
  return defined({ values, initial, transitions, description: asString(raw.description), extensions: extensionsOf(raw) });
}

interface LinkContext {
  readonly operations: readonly Operation[];
  readonly status: StatusMachine | undefined;
  readonly refSingulars: readonly string[];
  readonly report: Report;
}

function readLinks(raw: Raw, path: Path, ctx: LinkContext): LinkRule[] {
  const out: LinkRule[] = [];
  for (const [rel, value] of Object.entries(raw)) {
    if (rel.startsWith("x-")) continue;
    const link = asRecord(value);
    const at = [...path, rel];
    if (rel === "self" || ctx.refSingulars.includes(rel)) ctx.report("decl/link-rel-reserved", { rel }, at, "key");
    const method = link.method;
    if (method !== "GET" && method !== "POST" && method !== "PUT" && method !== "PATCH" && method !== "DELETE") continue;
    if (!ctx.operations.includes(OPERATION_OF_METHOD[method])) {
      ctx.report("decl/link-method-not-offered", { method, rel }, [...at, "method"]);
    }
    const when = "when" in link ? strings(link.when) : undefined;
    if (when && !ctx.status) ctx.report("decl/when-without-status", {}, [...at, "when"], "key");
    else if (when && ctx.status && ctx.status.values.length > 0) {
      const states = ctx.status.values;
      when.forEach((state, i) => {
        if (!states.includes(state)) ctx.report("decl/unknown-state", { state, known: states }, [...at, "when", i]);
      });
    }
    out.push(defined({ rel, method, when, href: asString(link.href), description: asString(link.description), extensions: extensionsOf(link) }));
  }
  return out;
}

function readAccess(raw: Raw, path: Path, operations: readonly Operation[], ctx: ResourceContext): Resource["access"] {
  const declared = asRecord(raw.access);
  const at = [...path, "access"];
  if ("access" in raw && !ctx.hasAuth) ctx.report("decl/access-without-auth", {}, at, "key");
  for (const key of Object.keys(declared)) {
    if ((OPERATIONS as readonly string[]).includes(key) && !operations.includes(key as Operation)) {
      ctx.report("decl/access-operation-absent", { operation: key }, [...at, key], "key");
    }
  }
  const parse = (value: unknown, valuePath: Path): Access | undefined => {
    if (value === "public" || value === "optional" || value === "authenticated") return { kind: value };
    if (!Array.isArray(value)) return undefined;
    const scopes = strings(value);
    if (!ctx.guardsComplete) return { kind: "scopes", scopes: [...new Set(scopes)] };
    scopes.forEach((scope, i) => {
      if (!ctx.guards.some((g) => guardScopes(g.guard).has(scope))) ctx.report("decl/undeclared-scope", { scope }, [...valuePath, i]);
    });
    const allKnown = scopes.every((s) => ctx.guards.some((g) => guardScopes(g.guard).has(s)));
    if (allKnown && !ctx.guards.some((g) => scopes.every((s) => guardScopes(g.guard).has(s)))) {
      ctx.report("decl/scopes-split-across-guards", { scopes }, valuePath);
    }
    return { kind: "scopes", scopes: [...new Set(scopes)] };
  };
  const parsed = new Map<string, Access | undefined>();
  for (const key of ACCESS_KEYS) if (key in declared) parsed.set(key, parse(declared[key], [...at, key]));
  const fallback: Access = ctx.hasAuth ? { kind: "authenticated" } : { kind: "public" };
  const out: Partial<Record<Operation, Access>> = {};
  for (const op of operations) {
    // The most specific key wins: the operation, then read/write, then all.
    const group = op === "list" || op === "get" ? "read" : "write";
    out[op] = parsed.get(op) ?? parsed.get(group) ?? parsed.get("all") ?? fallback;
  }
  return out;
}

function checkRef(field: Field, path: Path, ctx: ResourceContext): void {
  const target = field.ref!;
  const idType = ctx.idTypes.get(target);
  if (idType === undefined) {
    ctx.report("decl/unknown-ref", { ref: target, known: [...ctx.idTypes.keys()] }, [...path, "ref"]);
    return;
  }
  const fits =
    idType === "integer" ? field.type === "integer" : idType === "uuid" ? field.type === "string" && field.format === "uuid" : field.type === "string";
  const expected = idType === "integer" ? "`type: integer`" : idType === "uuid" ? "`type: string` with `format: uuid`" : "`type: string`";
  if (!fits) ctx.report("decl/ref-type-mismatch", { ref: target, idType, expected }, [...path, "ref"]);
}

/** Which constraint keys apply to which field types. */
const KEYS_FOR_TYPE: Record<string, readonly FieldType[]> = {
  items: ["array"],
  fields: ["object"],
  format: ["string"],
  minLength: ["string"],
  maxLength: ["string"],
  pattern: ["string"],
  minimum: ["integer", "number"],
  maximum: ["integer", "number"],
  minItems: ["array"],
  maxItems: ["array"],
  enum: ["string", "integer", "number", "boolean"],
};

/** Read one field (top level when `topLevel`), checking every rule that concerns it alone. */
function readField(name: string, raw: unknown, path: Path, report: Report, topLevel: boolean): Field | undefined {
  if (typeof raw === "string") {
    const array = raw.endsWith("[]");
    const base = (array ? raw.slice(0, -2) : raw) as FieldType;
    if (!["string", "integer", "number", "boolean"].includes(base)) return undefined;
    const scalar = plainField(name, base);
    return array ? { ...plainField(name, "array"), items: plainField("items", base) } : scalar;
  }
  if (!isRecord(raw)) return undefined;
  const type = raw.type as FieldType;
  if (!["string", "integer", "number", "boolean", "array", "object"].includes(type)) return undefined;
  for (const key of Object.keys(KEYS_FOR_TYPE)) {
    if (key in raw && !KEYS_FOR_TYPE[key]!.includes(type)) report("decl/key-not-for-type", { key, type }, [...path, key], "key");
  }
  if (type === "array" && !("items" in raw)) report("decl/items-required", {}, [...path, "type"]);
  if (type === "object" && !("fields" in raw)) report("decl/fields-required", {}, [...path, "type"]);
  if (!topLevel) {
    for (const key of ["filter", "ref"]) if (key in raw) report("decl/only-top-level", { key }, [...path, key], "key");
  }
  if (raw.filter === true && (type === "array" || type === "object")) report("decl/filter-not-scalar", { type }, [...path, "filter"]);
  if (typeof raw.pattern === "string") {
    try {
      new RegExp(raw.pattern, "u");
    } catch (error) {
      report("decl/bad-regex", { reason: (error as Error).message.replace(/^Invalid regular expression: /, "") }, [...path, "pattern"]);
    }
    const reason = patternProblem(raw.pattern);
    if (reason !== undefined) report("schema/unsafe-pattern", { pattern: raw.pattern, reason }, [...path, "pattern"]);
  }
  for (const [min, max] of [["minLength", "maxLength"], ["minimum", "maximum"], ["minItems", "maxItems"]] as const) {
    if (typeof raw[min] === "number" && typeof raw[max] === "number" && raw[min] > raw[max]) {
      report("decl/min-above-max", { min, max }, [...path, min]);
    }
  }
  const items = type === "array" && "items" in raw ? readField("items", raw.items, [...path, "items"], report, false) : undefined;
  const fields: Field[] = [];
  if (type === "object") {
    for (const [child, value] of Object.entries(asRecord(raw.fields))) {
      if (child.startsWith("x-")) continue;
      const field = readField(child, value, [...path, "fields", child], report, false);
      if (field) fields.push(field);
    }
  }
  const field: Field = defined({
    name,
    type,
    items,
    fields: type === "object" ? fields : undefined,
    enum: Array.isArray(raw.enum) ? (raw.enum as EnumValue[]) : undefined,
    format: asString(raw.format) as StringFormat | undefined,
    required: raw.required === true,
    nullable: raw.nullable === true,
    default: "default" in raw ? { value: raw.default } : undefined,
    readOnly: raw.readOnly === true,
    writeOnly: raw.writeOnly === true,
    filter: raw.filter === true,
    ref: asString(raw.ref),
    description: asString(raw.description),
    example: "example" in raw ? { value: raw.example } : undefined,
    extensions: extensionsOf(raw),
    minLength: numberOrUndefined(raw.minLength),
    maxLength: numberOrUndefined(raw.maxLength),
    pattern: asString(raw.pattern),
    minimum: numberOrUndefined(raw.minimum),
    maximum: numberOrUndefined(raw.maximum),
    minItems: numberOrUndefined(raw.minItems),
    maxItems: numberOrUndefined(raw.maxItems),
  });
  if (field.enum) {
    field.enum.forEach((value, i) => {
      const { enum: _values, ...withoutEnum } = field;
      const problem = checkValue(withoutEnum, value);
      if (problem) report("decl/bad-enum-value", { problem }, [...path, "enum", i]);
    });
  }
  if (field.default) {
    const problem = checkValue(field, field.default.value);
    if (problem) report("decl/default-invalid", { problem }, [...path, "default"]);
  }
  return field;
}

const numberOrUndefined = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

function plainField(name: string, type: FieldType): Field {
  return { name, type, required: false, nullable: false, readOnly: false, writeOnly: false, filter: false, extensions: {} };
}
