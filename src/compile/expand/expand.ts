import type { OpenAPIV3_1 } from "openapi-types";
import type { Access, Action, DeclaredError, Declaration, Field, Guard, Operation, OperationOptions, Resource, StatusMachine } from "../declaration/model.js";
import { guardScopes, servedTokenEndpoint } from "../declaration/model.js";
import { orList } from "../../diagnostics/index.js";
import { actionOperationId, actionRequestName, operationIdOf, withArticle, words } from "../declaration/names.js";
import { etagHeader, ifMatchParameter, ifNoneMatchParameter, notModifiedResponse, referenceGoneCase, withEtag } from "./conditional.js";
import {
  type ErrorCase,
  type Example,
  type SharedStatus,
  SharedResponses,
  caseResponse,
  declaredCase,
  errorCase,
  exampleResponse,
  isShared,
  textHeader,
} from "./responses.js";
import {
  type JsonSchema,
  actionRequestSchema,
  authErrorSchema,
  errorSchema,
  fieldSchema,
  idSchema,
  indexSchema,
  jsonData,
  linkSchema,
  querySchema,
  resourceSchemas,
  schemaRef,
  statusMap,
  tokenRequestSchema,
  tokenResponseSchema,
} from "./schemas.js";

/** The OpenAPI version the expansion writes. */
export const OPENAPI_VERSION = "3.1.1";

type Json = Record<string, unknown>;
const json = (schema: JsonSchema) => ({ "application/json": { schema } });

/** Tags of the operations that belong to no resource; capitalised, so no collection name can take them. */
const INDEX_TAG = "Index";
const TOKEN_TAG = "Authentication";

/** What differs between the six operations of a resource. */
interface OperationSpec {
  readonly method: "get" | "post" | "put" | "patch" | "delete";
  readonly item: boolean;
  readonly summary: (r: Resource) => string;
  /** The derived description: what the operation does, in the words of http-behaviour.md. */
  readonly description: (r: Resource, o: OperationOptions) => string;
  readonly body?: (r: Resource) => string;
  readonly success: (r: Resource, o: OperationOptions) => [string, Json];
}

/** The sentence a PUT or PATCH adds when the resource has a state machine. */
const transitionSentence = (r: Resource) => (r.status ? " `status` may change only along a declared transition." : "");

const OPERATION_SPECS: Record<Operation, OperationSpec> = {
  list: {
    method: "get",
    item: false,
    summary: (r) => `List ${words(r.name)}`,
    description: (r, o) => {
      const filtered = r.status !== undefined || r.fields.some((f) => f.filter);
      const which = filtered ? `the ${words(r.name)} that match every filter given` : `every ${words(r.singular)}`;
      const order = o.sort ? "in the order they were created, unless `sort` names another" : "in the order they were created";
      const page = o.page
        ? ` At most \`limit\` ${words(r.name)} per page (${o.page.size} unless asked, at most ${o.page.max}); when more remain, the \`Link\` header gives the address of the next page.`
        : "";
      return `Answers ${which}, ${order}.${page}`;
    },
    success: (r, o) => {
      const content = json({ type: "array", items: schemaRef(r.typeName) });
      if (!o.page) return ["200", { description: `Every matching ${words(r.singular)}.`, content }];
      // Why: http-behaviour "Lists": the body stays the JSON array; the next page is in `Link` (RFC 8288).
      const link = `The next page, when more ${words(r.name)} remain: \`</${r.name}?limit=${o.page.size}&cursor=...>; rel="next"\` (RFC 8288).`;
      return ["200", { description: `Every matching ${words(r.singular)}.`, headers: { Link: textHeader(link) }, content }];
    },
  },
  get: {
    method: "get",
    item: true,
    summary: (r) => `Get ${withArticle(words(r.singular))}`,
    description: (r) => `Answers the ${words(r.singular)} with this id, with its links.`,
    success: (r) => ["200", { description: `The ${words(r.singular)}.`, content: json(schemaRef(r.typeName)) }],
  },
  create: {
    method: "post",
    item: false,
    summary: (r) => `Create ${withArticle(words(r.singular))}`,
    description: (r) =>
      `Creates ${withArticle(words(r.singular))} from the body and answers it; the \`Location\` header gives its address.` +
      (r.status ? ` A new ${words(r.singular)} starts in the state \`${r.status.initial}\`.` : ""),
    body: (r) => `${r.typeName}Input`,
    success: (r) => [
      "201",
      {
        description: `The created ${words(r.singular)}.`,
        headers: { Location: textHeader("The new object's address.") },
        content: json(schemaRef(r.typeName)),
      },
    ],
  },
  replace: {
    method: "put",
    item: true,
    summary: (r) => `Replace ${withArticle(words(r.singular))}`,
    description: (r) => `Replaces the ${words(r.singular)} with this id by the body: optional fields left out are cleared.${transitionSentence(r)}`,
    body: (r) => `${r.typeName}Input`,
    success: (r) => ["200", { description: `The complete ${words(r.singular)}.`, content: json(schemaRef(r.typeName)) }],
  },
  update: {
    method: "patch",
    item: true,
    summary: (r) => `Update ${withArticle(words(r.singular))}`,
    description: (r) =>
      `Changes the fields the body names on the ${words(r.singular)} with this id (a JSON merge patch: \`null\` clears a field).${transitionSentence(r)}`,
    body: (r) => `${r.typeName}Patch`,
    success: (r) => ["200", { description: `The complete ${words(r.singular)}.`, content: json(schemaRef(r.typeName)) }],
  },
  delete: {
    method: "delete",
    item: true,
    summary: (r) => `Delete ${withArticle(words(r.singular))}`,
    description: (r) => `Deletes the ${words(r.singular)} with this id.`,
    success: () => ["204", { description: "Deleted; no body." }],
  },
};

/** The security requirements for an access rule (openapi.md, Operation `security`). */
function securityFor(access: Access, guards: readonly Guard[]): Json[] {
  if (access.kind === "public") return [];
  const scopes = access.kind === "scopes" ? access.scopes : [];
  const requirements = guards.filter((g) => scopes.every((s) => guardScopes(g).has(s))).map((g) => ({ [g.name]: [...scopes] }));
  return access.kind === "optional" ? [...requirements, {}] : requirements;
}

/** A filter query parameter's schema: the field's scalar schema, without null or defaults. */
function filterSchema(field: Field): JsonSchema {
  // Why only these two keys: fieldSchema writes no `readOnly`, `writeOnly` or `x-codegen-filter` for the flags cleared here.
  const scalar = { ...field, nullable: false, readOnly: false, writeOnly: false, filter: false };
  const { description: _d, default: _default, ...rest } = fieldSchema(scalar, "output");
  return rest;
}

/** A value an id of the resource could have, for examples. */
function exampleId(resource: Resource): string {
  return resource.id === "integer" ? "1" : "3fa85f64-5717-4562-b3fc-2c963f66afa6";
}

/** The name of a query parameter an operation does not take, for the example of a 400. */
function unknownParameter(parameters: readonly Json[]): string {
  return ["page", "offset", "unknown"].find((name) => !parameters.some((p) => p.name === name)) ?? "unknown";
}

/**
 * What the generated server answers when validation fails, for one operation: a missing
 * required field of the body, a malformed id, or an unknown query parameter (the runtime's own
 * messages, http-behaviour.md "Errors").
 */
function invalidCase(resource: Resource | undefined, body: readonly Field[] | undefined, item: boolean, parameters: readonly Json[]): ErrorCase {
  const required = body?.find((f) => f.required && !f.readOnly);
  const detail: Record<string, string> = required
    ? { [required.name]: "is required" }
    : body
      ? { body: "must be a JSON object" }
      : item && resource?.id === "integer"
        ? { id: "must be an integer" }
        : item && resource?.id === "uuid"
          ? { id: "must be a valid uuid" }
          : { [unknownParameter(parameters)]: "is not a known query parameter" };
  return errorCase("The request is invalid: each bad field is named in `detail`.", "invalid", "A field is invalid", "Invalid request", detail);
}

function notFoundCase(resource: Resource): ErrorCase {
  return errorCase("No object has this id.", "notFound", "No object has this id", "Not found", {
    id: `no ${resource.singular} has the id ${exampleId(resource)}`,
  });
}

/**
 * A refused status change, with the message the runtime gives (a change not allowed, or one from
 * a final state); none when every state may move to every other, so no change is ever refused.
 */
function transitionCase(status: StatusMachine): ErrorCase | undefined {
  for (const from of status.values) {
    const allowed = status.transitions.get(from) ?? [];
    const to = status.values.find((s) => s !== from && !allowed.includes(s));
    if (to === undefined) continue;
    const detail =
      allowed.length === 0 ? `cannot change from ${from}: it is a final state` : `cannot change from ${from} to ${to}; allowed: ${allowed.join(", ")}`;
    return errorCase("The status change is not along a declared transition.", "transition", "Not a declared transition", "Conflict", { status: detail });
  }
  return undefined;
}

/** A resource's `ref` field to another's objects (see referrersOf). */
interface Referrer {
  readonly collection: string;
  readonly field: string;
}

/**
 * The `ref` fields that refer to each resource's objects, by the referred resource's name. Why:
 * the delete of an object one of them names is refused with 409 (http-behaviour.md, "Errors").
 */
function referrersOf(resources: readonly Resource[]): Map<string, Referrer[]> {
  const referrers = new Map<string, Referrer[]>();
  for (const resource of resources) {
    for (const field of resource.fields) {
      if (field.ref === undefined) continue;
      const list = referrers.get(field.ref);
      if (list) list.push({ collection: resource.name, field: field.name });
      else referrers.set(field.ref, [{ collection: resource.name, field: field.name }]);
    }
  }
  return referrers;
}

/** The delete of an object others refer to, with the runtime's message (resources.gen.ts, stillReferred). */
function referredCase(resource: Resource, referrers: readonly Referrer[]): ErrorCase {
  const [first] = referrers;
  const names = referrers.map((r) => `${r.collection}.${r.field}`);
  return errorCase(
    `Other objects refer to this ${words(resource.singular)} (${orList(names)}); delete or change them first.`,
    "referred",
    "Other objects refer to it",
    "Conflict",
    { id: `${first!.collection} refer to this ${resource.singular} by ${first!.field}` },
  );
}

/** An action asked for in a state outside its `when` (`state`, one such state, for the example). */
function actionStateCase(resource: Resource, action: string, when: readonly string[], state: string): ErrorCase {
  return errorCase(
    `The ${words(resource.singular)}'s status is not one in which \`${action}\` is allowed (${orList(when)}).`,
    "state",
    "Not allowed in this state",
    "Conflict",
    { status: `${action} is allowed only in ${when.join(", ")}; the status is ${state}` },
  );
}

/**
 * The responses of an operation, in numeric order: its success, its own error cases (400, 404,
 * 409), merged with the statuses its handler declares (`errors`), and references to the shared
 * answers. `own` is the operation's own and is added to.
 */
function operationResponses(
  success: readonly [string, Json],
  own: Map<string, ErrorCase[]>,
  shared: readonly SharedStatus[],
  declared: readonly DeclaredError[],
  responses: SharedResponses,
): Json {
  for (const error of declared) {
    const list = own.get(error.status);
    if (list) list.push(declaredCase(error));
    else own.set(error.status, [declaredCase(error)]);
  }
  // Why no sort: every status is a three-digit code, an array index, and an object's array
  // indexes are its first keys in ascending order whatever order they were set in (ECMA-262,
  // OrdinaryOwnPropertyKeys); a sorted list of them per operation was garbage.
  const out = statusMap();
  out[success[0]] = success[1];
  for (const [status, cases] of own) out[status] = isShared(status) ? responses.ref(status) : caseResponse(cases);
  for (const status of shared) out[status] = responses.ref(status);
  return out;
}

/**
 * The shared statuses a resource operation can answer: the guards', 406, the body's, a change's
 * preconditions (`If-Match`), 500, and the store's 503 and the deadline's 504 (http-behaviour.md
 * "Running in production").
 */
function sharedStatuses(access: Access, hasBody: boolean, change = false): SharedStatus[] {
  // In any order: operationResponses sets them as keys, which are enumerated in numeric order.
  const statuses: SharedStatus[] = ["406", "500", "503", "504"];
  if (access.kind !== "public") statuses.push("401", "403");
  if (hasBody) statuses.push("413", "415");
  if (change) statuses.push("412", "428");
  return statuses;
}

/** The list's query parameters: filters, `status`, declared `query`, then `sort`, `limit` and `cursor`. */
function listParameters(resource: Resource, options: OperationOptions): Json[] {
  const plural = words(resource.name);
  const parameters = resource.fields
    .filter((f) => f.filter)
    .map((field) => queryParameter(field.name, false, field.description ?? `Only ${plural} whose \`${field.name}\` equals this value.`, filterSchema(field)));
  if (resource.status) parameters.push(queryParameter("status", false, `Only ${plural} in this state.`, schemaRef(`${resource.typeName}Status`)));
  for (const field of options.query) {
    parameters.push(
      queryParameter(field.name, field.required, field.description ?? `The \`${field.name}\` parameter, handed to the handler.`, querySchema(field)),
    );
  }
  if (options.sort) {
    const description = "The fields to order by, separated by commas; `-` before a field orders by it descending. Ties are broken by `id`.";
    const schema = { type: "array", items: { type: "string", enum: options.sort.flatMap((f) => [f, `-${f}`]) } };
    // A comma-separated list: `?sort=a,-b`.
    parameters.push({ name: "sort", in: "query", required: false, description, style: "form", explode: false, schema });
  }
  if (options.page) {
    const limit = { type: "integer", minimum: 1, maximum: options.page.max, default: options.page.size };
    parameters.push(
      queryParameter("limit", false, `How many ${plural} to answer at most.`, limit),
      queryParameter("cursor", false, "Where the page starts: the `cursor` of the `next` link of the page before (opaque).", { type: "string", minLength: 1 }),
    );
  }
  return parameters;
}

/** A query parameter of a list. */
function queryParameter(name: string, required: boolean, description: string, schema: JsonSchema): Json {
  return { name, in: "query", required, description, schema };
}

/** What every operation of a resource shares: tags, texts, id, security, extensions. */
interface OperationParts {
  readonly resource: Resource;
  readonly summary: string;
  readonly description: string;
  readonly operationId: string;
  readonly parameters: readonly Json[];
  readonly requestBody?: Json;
  readonly responses: Json;
  readonly access: Access;
  readonly codegen: Json;
  /** The operation's or the action's own: its declared refusals and its `x-` keys. */
  readonly declared: Pick<OperationOptions, "errors" | "extensions">;
}

function operationObject(parts: OperationParts, guards: readonly Guard[]): Json {
  // Why assignments in key order, not spreads of conditional objects: an object per
  // optional key per operation was garbage. Every key set here is codegen's own or starts with `x-`.
  const operation: Json = { tags: [parts.resource.name], summary: parts.summary, description: parts.description, operationId: parts.operationId };
  if (parts.parameters.length > 0) operation.parameters = parts.parameters;
  if (parts.requestBody) operation.requestBody = parts.requestBody;
  operation.responses = parts.responses;
  operation.security = securityFor(parts.access, guards);
  Object.assign(operation, parts.codegen);
  const { errors, extensions } = parts.declared;
  if (errors.length > 0) operation["x-codegen-errors"] = errors.map((e) => e.status);
  return Object.assign(operation, jsonData(parts.resource.accessExtensions), jsonData(extensions));
}

function resourceOperation(resource: Resource, operation: Operation, guards: readonly Guard[], shared: SharedResponses, referrers: readonly Referrer[]): Json {
  const spec = OPERATION_SPECS[operation];
  // Every offered operation has its options (readOperations: the defaults where none are declared).
  const options = resource.options[operation]!;
  const access = resource.access[operation]!;
  const [status, plain] = spec.success(resource, options);
  const changes = operation === "replace" || operation === "update" || operation === "delete";
  const parameters =
    operation === "list" ? listParameters(resource, options) : operation === "get" ? [ifNoneMatchParameter()] : changes ? [ifMatchParameter()] : [];
  // Why: every answer that carries one object carries its ETag (http-behaviour, "Conditional requests").
  const success = operation === "list" || operation === "delete" ? plain : withEtag(plain);
  const body = spec.body ? (operation === "update" ? [] : resource.fields) : undefined;
  const own = new Map([["400", [invalidCase(resource, body, spec.item, parameters)]]]);
  if (spec.item) own.set("404", [notFoundCase(resource)]);
  const transition = resource.status && (operation === "replace" || operation === "update") ? transitionCase(resource.status) : undefined;
  if (transition) own.set("409", [transition]);
  if (operation === "delete" && referrers.length > 0) own.set("409", [referredCase(resource, referrers)]);
  const gone = operation === "create" || operation === "replace" || operation === "update" ? referenceGoneCase(resource) : undefined;
  if (gone) own.set("409", [...(own.get("409") ?? []), gone]);
  const bodySchema = spec.body?.(resource);
  const responses = operationResponses([status, success], own, sharedStatuses(access, spec.body !== undefined, changes), options.errors, shared);
  // A read's 304 (`If-None-Match`): the statuses are enumerated in numeric order whenever set.
  if (operation === "get") responses["304"] = notModifiedResponse();
  return operationObject(
    {
      resource,
      summary: options.summary ?? spec.summary(resource),
      description: options.description ?? spec.description(resource, options),
      operationId: operationIdOf(operation, resource),
      parameters,
      ...(bodySchema
        ? {
            requestBody: {
              required: true,
              content:
                operation === "update"
                  ? { ...json(schemaRef(bodySchema)), "application/merge-patch+json": { schema: schemaRef(bodySchema) } }
                  : json(schemaRef(bodySchema)),
            },
          }
        : {}),
      responses,
      access,
      codegen: {
        "x-codegen-operation": operation,
        ...(options.page ? { "x-codegen-page": { size: options.page.size, max: options.page.max } } : {}),
        ...(options.sort ? { "x-codegen-sort": [...options.sort] } : {}),
      },
      declared: options,
    },
    guards,
  );
}

/** `Renew a loan`: the action's words and the object. */
function actionSummary(resource: Resource, action: Action): string {
  const verb = words(action.name);
  return `${verb[0]!.toUpperCase()}${verb.slice(1)} ${withArticle(words(resource.singular))}`;
}

function actionOperation(resource: Resource, action: Action, guards: readonly Guard[], shared: SharedResponses): Json {
  const singular = words(resource.singular);
  const description =
    `Runs \`${action.name}\` on the ${singular} with this id and answers the ${singular}.` +
    (action.when ? ` Allowed while its status is ${orList(action.when)}.` : "") +
    (action.to !== undefined ? ` Afterwards its status is \`${action.to}\`.` : "") +
    (action.stores ? ` Stores ${orList(action.stores, "and")} of the body on the ${singular}.` : "");
  const own = new Map([
    ["400", [invalidCase(resource, action.body, true, [])]],
    ["404", [notFoundCase(resource)]],
  ]);
  // 409 only when some state refuses the action.
  const { when } = action;
  const refusedIn = when && resource.status?.values.find((s) => !when.includes(s));
  if (when && refusedIn !== undefined) own.set("409", [actionStateCase(resource, action.name, when, refusedIn)]);
  // A `ref` field the action stores may name an object deleted meanwhile: the store refuses that write (409 naming it).
  const gone = action.stores?.some((name) => resource.fields.some((f) => f.name === name && f.ref !== undefined)) ? referenceGoneCase(resource) : undefined;
  if (gone) own.set("409", [...(own.get("409") ?? []), gone]);
  return operationObject(
    {
      resource,
      summary: action.summary ?? actionSummary(resource, action),
      description: action.description ?? description,
      operationId: actionOperationId(action.name, resource.singular),
      parameters: [ifMatchParameter()],
      ...(action.body ? { requestBody: { required: true, content: json(schemaRef(actionRequestName(resource.typeName, action.name))) } } : {}),
      responses: operationResponses(
        ["200", { description: `The ${singular} after the action.`, headers: etagHeader(), content: json(schemaRef(resource.typeName)) }],
        own,
        sharedStatuses(action.access, action.body !== undefined, true),
        action.errors,
        shared,
      ),
      access: action.access,
      codegen: {
        "x-codegen-action": {
          name: action.name,
          ...(action.when ? { when: [...action.when] } : {}),
          ...(action.to !== undefined ? { to: action.to } : {}),
          ...(action.stores ? { stores: [...action.stores] } : {}),
        },
      },
      declared: action,
    },
    guards,
  );
}

function indexOperation(shared: SharedResponses): Json {
  return {
    tags: [INDEX_TAG],
    summary: "List the collections",
    description: "The entry address: every next operation can be discovered from here.",
    operationId: "getIndex",
    responses: operationResponses(
      ["200", { description: "Links to every collection.", content: json(schemaRef("Index")) }],
      new Map([["400", [invalidCase(undefined, undefined, false, [])]]]),
      ["406", "500"],
      [],
      shared,
    ),
    security: [],
  };
}

/** The token endpoint's 400s: the RFC 6749 section 5.2 codes, with the runtime's messages. */
const tokenBadRequest = (): Record<string, Example> => ({
  invalidRequest: { summary: "A required field is missing", value: { error: "invalid_request", detail: { username: "field required" } } },
  unsupportedGrantType: { summary: "Another grant type", value: { error: "unsupported_grant_type", detail: { grant_type: 'must be "password"' } } },
  invalidGrant: {
    summary: "Credentials the application rejects",
    value: { error: "invalid_grant", detail: { password: "the user name or password is not valid" } },
  },
});

function tokenOperation(guard: Guard & { kind: "password" }, shared: SharedResponses): Json {
  return {
    tags: [TOKEN_TAG],
    summary: "Issue an access token",
    description: `Password flow token endpoint of the \`${guard.name}\` guard (RFC 6749 section 4.3).`,
    operationId: "issueToken",
    requestBody: {
      required: true,
      content: { "application/x-www-form-urlencoded": { schema: schemaRef("TokenRequest") } },
    },
    responses: {
      "200": { description: "The issued token.", content: json(schemaRef("TokenResponse")) },
      "400": exampleResponse("`invalid_request`, `unsupported_grant_type`, `invalid_grant` or `invalid_scope` (RFC 6749 section 5.2).", tokenBadRequest()),
      "406": shared.ref("406"),
      "413": shared.ref("413"),
      "415": caseResponse([
        errorCase("The body is not `application/x-www-form-urlencoded`.", "notForm", "`Content-Type: application/json`", "Unsupported media type", {
          "content-type": "must be application/x-www-form-urlencoded",
        }),
      ]),
      "500": shared.ref("500"),
      // The application's issueToken hook runs within the request's deadline.
      "504": shared.ref("504"),
    },
    security: [],
    "x-codegen-token-endpoint": { guard: guard.name, form: guard.form },
  };
}

function securityScheme(guard: Guard, firstServer: string | undefined): Json {
  const flows: Json =
    guard.kind === "password"
      ? { password: { tokenUrl: guard.tokenUrl, scopes: { ...guard.scopes } } }
      : guard.kind === "authorizationCode"
        ? {
            authorizationCode: {
              authorizationUrl: guard.authorizationUrl,
              tokenUrl: guard.tokenUrl,
              ...(guard.refreshUrl !== undefined ? { refreshUrl: guard.refreshUrl } : {}),
              scopes: { ...guard.scopes },
            },
          }
        : (jsonData(guard.flows) as Json);
  return {
    type: "oauth2",
    ...(guard.description !== undefined ? { description: guard.description } : {}),
    flows: servedFlows(flows, (value) => servedUrl(value, firstServer)),
    ...(guard.kind === "password" ? { "x-codegen-form": guard.form } : {}),
    "x-codegen-guard": guard.kind,
    ...(guard.autoError ? {} : { "x-codegen-auto-error": false }),
    ...jsonData(guard.extensions),
  };
}

/** A guard's flows with each of their URLs as servedUrl gives it. */
function servedFlows(flows: Json, url: (value: string) => string): Json {
  const keys = ["authorizationUrl", "tokenUrl", "refreshUrl"];
  return Object.fromEntries(
    Object.entries(flows).map(([name, flow]) => [
      name,
      typeof flow === "object" && flow !== null
        ? Object.fromEntries(Object.entries(flow).map(([key, value]) => [key, keys.includes(key) && typeof value === "string" ? url(value) : value]))
        : flow,
    ]),
  );
}

/** A URL's scheme (`https:`): the URL is absolute. */
const SCHEMES = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * A URL the declaration gives as a path this API serves (`/token`), as OpenAPI resolves it: a
 * relative reference resolves against the server URL by RFC 3986 (so `/token` under
 * `https://vet.example.com/api` would be `https://vet.example.com/token`, not the endpoint at
 * `/api/token`), and the published 3.1 schema asks for an absolute URI. Joined to the first server
 * (the one the generated server takes its base path from): absolute when that server is, else an
 * absolute path under its path. Absolute URLs are kept as declared.
 */
export function servedUrl(url: string, firstServer: string | undefined): string {
  if (!url.startsWith("/") || url.startsWith("//") || firstServer === undefined) return url;
  const base = firstServer.replace(/\/+$/, "");
  if (SCHEMES.test(base) || base.startsWith("/")) return `${base}${url}`;
  return url;
}

/** The documents expandDeclaration made (see isExpansion). */
const expansions = new WeakSet<object>();

/**
 * Whether a document is one expandDeclaration made, whose form is known by construction: every
 * `$ref` in a schema names a schema of `components/schemas`, every other one is a shared answer
 * of `components/responses` at an operation's response, and its size is linear in the
 * declaration's. Why: src/compile/api/foreign.ts then skips walking its schemas and data.
 */
export function isExpansion(document: object): boolean {
  return expansions.has(document);
}

/**
 * Expand a validated declaration into an OpenAPI 3.1 document (openapi.md). Pure: the same
 * declaration gives the same document, keys in declaration order.
 */
export function expandDeclaration(declaration: Declaration): OpenAPIV3_1.Document {
  const { guards, resources } = declaration;
  const tokenGuard = servedTokenEndpoint(guards);
  const shared = new SharedResponses(guards);
  const referrers = referrersOf(resources);

  const paths: Json = { "/": { get: indexOperation(shared) } };
  for (const resource of resources) {
    const collection: Json = {};
    const item: Json = {};
    for (const operation of resource.operations) {
      const spec = OPERATION_SPECS[operation];
      (spec.item ? item : collection)[spec.method] = resourceOperation(resource, operation, guards, shared, referrers.get(resource.name) ?? []);
    }
    const idParameter = () => ({ name: "id", in: "path", required: true, description: `The ${words(resource.singular)}'s id.`, schema: idSchema(resource) });
    if (Object.keys(collection).length > 0) paths[`/${resource.name}`] = collection;
    if (Object.keys(item).length > 0) paths[`/${resource.name}/{id}`] = { parameters: [idParameter()], ...item };
    for (const action of resource.actions) {
      paths[`/${resource.name}/{id}/${action.name}`] = {
        parameters: [idParameter()],
        [action.method.toLowerCase()]: actionOperation(resource, action, guards, shared),
      };
    }
  }
  if (tokenGuard) paths[tokenGuard.tokenUrl] = { post: tokenOperation(tokenGuard, shared) };

  const schemas: Record<string, JsonSchema> = {};
  for (const resource of resources) {
    Object.assign(schemas, resourceSchemas(resource));
    for (const action of resource.actions) {
      if (action.body) schemas[actionRequestName(resource.typeName, action.name)] = actionRequestSchema(resource, { ...action, body: action.body });
    }
  }
  // Every operation's 400 refers to Error, the index to Index and Index to Link; AuthError only a guard's refusal.
  schemas.Error = errorSchema();
  if (shared.refersToAuthError()) schemas.AuthError = authErrorSchema();
  Object.assign(schemas, { Link: linkSchema(), Index: indexSchema() });
  if (tokenGuard) {
    schemas.TokenRequest = tokenRequestSchema(tokenGuard.form);
    schemas.TokenResponse = tokenResponseSchema();
  }

  const servers =
    declaration.servers.length > 0
      ? declaration.servers.map((s) => ({ url: s.url, ...(s.description !== undefined ? { description: s.description } : {}), ...jsonData(s.extensions) }))
      : [{ url: "/" }];

  const tags = [
    { name: INDEX_TAG, description: "The entry address: links to every collection." },
    ...resources.map((r) => ({ name: r.name, description: r.description ?? `The \`${r.name}\` collection.` })),
    ...(tokenGuard ? [{ name: TOKEN_TAG, description: `The token endpoint of the \`${tokenGuard.name}\` guard.` }] : []),
  ];
  const responses = shared.components();
  const document: Json = {
    openapi: OPENAPI_VERSION,
    info: jsonData(declaration.info),
    servers,
    tags,
    paths,
    components: {
      schemas,
      ...(Object.keys(responses).length > 0 ? { responses } : {}),
      ...(guards.length > 0 ? { securitySchemes: Object.fromEntries(guards.map((g) => [g.name, securityScheme(g, declaration.servers[0]?.url)])) } : {}),
    },
    ...jsonData(declaration.extensions),
  };
  // Why no deep copy of the whole: every part is built anew here and what comes from the
  // declaration's data passes jsonData, so no object is shared with the declaration, with another
  // run or between two places of the document (test/compile/expand/expand-json.test.ts checks all three).
  expansions.add(document);
  return document as unknown as OpenAPIV3_1.Document;
}
