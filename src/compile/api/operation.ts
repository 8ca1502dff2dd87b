/**
 * The one model of an API's operations: every operation of every kind (codegen's resource
 * operations and actions, its index and token endpoint, operations written by others) read once,
 * in one walk over `paths`, into the same typed shape. The views (handler methods, routes,
 * operation definitions) are derived from it. Problems are collected, never thrown.
 */
import type { TokenForm } from "#runtime/token-form.gen.js";
import { stringLiteral } from "../../model/escape.js";
import { type Json, listOf, objectOf } from "../../model/json.js";
import {
  type ParameterObject,
  type RequestBodyObject,
  type ResponseObject,
  parameterObject,
  requestBodyObject,
  type ReadResponses,
  responseObjects,
  stringOf,
  stringsOf,
  textOf,
} from "./document.js";
import { type Findings, identifierOf, isMemberName, lowerFirst, pointerOf } from "./names.js";
import { type Discriminator, type Segment, pathTemplate } from "./path-template.js";
import { type OperationSecurity, securityOf } from "./security.js";

/** Methods in the order routes list them (codegen's own documents use the first five). */
export const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;
/** The kinds of resource operations (declaration `operations` and `actions`). */
export const RESOURCE_KINDS = ["list", "get", "create", "replace", "update", "delete", "action"] as const;
/** A kind of resource operation. */
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** What a resource operation does besides calling its handler (http-behaviour: lookup, references, state). */
export interface ResourceBehaviour {
  readonly kind: ResourceKind;
  /** The resource's collection (the path's first segment). */
  readonly collection: string;
  /** A paged list: the default and the largest `limit` (`x-codegen-page`). */
  readonly page?: { readonly size: number; readonly max: number };
  /** A sortable list: the fields `?sort=` may name (`x-codegen-sort`). */
  readonly sort?: readonly string[];
  /** An action: its name, the states that allow it (absent: all) and the state after it. */
  /** `stores`: the body fields the stores write onto the object with `to` (declaration.md, "Actions"). */
  readonly action?: { readonly name: string; readonly when?: readonly string[]; readonly to?: string; readonly stores?: readonly string[] };
  /** The statuses its handler may refuse with (`x-codegen-errors`). */
  readonly errors: readonly number[];
}

/** What an operation does: written by others, codegen's index or token endpoint, or a resource operation. */
export type Behaviour = { readonly kind: "operation" } | { readonly kind: "index" } | { readonly kind: "token"; readonly form: TokenForm } | ResourceBehaviour;

/** A parameter of an operation, where it is written. */
export interface ParameterModel extends ParameterObject {
  readonly pointer: string;
}

/** One operation of the document, of any kind. */
export interface OperationModel {
  /** The operationId as code names it: written by others, a unique identifier made of its words. */
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
  /** The names of the path's parameters, in the order they appear. */
  readonly pathNames: readonly string[];
  /** `#/paths/<path>/<method>`. */
  readonly pointer: string;
  readonly summary: string | undefined;
  readonly description: string | undefined;
  /** The path item's parameters and the operation's (which override those of the same name and location). */
  readonly parameters: readonly ParameterModel[];
  readonly body: RequestBodyObject | undefined;
  readonly responses: readonly ResponseObject[];
  readonly security: OperationSecurity;
  /** The handler group: the collection of a resource operation, the first tag (or path segment) of another. */
  readonly group: string;
  readonly behaviour: Behaviour;
}

/** A path of the document and its operations, in the order written. */
export interface PathModel {
  readonly path: string;
  /** The path a request carries (without what follows a `#`). */
  readonly wirePath: string;
  /** Which requests of the URL its operations answer, when the path has a `#` (path-template.ts). */
  readonly discriminator?: Discriminator | undefined;
  /** Its segments as the router matches them (path-template.ts); `null` stands for a parameter segment. */
  readonly segments: readonly Segment[];
  readonly operations: readonly OperationModel[];
}

/**
 * Reads every operation of the document, once. `collections` are the document's resources
 * (collection -> singular); a document with none is not codegen's own, so `GET /` is not its index.
 * What cannot be rendered as written goes to `findings`: in a document written by others it is
 * handled (a path left out, an extension ignored) and warned of, not refused.
 */
export function buildOperations(document: Json, collections: ReadonlyMap<string, string>, findings: Findings): PathModel[] {
  const ours = collections.size > 0;
  const usedIds = new Set<string>();
  // The operationIds (lower case) of a document's resource operations, when it is written by others.
  const resourceIds = new Set<string>();
  // Operations of others, named once every path is read (see below).
  const unnamed: [model: { -readonly [K in keyof OperationModel]: OperationModel[K] }, operation: Json][] = [];
  const readResponses: ReadResponses = new Map();
  const answers = objectOf(objectOf(document.components).responses);
  const paths: PathModel[] = [];
  for (const [path, rawItem] of Object.entries(objectOf(document.paths))) {
    const item = objectOf(rawItem);
    const template = pathTemplate(path);
    const segments = template.segments;
    // Why once per path: its operations' pointers start with it (a method needs no escape).
    const at = pointerOf("paths", path);
    const leftOut = "leaves this path's operations out (requests to it are answered 404): no route can match it as written";
    if (template.problem !== undefined && findings.handle(at, template.problem, leftOut)) continue;
    const operations: OperationModel[] = [];
    // The path item's parameters, read once for all its operations (a resource's `id` at each of four).
    const itemParameters = listOf(item.parameters).map((p, i): ParameterModel => ({
      ...parameterObject(p),
      pointer: `${at}/parameters/${i}`,
    }));
    for (const method of METHODS) {
      if (!(method in item)) continue;
      const operation = objectOf(item[method]);
      const pointer = `${at}/${method}`;
      let behaviour = behaviourOf(path, method, operation, ours, segments);
      const misplaced = "collection" in behaviour ? placementProblem(behaviour, segments, item, collections) : undefined;
      const extension = `${pointer}/${behaviour.kind === "action" ? "x-codegen-action" : "x-codegen-page"}`;
      if (misplaced !== undefined) {
        // Why an operation of its own: the extensions only add codegen's behaviour to what the document says.
        const ignored = "ignores codegen's extensions of this operation and renders it as an operation written by others";
        if (!findings.handle(extension, misplaced, ignored)) continue;
        behaviour = { kind: "operation" };
      }
      // Its problems are reported with the operation's others, where the views are derived.
      const security = securityOf(operation, document, pointer);
      if (findings.fromOthers && "collection" in behaviour && typeof operation.operationId === "string") resourceIds.add(operation.operationId.toLowerCase());
      const model = {
        operationId: String(operation.operationId),
        method,
        path,
        pathNames: template.names,
        pointer,
        summary: textOf(operation.summary),
        description: textOf(operation.description),
        parameters: parametersOf(at, pointer, itemParameters, operation, template.names),
        body: requestBodyObject(operation.requestBody),
        responses: responseObjects(operation.responses, readResponses, answers),
        security,
        group: "collection" in behaviour ? behaviour.collection : groupOf(operation, path),
        behaviour,
      };
      if (behaviour.kind === "operation") unnamed.push([model, operation]);
      operations.push(model);
    }
    paths.push({ path, wirePath: template.wirePath, discriminator: template.discriminator, segments, operations });
  }
  // Why after every path: a resource operation keeps its operationId (its store's handler is bound
  // by it), so an operation of others that has the same one takes the next free id, with a
  // warning, wherever it stands; the operations' other ids are as they were.
  for (const id of resourceIds) usedIds.add(id);
  for (const [model, operation] of unnamed) {
    model.operationId = uniqueId(operation, model.method, model.path, usedIds);
    const given = stringOf(operation.operationId);
    // (Only in a document written by others: resourceIds holds nothing else.)
    if (given !== undefined && model.operationId !== given && resourceIds.has(given.toLowerCase())) {
      const reason = `the operationId ${JSON.stringify(given)} is a resource operation's too, and handlers are bound by operationId`;
      findings.handle(`${model.pointer}/operationId`, reason, `names this operation's handler ${model.operationId}`);
    }
  }
  return paths;
}

/** The handler group of an operation written by others: its first tag, else its path's first segment that is no parameter. */
function groupOf(operation: Json, path: string): string {
  return stringsOf(operation.tags)[0] ?? path.split("/").find((s) => s !== "" && !s.startsWith("{")) ?? "default";
}

/** What the operation is, from codegen's extensions (`x-codegen-*`); `operation` when it carries none. */
function behaviourOf(path: string, method: string, operation: Json, ours: boolean, segments: readonly Segment[]): Behaviour {
  const declared = stringOf(operation["x-codegen-operation"]);
  const isAction = operation["x-codegen-action"] !== undefined;
  const kind = (RESOURCE_KINDS as readonly string[]).find((k) => k === declared) ?? (isAction ? "action" : undefined);
  if (kind === undefined) {
    if (operation["x-codegen-token-endpoint"] !== undefined)
      // The extension was validated against its schema (docs/openapi.md): `form` is one of the two.
      return { kind: "token", form: (objectOf(operation["x-codegen-token-endpoint"]).form ?? "permissive") as TokenForm };
    if (ours && path === "/" && method === "get" && operation.operationId === "getIndex") return { kind: "index" };
    return { kind: "operation" };
  }
  const page = objectOf(operation["x-codegen-page"]);
  const action = objectOf(operation["x-codegen-action"]);
  return {
    kind: kind as ResourceKind,
    collection: typeof segments[0] === "string" ? segments[0] : "",
    ...(kind === "list" && operation["x-codegen-page"] !== undefined ? { page: { size: Number(page.size), max: Number(page.max ?? page.size) } } : {}),
    ...(kind === "list" && operation["x-codegen-sort"] !== undefined ? { sort: stringsOf(operation["x-codegen-sort"]) } : {}),
    ...(kind === "action"
      ? {
          action: {
            name: String(action.name),
            ...(action.when !== undefined ? { when: stringsOf(action.when) } : {}),
            ...(typeof action.to === "string" ? { to: action.to } : {}),
            ...(action.stores !== undefined ? { stores: stringsOf(action.stores) } : {}),
          },
        }
      : {}),
    errors: listOf(operation["x-codegen-errors"])
      .map(Number)
      .filter((status) => Number.isInteger(status) && status >= 400 && status <= 599),
  };
}

/**
 * Why an action or a list's options cannot be rendered as the document says, if so (documents
 * written by hand may carry codegen's extensions): an action answers at
 * `/<collection>/{id}/<name>` of a resource, and a page has whole sizes with `size <= max`.
 */
function placementProblem(
  behaviour: ResourceBehaviour,
  segments: readonly Segment[],
  item: Json,
  collections: ReadonlyMap<string, string>,
): string | undefined {
  if (!collections.has(behaviour.collection)) return `a ${behaviour.kind} operation must be on a path \`/<collection>...\` of a resource`;
  if (behaviour.action !== undefined) {
    const name = behaviour.action.name;
    const [collection, id, segment] = segments;
    const hasId = listOf(item.parameters).some((p) => objectOf(p).in === "path");
    const placed = segments.length === 3 && id === null && hasId && typeof collection === "string" && collections.has(collection) && segment === name;
    return placed ? undefined : `the action ${stringLiteral(name)} must be the operation of a path \`/<collection>/{id}/${name}\` of a resource`;
  }
  const page = behaviour.page;
  if (page === undefined) return undefined;
  const whole = (n: number) => Number.isSafeInteger(n) && n >= 1;
  return whole(page.size) && whole(page.max) && page.size <= page.max ? undefined : "`size` and `max` must be whole numbers from 1, with `size` at most `max`";
}

/**
 * The path item's parameters and the operation's; the operation's override those of the same name
 * and location. Why the path parameters follow the template: the router hands the readers one
 * value per template expression, in order; a declared path parameter the template does not name
 * could never be given (OpenAPI 3.1 section 4.8.12.2 says it must be named), so it is left out,
 * and an expression no parameter declares is read as a string, as other tools read it.
 * `itemParameters`: the path item's, read (each one object for all its operations).
 */
function parametersOf(at: string, pointer: string, itemParameters: readonly ParameterModel[], operation: Json, names: readonly string[]): ParameterModel[] {
  const all = new Map<string, ParameterModel>();
  for (const parameter of itemParameters) all.set(`${parameter.in}:${parameter.name}`, parameter);
  listOf(operation.parameters).forEach((p, i) => {
    const parameter = parameterObject(p);
    all.set(`${parameter.in}:${parameter.name}`, { ...parameter, pointer: `${pointer}/parameters/${i}` });
  });
  for (const [key, parameter] of all) if (parameter.in === "path" && !names.includes(parameter.name)) all.delete(key);
  for (const name of names) {
    if (all.has(`path:${name}`)) continue;
    all.set(`path:${name}`, { ...parameterObject({ name, in: "path", required: true, schema: { type: "string" } }), pointer: at });
  }
  return [...all.values()];
}

/** The operationId as an identifier (its words), or one derived from method and path; unique, whatever the case. */
function uniqueId(operation: Json, method: string, path: string, used: Set<string>): string {
  const given = stringOf(operation.operationId);
  let base: string;
  if (given !== undefined && isMemberName(given)) base = given;
  else if (given !== undefined) base = lowerFirst(identifierOf(given));
  else {
    const words = path
      .split("/")
      .filter((s) => s !== "")
      .map((s) => s.replace(/\{([^{}]*)\}/g, " By $1 "));
    base = lowerFirst(identifierOf([method, ...words].join(" ")));
  }
  if (!isMemberName(base)) base = `${base}Operation`;
  let id = base;
  for (let n = 2; used.has(id.toLowerCase()); n++) id = `${base}${n}`;
  used.add(id.toLowerCase());
  return id;
}

/** Whether the behaviour is a resource operation's. */
export const isResourceBehaviour = (behaviour: Behaviour): behaviour is ResourceBehaviour => "collection" in behaviour;
