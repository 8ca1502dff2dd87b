import type { Pattern, Property, Shape, ShapeDefs } from "./shape.js";
import { toJsonSchema } from "./shape.js";

/** The six operations a resource can offer, in the order they are emitted. */
export const OPERATIONS = ["list", "get", "create", "replace", "update", "delete"] as const;
/** Field types of the declaration format. */
export const FIELD_TYPES = ["string", "integer", "number", "boolean", "array", "object"] as const;
/** String formats a field may declare; each is checked by the generated server. */
export const STRING_FORMATS = ["date", "date-time", "email", "uri", "uuid"] as const;
/** Which constraint keys apply to which field types. */
export const KEYS_FOR_TYPE: Readonly<Record<string, readonly (typeof FIELD_TYPES)[number][]>> = {
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
/** Keys of `access`, most general first. */
export const ACCESS_KEYS = ["all", "read", "write", ...OPERATIONS] as const;

/**
 * The longest name of a declaration (resources, singulars, fields, query parameters, states,
 * actions, links, scopes, guards), in characters (docs/declaration.md, "Names"). Why a limit: a
 * name is copied into paths, file names, type names, operationIds, SQL identifiers and messages
 * many times over; 128 holds any name a person writes, and keeps every file name it makes
 * (`resources/<name>.gen.ts`) within a file system's 255 bytes.
 */
export const NAME_LIMIT = 128;

/** Lower-case path segment: the collection name becomes `/<name>`. */
export const RESOURCE_NAME: Pattern = {
  regex: "^[a-z][a-z0-9]*(-[a-z0-9]+)*$",
  maxLength: NAME_LIMIT,
  rule: "must be one lower-case path segment: words of letters and digits joined by single `-`, starting with a letter (a sub-collection is a `ref` field with `filter: true`, never a nested path)",
};
/** Field names become JSON properties and TypeScript property names. */
const FIELD_NAME: Pattern = {
  regex: "^[A-Za-z][A-Za-z0-9_]*$",
  maxLength: NAME_LIMIT,
  rule: "must start with a letter and hold only letters, digits and `_`",
};
/** RFC 6749 section 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_NAME: Pattern = {
  regex: "^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$",
  maxLength: NAME_LIMIT,
  rule: 'may hold only visible ASCII other than `"` and `\\` (RFC 6749 section 3.3)',
};
/** An action is addressed one segment below its object: `/loans/{id}/renew`. */
const ACTION_NAME: Pattern = {
  regex: RESOURCE_NAME.regex,
  maxLength: NAME_LIMIT,
  rule: "must be one lower-case path segment: words of letters and digits joined by single `-`, starting with a letter",
};
/** The statuses a handler may refuse with (declaration.md, "Operations (map form)"). */
const ERROR_STATUSES = ["400", "402", "404", "409", "410", "412", "422", "423", "429"] as const;
const ERROR_STATUS: Pattern = {
  regex: `^(${ERROR_STATUSES.join("|")})$`,
  rule: `must be a status a handler may refuse with: ${ERROR_STATUSES.slice(0, -1).join(", ")} or ${ERROR_STATUSES[ERROR_STATUSES.length - 1]}`,
};
const NOT_BLANK: Pattern = { regex: "\\S", rule: "must not be blank" };
const STATE_NAME: Pattern = {
  regex: "^[A-Za-z][A-Za-z0-9_-]*$",
  rule: "must start with a letter and hold only letters, digits, `_` and `-`",
  maxLength: NAME_LIMIT,
};
const REL_NAME: Pattern = {
  regex: "^[A-Za-z][A-Za-z0-9_.-]*$",
  rule: "must start with a letter and hold only letters, digits, `_`, `.` and `-`",
  maxLength: NAME_LIMIT,
};
const SEMVER_FREE: Pattern = { regex: "^\\S(.*\\S)?$", rule: "must be one non-blank line without white space at its start or end" };

/** JSON Schema: the object has `key` (named in `properties` too, as ajv's strict mode asks). */
const has = (key: string, value: Record<string, unknown> = {}) => ({ properties: { [key]: value }, required: [key] });
/** JSON Schema: when the object has `key` set to `value`, it must match `then` as well. */
const given = (key: string, value: unknown, then: Record<string, unknown>) => ({ if: has(key, { const: value }), then });
/** JSON Schema: when the object lacks `key`, it must match `then` as well. */
const without = (key: string, then: Record<string, unknown>) => ({ if: { not: has(key) }, then });
/** JSON Schema: the object has none of `keys`. */
const none = (...keys: string[]) => ({ type: "object", not: { anyOf: keys.map((key) => has(key)) } });
/** JSON Schema: a map each of whose values matches `values`. */
const eachValue = (values: Record<string, unknown>) => ({ type: "object", additionalProperties: values });
/** JSON Schema: a map whose keys are none of `names`. */
const keysNot = (...names: string[]) => ({ type: "object", propertyNames: { not: { enum: names } } });

const withSchemaOnly = <S extends Extract<Shape, { kind: "object" }>>(shape: S, schemaOnly: Record<string, unknown>): S => ({ ...shape, schemaOnly });
const str = (description?: string): Shape => ({ kind: "string", ...(description ? { description } : {}) });
const bool = (description: string): Shape => ({ kind: "boolean", description });
const count = (description: string): Shape => ({ kind: "integer", minimum: 0, description });
const opt = (shape: Shape): Property => ({ shape });
const req = (shape: Shape): Property => ({ shape, required: true });
const object = (properties: Record<string, Property>, description?: string): Extract<Shape, { kind: "object" }> => ({
  kind: "object",
  properties,
  ...(description ? { description } : {}),
});

const scopes: Shape = {
  kind: "map",
  noun: "scope",
  keys: SCOPE_NAME,
  values: str("what the scope allows"),
  description: "scope name -> description; default {}",
};

const url = (description: string): Property => req(str(description));
/** An OpenAPI OAuth Flows object, for the generic guard; copied as is. */
const oauthFlows: Shape = {
  ...object(
    {
      implicit: opt(object({ authorizationUrl: url("authorization URL"), refreshUrl: opt(str()), scopes: req(scopes) })),
      password: opt(object({ tokenUrl: url("token URL"), refreshUrl: opt(str()), scopes: req(scopes) })),
      clientCredentials: opt(object({ tokenUrl: url("token URL"), refreshUrl: opt(str()), scopes: req(scopes) })),
      authorizationCode: opt(object({ authorizationUrl: url("authorization URL"), tokenUrl: url("token URL"), refreshUrl: opt(str()), scopes: req(scopes) })),
    },
    "an OpenAPI OAuth Flows object, copied as is",
  ),
  minProperties: { count: 1, noun: "flow" },
};

const guardCommon = {
  name: opt({
    kind: "string",
    pattern: { regex: "^[A-Za-z0-9._-]+$", rule: "may hold only letters, digits, `.`, `_` and `-`", maxLength: NAME_LIMIT },
    description: "security scheme name",
  }),
  description: opt(str("scheme description")),
  autoError: opt(bool("default true; false lets requests without a credential through to the handler")),
};

const accessValue: Shape = {
  kind: "union",
  options: [
    { kind: "string", enum: ["public", "optional", "authenticated"] },
    { kind: "array", items: { kind: "string", pattern: SCOPE_NAME }, minItems: 1, noun: "scope" },
  ],
  description: "public | optional | authenticated | [scope, ...]",
};

/** Documentation texts that docs portals show: never blank. */
const text = (description: string): Shape => ({ kind: "string", pattern: NOT_BLANK, description });

const errors: Shape = {
  kind: "map",
  noun: "status",
  keys: ERROR_STATUS,
  values: text("when the handler refuses with this status"),
  description: "HTTP status -> when the handler refuses with it",
};

/** What an operation and an action may say of themselves. */
const operationTexts = {
  summary: opt(text("copied to the OpenAPI operation; derived when absent")),
  description: opt(text("copied to the OpenAPI operation; derived when absent")),
  errors: opt(errors),
};

/** Options of one operation (the map form of `operations`); `page`, `sort` and `query` apply to `list`. */
const listOptions = object(
  {
    ...operationTexts,
    page: opt(
      object(
        {
          size: opt({ kind: "integer", minimum: 1, description: "the default `limit`; default 20" }),
          max: opt({ kind: "integer", minimum: 1, description: "the largest `limit`; default 100, or `size` when larger" }),
        },
        "list only: pagination with `limit` and `cursor`",
      ),
    ),
    sort: opt({ kind: "array", items: { kind: "string" }, minItems: 1, noun: "field", description: "list only: the fields (or `id`) `?sort=` may name" }),
    query: opt({
      kind: "map",
      noun: "parameter",
      keys: FIELD_NAME,
      values: { kind: "ref", name: "field" },
      description: "list only: extra query parameters (scalar fields), handed to the handler",
      schemaOnly: { allOf: [keysNot("limit", "cursor", "sort", "status")] },
    }),
  },
  "operation options; {} takes the defaults",
);
/** The options of an operation other than `list`: the same keys, but for `page`, `sort` and `query`. */
const operationOptions: Shape = { ...listOptions, schemaOnly: none("page", "sort", "query") };

const action = object({
  method: opt({ kind: "string", enum: ["POST", "PUT", "DELETE"], description: "default POST" }),
  when: opt({ kind: "array", items: { kind: "string" }, minItems: 1, noun: "state", description: "the states in which it is allowed; default all" }),
  to: opt(str("the status afterwards; a declared transition from every `when` state")),
  body: opt({ kind: "ref", name: "fields" }),
  access: opt(accessValue),
  ...operationTexts,
});

/** Named shapes; `field` refers to itself for arrays and nested objects. */
export const declarationDefs: ShapeDefs = {
  field: {
    kind: "union",
    description: "a type name (string, integer, number, boolean, or T[]) or a map",
    options: [
      {
        kind: "string",
        enum: ["string", "integer", "number", "boolean", "string[]", "integer[]", "number[]", "boolean[]"],
      },
      withSchemaOnly(
        object({
          type: req({ kind: "string", enum: FIELD_TYPES }),
          items: opt({ kind: "ref", name: "field" }),
          fields: opt({ kind: "ref", name: "fields" }),
          enum: opt({
            kind: "array",
            items: { kind: "union", options: [{ kind: "string" }, { kind: "number" }, { kind: "boolean" }] },
            minItems: 1,
            noun: "value",
          }),
          format: opt({ kind: "string", enum: STRING_FORMATS }),
          required: opt(bool("must be present on create and replace; default false")),
          nullable: opt(bool("null is allowed; default false")),
          default: opt({ kind: "any", description: "value stored when the field is absent on create" }),
          readOnly: opt(bool("set by the server only")),
          writeOnly: opt(bool("accepted in requests, never in responses")),
          minLength: opt(count("JSON Schema minLength")),
          maxLength: opt(count("JSON Schema maxLength")),
          pattern: opt(str("JSON Schema pattern (ECMA-262)")),
          minimum: opt({ kind: "number", description: "JSON Schema minimum" }),
          maximum: opt({ kind: "number", description: "JSON Schema maximum" }),
          minItems: opt(count("JSON Schema minItems")),
          maxItems: opt(count("JSON Schema maxItems")),
          filter: opt(bool("the list operation takes ?<field>=<value>")),
          ref: opt(str("name of another resource whose id this field holds")),
          renamedFrom: opt({
            kind: "string",
            pattern: FIELD_NAME,
            description: "the field's previous name: the next migration renames its column and keeps its data",
          }),
          description: opt(str()),
          example: opt({ kind: "any" }),
        }),
        {
          allOf: [
            ...Object.entries(KEYS_FOR_TYPE).map(([key, types]) => ({ if: has(key), then: { properties: { type: { enum: types } } } })),
            given("type", "array", { required: ["items"] }),
            given("type", "object", { required: ["fields"] }),
            given("filter", true, { properties: { type: { enum: ["string", "integer", "number", "boolean"] }, writeOnly: { const: false } } }),
          ],
        },
      ),
    ],
  },
  fields: { kind: "map", noun: "field", keys: FIELD_NAME, minProperties: 1, values: { kind: "ref", name: "field" } },
};

const resource = withSchemaOnly(
  object({
    singular: opt({ kind: "string", pattern: RESOURCE_NAME, description: "singular noun; derived when absent" }),
    description: opt(str("copied to the tag and the schema")),
    id: opt({ kind: "string", enum: ["integer", "uuid", "string"], description: "type of <id>; default integer" }),
    fields: req({ kind: "ref", name: "fields" }),
    status: opt(
      object({
        values: req({ kind: "array", items: { kind: "string", pattern: STATE_NAME }, minItems: 1, noun: "state", schemaOnly: { uniqueItems: true } }),
        initial: opt(str("the state on create; default the first")),
        transitions: opt({
          kind: "map",
          noun: "state",
          values: { kind: "array", items: { kind: "string" }, noun: "state" },
          description: "from -> the states it may move to",
        }),
        description: opt(str()),
      }),
    ),
    links: opt({
      kind: "map",
      noun: "link",
      keys: REL_NAME,
      values: object({
        method: req({ kind: "string", enum: ["GET", "POST", "PUT", "PATCH", "DELETE"] }),
        when: opt({ kind: "array", items: { kind: "string" }, minItems: 1, noun: "state" }),
        // Why a single `/`: `//host/x` is a network-path reference (RFC 3986 section 4.2), another host's address.
        href: opt({ kind: "string", pattern: { regex: "^/(?!/)", rule: "must be a path starting with a single `/`" } }),
        description: opt(str()),
      }),
    }),
    access: opt(object(Object.fromEntries(ACCESS_KEYS.map((k) => [k, opt(accessValue)])))),
    operations: opt({
      kind: "union",
      description: "the operations offered: a list of names, or a map name -> options",
      options: [
        { kind: "array", items: { kind: "string", enum: OPERATIONS }, minItems: 1, noun: "operation", schemaOnly: { uniqueItems: true } },
        {
          ...object(Object.fromEntries(OPERATIONS.map((op) => [op, opt(op === "list" ? listOptions : operationOptions)]))),
          minProperties: { count: 1, noun: "operation" },
        },
      ],
    }),
    actions: opt({
      kind: "map",
      noun: "action",
      keys: ACTION_NAME,
      values: action,
      description: "action name -> action: an operation on one object beyond CRUD (`POST /<collection>/{id}/<action>`)",
    }),
  }),
  {
    allOf: [
      { properties: { fields: keysNot("id", "links") } },
      { if: has("status"), then: { properties: { fields: keysNot("status") } } },
      without("status", {
        properties: {
          actions: eachValue(none("when", "to")),
          links: eachValue(none("when")),
        },
      }),
    ],
  },
);

const server: Shape = {
  kind: "union",
  options: [str("server URL"), object({ url: req(str()), description: opt(str()) })],
};

/** The whole declaration format, version 1. */
export const declarationShape: Shape = withSchemaOnly(
  object({
    codegen: req({ kind: "integer", const: 1, description: "format version: 1" }),
    info: req(
      object({
        title: req({ kind: "string", pattern: SEMVER_FREE }),
        version: req({ kind: "string", pattern: SEMVER_FREE, description: "a string: quote numbers" }),
        summary: opt(str()),
        description: opt(str()),
        termsOfService: opt(str()),
        contact: opt(object({ name: opt(str()), url: opt(str()), email: opt(str()) })),
        license: opt(withSchemaOnly(object({ name: req(str()), identifier: opt(str()), url: opt(str()) }), { oneOf: [has("identifier"), has("url")] })),
      }),
    ),
    servers: opt({ kind: "array", items: server }),
    auth: opt({
      kind: "array",
      minItems: 1,
      noun: "guard",
      items: {
        kind: "tagged",
        tag: "guard",
        variants: {
          password: object({
            guard: req(str()),
            tokenUrl: req(str("token endpoint; a path starting with / is served by this API")),
            form: opt({ kind: "string", enum: ["permissive", "strict"] }),
            scopes: opt(scopes),
            ...guardCommon,
          }),
          authorizationCode: object({
            guard: req(str()),
            authorizationUrl: req(str()),
            tokenUrl: req(str()),
            refreshUrl: opt(str()),
            scopes: opt(scopes),
            ...guardCommon,
          }),
          oauth2: object({
            guard: req(str()),
            flows: req(oauthFlows),
            ...guardCommon,
          }),
        },
      },
    }),
    resources: req({ kind: "map", noun: "resource", keys: RESOURCE_NAME, minProperties: 1, values: resource }),
  }),
  without("auth", {
    properties: { resources: eachValue({ ...none("access"), properties: { actions: eachValue(none("access")) } }) },
  }),
);

/** The JSON Schema of the declaration format, as `codegen schema` prints it. */
export function declarationJsonSchema(): Record<string, unknown> {
  return toJsonSchema(declarationShape, declarationDefs, {
    id: "urn:codegen-rest-ts:declaration:1",
    title: "codegen declaration (format 1)",
  });
}
