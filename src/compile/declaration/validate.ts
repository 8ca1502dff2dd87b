import { type Diagnostic, type DiagnosticArgs, type DiagnosticCode, diagnostic } from "../../diagnostics/index.js";
import type { LoadedDocument, Path } from "./load.js";
import type { Access, Declaration, Field, Guard, LinkRule, Operation, Resource, Server } from "./model.js";
import { guardScopes, servedTokenEndpoint } from "./model.js";
import { type Inflection, actionOperationId, actionRequestName, inflectCollection, operationIdOf, pascalCase } from "./names.js";
import { type StatusRead, knownState, readActions, readOperations, readWhen } from "./operations.js";
import { type Raw, type Report, asArray, asString, defined, extensionsOf, readFields, strings } from "./read.js";
import { objectOf } from "../../model/json.js";
import { ACCESS_KEYS, OPERATIONS, RESOURCE_NAME, declarationDefs, declarationShape } from "./schema.js";
import { checkShape, displayPath, regexOf } from "./shape.js";
import type { PatternOptions } from "../../options.js";

/** The schema names codegen emits itself; a resource may not take them. */
const OWN_SCHEMA_NAMES = ["Error", "AuthError", "Link", "Index", "TokenRequest", "TokenResponse"] as const;

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

/**
 * Check a loaded declaration against every rule of the format and build the normalized
 * declaration. Shape and meaning are both checked in one run, so every problem is reported.
 */
export function validateDeclaration(document: LoadedDocument, options: PatternOptions = {}): ValidateResult {
  const diagnostics: Diagnostic[] = checkShape(document, declarationShape, declarationDefs);
  diagnostics.push(...notFinite(document, diagnostics));
  const report = <C extends DiagnosticCode>(code: C, args: DiagnosticArgs<C>, path: Path, part: "value" | "key" = "value") => {
    // The user's explicit opt-in lets patterns through that only V8's backtracking engine can run.
    if (code === "schema/unsafe-pattern" && options.allowUnsafePatterns === true) return;
    diagnostics.push(diagnostic(code, args, document.locate(path, part)));
  };
  const root = objectOf(document.value);

  const rawResources = objectOf(root.resources);
  const resourceNames = Object.keys(rawResources).filter((k) => !k.startsWith("x-"));
  const guards = readGuards(asArray(root.auth), resourceNames, report);
  // A guard the shape check refused is missing here: its scopes cannot be judged undeclared.
  const guardsComplete = guards.length === asArray(root.auth).length;
  const idTypes = new Map(resourceNames.map((name) => [name, idTypeOf(objectOf(rawResources[name]))]));
  // Why remembered: inflecting runs pluralize's few hundred rules four times, and a
  // resource's inflection is asked here and again when it is read.
  const inflections = new Map<string, Inflection>();
  const inflect = (name: string): Inflection => {
    let inflection = inflections.get(name);
    if (inflection === undefined) inflections.set(name, (inflection = inflectCollection(name)));
    return inflection;
  };
  const singulars = new Map(resourceNames.map((name) => [name, asString(objectOf(rawResources[name]).singular) ?? inflect(name).singular]));

  const resources: Resource[] = [];
  const names = new NameRegistry(report);
  // The token endpoint's and the index's operationIds come first: a resource or action that
  // would take one of them is the one to rename.
  names.takeOperationId("getIndex", "the index (`GET /`)");
  if (servedTokenEndpoint(guards)) names.takeOperationId("issueToken", "the token endpoint");
  for (const name of resourceNames) {
    const raw = objectOf(rawResources[name]);
    const path = ["resources", name];
    const resource = readResource(name, raw, path, { report, idTypes, singulars, inflect, hasAuth: "auth" in root, guards, guardsComplete });
    if (!resource) continue;
    resources.push(resource);
    names.resource(resource, raw, path);
  }
  checkLicense(objectOf(root.info).license, report);
  asArray(root.servers).forEach((s, i) => {
    const url = typeof s === "string" ? s : asString(objectOf(s).url);
    // Why no query, fragment or `{variable}`: paths are appended to the URL, and the format has no `variables`.
    if (url !== undefined && (!isUrl(url) || /[?#{}]/.test(url))) {
      report("decl/bad-server-url", { url }, typeof s === "string" ? ["servers", i] : ["servers", i, "url"]);
    }
  });

  // The shape check's problems are among them: the list only grows.
  if (diagnostics.length > 0) return { diagnostics };
  const info = root.info as Declaration["info"];
  const servers: Server[] = asArray(root.servers).map((s) =>
    typeof s === "string"
      ? { url: s, extensions: {} }
      : defined({ url: asString(objectOf(s).url) ?? "", description: asString(objectOf(s).description), extensions: extensionsOf(objectOf(s)) }),
  );
  return {
    declaration: { info, servers, guards, resources, extensions: extensionsOf(root) },
    diagnostics: [],
  };
}

/**
 * Every `.inf`, `-.inf` and `.nan` of a declaration, at any depth (extensions and examples too),
 * but where the shape check already refused the value. Why: the OpenAPI document must be JSON,
 * which has no such numbers; they would become `null` in it (`maximum: null`, a document that
 * breaks its own schema).
 */
function notFinite(document: LoadedDocument, reported: readonly Diagnostic[]): Diagnostic[] {
  const found: Diagnostic[] = [];
  const taken = new Set(reported.map((d) => `${d.location?.line}:${d.location?.column}`));
  // One path, grown and shrunk on the way: copied only for a value to report.
  const path: (string | number)[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "number") {
      if (Number.isFinite(value)) return;
      const location = document.locate([...path]);
      if (taken.has(`${location.line}:${location.column}`)) return;
      // `1e999` reads as infinite too.
      const written = Number.isNaN(value) ? "not a number (`.nan`)" : `infinite (\`${value > 0 ? "" : "-"}.inf\` or a number too large)`;
      found.push(diagnostic("decl/not-finite", { where: displayPath([...path]), value: written }, location));
      return;
    }
    if (typeof value !== "object" || value === null) return;
    const record = value as Raw;
    for (const key of Array.isArray(value) ? value.keys() : Object.keys(value)) {
      path.push(key);
      walk(record[key]);
      path.pop();
    }
  };
  walk(document.value);
  return found;
}

/**
 * The one gate for the names the expansion derives that must be unique in the document: schema
 * names (`components.schemas`) and operationIds. Resources, their operations and their actions
 * take their names here in declaration order; the first to take a name keeps it, and every later
 * one is reported where it was declared.
 */
class NameRegistry {
  /** Schema name -> who has it, in words. */
  private readonly schemas = new Map<string, string>();
  /** operationId -> who has it, in words. */
  private readonly operationIds = new Map<string, string>();

  constructor(private readonly report: Report) {}

  /** Takes an operationId; answers who had it already, if anyone did. */
  takeOperationId(operationId: string, owner: string): string | undefined {
    const other = this.operationIds.get(operationId);
    if (other === undefined) this.operationIds.set(operationId, owner);
    return other;
  }

  /** Takes every name a resource brings: its schemas, its operationIds, its actions' names. */
  resource(resource: Resource, raw: Raw, path: Path): void {
    const { name, typeName } = resource;
    // Every schema name the resource brings must be free (openapi.md: components.schemas).
    const derived = [typeName, `${typeName}Input`, `${typeName}Patch`];
    if (resource.status) derived.push(`${typeName}Status`);
    const declared = "singular" in raw;
    const at: Path = declared ? [...path, "singular"] : path;
    const isOwn = (schema: string) => (OWN_SCHEMA_NAMES as readonly string[]).includes(schema);
    const taken = derived.find((schema) => isOwn(schema) || this.schemas.has(schema));
    const other = taken === undefined ? undefined : this.schemas.get(taken);
    for (const schema of derived) if (!this.schemas.has(schema)) this.schemas.set(schema, `resource \`${name}\``);
    if (taken !== undefined) {
      if (other === undefined || isOwn(taken)) this.report("decl/reserved-type-name", { typeName: taken, name }, at, declared ? "value" : "key");
      else this.report("decl/duplicate-type-name", { typeName: taken, name, other }, at, declared ? "value" : "key");
      // The operationIds come from the same singular: one message for the one cause.
      return;
    }
    for (const operation of resource.operations) {
      const what = `the \`${operation}\` operation of \`${name}\``;
      const operationId = operationIdOf(operation, resource);
      const other = this.takeOperationId(operationId, what);
      if (other !== undefined) this.report("decl/duplicate-operation-id", { what, operationId, other }, path, "key");
    }
    for (const action of resource.actions) {
      const at = [...path, "actions", action.name];
      const what = `action \`${action.name}\` of \`${name}\``;
      if (action.body) {
        const schema = actionRequestName(typeName, action.name);
        const other = isOwn(schema) ? "codegen's own schema" : this.schemas.get(schema);
        if (other !== undefined) this.report("decl/action-type-name-taken", { typeName: schema, action: action.name, name, other }, at, "key");
        else this.schemas.set(schema, what);
      }
      const operationId = actionOperationId(action.name, resource.singular);
      const other = this.takeOperationId(operationId, what);
      if (other !== undefined) this.report("decl/duplicate-operation-id", { what, operationId, other }, at, "key");
    }
  }
}

/**
 * The guards of `auth`, each checked as it is read: its URLs, the one token endpoint this API may
 * serve (at no path the index or a resource takes), and its name, which no other guard may have.
 */
function readGuards(raw: unknown[], resourceNames: readonly string[], report: Report): Guard[] {
  const out: Guard[] = [];
  const names = new Set<string>();
  let served = false;
  raw.forEach((entry, i) => {
    const g = objectOf(entry);
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
      if (!isUrl(value)) report(tokenUrl ? "decl/bad-token-url" : "decl/bad-url", { url: value }, [...path, key]);
      else if (!URI.test(value)) report("decl/url-not-uri", { url: value }, [...path, key]);
      return value;
    };
    const scopes = Object.fromEntries(Object.entries(objectOf(g.scopes)).map(([k, v]) => [k, asString(v) ?? ""]));
    const guard: Guard =
      kind === "password"
        ? { ...base, kind, tokenUrl: url("tokenUrl", true), form: g.form === "strict" ? "strict" : "permissive", scopes }
        : kind === "authorizationCode"
          ? defined({
              ...base,
              kind,
              authorizationUrl: url("authorizationUrl", false),
              tokenUrl: url("tokenUrl", true),
              refreshUrl: "refreshUrl" in g ? url("refreshUrl", false) : undefined,
              scopes,
            })
          : { ...base, kind, flows: objectOf(g.flows) };
    if (guard.kind === "password" && guard.tokenUrl.startsWith("/")) {
      const at = [...path, "tokenUrl"];
      const segment = guard.tokenUrl.split("/")[1] ?? "";
      if (served) report("decl/second-token-endpoint", {}, at);
      else if (guard.tokenUrl === "/") report("decl/token-path-taken", { path: guard.tokenUrl, by: "the index (`GET /`)" }, at);
      else if (resourceNames.includes(segment)) report("decl/token-path-taken", { path: guard.tokenUrl, by: `under resource \`${segment}\`` }, at);
      served = true;
    }
    if (names.has(guard.name)) report("decl/duplicate-guard-name", { name: guard.name }, "name" in g ? [...path, "name"] : path);
    names.add(guard.name);
    out.push(guard);
  });
  return out;
}

/**
 * The characters of an RFC 3986 URI, each other one percent-encoded. Why: the URL goes into the
 * document verbatim, and OpenAPI's schema takes only a URI there (`format: uri`): `ö`, a space or
 * `<` would make the document invalid, and `{x}` in a served path would read as a path template.
 */
const URI = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;

/** An absolute http(s) URL, or a path served by this API. */
function isUrl(value: string): boolean {
  if (value.startsWith("/") && !value.startsWith("//")) return !/[\s?#]/.test(value);
  try {
    const parsed = new URL(value);
    return parsed.protocol === "https:" || parsed.protocol === "http:";
  } catch {
    return false;
  }
}

/**
 * `info.license` names exactly one of `identifier` and `url`. Why (found by the fuzz test of issue
 * 14): OpenAPI 3.1 makes them exclusive, and the schema published with it (which swagger-parser
 * checks, and `codegen validate` with it) asks for one: a license with a name alone made a
 * document codegen's own check called a bug in codegen.
 */
function checkLicense(license: unknown, report: Report): void {
  if (typeof license !== "object" || license === null || Array.isArray(license)) return;
  const given = ["identifier", "url"].filter((key) => Object.hasOwn(license, key)).length;
  if (given !== 1) report("decl/license-identifier-or-url", { given: given === 0 ? "neither" : "both" }, ["info", "license"]);
}

function idTypeOf(raw: Raw): Resource["id"] {
  return raw.id === "uuid" || raw.id === "string" ? raw.id : "integer";
}

interface ResourceContext {
  readonly report: Report;
  readonly idTypes: ReadonlyMap<string, Resource["id"]>;
  /** Collection name -> singular (declared, or derived). */
  readonly singulars: ReadonlyMap<string, string>;
  /** A collection name's inflection (inflectCollection, remembered). */
  readonly inflect: (name: string) => Inflection;
  readonly hasAuth: boolean;
  readonly guards: readonly Guard[];
  readonly guardsComplete: boolean;
}

function readResource(name: string, raw: Raw, path: Path, ctx: ResourceContext): Resource | undefined {
  const { report } = ctx;
  const inflection = ctx.inflect(name);
  const declaredSingular = asString(raw.singular);
  // Why: declaration.md "Resources": a declared `singular` that differs from the name is taken
  // as given (`articles0` with `singular: article0`); the plural check judges derived singulars.
  // A name that is no path segment is the shape check's to report; its grammar is not judged too.
  if (declaredSingular !== undefined) {
    if (declaredSingular === name) report("decl/singular-same-as-name", { name }, [...path, "singular"]);
  } else if (regexOf(RESOURCE_NAME).test(name)) {
    if (!inflection.isPlural) {
      report("decl/not-plural", { name, singular: inflection.singular, plural: inflection.plural }, path, "key");
    } else if (inflection.sameWord) {
      report("decl/singular-equals-plural", { name }, path, "key");
    }
  }
  const singular = ctx.singulars.get(name) ?? inflection.singular;

  const status = readStatus(objectOf(raw.status), [...path, "status"], "status" in raw, report);
  const reserved = new Set(["id", "links", ...(status ? ["status"] : [])]);
  const rawFields = objectOf(raw.fields);
  for (const name of Object.keys(rawFields)) if (reserved.has(name)) report("decl/reserved-field", { field: name }, [...path, "fields", name], "key");
  const fields = readFields(rawFields, [...path, "fields"], report, "resource");
  for (const field of fields) {
    if (field.ref !== undefined) checkRef(field, [...path, "fields", field.name], ctx);
    // Why: a field still declared keeps its own column; renaming it away would leave it none.
    if (field.renamedFrom !== undefined && Object.hasOwn(rawFields, field.renamedFrom))
      report("decl/renamed-from-declared", { name: field.renamedFrom }, [...path, "fields", field.name, "renamedFrom"]);
  }

  const { operations, options, extensions: operationsExtensions } = readOperations(raw, path, fields, report);
  // The rels the server computes: `self`, and for each `ref` field the referenced resource's singular, declared or derived.
  const reservedRels = ["self", ...fields.filter((f) => f.ref !== undefined).map((f) => ctx.singulars.get(f.ref!) ?? ctx.inflect(f.ref!).singular)];
  const access = readAccess(raw, path, operations, ctx);
  const actions = readActions(raw.actions, [...path, "actions"], {
    fields,
    status,
    reservedRels,
    writeAccess: access.write,
    hasAuth: ctx.hasAuth,
    parseAccess: (value, at) => parseAccess(value, at, ctx),
    report,
  });
  const links = readLinks(objectOf(raw.links), [...path, "links"], { operations, status, reservedRels, actionNames: actions.map((a) => a.name), report });

  return defined({
    name,
    singular,
    typeName: pascalCase(singular),
    description: asString(raw.description),
    id: idTypeOf(raw),
    fields,
    status: status?.machine,
    links,
    operations,
    options,
    access: access.operations,
    actions,
    extensions: extensionsOf(raw),
    // `x-` keys of `access` and of the map form of `operations` go onto every operation.
    accessExtensions: { ...extensionsOf(objectOf(raw.access)), ...operationsExtensions },
  });
}

function readStatus(raw: Raw, path: Path, declared: boolean, report: Report): StatusRead | undefined {
  if (!declared) return undefined;
  const values = strings(raw.values);
  const states = new Set<string>();
  values.forEach((v, i) => {
    if (states.has(v)) report("decl/duplicate-state", { state: v }, [...path, "values", i]);
    states.add(v);
  });
  const initial = asString(raw.initial) ?? values[0] ?? "";
  // The transitions are read into the machine's map, checked against its states as they are.
  const transitions = new Map<string, string[]>();
  const status = { machine: defined({ values, initial, transitions, description: asString(raw.description), extensions: extensionsOf(raw) }), states };
  if ("initial" in raw) knownState(initial, [...path, "initial"], status, report);
  for (const [from, to] of Object.entries(objectOf(raw.transitions))) {
    if (from.startsWith("x-")) continue;
    knownState(from, [...path, "transitions", from], status, report, "key");
    const targets = strings(to);
    targets.forEach((state, i) => knownState(state, [...path, "transitions", from, i], status, report));
    transitions.set(from, targets);
  }
  return status;
}

interface LinkContext {
  readonly operations: readonly Operation[];
  readonly status: StatusRead | undefined;
  readonly reservedRels: readonly string[];
  /** An action of the same name replaces a link (declaration.md, "Actions"): its method is the action's. */
  readonly actionNames: readonly string[];
  readonly report: Report;
}

function readLinks(raw: Raw, path: Path, ctx: LinkContext): LinkRule[] {
  const out: LinkRule[] = [];
  for (const [rel, value] of Object.entries(raw)) {
    if (rel.startsWith("x-")) continue;
    const link = objectOf(value);
    const at = [...path, rel];
    if (ctx.reservedRels.includes(rel)) ctx.report("decl/link-rel-reserved", { rel }, at, "key");
    const method = link.method;
    if (method !== "GET" && method !== "POST" && method !== "PUT" && method !== "PATCH" && method !== "DELETE") continue;
    if (!ctx.actionNames.includes(rel) && !ctx.operations.includes(OPERATION_OF_METHOD[method])) {
      ctx.report("decl/link-method-not-offered", { method, rel }, [...at, "method"]);
    }
    const when = readWhen(link, at, ctx.status, ctx.report);
    out.push(defined({ rel, method, when, href: asString(link.href), description: asString(link.description), extensions: extensionsOf(link) }));
  }
  return out;
}

/** Access per offered operation, and the resource's `write` access (the default of its actions). */
function readAccess(raw: Raw, path: Path, operations: readonly Operation[], ctx: ResourceContext): { operations: Resource["access"]; write: Access } {
  const declared = objectOf(raw.access);
  const at = [...path, "access"];
  if ("access" in raw && !ctx.hasAuth) ctx.report("decl/access-without-auth", {}, at, "key");
  for (const key of Object.keys(declared)) {
    if ((OPERATIONS as readonly string[]).includes(key) && !operations.includes(key as Operation)) {
      ctx.report("decl/access-operation-absent", { operation: key }, [...at, key], "key");
    }
  }
  const parsed = new Map<string, Access | undefined>();
  for (const key of ACCESS_KEYS) if (key in declared) parsed.set(key, parseAccess(declared[key], [...at, key], ctx));
  const fallback: Access = ctx.hasAuth ? { kind: "authenticated" } : { kind: "public" };
  const out: Partial<Record<Operation, Access>> = {};
  for (const op of operations) {
    // The most specific key wins: the operation, then read/write, then all.
    const group = op === "list" || op === "get" ? "read" : "write";
    out[op] = parsed.get(op) ?? parsed.get(group) ?? parsed.get("all") ?? fallback;
  }
  return { operations: out, write: parsed.get("write") ?? parsed.get("all") ?? fallback };
}

/** One `access` value; its scopes must be declared, and declared together by one guard. */
function parseAccess(value: unknown, valuePath: Path, ctx: ResourceContext): Access | undefined {
  if (value === "public" || value === "optional" || value === "authenticated") return { kind: value };
  if (!Array.isArray(value)) return undefined;
  const scopes = strings(value);
  if (!ctx.guardsComplete) return { kind: "scopes", scopes: [...new Set(scopes)] };
  scopes.forEach((scope, i) => {
    if (!ctx.guards.some((g) => guardScopes(g).has(scope))) ctx.report("decl/undeclared-scope", { scope }, [...valuePath, i]);
  });
  const allKnown = scopes.every((s) => ctx.guards.some((g) => guardScopes(g).has(s)));
  if (allKnown && !ctx.guards.some((g) => scopes.every((s) => guardScopes(g).has(s)))) {
    ctx.report("decl/scopes-split-across-guards", { scopes }, valuePath);
  }
  return { kind: "scopes", scopes: [...new Set(scopes)] };
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
