/**
 * Preparing an OpenAPI document written by others for the model. The document is walked knowing
 * its grammar (OpenAPI 3.0 and 3.1 objects, JSON Schema): at each place a key is a keyword, a name
 * (of a property, a path, a status, a media type, a component...) or data (examples, defaults,
 * enums, extensions), and only where the grammar expects an object is a `$ref` a reference. So a
 * property named `examples` is a schema, and a `$ref` inside an example is data.
 *
 * Every schema name becomes an identifier. A ref at a schema's place that names a schema of
 * `components/schemas` stays a ref (to the new name); every other ref (a parameter, a response, a
 * part of another schema, a place swagger-parser bundled an external file into) is replaced by
 * what it points at: one shared copy for all its uses, and the size of the document this expands
 * to is bounded (expansionLimit). What the model then reads has refs of one form only:
 * `#/components/schemas/<identifier>`, but in codegen's own documents (isExpansion), which are
 * not walked: there an operation's response may also be a ref to a shared answer
 * (`#/components/responses/<name>`), which responseObjects reads.
 */
import { messageFor } from "../../diagnostics/index.js";
import { isExpansion } from "../expand/expand.js";
import { identifierOf, isTypeName, pointerOf } from "./names.js";
import { METHODS } from "./operation.js";
import { INLINE_DEPTH_LIMIT } from "../openapi/depth.js";
import { escapeToken, refKeys, valueAt } from "../pointer.js";

import { isObject } from "../../model/json.js";

type Json = { [key: string]: unknown };

/** A ref the preparation could not follow, at the JSON pointer of the `$ref` (or of what grew too large). */
export interface RefProblem {
  readonly pointer: string;
  readonly reason: string;
  /**
   * `missing`: points at nothing; `cycle`: refers to itself; `external`: not bundled; `too-large`:
   * expands past the bound; `too-deep`: nests deeper than INLINE_DEPTH_LIMIT once inlined.
   */
  readonly kind: "missing" | "cycle" | "external" | "too-large" | "too-deep";
  /** For `too-large` and `too-deep`: the bound (see expansionLimit, INLINE_DEPTH_LIMIT). */
  readonly limit?: number;
}

/**
 * How many values (objects, arrays, scalars) the prepared document may hold, counting each shared
 * copy at each of its uses, as the validator, the model and the generated code go through them:
 * twice the document's own, and at least MIN_EXPANDED_VALUES. Why: a few kilobytes of refs that
 * each use the previous one twice expand to 2^30 values, and the time to generate code grows with
 * the expanded size (a 0.8 MB document of 48,000 values takes 20 s to generate; the same number of
 * values inlined from refs costs as much). Real documents inline far less than their own size.
 */
export const MIN_EXPANDED_VALUES = 50_000;
export const expansionLimit = (ownValues: number): number => Math.max(MIN_EXPANDED_VALUES, 2 * ownValues);

const SCHEMA_PREFIX = "#/components/schemas/";

/** A value prepared, how many values it expands to, and how many levels it nests (when counted). */
type Prepared = [value: unknown, size: number, height?: number];

/** The levels a prepared value nests: as counted, else 1 for an object or array (data, a ref kept) and 0 for a scalar. */
const heightOf = ([value, , height]: Prepared): number => height ?? (typeof value === "object" && value !== null ? 1 : 0);

/** Where a value stands in the grammar: an object of a kind, a map of names or a list of such, or data. */
type Kind =
  "document" | "components" | "pathItem" | "operation" | "parameter" | "requestBody" | "response" | "mediaType" | "encoding" | "plain" | "callback" | "schema";
type Place = Kind | "data" | { readonly map: Place; readonly extensions: boolean } | { readonly list: Place };

/** A map of names to `place`; with `extensions`, its `x-` keys are extensions (data), not names. */
const mapOf = (place: Place, extensions = false): Place => ({ map: place, extensions });
const listOf = (place: Place): Place => ({ list: place });
const keysOf = (keys: readonly string[], place: Place) => Object.fromEntries(keys.map((key) => [key, place]));

/** JSON Schema (2020-12, and the drafts OpenAPI 3.0 reads): the keywords whose values are schemas. */
const SCHEMA_KEYWORDS: Record<string, Place> = {
  ...keysOf(
    [
      "items",
      "additionalProperties",
      "additionalItems",
      "not",
      "if",
      "then",
      "else",
      "contains",
      "propertyNames",
      "unevaluatedItems",
      "unevaluatedProperties",
      "contentSchema",
    ],
    "schema",
  ),
  ...keysOf(["allOf", "anyOf", "oneOf", "prefixItems"], listOf("schema")),
  ...keysOf(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"], mapOf("schema")),
};

/**
 * The keys of each kind of object that hold OpenAPI objects or schemas (OpenAPI 3.1 section 4.8;
 * 3.0 is a subset); every other key of an object holds data. A header is read as a parameter
 * (it is one without `name` and `in`); examples, links and security schemes hold only data, but
 * may be refs; a callback maps expressions to path items.
 */
const GRAMMAR: Record<Kind, { readonly keys: Readonly<Record<string, Place>>; readonly rest?: Place }> = {
  document: { keys: { paths: mapOf("pathItem", true), webhooks: mapOf("pathItem"), components: "components" } },
  components: {
    keys: {
      schemas: mapOf("schema"),
      responses: mapOf("response"),
      parameters: mapOf("parameter"),
      headers: mapOf("parameter"),
      requestBodies: mapOf("requestBody"),
      pathItems: mapOf("pathItem"),
      callbacks: mapOf("callback"),
      ...keysOf(["examples", "links", "securitySchemes"], mapOf("plain")),
    },
  },
  pathItem: { keys: { parameters: listOf("parameter"), ...keysOf(METHODS, "operation") } },
  operation: { keys: { parameters: listOf("parameter"), requestBody: "requestBody", responses: mapOf("response", true), callbacks: mapOf("callback") } },
  parameter: { keys: { schema: "schema", content: mapOf("mediaType"), examples: mapOf("plain") } },
  requestBody: { keys: { content: mapOf("mediaType") } },
  response: { keys: { headers: mapOf("parameter"), content: mapOf("mediaType"), links: mapOf("plain") } },
  mediaType: { keys: { schema: "schema", examples: mapOf("plain"), encoding: mapOf("encoding") } },
  encoding: { keys: { headers: mapOf("parameter") } },
  plain: { keys: {} },
  callback: { keys: {}, rest: "pathItem" },
  schema: { keys: SCHEMA_KEYWORDS },
};

/** The size of data below which sizeOfData does not remember a value's size (see there). */
const SMALL_DATA = 32;

/** The document with identifier schema names and component-schema refs only; the input is not changed. */
export function prepareDocument<D extends object>(document: D): { document: D; problems: RefProblem[] } {
  return prepare(document, true);
}

/**
 * The document with every ref but those to named schemas (at a schema's place) replaced by what it
 * points at, names unchanged: what a validator can check in place without following refs.
 */
export function inlineReferences<D extends object>(document: D): { document: D; problems: RefProblem[] } {
  return prepare(document, false);
}

function prepare<D extends object>(document: D, rename: boolean): { document: D; problems: RefProblem[] } {
  const source = document as unknown as Json;
  const schemas = isObject(source.components) && isObject(source.components.schemas) ? source.components.schemas : {};
  const names = rename ? renamedSchemas(schemas) : new Map<string, string>();
  // Why: in a document codegen expanded, every ref at a schema's place names a schema
  // of components/schemas, data holds none, and the size is linear in the declaration's (see
  // isExpansion): the walk would only replace the operations' refs to shared answers, which the
  // model reads where they stand (responseObjects), at the cost of going through every schema and
  // example. A schema name that needs a new name walks it all.
  if (rename && names.size === 0 && isExpansion(document)) return { document, problems: [] };
  const problems = new Map<string, RefProblem>();
  const fail = (at: At, kind: RefProblem["kind"], reason: string, limit?: number): Prepared => {
    const pointer = pointerAt(at);
    problems.set(`${pointer}\0${reason}`, { pointer, reason, kind, ...(limit !== undefined ? { limit } : {}) });
    return [{}, 1];
  };
  // Why: one walk of each ref's target (per kind of place), shared by all its uses, so the work
  // is linear in the document; `pending` holds the refs being walked, to find one in its own target.
  const walked = new Map<string, Prepared>();
  // The schema name of each distinct ref, decoded once: a document refers to each schema many times.
  const refNames = new Map<string, string | undefined>();
  const nameOf = (ref: string): string | undefined => {
    if (!refNames.has(ref)) refNames.set(ref, schemaName(ref));
    return refNames.get(ref);
  };
  const pending = new Set<string>();
  // Why (codat): a ref to a part of a schema that holds a ref to itself cannot be
  // inlined (it would never end); that part becomes a schema of its own in components/schemas
  // (named after its place), and the ref, and every other use of it, refers to it by name.
  const hoisted = new Map<string, string>();
  const hoistedSchemas: [string, unknown][] = [];
  const taken = new Set(Object.keys(schemas).map((name) => names.get(name) ?? name));
  const hoistedRef = (key: string, ref: string): Json => {
    let name = hoisted.get(key);
    if (name === undefined) {
      const parts = refKeys(ref) ?? [];
      const base = identifierOf((ref.startsWith(SCHEMA_PREFIX) ? parts.slice(2) : parts).join("/"));
      name = base;
      for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
      taken.add(name);
      hoisted.set(key, name);
    }
    return objectOf([["$ref", SCHEMA_PREFIX + name]]);
  };
  const dataSizes = new WeakMap<object, number>();
  // Per kind of place, not per object: a map for every object walked was most of the walk's garbage.
  const walkedObjects = new Map<Kind, WeakMap<object, Prepared>>();

  const sizeOfData = (value: unknown): number => {
    if (typeof value !== "object" || value === null) return 1;
    const known = dataSizes.get(value);
    if (known !== undefined) return known;
    let size = 1;
    // Why loops, not Object.values: an array of the values of every object of the document was garbage.
    if (Array.isArray(value)) for (const item of value as unknown[]) size += sizeOfData(item);
    else for (const key in value) if (Object.hasOwn(value, key)) size += sizeOfData((value as Json)[key]);
    // Why only sizes above a few dozen: an entry per small object was most of the walk's
    // time and garbage; a small object given at many places is measured again at little cost, and
    // every object whose repetition could multiply the work (nested aliases) is large and kept.
    if (size > SMALL_DATA) dataSizes.set(value, size);
    return size;
  };

  // Why a bound on the depth: a chain of references to parts of the document (each to a value
  // holding the next) is inlined as values nested as deep as the chain is long, and this walk, and
  // every later one, recurses once per level; thousands of levels overflowed the call stack.
  // `depth` counts the levels of the walk now (it stops before the stack runs out); a result's
  // height (its third element), the levels of the value prepared, for a ref's target walked once
  // and used deeper down.
  let depth = 0;
  let tooDeep = false;
  const deeper = (pointer: At): Prepared => {
    if (tooDeep) return [{}, 1];
    tooDeep = true;
    return fail(pointer, "too-deep", messageFor("openapi/too-deep", { limit: INLINE_DEPTH_LIMIT }), INLINE_DEPTH_LIMIT);
  };

  /** A value at a place of the grammar, prepared, and how many values it expands to. */
  const walk = (value: unknown, place: Place, pointer: At): Prepared => {
    if (place === "data" || typeof value !== "object" || value === null) return [value, sizeOfData(value)];
    if (depth >= INLINE_DEPTH_LIMIT) return deeper(pointer);
    depth++;
    try {
      const result = walkAt(value, place, pointer);
      return heightOf(result) > INLINE_DEPTH_LIMIT ? deeper(pointer) : result;
    } finally {
      depth--;
    }
  };

  const walkAt = (value: object, place: Exclude<Place, "data">, pointer: At): Prepared => {
    if (typeof place !== "string") {
      // A list of places is walked only as a list, a map of them only as an object.
      if (Array.isArray(value) !== "list" in place) return [value, sizeOfData(value)];
      return bounded(
        walkEntries(value as Json | unknown[], pointer, (key) => placeOfKey(place, key)),
        pointer,
      );
    }
    // Why: a parser may give one object at several places (YAML aliases in a referenced file);
    // it is walked once per kind of place, like a ref's target.
    let ofKind = walkedObjects.get(place);
    const known = ofKind?.get(value);
    if (known !== undefined) return known;
    const result = walkObject(value, place, pointer);
    if (!ofKind) walkedObjects.set(place, (ofKind = new WeakMap()));
    ofKind.set(value, result);
    return result;
  };

  const walkObject = (value: object, kind: Kind, pointer: At): Prepared => {
    // An array where the grammar wants an object (a tuple `items`) holds objects of that kind.
    if (Array.isArray(value))
      return bounded(
        walkEntries(value, pointer, () => kind),
        pointer,
      );
    const object = value as Json;
    if (typeof object.$ref === "string") return reference(object as Json & { $ref: string }, kind, pointer);
    return bounded(
      walkEntries(object, pointer, (key) => placeOfKey(kind, key)),
      pointer,
    );
  };

  /** Every entry walked at its place; the same object when nothing changed (codegen's own documents). */
  const walkEntries = (value: Json | unknown[], pointer: At, placeOf: (key: string) => Place): Prepared => {
    let size = 1;
    let below = 0;
    // Why no array of entries up front: a pair per entry of every object, thrown away
    // when nothing changed (codegen's own documents), was much of the walk's garbage; the items
    // are gathered only from the first one that changed.
    const record = value as Record<string, unknown>;
    const keys = Object.keys(value);
    let items: unknown[] | undefined;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const item = record[key];
      // Why: a value that is no object is itself, of size 1, wherever it stands; its pointer is not built.
      if (typeof item !== "object" || item === null) {
        size += 1;
        items?.push(item);
        continue;
      }
      const walked = walk(item, placeOf(key), { parent: pointer, key });
      const [prepared, itemSize] = walked;
      size += itemSize;
      below = Math.max(below, heightOf(walked));
      if (prepared !== item && items === undefined) items = keys.slice(0, i).map((earlier) => record[earlier]);
      items?.push(prepared);
    }
    const result = items === undefined ? value : Array.isArray(value) ? items : objectOfKeys(keys, items);
    return [result, size, below + 1];
  };

  /**
   * A value that holds more than the bound is cut off (an empty object). The first is reported: the
   * walk goes depth first, so it is the deepest such value, whose parts each hold less; the values
   * that hold it are then cut too, but say nothing new.
   */
  let tooLarge = false;
  const limit = expansionLimit(sizeOfData(source));
  const bounded = (result: Prepared, pointer: At): Prepared => {
    if (result[1] <= limit) return result;
    if (tooLarge) return [{}, 1];
    tooLarge = true;
    return fail(pointer, "too-large", messageFor("openapi/ref-expansion", { limit }), limit);
  };

  const reference = (value: Json & { $ref: string }, kind: Kind, pointer: At): Prepared => {
    const ref = value.$ref;
    // Why a ref alone is not copied without its `$ref` and walked: most refs have no
    // other keys, and a copy of each (and its entry in walkedObjects) was garbage per ref.
    const alone = onlyRef(value);
    const rest = alone ? NO_SIBLINGS : siblingsOf(value);
    const [siblings, siblingsSize] = alone ? [rest, 1] : (walk(rest, kind, pointer) as [Json, number]);
    const named = kind === "schema" ? nameOf(ref) : undefined;
    if (named !== undefined) {
      if (!Object.hasOwn(schemas, named)) return fail(pointer, "missing", `the reference ${JSON.stringify(ref)} points at nothing`);
      const renamed = names.has(named) ? SCHEMA_PREFIX + names.get(named)! : ref;
      if (renamed === ref && siblings === rest) return [value, siblingsSize];
      return [objectOf([...Object.entries(siblings), ["$ref", renamed]]), siblingsSize];
    }
    if (!ref.startsWith("#")) return fail(pointer, "external", `the reference ${JSON.stringify(ref)} was not bundled into the document`);
    const key = `${kind} ${ref}`;
    let inlined = walked.get(key);
    if (inlined === undefined) {
      // Resolved once per ref and kind, like its walk: later uses find both in `walked`.
      const parts = refKeys(ref);
      const resolved = parts === undefined ? undefined : valueAt(source, parts);
      if (parts === undefined || resolved === undefined) return fail(pointer, "missing", `the reference ${JSON.stringify(ref)} points at nothing`);
      if (pending.has(key)) {
        if (kind === "schema") return [hoistedRef(key, ref), 1];
        return fail(pointer, "cycle", `the reference ${JSON.stringify(ref)} refers to itself; move the schema into components/schemas and refer to it by name`);
      }
      pending.add(key);
      // Walked at its own place, so that what it holds is reported where it is written.
      inlined = walk(resolved, kind, parts.length === 0 ? "#" : pointerOf(...parts));
      pending.delete(key);
      if (hoisted.has(key)) {
        hoistedSchemas.push([hoisted.get(key)!, inlined[0]]);
        inlined = [hoistedRef(key, ref), 1];
      }
      walked.set(key, inlined);
    }
    if (Object.keys(siblings).length === 0 || !isObject(inlined[0])) return inlined;
    // The Reference Object's own keys (3.1 `summary`, `description`) win over the target's.
    const merged = objectOf([...Object.entries(inlined[0]), ...Object.entries(siblings)]);
    return bounded([merged, inlined[1] + siblingsSize - 1, heightOf(inlined)], pointer);
  };

  const [prepared] = walk(source, "document", "#") as [Json, number];
  const result = { document: prepared as unknown as D, problems: [...problems.values()] };
  if (names.size === 0 && hoistedSchemas.length === 0) return result;
  const components = isObject(prepared.components) ? prepared.components : {};
  const table = isObject(components.schemas) ? components.schemas : {};
  const renamedTable = objectOf([...Object.entries(table).map(([name, schema]): [string, unknown] => [names.get(name) ?? name, schema]), ...hoistedSchemas]);
  return {
    ...result,
    document: objectOf([...Object.entries(prepared), ["components", objectOf([...Object.entries(components), ["schemas", renamedTable]])]]) as unknown as D,
  };
}

/**
 * Every schema at a place where the grammar expects one (components, parameters, bodies,
 * responses, headers, callbacks, webhooks), outermost ones only, with its JSON pointer. Refs are
 * not followed; examples and extensions are data, so a `schema` key inside them is no schema.
 */
export function schemaPlaces(document: object): { pointer: string; schema: Json }[] {
  const found: { pointer: string; schema: Json }[] = [];
  mapSchemas(document, "document", "#", (schema, pointer) => {
    found.push({ pointer, schema });
    return schema;
  });
  return found;
}

/**
 * The document with `rewrite` applied to every schema, outer and nested (found as schemaPlaces
 * finds them, then through the keywords whose values are schemas), each with its JSON pointer;
 * `rewrite` returns a new schema or undefined to keep it. Refs are not followed. Objects are
 * copied only on the way to a change; the input is not changed.
 */
export function rewriteSchemas<D extends object>(document: D, rewrite: (schema: Json, pointer: string) => Json | undefined): D {
  const inSchema = (schema: Json, pointer: string): Json =>
    mapEntries(rewrite(schema, pointer) ?? schema, pointer, (key, item, at) => {
      const place = Object.hasOwn(SCHEMA_KEYWORDS, key) ? SCHEMA_KEYWORDS[key]! : "data";
      // A list where a schema stands is the tuple form of `items` before 2020-12: a list of schemas.
      return mapSchemas(item, place === "schema" && Array.isArray(item) ? listOf("schema") : place, at, inSchema);
    }) as Json;
  return mapSchemas(document, "document", "#", inSchema) as D;
}

/** `visit` every schema, outer and nested, as rewriteSchemas finds them, each with its JSON pointer. */
export function visitSchemas(document: object, visit: (schema: Json, pointer: string) => void): void {
  rewriteSchemas(document, (schema, pointer) => void visit(schema, pointer));
}

/**
 * A value at a place of the grammar with `atSchema` applied to each outermost schema in it (what
 * it answers stands in the schema's place), with its JSON pointer; a list or map of places is
 * read only as a list or an object, an object of a kind only as an object.
 */
function mapSchemas(value: unknown, place: Place, pointer: string, atSchema: (schema: Json, pointer: string) => Json): unknown {
  if (place === "data" || typeof value !== "object" || value === null) return value;
  if (place === "schema") return isObject(value) ? atSchema(value, pointer) : value;
  if (Array.isArray(value) !== (typeof place !== "string" && "list" in place)) return value;
  return mapEntries(value as Json | unknown[], pointer, (key, item, at) => mapSchemas(item, placeOfKey(place, key), at, atSchema));
}

/** Where the value of `key` stands in a value at `place`: extensions and keys the grammar does not name hold data. */
function placeOfKey(place: Exclude<Place, "data">, key: string): Place {
  if (typeof place !== "string") return "list" in place ? place.list : place.extensions && key.startsWith("x-") ? "data" : place.map;
  const grammar = GRAMMAR[place];
  return key.startsWith("x-") ? "data" : ((Object.hasOwn(grammar.keys, key) ? grammar.keys[key] : grammar.rest) ?? "data");
}

/** An object or list with `map` applied to each entry (its key, value and JSON pointer), copied only where an entry changed. */
function mapEntries(value: Json | unknown[], pointer: string, map: (key: string, item: unknown, pointer: string) => unknown): Json | unknown[] {
  let copy: Json | unknown[] | undefined;
  for (const [key, item] of Object.entries(value)) {
    const next = map(key, item, `${pointer}/${escapeToken(key)}`);
    if (next === item) continue;
    copy ??= Array.isArray(value) ? [...value] : objectOf(Object.entries(value));
    if (Array.isArray(copy)) copy[Number(key)] = next;
    else setOwn(copy, key, next);
  }
  return copy ?? value;
}

/** The other keys of a ref that has none. */
const NO_SIBLINGS: Json = Object.freeze({});

/** A ref's other keys (3.1 `summary`, `description`, or a 3.0 sibling), without its `$ref`. */
function siblingsOf(value: Json): Json {
  const { $ref: _, ...rest } = value;
  return rest;
}

/** Whether an object has no own key but `$ref`. */
function onlyRef(value: Json): boolean {
  for (const key in value) if (key !== "$ref" && Object.hasOwn(value, key)) return false;
  return true;
}

/** An object of these entries; a `__proto__` key becomes an own property, as JSON.parse makes it. */
function objectOf(entries: readonly (readonly [string, unknown])[]): Json {
  const copy: Json = {};
  for (const [key, item] of entries) setOwn(copy, key, item);
  return copy;
}

/** An object of `keys` with the values `items` (objectOf without the entries). */
function objectOfKeys(keys: readonly string[], items: readonly unknown[]): Json {
  const copy: Json = {};
  for (let i = 0; i < keys.length; i++) setOwn(copy, keys[i]!, items[i]);
  return copy;
}

/**
 * Sets an own property. Why assignment but for `__proto__`: defining each property was
 * a good part of copying the objects that hold an inlined ref; only `__proto__` is an accessor of
 * Object.prototype that an assignment would call.
 */
function setOwn(object: Json, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

/**
 * A place in the document: a JSON pointer, or a key under a place. Why: the walk passes one to
 * every value it visits, and only a problem needs its text; built eagerly, the pointers of a
 * large document were a good part of the walk's time and garbage.
 */
type At = string | { readonly parent: At; readonly key: string };

/** The JSON pointer of a place. */
function pointerAt(at: At): string {
  const keys: string[] = [];
  let place = at;
  while (typeof place !== "string") {
    keys.push(escapeToken(place.key));
    place = place.parent;
  }
  return keys.length === 0 ? place : `${place}/${keys.reverse().join("/")}`;
}

/** The schema a ref names, when it is exactly `#/components/schemas/<name>`. */
function schemaName(ref: string): string | undefined {
  if (!ref.startsWith(SCHEMA_PREFIX)) return undefined;
  const parts = refKeys(ref);
  return parts?.length === 3 ? parts[2] : undefined;
}

/** Schema names that cannot be type names -> unique type names made of their words. */
function renamedSchemas(schemas: Json): Map<string, string> {
  const taken = new Set(Object.keys(schemas).filter(isTypeName));
  const names = new Map<string, string>();
  for (const name of Object.keys(schemas)) {
    if (isTypeName(name)) continue;
    const base = identifierOf(name);
    let candidate = base;
    for (let n = 2; taken.has(candidate); n++) candidate = `${base}${n}`;
    taken.add(candidate);
    names.set(name, candidate);
  }
  return names;
}
