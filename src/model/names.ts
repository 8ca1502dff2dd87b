/**
 * The one gate for names from the input that become code: type names, handler methods, handler
 * groups, binders and the files of handler groups. A name is either the input's own, checked
 * here, or made here of the input's words; the view holds no other identifier from the input.
 * (Names that stay data go through escape.ts: `propertyKey`, `stringLiteral`, `literal`.)
 */
import { isIdentifier, stringLiteral } from "./escape.js";

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

/** A JSON pointer (`#/paths/~1a/get`) from its reference tokens (RFC 6901). */
export const pointerOf = (...parts: string[]): string => "#/" + parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

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
 * The gate itself: `name` when it is an identifier, else an UnsupportedConstruct at `pointer`.
 * Every identifier the view puts into code from the input passes here last.
 */
export function checkedIdentifier(name: string, pointer: string, what: string): string {
  if (!isIdentifier(name)) throw new UnsupportedConstruct(pointer, `${what} ${stringLiteral(name)} is not a JavaScript identifier`);
  return name;
}

/**
 * The type names of a document's schemas (after prepareDocument gave each an identifier). The only
 * way a schema name, or the name a `$ref` gives, becomes a type name in code: a name that is not
 * one of the document's schemas, or not a type name, is an UnsupportedConstruct, never code.
 */
export class SchemaTypeNames {
  private readonly known: ReadonlySet<string>;

  /** The names of `schemas` (the document's `components/schemas`). */
  constructor(schemas: object) {
    this.known = new Set(Object.keys(schemas));
  }

  /** The type name of the schema `name`, checked. */
  typeName(name: string): string {
    if (!this.known.has(name)) {
      throw new UnsupportedConstruct(
        pointerOf("components", "schemas"),
        `a reference names the schema ${stringLiteral(name)}, which the document does not define`,
      );
    }
    if (!isTypeName(name)) throw new UnsupportedConstruct(pointerOf("components", "schemas", name), `schema name ${stringLiteral(name)} cannot be a type name`);
    return name;
  }
}
