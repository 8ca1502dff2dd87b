import type { OpenAPIV3_1 } from "openapi-types";
import { camelCase, pascalCase } from "../declaration/names.js";
import { docLines, inlineComment, lineComment, literal, literalAt, propertyKey, stringLiteral } from "./escape.js";
import { type JsonSchema, objectType, refName, schemaNode, typeScriptType } from "./schema-code.js";
import { prepareDocument } from "./foreign.js";
import { SchemaTypeNames, UnsupportedConstruct, checkedIdentifier, pointerOf } from "./names.js";
import { OperationCollector } from "./operations.js";
import { schemeTable } from "./security.js";
import type { ApiView, HandlerMethodView, ResourceView, RouteView, SchemaEntryView, TypeView } from "./view.js";

export { UnsupportedConstruct };

type Json = { readonly [key: string]: unknown };
const asJson = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {});
/** Methods in the order routes list them (codegen's own documents use the first five). */
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;
const KINDS = ["list", "get", "create", "replace", "update", "delete", "action"] as const;
type Kind = (typeof KINDS)[number];

/** The handler signature pieces that differ per operation kind. */
const SIGNATURES: Record<Kind, { input: (t: Types) => string; result: (t: Types) => string }> = {
  list: { input: (t) => `query: ${t.query}`, result: (t) => `readonly ${t.stored}[]` },
  get: { input: (t) => `id: ${t.id}`, result: (t) => `${t.stored} | undefined` },
  create: { input: (t) => `body: ${t.body}`, result: (t) => t.stored },
  replace: { input: (t) => `id: ${t.id}; body: ${t.body}; current: ${t.stored}`, result: (t) => t.stored },
  update: { input: (t) => `id: ${t.id}; patch: ${t.body}; current: ${t.stored}`, result: (t) => t.stored },
  delete: { input: (t) => `id: ${t.id}; current: ${t.stored}`, result: () => "void" },
  // Why: the handler stores the object after the action, in its `to` state (given as `to`), in one
  // write of its own; the server checks that it did (http-behaviour, actions).
  action: {
    input: (t) => `id: ${t.id}${t.body === "never" ? "" : `; body: ${t.body}`}; current: ${t.stored}${t.to === undefined ? "" : `; to: ${t.to}`}`,
    result: (t) => t.stored,
  },
};
interface Types {
  query: string;
  id: string;
  body: string;
  stored: string;
  /** An action's `to` state as a literal type, when it declares one. */
  to?: string;
}

/**
 * Every part of the document the renderer cannot turn into code, each at its JSON pointer.
 * Thrown by the model and reported by the orchestrator as diagnostics at those places of the input.
 */
export class UnsupportedConstructs extends Error {
  constructor(readonly problems: readonly UnsupportedConstruct[]) {
    super(problems.map((p) => p.message).join("\n"));
  }
}

/** Options of the view model. */
export interface ModelOptions {
  /** The input file's path relative to the output folder, for the header line. */
  readonly inputPath: string;
}

/**
 * Build the view model of an OpenAPI document: what the templates of the server code read.
 * Reads the document only (never the declaration); codegen's own facts come from `x-codegen-*`.
 */
export function buildApiView(input: OpenAPIV3_1.Document, options: ModelOptions): ApiView {
  const prepared = prepareDocument(input);
  const document = prepared.document;
  const problems = prepared.problems.map((p) => new UnsupportedConstruct(p.pointer, p.reason));
  try {
    return viewOf(document, options, problems);
  } catch (error) {
    if (error instanceof UnsupportedConstruct) throw new UnsupportedConstructs([...problems, error]);
    throw error;
  }
}

function viewOf(document: OpenAPIV3_1.Document, options: ModelOptions, problems: UnsupportedConstruct[]): ApiView {
  const schemas = asJson(document.components?.schemas) as Record<string, JsonSchema>;
  const typeNames = new SchemaTypeNames(schemas);

  const types: TypeView[] = Object.entries(schemas).map(([name, schema]) => {
    const lines = docLines(typeof schema.description === "string" ? schema.description : undefined);
    return { name: typeNames.typeName(name), docLines: lines, hasDoc: lines.length > 0, type: typeScriptType(schema, "", typeNames) };
  });
  const schemaEntries: SchemaEntryView[] = Object.entries(schemas).map(([name, schema]) => ({
    key: propertyKey(name),
    node: literalAt(name, schemaNode(schema)),
  }));

  const resourceSchemas = Object.entries(schemas).filter(([, s]) => s["x-codegen-resource"] !== undefined);
  const singularOf = new Map(
    resourceSchemas.map(([, s]) => {
      const ext = asJson(s["x-codegen-resource"]);
      return [String(ext.collection), String(ext.singular)] as const;
    }),
  );

  const operationsByCollection = new Map<string, ResourceOperation[]>();
  const routes: RouteView[] = [];
  // Index links: collections in declaration order, then the token endpoint (http-behaviour, getIndex).
  const collectionLinks: { rel: string; method: string; href: string }[] = [];
  const tokenLinks: { rel: string; method: string; href: string }[] = [];
  let hasTokenEndpoint = false;
  let hasGuards = false;
  // Why: a document is codegen's own when it declares resources; only then is `GET /` with
  // operationId getIndex codegen's index (a document written by others may have one of its own).
  const ours = resourceSchemas.length > 0;
  const collector = new OperationCollector(
    document as unknown as Json,
    resourceSchemas.map(([, s]) => camelCase(String(asJson(s["x-codegen-resource"]).collection))),
    typeNames,
  );

  for (const [path, rawItem] of Object.entries(asJson(document.paths))) {
    const item = asJson(rawItem);
    const segments =
      path === "/"
        ? []
        : path
            .slice(1)
            .split("/")
            .map((s) => (/^\{.+\}$/.test(s) ? null : s));
    const pathParameters = [...asArray(item.parameters)].map(asJson);
    const idParameter = pathParameters.find((p) => p.in === "path");
    const methods: Record<string, unknown> = {};
    for (const method of METHODS) {
      if (!(method in item)) continue;
      const operation = asJson(item[method]);
      const kind = operationKind(path, method, operation, ours);
      const misplaced =
        kind === "action" || kind === "list" ? listingOrActionProblem(kind, segments, idParameter !== undefined, operation, singularOf) : undefined;
      if (misplaced !== undefined) {
        problems.push(new UnsupportedConstruct(pointerOf("paths", path, method, kind === "action" ? "x-codegen-action" : "x-codegen-page"), misplaced));
        continue;
      }
      if (kind === "operation") {
        const spec = collector.add(path, method, item, operation);
        if (spec) methods[method.toUpperCase()] = spec;
        continue;
      }
      // Why: the same reading of `security` as for operations written by others (issue 11): every
      // requirement an AND of its schemes, each with its own scopes, refused where it cannot be enforced.
      const security = collector.security(operation, pointerOf("paths", path, method));
      if (security.requirements.some((requirement) => requirement.length > 0)) hasGuards = true;
      const collection = segments[0] ?? undefined;
      const body = asJson(asJson(asJson(asJson(operation.requestBody).content)["application/json"]).schema);
      const spec: Record<string, unknown> = {
        operationId: String(operation.operationId),
        kind,
        security: security.requirements,
        query: Object.fromEntries(handlerQuery(operation).map((p) => [String(p.name), schemaNode(asJson(p.schema))])),
      };
      const listing = listingOf(operation);
      if (listing.page) spec.page = listing.page;
      if (listing.sort) spec.sort = listing.sort;
      if (kind === "action") spec.action = actionOf(operation);
      if (kind !== "index" && kind !== "token" && typeof collection === "string") spec.resource = collection;
      if (idParameter) spec.id = schemaNode(asJson(idParameter.schema));
      const bodyName = refName(body);
      if (bodyName !== undefined) spec.body = typeNames.typeName(bodyName);
      const errors = declaredErrors(operation);
      if (errors.length > 0) spec.errors = errors;
      if (kind === "token") {
        spec.form = asJson(operation["x-codegen-token-endpoint"]).form ?? "permissive";
        hasTokenEndpoint = true;
        tokenLinks.push({ rel: "token", method: "POST", href: path });
      }
      if (kind === "list" && typeof collection === "string") collectionLinks.push({ rel: collection, method: "GET", href: path });
      methods[method.toUpperCase()] = spec;
      if (isResourceKind(kind) && typeof collection === "string") {
        const list = operationsByCollection.get(collection) ?? [];
        list.push({ kind, operation, principal: security.principal });
        operationsByCollection.set(collection, list);
      }
    }
    routes.push({ literal: literal({ segments, methods }) });
  }
  problems.push(...collector.problems);
  // Why: the server checks that a `ref` names an existing object through the referenced resource's
  // `get` (declaration, the `ref` paragraph); without one it could not, and a silent skip would
  // store references to nothing, so such a document is refused where the reference is declared.
  for (const [name, schema] of resourceSchemas) {
    for (const [field, property] of Object.entries(asJson(schema.properties))) {
      const target = asJson(property)["x-codegen-ref"];
      if (typeof target !== "string" || (operationsByCollection.get(target) ?? []).some((o) => o.kind === "get")) continue;
      const collection = String(asJson(schema["x-codegen-resource"]).collection);
      problems.push(
        new UnsupportedConstruct(
          pointerOf("components", "schemas", name, "properties", field, "x-codegen-ref"),
          `the reference to ${stringLiteral(target)} cannot be checked: ${stringLiteral(target)} offers no \`get\`; offer it, or drop \`ref\``,
          pointerOf("resources", collection, "fields", field, "ref"),
        ),
      );
    }
  }
  const operationGroups = collector.groupViews();
  if (problems.length > 0) throw new UnsupportedConstructs(problems);

  const resources: ResourceView[] = resourceSchemas.map(([name, schema]) => resourceView(name, schema, schemas, singularOf, operationsByCollection, typeNames));

  const methods = resources.flatMap((r) => r.methods);
  return {
    header: `// Generated by codegen from ${lineComment(options.inputPath)}. Do not edit.`,
    hasResources: resources.length > 0,
    usesHandlers: resources.length > 0 || operationGroups.length > 0,
    serverUsesTypes: methods.some(
      (m) => (m.isList && refersToTypes(m.queryType)) || ((m.isCreate || m.isReplace || m.isUpdate || (m.isAction && m.hasBody)) && refersToTypes(m.bodyType)),
    ),
    serverUsesPrincipal: methods.some((m) => /\bPrincipal\b/.test(m.principalExpression)),
    types,
    schemas: schemaEntries,
    resources,
    routes,
    index: literal([...collectionLinks, ...tokenLinks]),
    hasTokenEndpoint,
    hasGuards,
    hasOperations: operationGroups.length > 0,
    operationGroups,
    operationDefinitions: collector.definitionEntries(),
    securitySchemes: literal(schemeTable(document as unknown as Json)),
    securityHooks: [...collector.hookSchemes].map((name) => ({ name, key: propertyKey(name), comment: inlineComment(name) })),
    hasSecurityHooks: collector.hookSchemes.size > 0,
    mockAnswers: collector.mockAnswers,
  };
}

/**
 * Why an action or a list's options cannot be rendered as the document says, if so (documents
 * written by hand may carry codegen's extensions): an action answers at
 * `/<collection>/{id}/<name>` of a resource, and a page has whole sizes with `size <= max`.
 */
function listingOrActionProblem(
  kind: string,
  segments: readonly (string | null)[],
  hasId: boolean,
  operation: Json,
  singularOf: ReadonlyMap<string, string>,
): string | undefined {
  if (kind === "action") {
    const name = actionOf(operation).name;
    const [collection, id, segment] = segments;
    const placed = segments.length === 3 && id === null && hasId && typeof collection === "string" && singularOf.has(collection) && segment === name;
    return placed ? undefined : `the action ${stringLiteral(name)} must be the operation of a path \`/<collection>/{id}/${name}\` of a resource`;
  }
  const page = listingOf(operation).page;
  if (page === undefined) return undefined;
  const whole = (n: number) => Number.isSafeInteger(n) && n >= 1;
  return whole(page.size) && whole(page.max) && page.size <= page.max ? undefined : "`size` and `max` must be whole numbers from 1, with `size` at most `max`";
}

/** An action's name, the states that allow it and the state it leaves the object in (`x-codegen-action`). */
function actionOf(operation: Json): { name: string; when?: string[]; to?: string } {
  const action = asJson(operation["x-codegen-action"]);
  const when = asArray(action.when).filter((s): s is string => typeof s === "string");
  return {
    name: String(action.name),
    ...(action.when !== undefined ? { when } : {}),
    ...(typeof action.to === "string" ? { to: action.to } : {}),
  };
}

/** The fields a resource may be filtered on (`x-codegen-filter`, and `status` with a state machine). */
function filterFields(schema: JsonSchema): string[] {
  const filters = Object.entries(asJson(schema.properties))
    .filter(([, p]) => asJson(p)["x-codegen-filter"] === true)
    .map(([k]) => k);
  return asJson(schema["x-codegen-resource"]).status !== undefined && !filters.includes("status") ? [...filters, "status"] : filters;
}

/** A list's paging (`x-codegen-page`) and sortable fields (`x-codegen-sort`), when declared. */
function listingOf(operation: Json): { page?: { size: number; max: number }; sort?: string[] } {
  const page = asJson(operation["x-codegen-page"]);
  const sort = asArray(operation["x-codegen-sort"]).filter((f): f is string => typeof f === "string");
  return {
    ...(operation["x-codegen-page"] !== undefined ? { page: { size: Number(page.size), max: Number(page.max ?? page.size) } } : {}),
    ...(operation["x-codegen-sort"] !== undefined ? { sort } : {}),
  };
}

/** The query parameters handed to the handler: filters and declared `query`; `sort`, `limit` and `cursor` are the server's. */
function handlerQuery(operation: Json): Json[] {
  const listing = listingOf(operation);
  const reserved = [...(listing.page ? ["limit", "cursor"] : []), ...(listing.sort ? ["sort"] : [])];
  return [...asArray(operation.parameters)].map(asJson).filter((p) => p.in === "query" && !reserved.includes(String(p.name)));
}

/** The statuses a resource operation's handler may refuse with (`x-codegen-errors`), as numbers. */
function declaredErrors(operation: Json): number[] {
  return asArray(operation["x-codegen-errors"])
    .map(Number)
    .filter((status) => Number.isInteger(status) && status >= 400 && status <= 599);
}

/** Whether generated type text refers to a named schema through the `T.` namespace. */
const refersToTypes = (text: string) => /\bT\./.test(text);

const asArray = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);

function isResourceKind(kind: string): kind is Kind {
  return (KINDS as readonly string[]).includes(kind);
}

/** A resource kind, `token`, `index` (codegen's own), or `operation` (written by others). */
function operationKind(path: string, method: string, operation: Json, ours: boolean): string {
  const declared = operation["x-codegen-operation"];
  if (typeof declared === "string" && isResourceKind(declared)) return declared;
  if (operation["x-codegen-action"] !== undefined) return "action";
  if (operation["x-codegen-token-endpoint"] !== undefined) return "token";
  if (ours && path === "/" && method === "get" && operation.operationId === "getIndex") return "index";
  return "operation";
}

/** A resource operation of the document and the principal type its security gives the handler. */
interface ResourceOperation {
  readonly kind: Kind;
  readonly operation: Json;
  readonly principal: string;
}

function resourceView(
  name: string,
  schema: JsonSchema,
  schemas: Record<string, JsonSchema>,
  singularOf: ReadonlyMap<string, string>,
  operationsByCollection: ReadonlyMap<string, readonly ResourceOperation[]>,
  typeNames: SchemaTypeNames,
): ResourceView {
  const ext = asJson(schema["x-codegen-resource"]);
  const collection = String(ext.collection);
  const at = pointerOf("components", "schemas", name, "x-codegen-resource");
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(collection)) {
    throw new UnsupportedConstruct(at, `collection ${stringLiteral(collection)} is not a lower-case path segment`);
  }
  const properties = asJson(schema.properties);
  const input = schemas[`${name}Input`] ?? {};
  const inputProperties = asJson(input.properties);
  const status = asJson(ext.status);
  const spec = {
    collection,
    singular: String(ext.singular),
    idKind: ext.id === "uuid" || ext.id === "string" ? ext.id : "integer",
    readOnly: Object.entries(properties)
      .filter(([k, p]) => k !== "id" && k !== "links" && asJson(p).readOnly === true)
      .map(([k]) => k),
    writeOnly: Object.entries(inputProperties)
      .filter(([, p]) => asJson(p).writeOnly === true)
      .map(([k]) => k),
    ...(ext.status !== undefined ? { status: { initial: status.initial, transitions: status.transitions ?? {} } } : {}),
    refs: Object.entries(properties)
      .filter(([, p]) => typeof asJson(p)["x-codegen-ref"] === "string")
      .map(([field, p]) => {
        const target = String(asJson(p)["x-codegen-ref"]);
        return { field, rel: singularOf.get(target) ?? target, collection: target };
      }),
    links: asArray(ext.links).map((l) => {
      const link = asJson(l);
      return {
        rel: link.rel,
        method: link.method,
        ...(link.when ? { when: link.when } : {}),
        ...(link.href ? { href: link.href } : {}),
        ...(typeof link.action === "string" ? { action: link.action } : {}),
      };
    }),
  };

  const storedName = checkedIdentifier(`Stored${typeNames.typeName(name)}`, at, "the stored type");
  const writeOnlyMembers = Object.entries(inputProperties)
    .filter(([, p]) => asJson(p).writeOnly === true)
    .map(([k, p]) => `${propertyKey(k)}?: ${typeScriptType(asJson(p), "T.", typeNames)}`);
  const base = objectType(schema, "T.", typeNames, ["links"]);
  const storedType = writeOnlyMembers.length === 0 ? base : `${base} & { ${writeOnlyMembers.join("; ")} }`;
  const idType = ext.id === "uuid" || ext.id === "string" ? "string" : "number";

  const methods: HandlerMethodView[] = (operationsByCollection.get(collection) ?? []).map(({ kind, operation, principal }) => {
    const queryMembers = handlerQuery(operation).map((p) => `${propertyKey(String(p.name))}?: ${typeScriptType(asJson(p.schema), "T.", typeNames)}`);
    const bodyRef = refName(asJson(asJson(asJson(asJson(operation.requestBody).content)["application/json"]).schema));
    const types: Types = {
      query: queryMembers.length > 0 ? `{ ${queryMembers.join("; ")} }` : "{ readonly [name: string]: never }",
      id: idType,
      body: bodyRef !== undefined ? `T.${typeNames.typeName(bodyRef)}` : "never",
      stored: storedName,
      ...(kind === "action" && actionOf(operation).to !== undefined ? { to: stringLiteral(actionOf(operation).to!) } : {}),
    };
    const operationId = checkedIdentifier(String(operation.operationId), pointerOf("paths"), "operationId");
    const signature = SIGNATURES[kind];
    const summary = typeof operation.summary === "string" ? operation.summary : operationId;
    // A list's order and page (http-behaviour, "Lists: pagination and sorting"): typed in its input, a page its result.
    const listing = kind === "list" ? listingOf(operation) : {};
    const sortType = listing.sort
      ? `readonly { readonly field: ${listing.sort.map(stringLiteral).join(" | ") || "never"}; readonly descending: boolean }[]`
      : "";
    const pageType = "{ readonly limit: number; readonly cursor: string | undefined }";
    const filters = filterFields(schema);
    const declaredQuery = handlerQuery(operation).some((p) => !filters.includes(String(p.name)));
    const listingInput = `${listing.sort ? `; sort: ${sortType}` : ""}${listing.page ? `; page: ${pageType}` : ""}`;
    const result = listing.page ? `{ readonly items: readonly ${storedName}[]; readonly next?: string }` : signature.result(types);
    return {
      operationId,
      docLines: handlerDoc(summary, operation),
      inputType: `{ ${signature.input(types)}${listingInput}; principal: ${principal}; scopes: SecurityScopes }`,
      resultType: refusable(result, declaredErrors(operation)),
      hasSort: listing.sort !== undefined,
      hasPage: listing.page !== undefined,
      hasListing: listing.sort !== undefined || listing.page !== undefined || declaredQuery,
      sortType,
      pageType,
      listFilters: literal(filters),
      isList: kind === "list",
      isGet: kind === "get",
      isCreate: kind === "create",
      isReplace: kind === "replace",
      isUpdate: kind === "update",
      isDelete: kind === "delete",
      isAction: kind === "action",
      hasBody: bodyRef !== undefined,
      toLiteral: types.to ?? "",
      queryType: types.query,
      idType,
      bodyType: types.body,
      principalExpression: principal === "Principal" ? "context.principal as Principal" : principal === "undefined" ? "undefined" : "context.principal",
    };
  });

  return {
    fileName: collection,
    usesTypes: refersToTypes(storedType) || methods.some((m) => refersToTypes(m.inputType)),
    usesPrincipal: methods.some((m) => /\bPrincipal\b/.test(m.inputType)),
    usesRefusal: methods.some((m) => /\bHandlerRefusal\b/.test(m.resultType)),
    hasActions: methods.some((m) => m.isAction),
    serverUsesStored: methods.some((m) => m.isReplace || m.isUpdate || m.isDelete || m.isAction),
    storeUsesStored: methods.some((m) => !m.isDelete),
    property: checkedIdentifier(camelCase(collection), at, "the resource property"),
    interfaceName: checkedIdentifier(`${pascalCase(collection)}Handlers`, at, "the handler interface"),
    storedName,
    storedType,
    collectionLiteral: stringLiteral(collection),
    collectionComment: inlineComment(collection),
    spec: literal(spec),
    methods,
  };
}

/** A handler method's JSDoc: the summary, the description, and each declared refusal with its reason. */
function handlerDoc(summary: string, operation: Json): string[] {
  const description = typeof operation.description === "string" ? operation.description : undefined;
  const responses = asJson(operation.responses);
  const refusals = declaredErrors(operation).map((status) => {
    const reason = asJson(responses[String(status)]).description;
    return `May refuse with ${status}${typeof reason === "string" ? `: ${reason}` : ""}.`.replace(/\.\.$/, ".");
  });
  const paragraphs = [summary, description, refusals.join("\n")].filter((text): text is string => text !== undefined && text.trim() !== "");
  return paragraphs.flatMap((text, i) => [...(i === 0 ? [] : [""]), ...docLines(text)]);
}

/** A handler's result type, or a typed refusal with one of the declared statuses (http-behaviour, "Handlers that refuse"). */
function refusable(result: string, errors: readonly number[]): string {
  return errors.length === 0 ? result : `${result} | HandlerRefusal<${errors.join(" | ")}>`;
}
