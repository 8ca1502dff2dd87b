import type { Action, Field, Operation, Resource } from "../declaration/model.js";
import { withArticle, words } from "../declaration/names.js";

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it) as plain data. */
export type JsonSchema = Record<string, unknown>;

/** `#/components/schemas/<name>`. */
export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/**
 * Data a declaration supplies (info, extensions, defaults, examples, enum values, numbers) as JSON
 * holds it: what a JSON round trip makes of it (objects with Object's prototype, `-0` as 0; `.inf`
 * and `.nan`, which validation refuses, as null). Every value of the expanded document that comes from the declaration's
 * loaded data passes here; the rest codegen builds itself, fresh, from strings and booleans.
 * Why: the whole document went through JSON text for this (and a structuredClone of
 * its schemas), half of the expansion's time; test/compile/expand/expand-json.test.ts holds the two equal.
 */
export function jsonData<T>(value: T): T {
  if (typeof value === "number") return (Number.isFinite(value) ? value + 0 : null) as T;
  if (typeof value !== "object" || value === null) return value;
  // Most extensions are none: an empty map needs no trip through text.
  if (!Array.isArray(value) && isEmpty(value)) return {} as T;
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Whether an object has no own enumerable key (its prototype may be null). */
function isEmpty(value: object): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}

/**
 * An empty object for HTTP statuses as keys (a Responses object). Why: V8 keeps keys
 * such as "200" and "500" in an array as long as the largest (617 slots, 5 KB, for ten
 * statuses); a key far past them, set and deleted, turns the object into a dictionary first (500
 * bytes, and five times faster to fill). Its keys and their order are those of any object.
 */
export function statusMap<T = unknown>(): Record<string, T> {
  const map: Record<string, unknown> = {};
  map[FAR_INDEX] = undefined;
  delete map[FAR_INDEX];
  return map as Record<string, T>;
}
const FAR_INDEX = "1000000";

/** Which body a field schema is for: the representation, POST/PUT input, or PATCH input. */
export type SchemaRole = "output" | "input" | "patch";

/** The JSON Schema of one field, for one role. */
export function fieldSchema(field: Field, role: SchemaRole): JsonSchema {
  // PATCH is a JSON merge patch (RFC 7396): `null` clears an optional field, so it may be sent.
  const nullable = field.nullable || (role === "patch" && !field.required);
  const schema: JsonSchema = {};
  if (field.description !== undefined) schema.description = field.description;
  schema.type = nullable ? [field.type, "null"] : field.type;
  if (field.format !== undefined) schema.format = field.format;
  if (field.enum !== undefined) schema.enum = nullable ? [...jsonData(field.enum), null] : jsonData(field.enum);
  for (const key of ["minLength", "maxLength", "pattern", "minimum", "maximum", "minItems", "maxItems"] as const) {
    if (field[key] !== undefined) schema[key] = jsonData(field[key]);
  }
  if (field.items) schema.items = fieldSchema(field.items, role === "patch" ? "input" : role);
  if (field.fields) Object.assign(schema, objectSchema(field.fields, role));
  if (field.default !== undefined && role !== "patch") schema.default = jsonData(field.default.value);
  if (field.readOnly) schema.readOnly = true;
  if (field.writeOnly) schema.writeOnly = true;
  if (field.example !== undefined) schema.examples = [jsonData(field.example.value)];
  if (field.ref !== undefined) schema["x-codegen-ref"] = field.ref;
  if (field.filter) schema["x-codegen-filter"] = true;
  if (field.renamedFrom !== undefined) schema["x-codegen-renamed-from"] = field.renamedFrom;
  Object.assign(schema, jsonData(field.extensions));
  return schema;
}

/** `properties` (codegen's own `before` and `after` the fields'), `required` and `additionalProperties: false` for a list of fields. */
function objectSchema(fields: readonly Field[], role: SchemaRole, before?: [string, JsonSchema][], after?: [string, JsonSchema][]): JsonSchema {
  const required = requiredOf(fields, role);
  return { properties: propertiesOf(fields, role, before, after), ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/**
 * The `properties` of a list of fields, between codegen's own `before` and `after`, made in one
 * object. Why: the fields' properties were made and then spread into a second object
 * with codegen's; `Object.fromEntries` keeps the spread's meaning (own keys, `__proto__` too, a
 * later key taking an earlier one's place).
 */
function propertiesOf(fields: readonly Field[], role: SchemaRole, before: [string, JsonSchema][] = [], after: [string, JsonSchema][] = []): JsonSchema {
  const entries = before;
  for (const field of fields) if (role !== "output" || !field.writeOnly) entries.push([field.name, fieldSchema(field, role)]);
  entries.push(...after);
  return Object.fromEntries(entries);
}

/** The names of the fields a body of this role must hold. */
function requiredOf(fields: readonly Field[], role: SchemaRole): string[] {
  if (role === "patch") return [];
  return fields.filter((f) => (role === "output" ? !f.writeOnly : true) && f.required && !(role === "input" && f.readOnly)).map((f) => f.name);
}

/** The body of an action that declares one (`LoanRenewRequest`): its fields, as a POST body takes them. */
export function actionRequestSchema(resource: Resource, action: Action & { readonly body: readonly Field[] }): JsonSchema {
  return {
    type: "object",
    description: `The body of the \`${action.name}\` action on ${withArticle(words(resource.singular))}.`,
    ...objectSchema(action.body, "input"),
  };
}

/** The schema of an extra query parameter (`query` of a list): the field's schema, its description on the parameter. */
export function querySchema(field: Field): JsonSchema {
  const { description: _d, ...rest } = fieldSchema(field, "input");
  return rest;
}

/** The schema of a resource's `<id>`. */
export function idSchema(resource: Resource): JsonSchema {
  switch (resource.id) {
    case "integer":
      return { type: "integer", minimum: 1 };
    case "uuid":
      return { type: "string", format: "uuid" };
    case "string":
      return { type: "string", minLength: 1 };
  }
}

/**
 * The schemas of a resource: the representation (`Article`: id, fields, status, links), which
 * always stays (the code reads the resource from it), the POST/PUT body (`ArticleInput`) where
 * `create` or `replace` is offered, the PATCH body (`ArticlePatch`) where `update` is, and its
 * states (`ArticleStatus`). Why only those: a component no operation uses is left out
 * (docs/openapi.md), so linters find none unused.
 */
export function resourceSchemas(resource: Resource): Record<string, JsonSchema> {
  const { typeName, status } = resource;
  const statusSchema = status ? schemaRef(`${typeName}Status`) : undefined;
  const output: JsonSchema = {
    type: "object",
    ...(resource.description !== undefined ? { description: resource.description } : {}),
    properties: propertiesOf(
      resource.fields,
      "output",
      [["id", { ...idSchema(resource), readOnly: true }]],
      [...(statusSchema ? [["status", statusSchema] as [string, JsonSchema]] : []), ["links", { type: "array", items: schemaRef("Link"), readOnly: true }]],
    ),
    required: ["id", ...requiredOf(resource.fields, "output"), ...(status ? ["status"] : []), "links"],
    additionalProperties: false,
    "x-codegen-resource": resourceExtension(resource),
    ...jsonData(resource.extensions),
  };

  // `id` and `links` may be sent back as received (http-behaviour.md, Requests); they are ignored.
  const body = (role: "input" | "patch"): JsonSchema => ({
    type: "object",
    ...objectSchema(
      resource.fields,
      role,
      [
        ["id", { ...idSchema(resource), readOnly: true, description: "ignored; must equal the path id when sent" }],
        ["links", { type: "array", items: schemaRef("Link"), readOnly: true, description: "ignored" }],
      ],
      statusSchema ? [["status", { ...statusSchema, description: "ignored on create; on replace and update only along a declared transition" }]] : [],
    ),
  });
  const schemas: Record<string, JsonSchema> = { [typeName]: output };
  const offers = (operation: Operation) => resource.operations.includes(operation);
  if (offers("create") || offers("replace")) schemas[`${typeName}Input`] = body("input");
  if (offers("update")) schemas[`${typeName}Patch`] = body("patch");
  if (status) {
    schemas[`${typeName}Status`] = {
      type: "string",
      enum: [...status.values],
      ...(status.description !== undefined ? { description: status.description } : {}),
      ...jsonData(status.extensions),
    };
  }
  return schemas;
}

/**
 * What the generated server needs to know of a resource and OpenAPI has no word for
 * (openapi.md, "What OpenAPI cannot say").
 */
function resourceExtension(resource: Resource): JsonSchema {
  return {
    collection: resource.name,
    singular: resource.singular,
    id: resource.id,
    ...(resource.status
      ? {
          status: {
            initial: resource.status.initial,
            transitions: Object.fromEntries([...resource.status.transitions].map(([from, to]) => [from, [...to]])),
          },
        }
      : {}),
    links: linkRules(resource),
  };
}

/**
 * The link rules of a resource: its declared links, then one per action, offered in the action's
 * `when` states, with `action` naming the segment its `href` adds to the object's address. An
 * action named like a declared link replaces that link in its place (declaration.md, "Actions").
 */
function linkRules(resource: Resource): JsonSchema[] {
  const actionRule = (action: Action): JsonSchema => ({
    rel: action.name,
    method: action.method,
    ...(action.when ? { when: [...action.when] } : {}),
    action: action.name,
  });
  const declared = resource.links.map((link) => {
    const action = resource.actions.find((a) => a.name === link.rel);
    if (action) return actionRule(action);
    return {
      rel: link.rel,
      method: link.method,
      ...(link.when ? { when: [...link.when] } : {}),
      ...(link.href !== undefined ? { href: link.href } : {}),
      ...(link.description !== undefined ? { description: link.description } : {}),
      ...jsonData(link.extensions),
    };
  });
  const rest = resource.actions.filter((a) => !resource.links.some((link) => link.rel === a.name)).map(actionRule);
  return [...declared, ...rest];
}

/** The generator's own schemas (openapi.md, Shape), each made anew: a document shares no object with another. */
export const errorSchema = (): JsonSchema => ({
  type: "object",
  description: "Every error answer: a short message and per-field messages.",
  properties: {
    error: { type: "string" },
    detail: { type: "object", additionalProperties: { type: "string" } },
  },
  required: ["error", "detail"],
});

/** The guards' error body (`AuthError`). */
export const authErrorSchema = (): JsonSchema => ({
  type: "object",
  description: "The answer of a guard that refuses a request.",
  properties: { detail: { type: "string" } },
  required: ["detail"],
});

/** A link of a representation (`Link`). */
export const linkSchema = (): JsonSchema => ({
  type: "object",
  description: "A related operation: its relation name, method and address.",
  properties: {
    rel: { type: "string" },
    method: { type: "string", enum: ["GET", "POST", "PUT", "PATCH", "DELETE"] },
    href: { type: "string" },
  },
  required: ["rel", "method", "href"],
});

/** The index's body (`Index`). */
export const indexSchema = (): JsonSchema => ({
  type: "object",
  description: "The entry address: a link to every collection (and the token endpoint).",
  properties: { links: { type: "array", items: schemaRef("Link") } },
  required: ["links"],
});

/** The password token request form (seed, "Password token request"). */
export function tokenRequestSchema(form: "permissive" | "strict"): JsonSchema {
  const nullableString = () => ({ type: ["string", "null"] });
  return {
    type: "object",
    description: `Password token request (${form} form: grant_type ${form === "strict" ? "required" : "optional"}).`,
    properties: {
      grant_type: { type: form === "strict" ? "string" : ["string", "null"], pattern: "^password$" },
      username: { type: "string" },
      password: { type: "string", format: "password" },
      scope: { type: "string", default: "", description: "scopes separated by spaces" },
      client_id: nullableString(),
      client_secret: { ...nullableString(), format: "password" },
    },
    required: form === "strict" ? ["grant_type", "username", "password"] : ["username", "password"],
  };
}

/** The token endpoint's answer (`TokenResponse`). */
export const tokenResponseSchema = (): JsonSchema => ({
  type: "object",
  description: "An issued access token (RFC 6749 section 5.1).",
  properties: {
    access_token: { type: "string" },
    token_type: { type: "string" },
    expires_in: { type: "integer" },
    refresh_token: { type: "string" },
    scope: { type: "string" },
  },
  required: ["access_token", "token_type"],
});
