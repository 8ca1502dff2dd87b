import { compilePattern } from "#runtime/pattern.gen.js";
import type { SchemaNode } from "#runtime/validate.gen.js";
import { hasAnyKey } from "./document.js";
import { escapeToken, percentDecoded } from "../pointer.js";
import { asObject } from "../../model/json.js";
import { type SchemaTypeNames, type SchemaUse, referringClosure } from "./names.js";
import {
  type Member,
  type TupleElement,
  type TypeExpr,
  arrayType,
  indexMember,
  intersectionType,
  literalType,
  member,
  objectType as objectTypeOf,
  parenthesized,
  tupleType,
  unionType,
  word,
} from "../../model/type-expr.js";

/** A JSON Schema as plain data. */
export type JsonSchema = { readonly [key: string]: unknown };

/**
 * The name a `$ref` to `#/components/schemas/<name>` points at, as written (prepareDocument makes
 * every such name an identifier; SchemaTypeNames checks it before it becomes code).
 */
export function refName(schema: JsonSchema): string | undefined {
  const ref = schema.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/components/schemas/")) return undefined;
  const rest = ref.slice("#/components/schemas/".length);
  // Why not decoded without a `%`: the text is the same; a document's every schema reference came here.
  // Malformed percent-encoding names no schema; the gate refuses the text as it stands.
  return rest.includes("%") ? percentDecoded(rest) : rest;
}

/** The JSON types a schema allows, from `type` (string or 3.1 array). */
export function schemaTypes(schema: JsonSchema): string[] {
  const type = schema.type;
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
  return [];
}

/**
 * The TypeScript type of a schema (its text and syntax: type-expr.ts). Named schemas are referred
 * to through `prefix` (`T.Article`), so a schema named like a global (`Record`, `Promise`) never
 * shadows one. Where the type is `use`d in a request, `readOnly` properties are left out; in a
 * response, `writeOnly` ones (OpenAPI 3.1 section 4.8.24), named schemas too (through their
 * variants, SchemaTypeNames).
 */
export function typeExpression(schema: JsonSchema, prefix: string, names: SchemaTypeNames, use?: SchemaUse): TypeExpr {
  const ref = refName(schema);
  if (ref !== undefined) return word(prefix + names.typeNameFor(ref, use));
  if (Object.hasOwn(schema, "const")) return literalType(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.length === 0 ? NEVER : unionType(schema.enum.map((v) => literalType(v)));
  // Why a look at the schema's own keys first: most schemas combine none, and the
  // look-ups of the four names missing from them were a good part of this function's time.
  const combines = hasAnyKey(schema, COMBINING_KEYWORDS);
  // Most schemas have one type and combine none: their type is that type's, with no lists made.
  if (!combines && typeof schema.type === "string") return singleType(schema.type, schema, prefix, names, use);
  const parts: TypeExpr[] = [];
  const types = schemaTypes(schema);
  if (types.length > 0) parts.push(unionType(types.map((type) => singleType(type, schema, prefix, names, use))));
  else if (asObject(schema.properties)) parts.push(objectTypeExpression(schema, prefix, names, [], use));
  if (!combines) return intersectionOf(parts);
  const sub = (member: unknown): TypeExpr => subschemaType(member, prefix, names, use);
  if (Array.isArray(schema.allOf)) parts.push(...schema.allOf.map(sub));
  // A value of `oneOf` matches exactly one branch, but TypeScript has no exclusive union: both are `|`.
  for (const branches of [schema.anyOf, schema.oneOf]) if (Array.isArray(branches)) parts.push(unionOf(branches.map(sub)));
  // A value matches `if` and `then`, or `else`: `(If & Then) | Else`. With one branch missing, a
  // value on that side may be anything, which TypeScript cannot narrow.
  if (schema.if !== undefined && schema.then !== undefined && schema.else !== undefined) {
    parts.push(unionOf([intersectionOf([sub(schema.if), sub(schema.then)]), sub(schema.else)]));
  }
  return intersectionOf(parts);
}

const NEVER = word("never");
const UNKNOWN = word("unknown");
/**
 * The types of JSON's scalars, one object each. Why not one per use: they are most of the words of
 * the types (fifty thousand at 1000 resources), and the model holds them until the files are rendered.
 */
const NUMBER = word("number");
const STRING = word("string");
const KEYWORD_TYPES = { string: STRING, boolean: word("boolean"), null: word("null"), integer: NUMBER, number: NUMBER } as const;

/** The keywords that combine a schema's type with others' (typeExpression). */
const COMBINING_KEYWORDS: ReadonlySet<string> = new Set(["allOf", "anyOf", "oneOf", "if"]);

/**
 * The intersection of part types. `not` narrows nothing TypeScript can say; a part that says
 * nothing about the type adds nothing to the intersection, nor does the open object of a bare
 * `type: object` beside one.
 */
function intersectionOf(parts: readonly TypeExpr[]): TypeExpr {
  const meaningful = parts.length > 1 ? parts.filter((part) => part.text !== "unknown" && part.text !== OPEN_OBJECT.text) : parts;
  if (meaningful.length === 0) return parts.length > 1 && parts.some((part) => part.text === OPEN_OBJECT.text) ? OPEN_OBJECT : UNKNOWN;
  if (meaningful.length === 1) return meaningful[0]!;
  return intersectionType(meaningful.map((part) => (part.kind === "union" ? parenthesized(part) : part)));
}

/** What objectType() gives for an object schema that names no properties: any keys. */
const OPEN_OBJECT = objectTypeOf([indexMember("key", word("string"), UNKNOWN)]);

/** The type of a subschema: `true` (or anything not a schema) allows all, `false` nothing. */
function subschemaType(value: unknown, prefix: string, names: SchemaTypeNames, use?: SchemaUse): TypeExpr {
  return value === false ? NEVER : typeExpression(asObject(value) ?? {}, prefix, names, use);
}

/** A union of branch types; any branch that allows all makes the union allow all. */
function unionOf(branches: readonly TypeExpr[]): TypeExpr {
  if (branches.some((branch) => branch.text === "unknown")) return UNKNOWN;
  if (branches.length === 0) return NEVER;
  return unionType(branches.map((branch) => (branch.kind === "intersection" ? parenthesized(branch) : branch)));
}

function singleType(type: string, schema: JsonSchema, prefix: string, names: SchemaTypeNames, use: SchemaUse | undefined): TypeExpr {
  switch (type) {
    case "string":
    case "boolean":
    case "null":
    case "integer":
    case "number":
      return KEYWORD_TYPES[type];
    case "array": {
      if (Array.isArray(schema.prefixItems)) return tupleOf(schema, schema.prefixItems, prefix, names, use);
      return arrayType(operand(subschemaType(schema.items, prefix, names, use)));
    }
    case "object":
      return objectTypeExpression(schema, prefix, names, [], use);
    default:
      return UNKNOWN;
  }
}

/** A type as an operand of `[]` or `?`: in parentheses where an operator would otherwise take less than the whole (a union, an intersection, `readonly`). */
const operand = (type: TypeExpr): TypeExpr => (type.kind === "union" || type.kind === "intersection" || type.kind === "readonly" ? parenthesized(type) : type);

/**
 * prefixItems as a tuple: `[A, B?, ...C[]]`. The first `minItems` elements are required (an array
 * may be shorter than prefixItems); `items` types the rest (none with `items: false`, then no more
 * than `maxItems` elements either).
 */
function tupleOf(schema: JsonSchema, prefixItems: readonly unknown[], prefix: string, names: SchemaTypeNames, use: SchemaUse | undefined): TypeExpr {
  const min = typeof schema.minItems === "number" ? schema.minItems : 0;
  const closed = schema.items === false;
  const count = closed && typeof schema.maxItems === "number" ? Math.min(prefixItems.length, schema.maxItems) : prefixItems.length;
  const elements: TupleElement[] = prefixItems.slice(0, count).map((item, i) => {
    const type = subschemaType(item, prefix, names, use);
    return i < min ? { rest: false, type, optional: false } : { rest: false, type: operand(type), optional: true };
  });
  if (!closed) elements.push({ rest: true, type: arrayType(operand(subschemaType(schema.items, prefix, names, use))), optional: false });
  return tupleType(elements);
}

/**
 * A pattern that only asks for a literal prefix (`^x-`) as a template literal type (`` `x-${string}` ``);
 * undefined for any other pattern, whose names TypeScript cannot describe.
 */
function prefixKey(pattern: string): TypeExpr | undefined {
  const literal = /^\^([A-Za-z0-9_-]*)$/.exec(pattern)?.[1];
  return literal === undefined ? undefined : word(`\`${literal}\${string}\``);
}

/** Whether a declared property name matches a pattern, as the generated validator decides (linear time). */
function nameMatches(pattern: string, name: string): boolean {
  try {
    return compilePattern(pattern).test(name);
  } catch {
    // A pattern the automaton cannot take: assume it may match, so that the types stay compatible.
    return true;
  }
}

/** The union of distinct types (by their text); a union among them is flattened, and nothing else binds looser than `|`. */
function distinctUnion(types: Iterable<TypeExpr>): TypeExpr {
  const distinct = new Map<string, TypeExpr>();
  for (const type of types) if (!distinct.has(type.text)) distinct.set(type.text, type);
  if (distinct.has("unknown")) return UNKNOWN;
  const all = [...distinct.values()];
  return all.length === 1 ? all[0]! : unionType(all);
}

/** The keyword that leaves a property out of a type used in a request or a response. */
const LEFT_OUT: Record<SchemaUse, string> = { request: "readOnly", response: "writeOnly" };

/**
 * An object type literal: `{ a: string; b?: number }`, with an index signature for extra keys;
 * each property with a `description` has it as its doc comment.
 */
export function objectTypeExpression(schema: JsonSchema, prefix: string, names: SchemaTypeNames, omit: readonly string[] = [], use?: SchemaUse): TypeExpr {
  const properties = asObject(schema.properties);
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  // Each property's type made once, in order: the members and the index signatures read it. Why
  // one loop over the properties and no lists of entries: this runs for every object schema of
  // every type, and those lists were a good part of the model's garbage.
  const declaredNames: string[] = [];
  const declared: TypeExpr[] = [];
  const members: Member[] = [];
  for (const name in properties) {
    if (!Object.hasOwn(properties, name)) continue;
    const property = asObject(properties[name]);
    if (omit.includes(name) || (use !== undefined && property?.[LEFT_OUT[use]] === true)) continue;
    const type = subschemaType(properties[name], prefix, names, use);
    declaredNames.push(name);
    declared.push(type);
    const description = property?.description;
    members.push(member(name, type, { optional: !required.has(name), description: typeof description === "string" ? description : undefined }));
  }
  // Why unevaluatedProperties only without applicators: there it means what additionalProperties
  // means; beside allOf/anyOf/oneOf an index signature would clash with the other parts' properties.
  const alone = schema.allOf === undefined && schema.anyOf === undefined && schema.oneOf === undefined && schema.if === undefined;
  const additional = schema.additionalProperties ?? (alone ? schema.unevaluatedProperties : undefined);
  const patterns = Object.entries(asObject(schema.patternProperties) ?? {}).map(([pattern, item]) => {
    // TypeScript requires every property to fit each index signature its name matches.
    const matching = declared.filter((_, i) => nameMatches(pattern, declaredNames[i]!));
    return { key: prefixKey(pattern), types: [subschemaType(item, prefix, names, use), ...matching] };
  });
  for (const { key, types } of patterns) if (key !== undefined) members.push(indexMember("key", key, distinctUnion(types)));
  const open = additional === undefined || additional === true;
  if (asObject(additional) || (additional === false && patterns.some(({ key }) => key === undefined))) {
    // Why: TypeScript requires every property to fit the index signature, so it admits the
    // declared properties' and the patterns' types too (the validator still holds extra keys to
    // `additionalProperties`, and names to their patterns).
    const types = [...(asObject(additional) ? [typeExpression(additional as JsonSchema, prefix, names, use)] : [])];
    members.push(indexMember("key", STRING, distinctUnion([...types, ...patterns.flatMap((pattern) => pattern.types), ...declared])));
  } else if (open && (declared.length === 0 || patterns.some(({ key }) => key === undefined))) members.push(indexMember("key", STRING, UNKNOWN));
  return objectTypeOf(members);
}

/**
 * Whether the validator checks a `pattern` (or a name of `patternProperties`); undefined: every one.
 * Why: a pattern the linear-time matcher cannot take would run on V8's backtracking engine, whose
 * time one request can make explode; without --allow-unsafe-patterns it is left out of the node
 * (the document keeps it, and warns: docs/openapi.md "What is handed raw, and what is left out").
 */
export type PatternCheck =
  | {
      /** Whether the validator checks this pattern. */
      readonly checks: (pattern: string) => boolean;
      /** Whether the named schema (components/schemas), or one it refers to, holds a pattern left unchecked. */
      readonly uncheckedIn: (name: string) => boolean;
    }
  | undefined;

/**
 * The PatternCheck of a document's named schemas: the validator checks the patterns `linear`
 * says it matches in linear time. Why the named schemas are judged first: a `not` or an `if` that
 * refers to one holding a pattern left unchecked is widened too (partKeywords). Each schema is
 * walked once, its references noted; those that hold such a pattern mark the schemas that refer
 * to them, back along the references (linear in the document, whatever order its schemas are in).
 */
export function patternCheck(
  schemas: Readonly<Record<string, JsonSchema>>,
  linear: (pattern: string) => boolean,
  /** Schemas the validator leaves unchecked for another reason (longCompositionChains): widened alike. */
  alsoUnchecked: readonly string[] = [],
): PatternCheck {
  let unchecked = new Set<string>();
  const check = { checks: linear, uncheckedIn: (name: string) => unchecked.has(name) };
  const referrers = new Map<string, string[]>();
  const found: string[] = [...alsoUnchecked];
  for (const [name, schema] of Object.entries(schemas)) {
    const refs = new Set<string>();
    // With no schema marked yet, the walk answers for the schema's own patterns and notes its references.
    if (leavesUnchecked(schema, check, new Set(), refs)) found.push(name);
    for (const ref of refs) (referrers.get(ref) ?? referrers.set(ref, []).get(ref)!).push(name);
  }
  unchecked = referringClosure(found, referrers);
  return check;
}

/** A validator node (see the runtime's `SchemaNode`) for a schema, as plain data. */
export function schemaNode(schema: JsonSchema, checks?: PatternCheck): SchemaNode {
  const ref = refName(schema);
  if (ref !== undefined) return { ref };
  const node: Record<string, unknown> = {};
  const types = schemaTypes(schema);
  if (types.length > 0) node.types = types;
  // Why a count of the schema's own keys first: each of the ten names missing from a
  // schema was a look-up that went through its prototype; most schemas have one or two of them.
  let left = 0;
  for (const key in schema) if (NODE_KEYWORD_SET.has(key)) left++;
  for (let i = 0; left > 0 && i < NODE_KEYWORDS.length; i++) {
    const key = NODE_KEYWORDS[i]!;
    if (schema[key] === undefined) continue;
    left--;
    if (key === "pattern" && checks !== undefined && !checks.checks(String(schema[key]))) continue;
    node[key] = schema[key];
  }
  if (schema.items === false || asObject(schema.items)) node.items = subschemaNode(schema.items, checks);
  const properties = asObject(schema.properties);
  if (properties) node.properties = membersNode(properties, checks);
  // Why: OpenAPI 3.1 section 4.8.24: a required property that is readOnly is required in
  // responses only; the nodes validate requests, so it is not required there.
  const required = Array.isArray(schema.required)
    ? schema.required.filter((name) => !(properties && Object.hasOwn(properties, name) && asObject(properties[name])?.readOnly === true))
    : [];
  if (required.length > 0) node.required = required;
  // A name of patternProperties left unchecked leaves the schema's other names unknown too: which
  // of them are additional (or unevaluated) is then undecidable, so neither is checked.
  const allPatterns = asObject(schema.patternProperties);
  const patterns = allPatterns && checks !== undefined ? checkedMembers(allPatterns, checks) : allPatterns;
  const namesKnown = patterns === allPatterns;
  const additional = namesKnown ? schema.additionalProperties : undefined;
  if (additional === false) node.additionalProperties = false;
  // `true` refuses nothing, but evaluates every property (what unevaluatedProperties asks).
  else if (additional === true) node.additionalProperties = true;
  else if (asObject(additional)) node.additionalProperties = schemaNode(additional as JsonSchema, checks);
  // Why beside `properties` and `items`: additionalProperties leaves the names the patterns match
  // alone, and items the items prefixItems checks; the runtime reads them from the same part.
  if (patterns) node.patternProperties = membersNode(patterns, checks);
  if (Array.isArray(schema.prefixItems)) node.prefixItems = schema.prefixItems.map((item) => subschemaNode(item, checks));
  const extras = partKeywords(schema, checks);
  const unevaluated = !namesKnown
    ? undefined
    : schema.unevaluatedProperties === false
      ? false
      : asObject(schema.unevaluatedProperties)
        ? subschemaNode(schema.unevaluatedProperties, checks)
        : undefined;
  const partOnly = node.patternProperties !== undefined || node.prefixItems !== undefined || unevaluated !== undefined;
  if (!Array.isArray(schema.allOf) && Object.keys(extras).length === 0 && !partOnly) return node;
  // The runtime's SchemaNode: the keywords added later live in allOf parts, and a node has `types`
  // or `allOf`, never both; so the node of such a schema is its allOf: its own first keywords, its
  // allOf's parts, then a part with the rest. `default` stays on the node, where withDefaults
  // looks. Schemas without these keywords (and the goldens holding their nodes) are unchanged.
  const { default: fallback, ...own } = node;
  const parts = [
    ...(Object.keys(own).length > 0 ? [own] : []),
    ...(Array.isArray(schema.allOf) ? schema.allOf.map((part) => subschemaNode(part, checks)) : []),
  ];
  if (Object.keys(extras).length > 0) parts.push(extras);
  // unevaluatedProperties depends on every part, so it stands beside them (the runtime's SchemaNode).
  const whole: Record<string, unknown> = fallback === undefined ? { allOf: parts } : { default: fallback, allOf: parts };
  if (unevaluated !== undefined) whole.unevaluatedProperties = unevaluated;
  return whole;
}

/** The keywords partKeywords reads (`then` and `else` only beside `if`). */
const PART_KEYWORDS = new Set([
  "anyOf",
  "oneOf",
  "not",
  "const",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "propertyNames",
  "if",
  "dependentRequired",
]);

/** The keywords that live only in an allOf part (the runtime's `SchemaPart`), in a fixed order. */
function partKeywords(schema: JsonSchema, checks: PatternCheck): Record<string, unknown> {
  const part: Record<string, unknown> = {};
  // Why a look at the schema's own keys first: most schemas have none of these, and a
  // look-up of each of the thirteen names missing from every schema was most of this function's time.
  if (!hasAnyKey(schema, PART_KEYWORDS)) return part;
  // Why each check of a subschema holding a pattern left unchecked is widened, never narrowed:
  // without the pattern, a `not` would refuse what its pattern lets through, an `if` choose its
  // `then` for values it does not match, a `oneOf` find two branches where the document finds one;
  // so such a `not` or `if` is left out, and such a `oneOf` checked as an `anyOf`.
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const widened = key === "oneOf" && branches.some((branch) => leavesUnchecked(branch, checks));
    if (widened && Array.isArray(schema.anyOf)) continue;
    part[widened ? "anyOf" : key] = branches.map((branch) => subschemaNode(branch, checks));
  }
  if (schema.not !== undefined && !leavesUnchecked(schema.not, checks)) part.not = subschemaNode(schema.not, checks);
  if (Object.hasOwn(schema, "const")) part.const = schema.const;
  // Why: OpenAPI 3.0's boolean exclusiveMinimum/Maximum asserts nothing in 2020-12 (unsupportedKeywords() names it).
  for (const key of ["exclusiveMinimum", "exclusiveMaximum", "multipleOf"] as const) if (typeof schema[key] === "number") part[key] = schema[key];
  if (schema.uniqueItems === true) part.uniqueItems = true;
  for (const key of ["minProperties", "maxProperties"] as const) if (typeof schema[key] === "number") part[key] = schema[key];
  if (schema.propertyNames !== undefined) part.propertyNames = subschemaNode(schema.propertyNames, checks);
  // `then` and `else` without `if` assert nothing (2020-12 section 10.2.2).
  if (schema.if !== undefined && !leavesUnchecked(schema.if, checks)) {
    part.if = subschemaNode(schema.if, checks);
    for (const key of ["then", "else"] as const) if (schema[key] !== undefined) part[key] = subschemaNode(schema[key], checks);
  }
  const dependent = asObject(schema.dependentRequired);
  if (dependent) {
    const lists = Object.entries(dependent).filter((entry): entry is [string, string[]] => Array.isArray(entry[1]) && entry[1].length > 0);
    if (lists.length > 0) part.dependentRequired = Object.fromEntries(lists);
  }
  return part;
}

/** The keywords a node holds as the schema writes them, in the node's order. */
const NODE_KEYWORDS = ["enum", "format", "minLength", "maxLength", "pattern", "minimum", "maximum", "minItems", "maxItems", "default"] as const;
const NODE_KEYWORD_SET: ReadonlySet<string> = new Set(NODE_KEYWORDS);

/**
 * The nodes of an object of subschemas (`properties`, `patternProperties`) by name, in its order,
 * a `__proto__` name as an own member (as Object.fromEntries makes it). Why a loop: the
 * entries and pairs made per object of every schema were a good part of the nodes' garbage.
 */
function membersNode(members: Record<string, unknown>, checks: PatternCheck): Record<string, unknown> {
  const node: Record<string, unknown> = {};
  for (const name in members) {
    if (!Object.hasOwn(members, name)) continue;
    const value = subschemaNode(members[name], checks);
    if (name === "__proto__") Object.defineProperty(node, name, { value, enumerable: true, writable: true, configurable: true });
    else node[name] = value;
  }
  return node;
}

/** The node of a subschema; a boolean schema (2020-12 section 4.3.2) is `{}` or its negation. */
function subschemaNode(value: unknown, checks: PatternCheck): Record<string, unknown> {
  return value === false ? { allOf: [{ not: {} }] } : schemaNode(asObject(value) ?? {}, checks);
}

/** Keywords whose values are data, not schemas. */
const DATA_KEYWORDS: ReadonlySet<string> = new Set(["enum", "const", "default", "example", "examples"]);

/**
 * Whether a schema or any subschema of it, or a named schema it refers to, holds a pattern the
 * validator leaves unchecked. `refs`, when given, collects the named schemas it refers to (the
 * walk then goes on past a finding, so that every reference is noted).
 */
function leavesUnchecked(value: unknown, checks: PatternCheck, visited = new Set<object>(), refs?: Set<string>): boolean {
  if (checks === undefined || typeof value !== "object" || value === null) return false;
  // Why each object once: a bundled document shares objects, and a walk without this could meet
  // one of them once per path to it. A second meeting can answer false: had the first found a
  // pattern left unchecked, the walk would have said so then. (A Set, not a WeakSet: it lives
  // for one named schema's walk, and a WeakSet's entries cost the collector more.)
  if (visited.has(value)) return false;
  visited.add(value);
  let found = false;
  // Why index and for-in loops: a list of each object's keys and of its children, made for every
  // object of every schema, was most of this walk's garbage.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (found && refs === undefined) return true;
      if (leavesUnchecked(value[i], checks, visited, refs)) found = true;
    }
    return found;
  }
  const schema = value as Record<string, unknown>;
  const ref = refName(schema as JsonSchema);
  if (ref !== undefined) refs?.add(ref);
  found = (ref !== undefined && checks.uncheckedIn(ref)) || (typeof schema.pattern === "string" && !checks.checks(schema.pattern));
  const names = schema.patternProperties !== undefined ? asObject(schema.patternProperties) : undefined;
  if (names !== undefined && !found) found = Object.keys(names).some((name) => !checks.checks(name));
  for (const key in schema) {
    if (!Object.hasOwn(schema, key) || DATA_KEYWORDS.has(key)) continue;
    if (found && refs === undefined) return true;
    if (leavesUnchecked(schema[key], checks, visited, refs)) found = true;
  }
  return found;
}

/** The members of `patternProperties` whose names the validator checks: the object itself when that is all of them. */
function checkedMembers(members: Record<string, unknown>, { checks }: NonNullable<PatternCheck>): Record<string, unknown> {
  const names = Object.keys(members);
  if (names.every(checks)) return members;
  const kept: Record<string, unknown> = {};
  for (const name of names) if (checks(name)) Object.defineProperty(kept, name, { value: members[name], enumerable: true, writable: true, configurable: true });
  return kept;
}

/**
 * Keywords that can make a value invalid (JSON Schema 2020-12, and the older drafts' ones that
 * documents still carry) which validateValue() does not implement: a request the document refuses
 * may pass. Annotations (description, examples, discriminator, x-*, ...) never refuse anything.
 */
const UNSUPPORTED = new Set([
  "dependentSchemas",
  "dependencies",
  "contains",
  "minContains",
  "maxContains",
  "additionalItems",
  "unevaluatedItems",
  "$dynamicRef",
  "$recursiveRef",
  "contentSchema",
]);

/** The keywords whose values unsupportedKeywords walks into, in its order: maps of subschemas, subschemas, lists of them, then `not`. */
const SUBSCHEMA_MAPS = ["properties", "patternProperties"] as const;
const SUBSCHEMAS = ["items", "additionalProperties", "propertyNames", "if", "then", "else", "unevaluatedProperties"] as const;
const SUBSCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;
const SUBSCHEMA_KEYWORDS: ReadonlySet<string> = new Set([...SUBSCHEMA_MAPS, ...SUBSCHEMAS, ...SUBSCHEMA_LISTS, "not"]);

/**
 * The assertions and applicators validateValue() implements (see the runtime's `SchemaNode`):
 * what schemaNode and partKeywords put into a node, and the subschemas they walk into.
 */
const SUPPORTED: ReadonlySet<string> = new Set([
  "$ref",
  "type",
  "required",
  ...NODE_KEYWORDS.filter((key) => key !== "default"),
  ...PART_KEYWORDS,
  ...SUBSCHEMA_KEYWORDS,
]);

/**
 * Every keyword of `schema` and its subschemas (properties, patternProperties, items,
 * prefixItems, additionalProperties, propertyNames, if/then/else, unevaluatedProperties, allOf,
 * anyOf, oneOf, not; a `$ref` is not followed) that the generated validator cannot check, each
 * with the JSON Pointer of the keyword itself: `pointer` (the schema's own) plus the path to it.
 * Besides the keywords of UNSUPPORTED: a `$ref` outside `#/components/schemas`, the keywords
 * beside a `$ref` (the validator follows the reference alone), `items` as an array (the tuple form
 * before 2020-12) and a boolean `exclusiveMinimum`/`exclusiveMaximum` (OpenAPI 3.0's form).
 */
export function unsupportedKeywords(schema: JsonSchema, pointer: string): { pointer: string; keyword: string }[] {
  const found: { pointer: string; keyword: string }[] = [];
  const report = (at: string, keyword: string) => found.push({ pointer: `${at}/${escapeToken(keyword)}`, keyword });
  const walk = (value: unknown, at: string): void => {
    const node = asObject(value);
    if (!node) return;
    if (refName(node) !== undefined) {
      for (const key of Object.keys(node)) if (key !== "$ref" && (SUPPORTED.has(key) || UNSUPPORTED.has(key))) report(at, key);
      return;
    }
    let children = 0;
    for (const [key, child] of Object.entries(node)) {
      if (SUBSCHEMA_KEYWORDS.has(key)) children++;
      const unsupported =
        UNSUPPORTED.has(key) ||
        key === "$ref" ||
        (key === "items" && Array.isArray(child)) ||
        ((key === "exclusiveMinimum" || key === "exclusiveMaximum") && typeof child === "boolean");
      if (unsupported) report(at, key);
    }
    // Why: most schemas have no subschema, and the look-ups of the fourteen names were
    // most of the walk; the pointers of the subschemas a schema does not have were a dozen strings.
    if (children === 0) return;
    for (const key of SUBSCHEMA_MAPS) {
      const members = asObject(node[key]);
      if (members) for (const [name, property] of Object.entries(members)) walk(property, `${at}/${key}/${escapeToken(name)}`);
    }
    for (const key of SUBSCHEMAS) if (node[key] !== undefined) walk(node[key], `${at}/${key}`);
    for (const key of SUBSCHEMA_LISTS) {
      const members = node[key];
      if (Array.isArray(members)) members.forEach((member, i) => walk(member, `${at}/${key}/${i}`));
    }
    if (node.not !== undefined) walk(node.not, `${at}/not`);
  };
  walk(schema, pointer);
  return found;
}
