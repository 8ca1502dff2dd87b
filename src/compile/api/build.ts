import type { OpenAPIV3_1 } from "openapi-types";
import { camelCase, pascalCase } from "../declaration/names.js";
import { NAME_LIMIT } from "../declaration/schema.js";
import { type Json, listOf, objectOf } from "../../model/json.js";
import { stringOf } from "./document.js";
import { docLines, inlineComment, lineComment, propertyKey, stringLiteral } from "../../model/escape.js";
import { prepareDocument } from "./foreign.js";
import { Findings, NameGate, SchemaTypeNames, UnsupportedConstruct, overlongNames, pointerOf } from "./names.js";
import { type OperationModel, type ResourceBehaviour, type ResourceKind, buildOperations, isResourceBehaviour } from "./operation.js";
import { OperationCollector, contextMembers } from "./operations.js";
import { type Discriminator, ambiguousPaths } from "./path-template.js";
import { COMPOSITION_LIMIT, longCompositionChains, withInheritedBases } from "./chains.js";
import { type JsonSchema, objectTypeExpression, patternCheck, refName, schemaNode, typeExpression } from "./schema-code.js";
import { schemeTable } from "./security.js";
import { linearPatterns } from "../verify/patterns.js";
import { type TableHistory, filterFields, idKind, instantFields, tablesOf } from "../tables.js";
import {
  type Member,
  type TypeExpr,
  arrayType,
  genericType,
  indexMember,
  intersectionType,
  literalType,
  member,
  objectType,
  readonlyType,
  unionType,
  word,
} from "../../model/type-expr.js";
import type { OperationSpec, RouteSegment, RouteSpec, RouteVariant } from "#runtime/dispatch.gen.js";
import type { Link, ResourceSpec } from "#runtime/resources.gen.js";
import type { ApiModel, HandlerMethodView, ResourceView, TypeView } from "../../model/api-model.js";

/**
 * A route's operation per method and, where paths of one URL differ after `#`, the variants the
 * dispatcher tells apart by the request (runtime RouteSpec `variants`): in the document's order;
 * the method's operation is the one without a `#`, else the first (whose own parameters then
 * refuse a request no variant takes, such as a missing `X-Amz-Target`).
 */
function variantsOf(methods: ReadonlyMap<string, readonly MethodEntry[]>): {
  methods: Record<string, OperationSpec>;
  variants?: Record<string, RouteVariant[]>;
} {
  const chosen: Record<string, OperationSpec> = {};
  const variants: Record<string, RouteVariant[]> = {};
  for (const [method, entries] of methods) {
    // Most methods have one operation (two thousand routes).
    if (entries.length === 1) {
      chosen[method] = withSelector(entries[0]!.spec, entries[0]!.discriminator);
      continue;
    }
    const specs = entries.map((e) => withSelector(e.spec, e.discriminator));
    const plain = entries.findIndex((e) => e.discriminator === undefined);
    chosen[method] = specs[plain === -1 ? 0 : plain]!;
    const told = entries.flatMap((e, i) => (e.discriminator === undefined ? [] : [{ ...e.discriminator, operation: specs[i]! }]));
    if (told.length > 0) variants[method] = told;
  }
  return Object.keys(variants).length > 0 ? { methods: chosen, variants } : { methods: chosen };
}

/** An operation of a route's method, with what tells it apart from the others of its URL (a path's `#`). */
type MethodEntry = { readonly spec: OperationSpec; readonly discriminator?: Discriminator | undefined };

/**
 * An operation told apart after `#` by a name its parameters do not declare (Azure's
 * `/analyze#overload=stream`): the selector its requests may carry in the query (`?overload=stream`),
 * as clients send it (OpenAPI says nothing of a `#` in a path; docs/openapi.md, "Routing"). A name
 * the operation declares stays its own parameter's, read and validated as the document says.
 */
function withSelector(spec: OperationSpec, discriminator: Discriminator | undefined): OperationSpec {
  if (discriminator === undefined) return spec;
  const name = discriminator.name.toLowerCase();
  if (spec.parameters.some((p) => (p.in === "header" ? p.name.toLowerCase() === name : p.name === discriminator.name))) return spec;
  return { ...spec, selector: discriminator };
}

/**
 * A change's `ifMatch`: set when the request's `If-Match` named the object's current ETag, which
 * the write must then be conditional on (http-behaviour, "Conditional requests").
 */
const IF_MATCH = member("ifMatch", word("string"), {
  optional: true,
  description:
    "The ETag of `current` that the request's `If-Match` named: write only while the object still has it (compared in the same atomic step as the write), else refuse with 412 (the stores' `preconditionFailed()`). Absent: the request named no version.",
});

/** The input members and the result of a resource handler that differ per operation kind (members keep these names: stores rely on them). */
const SIGNATURES: Record<ResourceKind, { input: (t: Types) => Member[]; result: (t: Types) => TypeExpr }> = {
  list: { input: (t) => [member("query", t.query)], result: (t) => readonlyType(arrayType(t.stored)) },
  get: { input: (t) => [member("id", t.id)], result: (t) => unionType([t.stored, UNDEFINED]) },
  create: { input: (t) => [member("body", t.body)], result: (t) => t.stored },
  replace: { input: (t) => [member("id", t.id), member("body", t.body), member("current", t.stored), IF_MATCH], result: (t) => t.stored },
  update: { input: (t) => [member("id", t.id), member("patch", t.body), member("current", t.stored), IF_MATCH], result: (t) => t.stored },
  delete: { input: (t) => [member("id", t.id), member("current", t.stored), IF_MATCH], result: () => word("void") },
  // Why: the handler stores the object after the action, in its `to` state (given as `to`), in one
  // write of its own; the server checks that it did (http-behaviour, actions).
  action: {
    input: (t) => [
      member("id", t.id),
      ...(t.body.text === "never" ? [] : [member("body", t.body)]),
      member("current", t.stored),
      ...(t.to === undefined ? [] : [member("to", t.to)]),
      IF_MATCH,
    ],
    result: (t) => t.stored,
  },
};
const UNDEFINED = word("undefined");
/** A list's page in its handler's input. */
const PAGE_TYPE = objectType([
  member("limit", word("number"), { readonly: true }),
  member("cursor", unionType([word("string"), UNDEFINED]), { readonly: true }),
]);
/** What a resource handler's result is, for its doc comment (without the refusal). */
const RESULT_DOCS: Record<ResourceKind, (paged: boolean) => string> = {
  list: (paged) => (paged ? "A page of the stored objects and, when more remain, the handler's own cursor of the next page" : "The stored objects"),
  get: () => "The stored object (the server adds its links), or undefined when none has the id",
  create: () => "The object as stored (the server adds its links)",
  replace: () => "The object as stored (the server adds its links)",
  update: () => "The object as stored (the server adds its links)",
  delete: () => "Nothing once the object is deleted",
  action: () => "The object as stored after the action (the server adds its links)",
};
interface Types {
  /** The query members with their doc comments. */
  query: TypeExpr;
  id: TypeExpr;
  body: TypeExpr;
  stored: TypeExpr;
  /** An action's `to` state as a literal type, when it declares one. */
  to?: TypeExpr;
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

/** Options of the ApiModel. */
export interface ModelOptions {
  /** The input file's path relative to the output folder, for the header line. */
  readonly inputPath: string;
  /** What the output folder holds of earlier tables, so each keeps its names (src/compile/tables.ts). */
  readonly tableHistory?: TableHistory;
  /**
   * The document is written by others (an OpenAPI or Swagger input, not expanded from a
   * declaration): a construct the renderer cannot render as written is handled another way and
   * listed in the model's `handled` (generate warns), not refused (docs/openapi.md).
   */
  readonly fromOthers?: boolean;
  /** The user's opt-in (--allow-unsafe-patterns): the validator checks every pattern, those only V8's backtracking engine runs too. */
  readonly allowUnsafePatterns?: boolean;
}

/**
 * Build the ApiModel of an OpenAPI document: what the emitters of the server code read.
 * Reads the document only (never the declaration); codegen's own facts come from `x-codegen-*`.
 * Every operation is read once into the operation model (operation.ts); the views derive from it.
 * Problems are collected on the way and thrown once, together, at the end.
 */
export function buildApiModel(input: OpenAPIV3_1.Document, options: ModelOptions): ApiModel {
  const prepared = prepareDocument(input);
  const document = prepared.document as unknown as Json;
  const gate = new NameGate();
  const problems = [...overlongNames(input), ...prepared.problems.map((p) => new UnsupportedConstruct(p.pointer, p.reason))];
  const findings = new Findings(options.fromOthers === true, problems);
  const view = viewOf(document, options, gate, findings);
  if (problems.length + gate.problems.length > 0) throw new UnsupportedConstructs([...problems, ...gate.problems]);
  return { ...view, tables: tablesOf(input, options.tableHistory) };
}

function viewOf(document: Json, options: ModelOptions, gate: NameGate, findings: Findings): Omit<ApiModel, "tables"> {
  const declared = withInheritedBases(objectOf(objectOf(document.components).schemas)) as Record<string, JsonSchema>;
  const longChains = longCompositionChains(declared);
  const schemas =
    longChains.length === 0
      ? declared
      : withAnyValue(
          declared,
          longChains.map(({ name }) => name),
        );
  const typeNames = new SchemaTypeNames(schemas, gate.problems);

  const resourceSchemas = Object.entries(schemas).flatMap(([name, schema]): ResourceSchema[] => {
    if (schema["x-codegen-resource"] === undefined) return [];
    const ext = objectOf(schema["x-codegen-resource"]);
    return [{ name, schema, ext, collection: String(ext.collection) }];
  });
  const singularOf = new Map(resourceSchemas.map(({ ext, collection }) => [collection, String(ext.singular)] as const));
  // Each collection's whole body (`<T>Input`) where it has a nested object: what an update's merged ones must meet.
  const wholeOf = new Map(
    resourceSchemas.flatMap(({ name, collection }) =>
      Object.values(objectOf(objectOf(schemas[`${name}Input`]).properties)).some((property) => objectOf(property).properties !== undefined)
        ? [[collection, { $ref: `#/components/schemas/${name}Input` }] as const]
        : [],
    ),
  );
  // A schema left unchecked at the end of a long chain widens the checks that refer to it, as a
  // pattern left unchecked does: a oneOf that could match it is checked as an anyOf, a not or an if left out.
  const checks =
    options.allowUnsafePatterns === true && longChains.length === 0
      ? undefined
      : patternCheck(
          schemas,
          options.allowUnsafePatterns === true ? () => true : linearPatterns(),
          longChains.map(({ name }) => name),
        );
  const paths = buildOperations(document, singularOf, findings);
  for (const { name, cycle } of longChains) {
    const reason = cycle
      ? "it applies to the same value as itself, through a cycle of $ref, allOf, anyOf, oneOf, not or if/then/else, which neither TypeScript's types nor the validator can end"
      : `it begins a chain of more than ${COMPOSITION_LIMIT} named schemas that each apply to the same value as the next ($ref, allOf, anyOf, oneOf, not, if/then/else), deeper than TypeScript's types and the validator can follow`;
    const instead =
      "takes any value there: its type is `unknown` and the validator does not check it (the handler must); the schemas it refers to are rendered as written";
    findings.handle(pointerOf("components", "schemas", name), reason, instead);
  }

  const operationsByCollection = new Map<string, OperationModel[]>();
  // Index links: collections in declaration order, then the token endpoint (http-behaviour, getIndex).
  const collectionLinks: Link[] = [];
  const tokenLinks: Link[] = [];
  let hasGuards = false;
  const collector = new OperationCollector(
    document,
    resourceSchemas.map(({ collection }) => camelCase(collection)),
    typeNames,
    gate,
    findings,
    checks,
  );

  // Why: paths that differ only after a `#` are one URL on the wire: one route answers all their
  // methods; where two paths would answer one request alike, the later is refused at its place.
  const ambiguous = ambiguousPaths(paths);
  for (const [i, reason] of ambiguous)
    findings.handle(pointerOf("paths", paths[i]!.path), reason, "leaves this path's operations out: the earlier path answers its requests");
  // Each route's operations per method, with what tells apart those of one URL (variantsOf).
  const pending = new Map<string, { segments: readonly RouteSegment[]; methods: Map<string, MethodEntry[]> }>();
  for (const [i, { wirePath, discriminator, segments, operations }] of paths.entries()) {
    if (findings.fromOthers && ambiguous.has(i)) continue;
    const key = JSON.stringify(segments);
    const methods = pending.get(key)?.methods ?? new Map<string, MethodEntry[]>();
    if (!pending.has(key)) pending.set(key, { segments, methods });
    const add = (method: string, spec: OperationSpec) => {
      const entries = methods.get(method.toUpperCase()) ?? [];
      methods.set(method.toUpperCase(), [...entries, { spec, discriminator }]);
    };
    for (const operation of operations) {
      const { behaviour, method } = operation;
      if (behaviour.kind === "operation") {
        const spec = collector.add(operation);
        if (spec) add(method, spec);
        continue;
      }
      if (collector.security(operation).requirements.some((requirement) => requirement.length > 0)) hasGuards = true;
      add(method, routeEntry(operation, collector, wholeOf));
      if (behaviour.kind === "token") tokenLinks.push({ rel: "token", method: "POST", href: wirePath });
      if (!isResourceBehaviour(behaviour)) continue;
      if (behaviour.kind === "list") collectionLinks.push({ rel: behaviour.collection, method: "GET", href: wirePath });
      (operationsByCollection.get(behaviour.collection) ?? operationsByCollection.set(behaviour.collection, []).get(behaviour.collection)!).push(operation);
    }
  }
  // The dispatcher's routes as values, printed into api.gen.ts.
  const routes: RouteSpec[] = [...pending.values()].map(({ segments, methods }) => ({ segments, ...variantsOf(methods) }));
  const handled = [...findings.handled.values(), ...collector.leftOutConstructs()];
  // Why: the server checks that a `ref` names an existing object through the referenced resource's
  // `get` (declaration, the `ref` paragraph); without one it could not, and a silent skip would
  // store references to nothing, so such a document is refused where the reference is declared.
  for (const { name, schema, collection } of resourceSchemas) {
    for (const [field, property] of Object.entries(objectOf(schema.properties))) {
      const target = stringOf(objectOf(property)["x-codegen-ref"]);
      if (target === undefined || (operationsByCollection.get(target) ?? []).some((o) => o.behaviour.kind === "get")) continue;
      findings.problems.push(
        new UnsupportedConstruct(
          pointerOf("components", "schemas", name, "properties", field, "x-codegen-ref"),
          `the reference to ${stringLiteral(target)} cannot be checked: ${stringLiteral(target)} offers no \`get\`; offer it, or drop \`ref\``,
          pointerOf("resources", collection, "fields", field, "ref"),
        ),
      );
    }
  }
  const operationGroups = collector.groupViews();
  const built = resourceSchemas.flatMap((resourceSchema) => {
    const resource = resourceView(resourceSchema, schemas, singularOf, operationsByCollection, typeNames, gate);
    return resource === undefined ? [] : [resource];
  });
  const resources: ResourceView[] = built.map(({ view }) => view);

  // After every handler type: the named types, then the variants those asked for (each may ask for more).
  const types: TypeView[] = Object.entries(schemas).map(([name, schema]) =>
    typeView(typeNames.typeName(name), stringOf(schema.description), typeExpression(schema, "", typeNames)),
  );
  for (let i = 0; i < typeNames.variants().length; i++) {
    const variant = typeNames.variants()[i]!;
    const without = variant.use === "request" ? "`readOnly`" : "`writeOnly`";
    const text = `\`${variant.schema}\` as ${variant.use === "request" ? "sent in requests" : "answered in responses"}: without its ${without} properties.`;
    types.push(typeView(variant.name, text, typeExpression(schemas[variant.schema]!, "", typeNames, variant.use)));
  }
  const nodes = [...Object.entries(schemas).map(([name, schema]) => [name, schemaNode(schema, checks)] as const), ...collector.tableNodes];
  const api = {
    schemas: nodes,
    resources: built.map(({ spec }) => [spec.collection, spec] as const),
    routes,
    securitySchemes: schemeTable(document),
    index: [...collectionLinks, ...tokenLinks],
  };

  return {
    header: `// Generated by codegen from ${lineComment(options.inputPath)}. Do not edit.`,
    hasResources: resources.length > 0,
    actionsStoreFields: resources.some((r) => r.methods.some((m) => m.storesLiteral !== "")),
    hasChanges: resources.some((r) => r.methods.some(changesObjects)),
    hasStoreCalls: resources.some((r) => r.methods.some((m) => m.isList || m.isGet || changesObjects(m))),
    usesHandlers: resources.length > 0 || operationGroups.length > 0,
    types,
    resources,
    api,
    hasTokenEndpoint: tokenLinks.length > 0,
    hasGuards,
    operationGroups,
    ...(operationGroups.length === 0
      ? {}
      : { resourceHandlers: genericType("Omit", [word("Handlers"), unionType(operationGroups.map((g) => literalType(g.property)))]) }),
    securityHooks: [...collector.hookSchemes].map((name) => ({ name, key: propertyKey(name), comment: inlineComment(name) })),
    mockAnswers: collector.mockAnswers,
    ...(collector.unmappedErrors.size > 0 ? { unmappedErrors: [...collector.unmappedErrors.values()] } : {}),
    ...(handled.length > 0 ? { handled } : {}),
  };
}

/** The schemas with those `named` replaced by one that takes any value (its description kept). */
function withAnyValue(schemas: Record<string, JsonSchema>, named: readonly string[]): Record<string, JsonSchema> {
  const replaced = new Set(named);
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [
      name,
      replaced.has(name) ? (typeof schema.description === "string" ? { description: schema.description } : {}) : schema,
    ]),
  );
}

/** Whether a store's handler for this method changes an object (and so takes the request's cancellation). */
function changesObjects(method: HandlerMethodView): boolean {
  return (
    method.isCreate || method.isReplace || method.isUpdate || method.isDelete || (method.isAction && (method.storesLiteral !== "" || method.toLiteral !== ""))
  );
}

/** A named type of types.gen.ts with its doc comment. */
function typeView(name: string, description: string | undefined, type: TypeExpr): TypeView {
  return { name, docLines: docLines(description), type };
}

/** The request headers of conditional requests (RFC 9110 section 13.1) that the server reads itself. */
const CONDITIONAL_HEADERS = new Set(["if-match", "if-none-match"]);

/**
 * The dispatcher's entry of one of codegen's own operations (resource operations, index, token
 * endpoint): the one definition every operation is read by (parameters, body, responses), from
 * the same reading as an operation written by others; a list's `sort`, `limit` and `cursor` are
 * its listing's, not parameters. Then what its kind adds.
 */
function routeEntry(operation: OperationModel, collector: OperationCollector, wholeOf: ReadonlyMap<string, Json>): OperationSpec {
  const { behaviour } = operation;
  const query = handlerQuery(operation);
  // Why not the conditional headers: If-Match and If-None-Match are the server's own (it answers
  // 304, 412 and 428 itself), read by the dispatcher, not handed to a handler as parameters.
  const parameters = operation.parameters.filter(
    (p) => (p.in !== "query" || query.includes(p)) && !(p.in === "header" && CONDITIONAL_HEADERS.has(p.name.toLowerCase())),
  );
  const spec: { -readonly [K in keyof OperationSpec]: OperationSpec[K] } = {
    operationId: operation.operationId,
    kind: behaviour.kind,
    security: operation.security.requirements,
    ...collector.read(operation, false, parameters).definition,
  };
  if (isResourceBehaviour(behaviour)) {
    spec.resource = behaviour.collection;
    if (behaviour.page) spec.page = behaviour.page;
    if (behaviour.sort) spec.sort = behaviour.sort;
    // Why without `stores`: the dispatcher checks `when` and `to`; what an action stores is the stores' (store.gen.ts).
    if (behaviour.action) {
      const { stores: _stores, ...action } = behaviour.action;
      spec.action = action;
    }
    if (behaviour.errors.length > 0) spec.errors = behaviour.errors;
    const whole = behaviour.kind === "update" ? wholeOf.get(behaviour.collection) : undefined;
    if (whole !== undefined) spec.whole = collector.nodeOf(whole);
  }
  if (behaviour.kind === "token") spec.form = behaviour.form;
  return spec;
}

/** The named schema of an operation's `application/json` body, when it has one. */
function jsonBodyName(operation: OperationModel): string | undefined {
  const schema = operation.body?.content.find((entry) => entry.type === "application/json")?.schema;
  return schema === undefined ? undefined : refName(schema);
}

/** The query parameters handed to the handler: filters and declared `query`; `sort`, `limit` and `cursor` are the server's. */
function handlerQuery(operation: OperationModel): OperationModel["parameters"] {
  const query = operation.parameters.filter((p) => p.in === "query");
  // Most operations have no query (it is read twice of each of six thousand).
  if (query.length === 0) return query;
  const behaviour = operation.behaviour;
  const listing = isResourceBehaviour(behaviour) ? behaviour : undefined;
  const reserved = [...(listing?.page ? ["limit", "cursor"] : []), ...(listing?.sort ? ["sort"] : [])];
  return reserved.length === 0 ? query : query.filter((p) => !reserved.includes(p.name));
}

/** A named schema of a resource (`x-codegen-resource`): its extension, and the collection that extension names. */
type ResourceSchema = { readonly name: string; readonly schema: JsonSchema; readonly ext: Json; readonly collection: string };

/** Whether generated type text refers to a named schema through the `T.` namespace. */
const refersToTypes = (text: string) => /\bT\./.test(text);

/**
 * A resource's view (its handler interface and store) and the dispatcher's ResourceSpec of it,
 * printed into api.gen.ts; undefined, its problem recorded, when its collection cannot be a path segment.
 */
function resourceView(
  { name, schema, ext, collection }: ResourceSchema,
  schemas: Record<string, JsonSchema>,
  singularOf: ReadonlyMap<string, string>,
  operationsByCollection: ReadonlyMap<string, readonly OperationModel[]>,
  typeNames: SchemaTypeNames,
  gate: NameGate,
): { readonly view: ResourceView; readonly spec: ResourceSpec } | undefined {
  const at = pointerOf("components", "schemas", name, "x-codegen-resource");
  if (collection.length > NAME_LIMIT) {
    gate.problems.push(new UnsupportedConstruct(at, `collection ${stringLiteral(`${collection.slice(0, 32)}…`)} is longer than ${NAME_LIMIT} characters`));
    return undefined;
  }
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(collection)) {
    gate.problems.push(new UnsupportedConstruct(at, `collection ${stringLiteral(collection)} is not a lower-case path segment`));
    return undefined;
  }
  const properties = objectOf(schema.properties);
  const inputProperties = objectOf(objectOf(schemas[`${name}Input`]).properties);
  const status = objectOf(ext.status);
  // The fields of format `date-time`, which the stores keep in one form (runtime/instants.gen.ts).
  const instants = instantFields({ ...inputProperties, ...properties }, schemas);
  const writeOnly = Object.entries(inputProperties).filter(([, p]) => objectOf(p).writeOnly === true);
  // The extension's values as the runtime reads them: the document was verified against the
  // x-codegen-resource schema (docs/openapi.md), so each value has the type asserted here.
  const spec: ResourceSpec = {
    collection,
    singular: String(ext.singular),
    idKind: idKind(schema),
    readOnly: Object.entries(properties)
      .filter(([k, p]) => k !== "id" && k !== "links" && objectOf(p).readOnly === true)
      .map(([k]) => k),
    writeOnly: writeOnly.map(([k]) => k),
    ...(ext.status !== undefined
      ? { status: { initial: status.initial as string, transitions: (status.transitions ?? {}) as { readonly [from: string]: readonly string[] } } }
      : {}),
    refs: Object.entries(properties)
      .filter(([, p]) => typeof objectOf(p)["x-codegen-ref"] === "string")
      .map(([field, p]) => {
        const target = String(objectOf(p)["x-codegen-ref"]);
        return { field, rel: singularOf.get(target) ?? target, collection: target };
      }),
    ...(instants.length === 0 ? {} : { instants }),
    links: listOf(ext.links).map((l) => {
      const link = objectOf(l);
      return {
        rel: link.rel as string,
        method: link.method as string,
        ...(link.when ? { when: link.when as readonly string[] } : {}),
        ...(link.href ? { href: link.href as string } : {}),
        ...(typeof link.action === "string" ? { action: link.action } : {}),
      };
    }),
  };

  const storedName = gate.identifier(`Stored${typeNames.typeName(name)}`, at, "the stored type");
  const stored = word(storedName);
  const writeOnlyMembers = writeOnly.map(([k, p]) =>
    member(k, typeExpression(objectOf(p), "T.", typeNames), { optional: true, description: stringOf(objectOf(p).description) }),
  );
  const base = objectTypeExpression(schema, "T.", typeNames, ["links"]);
  const storedType = writeOnlyMembers.length === 0 ? base : intersectionType([base, objectType(writeOnlyMembers)]);
  const idType = word(spec.idKind === "integer" ? "number" : "string");
  const filters = filterFields(schema);

  const methods: HandlerMethodView[] = (operationsByCollection.get(collection) ?? []).map((operation) => {
    const behaviour = operation.behaviour as ResourceBehaviour;
    const kind = behaviour.kind;
    const query = handlerQuery(operation);
    const queryMembers = query.map((p) => member(p.name, typeExpression(objectOf(p.schema), "T.", typeNames), { optional: true, description: p.description }));
    const bodyRef = jsonBodyName(operation);
    const types: Types = {
      query: queryMembers.length > 0 ? objectType(queryMembers) : NO_QUERY,
      id: idType,
      body: bodyRef !== undefined ? word(`T.${typeNames.typeNameFor(bodyRef, "request")}`) : word("never"),
      stored,
      ...(behaviour.action?.to !== undefined ? { to: literalType(behaviour.action.to) } : {}),
    };
    const before = gate.problems.length;
    const operationId = gate.identifier(operation.operationId, operation.pointer, "operationId");
    // Names made of a refused operationId would only repeat its problem.
    const named = (name: string, what: string) => (gate.problems.length === before ? gate.typeName(name, operation.pointer, what) : name);
    const pascal = operationId[0]!.toUpperCase() + operationId.slice(1);
    const signature = SIGNATURES[kind];
    // A list's order and page (http-behaviour, "Lists: pagination and sorting"): typed in its input, a page its result.
    const declaredQuery = query.some((p) => !filters.includes(p.name));
    const listing = [...(behaviour.sort ? [member("sort", sortType(behaviour.sort))] : []), ...(behaviour.page ? [member("page", PAGE_TYPE)] : [])];
    const result = behaviour.page
      ? objectType([member("items", readonlyType(arrayType(stored)), { readonly: true }), member("next", word("string"), { readonly: true, optional: true })])
      : signature.result(types);
    const inputName = named(`${pascal}Input`, "the input type");
    const inputType = objectType([...signature.input(types), ...listing, ...contextMembers(operation.security.principal)]);
    const resultName = named(`${pascal}Result`, "the result type");
    // Why a store's refusal beside the declared ones: a handler may answer what the typed store API answered (store-api.gen.ts), whose statuses the server declares itself.
    const declared = refusable(result, behaviour.errors);
    const resultType = kind === "list" || kind === "get" ? declared : unionType([declared, word("StoreRefusal")]);
    return {
      operationId,
      docLines: handlerDoc(operation.summary ?? operationId, operation),
      inputName,
      inputType,
      resultName,
      resultType,
      resultDoc:
        RESULT_DOCS[kind](behaviour.page !== undefined) +
        (behaviour.errors.length > 0 ? ", or a refusal with a declared status" : "") +
        (kind === "list" || kind === "get" ? "" : ", or a store's refusal (StoreRefusal)") +
        ".",
      hasSort: behaviour.sort !== undefined,
      hasPage: behaviour.page !== undefined,
      hasListing: behaviour.sort !== undefined || behaviour.page !== undefined || declaredQuery,
      isList: kind === "list",
      isGet: kind === "get",
      isCreate: kind === "create",
      isReplace: kind === "replace",
      isUpdate: kind === "update",
      isDelete: kind === "delete",
      isAction: kind === "action",
      toLiteral: types.to?.text ?? "",
      storesLiteral: storesLiteral(behaviour.action?.stores, properties, inputProperties),
      guarded: operation.responses.some((response) => response.status === "409"),
    };
  });

  const view: ResourceView = {
    fileName: collection,
    usesTypes: refersToTypes(storedType.text) || methods.some((m) => refersToTypes(m.inputType.text)),
    usesPrincipal: methods.some((m) => /\bPrincipal\b/.test(m.inputType.text)),
    usesRefusal: methods.some((m) => /\bHandlerRefusal\b/.test(m.resultType.text)),
    usesStoreRefusal: methods.some((m) => /\bStoreRefusal\b/.test(m.resultType.text)),
    binderName: gate.identifier(`bind${pascalCase(collection)}`, at, "the binder"),
    storeUsesStored: methods.some((m) => !m.isDelete),
    property: gate.identifier(camelCase(collection), at, "the resource property"),
    interfaceName: gate.identifier(`${pascalCase(collection)}Handlers`, at, "the handler interface"),
    storedName,
    storedType,
    collectionLiteral: stringLiteral(collection),
    collectionComment: inlineComment(collection),
    filters,
    methods,
  };
  return { view, spec };
}

/**
 * An action's body fields the stores write onto the object, as an array literal (`["notes"]`),
 * or "" when none: only names of the resource's properties, whatever a document written by
 * hand says.
 */
function storesLiteral(stores: readonly string[] | undefined, properties: Json, inputProperties: Json): string {
  if (stores === undefined) return "";
  const isField = (name: string) => Object.hasOwn(properties, name) || Object.hasOwn(inputProperties, name);
  const kept = stores.filter((name) => isField(name) && name !== "id" && name !== "status" && name !== "links");
  return kept.length === 0 ? "" : `[${kept.map(stringLiteral).join(", ")}]`;
}

/** A handler method's JSDoc: the summary, the description, and each declared refusal with its reason. */
function handlerDoc(summary: string, operation: OperationModel): string[] {
  const errors = isResourceBehaviour(operation.behaviour) ? operation.behaviour.errors : [];
  const refusals = errors.map((status) => {
    const reason = operation.responses.find((r) => r.status === String(status))?.description;
    return `May refuse with ${status}${reason !== undefined ? `: ${reason}` : ""}.`.replace(/\.\.$/, ".");
  });
  const lines: string[] = [];
  let paragraphs = 0;
  for (const text of [summary, operation.description, refusals.join("\n")]) {
    if (text === undefined || text.trim() === "") continue;
    if (paragraphs++ > 0) lines.push("");
    for (const line of docLines(text)) lines.push(line);
  }
  return lines;
}

/** A handler's result type, or a typed refusal with one of the declared statuses (http-behaviour, "Handlers that refuse"). */
function refusable(result: TypeExpr, errors: readonly number[]): TypeExpr {
  return errors.length === 0 ? result : unionType([result, genericType("HandlerRefusal", [unionType(errors.map(literalType))])]);
}

/** A list's order in its handler's input: `readonly { readonly field: "a" | "b"; readonly descending: boolean }[]`. */
function sortType(fields: readonly string[]): TypeExpr {
  const field = fields.length === 0 ? word("never") : unionType(fields.map(literalType));
  return readonlyType(arrayType(objectType([member("field", field, { readonly: true }), member("descending", word("boolean"), { readonly: true })])));
}

/** The query of a handler without query parameters: no members. */
const NO_QUERY = objectType([indexMember("name", word("string"), word("never"), true)]);
