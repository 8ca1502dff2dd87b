import type { OpenAPIV3_1 } from "openapi-types";
import type { Access, Declaration, Field, Guard, Operation, Resource } from "../declaration/model.js";
import { guardScopes, servedTokenEndpoint } from "../declaration/model.js";
import { camelCase, withArticle, words } from "../declaration/names.js";
import {
  AUTH_ERROR_SCHEMA,
  ERROR_SCHEMA,
  INDEX_SCHEMA,
  type JsonSchema,
  LINK_SCHEMA,
  TOKEN_RESPONSE_SCHEMA,
  fieldSchema,
  idSchema,
  resourceSchemas,
  schemaRef,
  tokenRequestSchema,
} from "./schemas.js";

/** The OpenAPI version the expansion writes. */
export const OPENAPI_VERSION = "3.1.1";

type Json = Record<string, unknown>;
const json = (schema: JsonSchema) => ({ "application/json": { schema } });

/** Every error status an operation can answer, with its description (http-behaviour.md, Errors). */
const ERROR_RESPONSES: Record<string, string> = {
  "400": "The request is invalid: each bad field is named in `detail`.",
  "401": "No valid credential: the guard asks for a bearer token.",
  "403": "The credential lacks a required scope (or the generic guard found no credential).",
  "404": "No object has this id.",
  "406": "The `Accept` header admits no JSON.",
  "409": "The status change is not along a declared transition.",
  "413": "The body is larger than the server accepts.",
  "415": "The body is not JSON.",
  "500": "The server failed; no internals are shown.",
};

function errorResponse(status: string): Json {
  const description = ERROR_RESPONSES[status]!;
  if (status === "401") {
    return {
      description,
      headers: { "WWW-Authenticate": { description: "`Bearer` (RFC 6750 section 3)", schema: { type: "string" } } },
      content: json(schemaRef("AuthError")),
    };
  }
  if (status === "403") {
    return {
      description,
      headers: {
        "WWW-Authenticate": {
          description: 'For bearer guards: `Bearer error="insufficient_scope", scope="..."` (RFC 6750 section 3.1)',
          schema: { type: "string" },
        },
      },
      content: json(schemaRef("AuthError")),
    };
  }
  return { description, content: json(schemaRef("Error")) };
}

/** What differs between the six operations of a resource. */
interface OperationSpec {
  readonly method: "get" | "post" | "put" | "patch" | "delete";
  readonly item: boolean;
  readonly verb: string;
  readonly summary: (r: Resource) => string;
  readonly body?: (r: Resource) => string;
  readonly success: (r: Resource) => [string, Json];
}

const OPERATION_SPECS: Record<Operation, OperationSpec> = {
  list: {
    method: "get",
    item: false,
    verb: "list",
    summary: (r) => `List ${words(r.name)}`,
    success: (r) => ["200", { description: `Every matching ${words(r.singular)}.`, content: json({ type: "array", items: schemaRef(r.typeName) }) }],
  },
  get: {
    method: "get",
    item: true,
    verb: "get",
    summary: (r) => `Get ${withArticle(words(r.singular))}`,
    success: (r) => ["200", { description: `The ${words(r.singular)}.`, content: json(schemaRef(r.typeName)) }],
  },
  create: {
    method: "post",
    item: false,
    verb: "create",
    summary: (r) => `Create ${withArticle(words(r.singular))}`,
    body: (r) => `${r.typeName}Input`,
    success: (r) => [
      "201",
      {
        description: `The created ${words(r.singular)}.`,
        headers: { Location: { description: "The new object's address.", schema: { type: "string" } } },
        content: json(schemaRef(r.typeName)),
      },
    ],
  },
  replace: {
    method: "put",
    item: true,
    verb: "replace",
    summary: (r) => `Replace ${withArticle(words(r.singular))}`,
    body: (r) => `${r.typeName}Input`,
    success: (r) => ["200", { description: `The complete ${words(r.singular)}.`, content: json(schemaRef(r.typeName)) }],
  },
  update: {
    method: "patch",
    item: true,
    verb: "update",
    summary: (r) => `Update ${withArticle(words(r.singular))}`,
    body: (r) => `${r.typeName}Patch`,
    success: (r) => ["200", { description: `The complete ${words(r.singular)}.`, content: json(schemaRef(r.typeName)) }],
  },
  delete: {
    method: "delete",
    item: true,
    verb: "delete",
    summary: (r) => `Delete ${withArticle(words(r.singular))}`,
    success: () => ["204", { description: "Deleted; no body." }],
  },
};

/** The operationId of a resource operation: `listArticles`, `getArticle`, ... */
export function operationId(resource: Resource, operation: Operation): string {
  const spec = OPERATION_SPECS[operation];
  return camelCase(`${spec.verb}-${operation === "list" ? resource.name : resource.singular}`);
}

/** The security requirements for an access rule (openapi.md, Operation `security`). */
function securityFor(access: Access, guards: readonly Guard[]): Json[] {
  if (access.kind === "public") return [];
  const scopes = access.kind === "scopes" ? access.scopes : [];
  const requirements = guards
    .filter((g) => scopes.every((s) => guardScopes(g).has(s)))
    .map((g) => ({ [g.name]: [...scopes] }));
  return access.kind === "optional" ? [...requirements, {}] : requirements;
}

/** Error statuses of a resource operation, in numeric order. */
function errorStatuses(resource: Resource, operation: Operation, access: Access): string[] {
  const spec = OPERATION_SPECS[operation];
  const statuses = ["400"];
  if (access.kind !== "public") statuses.push("401", "403");
  if (spec.item) statuses.push("404");
  statuses.push("406");
  if (resource.status && (operation === "replace" || operation === "update")) statuses.push("409");
  if (spec.body) statuses.push("413", "415");
  statuses.push("500");
  return statuses;
}

/** A filter query parameter's schema: the field's scalar schema, without null or defaults. */
function filterSchema(field: Field): JsonSchema {
  const { description: _d, default: _default, example: _e, readOnly: _r, writeOnly: _w, filter: _f, ...rest } = fieldSchema(
    { ...field, nullable: false, readOnly: false, writeOnly: false, filter: false },
    "output",
  ) as Json;
  return rest;
}

function resourceOperation(resource: Resource, operation: Operation, guards: readonly Guard[]): Json {
  const spec = OPERATION_SPECS[operation];
  const access = resource.access[operation]!;
  const [status, success] = spec.success(resource);
  const parameters: Json[] = [];
  if (operation === "list") {
    for (const field of resource.fields.filter((f) => f.filter)) {
      parameters.push({
        name: field.name,
        in: "query",
        required: false,
        description: field.description ?? `Only ${words(resource.name)} whose \`${field.name}\` equals this value.`,
        schema: filterSchema(field),
      });
    }
    if (resource.status) {
      parameters.push({
        name: "status",
        in: "query",
        required: false,
        description: `Only ${words(resource.name)} in this state.`,
        schema: schemaRef(`${resource.typeName}Status`),
      });
    }
  }
  const responses: Json = { [status]: success };
  for (const code of errorStatuses(resource, operation, access)) responses[code] = errorResponse(code);
  return {
    tags: [resource.name],
    summary: spec.summary(resource),
    operationId: operationId(resource, operation),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            content:
              operation === "update"
                ? { ...json(schemaRef(spec.body(resource))), "application/merge-patch+json": { schema: schemaRef(spec.body(resource)) } }
                : json(schemaRef(spec.body(resource))),
          },
        }
      : {}),
    responses,
    security: securityFor(access, guards),
    "x-codegen-operation": operation,
    ...resource.accessExtensions,
  };
}

function indexOperation(): Json {
  return {
    summary: "List the collections",
    description: "The entry address: every next operation can be discovered from here.",
    operationId: "getIndex",
    responses: {
      "200": { description: "Links to every collection.", content: json(schemaRef("Index")) },
      "400": errorResponse("400"),
      "406": errorResponse("406"),
      "500": errorResponse("500"),
    },
    security: [],
  };
}

function tokenOperation(guard: Guard & { kind: "password" }): Json {
  return {
    summary: "Issue an access token",
    description: `Password flow token endpoint of the \`${guard.name}\` guard (RFC 6749 section 4.3).`,
    operationId: "issueToken",
    requestBody: {
      required: true,
      content: { "application/x-www-form-urlencoded": { schema: schemaRef("TokenRequest") } },
    },
    responses: {
      "200": { description: "The issued token.", content: json(schemaRef("TokenResponse")) },
      "400": {
        description: "`invalid_request`, `unsupported_grant_type`, `invalid_grant` or `invalid_scope` (RFC 6749 section 5.2).",
        content: json(schemaRef("Error")),
      },
      "406": errorResponse("406"),
      "413": errorResponse("413"),
      "415": { description: "The body is not `application/x-www-form-urlencoded`.", content: json(schemaRef("Error")) },
      "500": errorResponse("500"),
    },
    security: [],
    "x-codegen-token-endpoint": { guard: guard.name, form: guard.form },
  };
}

function securityScheme(guard: Guard): Json {
  const description = guard.description !== undefined ? { description: guard.description } : {};
  const own = { "x-codegen-guard": guard.kind, ...(guard.autoError ? {} : { "x-codegen-auto-error": false }), ...guard.extensions };
  switch (guard.kind) {
    case "password":
      return {
        type: "oauth2",
        ...description,
        flows: { password: { tokenUrl: guard.tokenUrl, scopes: { ...guard.scopes } } },
        "x-codegen-form": guard.form,
        ...own,
      };
    case "authorizationCode":
      return {
        type: "oauth2",
        ...description,
        flows: {
          authorizationCode: {
            authorizationUrl: guard.authorizationUrl,
            tokenUrl: guard.tokenUrl,
            ...(guard.refreshUrl !== undefined ? { refreshUrl: guard.refreshUrl } : {}),
            scopes: { ...guard.scopes },
          },
        },
        ...own,
      };
    case "oauth2":
      return { type: "oauth2", ...description, flows: structuredClone(guard.flows), ...own };
  }
}

/**
 * Expand a validated declaration into an OpenAPI 3.1 document (openapi.md). Pure: the same
 * declaration gives the same document, keys in declaration order.
 */
export function expandDeclaration(declaration: Declaration): OpenAPIV3_1.Document {
  const { guards, resources } = declaration;
  const tokenGuard = servedTokenEndpoint(guards);

  const paths: Json = { "/": { get: indexOperation() } };
  for (const resource of resources) {
    const collection: Json = {};
    const item: Json = {};
    for (const operation of resource.operations) {
      const spec = OPERATION_SPECS[operation];
      (spec.item ? item : collection)[spec.method] = resourceOperation(resource, operation, guards);
    }
    if (Object.keys(collection).length > 0) paths[`/${resource.name}`] = collection;
    if (Object.keys(item).length > 0) {
      paths[`/${resource.name}/{id}`] = {
        parameters: [{ name: "id", in: "path", required: true, description: `The ${words(resource.singular)}'s id.`, schema: idSchema(resource) }],
        ...item,
      };
    }
  }
  if (tokenGuard) paths[tokenGuard.tokenUrl] = { post: tokenOperation(tokenGuard) };

  const schemas: Record<string, JsonSchema> = {};
  for (const resource of resources) Object.assign(schemas, resourceSchemas(resource));
  Object.assign(schemas, { Error: ERROR_SCHEMA, AuthError: AUTH_ERROR_SCHEMA, Link: LINK_SCHEMA, Index: INDEX_SCHEMA });
  if (tokenGuard) {
    schemas.TokenRequest = tokenRequestSchema(tokenGuard.form);
    schemas.TokenResponse = TOKEN_RESPONSE_SCHEMA;
  }

  const servers = declaration.servers.length > 0
    ? declaration.servers.map((s) => ({ url: s.url, ...(s.description !== undefined ? { description: s.description } : {}), ...s.extensions }))
    : [{ url: "/" }];

  const document: Json = {
    openapi: OPENAPI_VERSION,
    info: structuredClone(declaration.info),
    servers,
    tags: resources.map((r) => ({ name: r.name, description: r.description ?? `The \`${r.name}\` collection.` })),
    paths,
    components: {
      schemas: structuredClone(schemas),
      ...(guards.length > 0 ? { securitySchemes: Object.fromEntries(guards.map((g) => [g.name, securityScheme(g)])) } : {}),
    },
    ...structuredClone(declaration.extensions),
  };
  // A deep copy: no object is shared with the declaration or between two places of the document.
  return JSON.parse(JSON.stringify(document)) as OpenAPIV3_1.Document;
}
