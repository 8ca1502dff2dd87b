/**
 * TypeScript type expressions as the model builds them: each its text as codegen writes it flat
 * and its syntax, which the printer (src/emit/print.ts) lays out where the text does not fit its
 * line. Built here, the syntax is never read back from the text.
 */
import { docLines, propertyKey, typeLiteral } from "./escape.js";

/** A type expression: its text and its syntax. */
export type TypeExpr =
  /**
   * Text never broken: a keyword or (qualified) name, a template literal type, the type of a JSON
   * value (typeLiteral's text, an object or array's too: the printer lays it out as it stands).
   */
  | { readonly kind: "word"; readonly text: string }
  | { readonly kind: "generic"; readonly text: string; readonly name: string; readonly args: readonly TypeExpr[] }
  /** `comments[i]`: the doc comment before member i's `|`, if any (documentedUnion's). */
  | { readonly kind: "union"; readonly text: string; readonly members: readonly TypeExpr[]; readonly comments?: readonly (string | undefined)[] }
  | { readonly kind: "intersection"; readonly text: string; readonly parts: readonly TypeExpr[] }
  | { readonly kind: "array"; readonly text: string; readonly element: TypeExpr }
  | { readonly kind: "readonly"; readonly text: string; readonly inner: TypeExpr }
  | { readonly kind: "parens"; readonly text: string; readonly inner: TypeExpr }
  | { readonly kind: "tuple"; readonly text: string; readonly elements: readonly TupleElement[] }
  | { readonly kind: "object"; readonly text: string; readonly members: readonly Member[] };

/** An element of a tuple type: `...T`, `T`, `T?`. */
export interface TupleElement {
  readonly rest: boolean;
  readonly type: TypeExpr;
  readonly optional: boolean;
}

/**
 * A member of an object type: its `/** *\/` comment (as written, if any), `readonly`, key (as
 * written: a name, a string literal, `["__proto__"]`, or an index signature's `[key: string]`),
 * `?` and type.
 */
export interface Member {
  readonly comment: string | undefined;
  readonly readonly: boolean;
  readonly key: string;
  readonly optional: boolean;
  readonly type: TypeExpr;
}

/** A keyword, a (qualified) type name or a template literal type (`` `x-${string}` ``). */
export const word = (text: string): TypeExpr => ({ kind: "word", text });

/** The type of a value of JSON (typeLiteral's text). */
export const literalType = (value: unknown): TypeExpr => word(typeLiteral(value));

/** Parts joined by ` | `; a union among them is flattened, as its text reads (one part: itself). */
export function unionType(parts: readonly TypeExpr[]): TypeExpr {
  if (parts.length === 1) return parts[0]!;
  let text = parts[0]!.text;
  for (let i = 1; i < parts.length; i++) text += " | " + parts[i]!.text;
  // A union read from text (with its comments) stays one: laid out as a union in a union, Unsure.
  const flat = (part: TypeExpr): part is Extract<TypeExpr, { kind: "union" }> => part.kind === "union" && part.comments === undefined;
  const members = parts.some(flat) ? parts.flatMap((part) => (flat(part) ? part.members : [part])) : parts;
  return { kind: "union", text, members };
}

/**
 * A union whose member i follows the doc comment `comments[i]` (docComment's, if any), on lines
 * of their own: its text holds them, so it is never printed flat. Without any comment, unionType.
 */
export function documentedUnion(parts: readonly TypeExpr[], comments: readonly (string | undefined)[]): TypeExpr {
  if (comments.every((c) => c === undefined)) return unionType(parts);
  const text = parts.map((part, i) => `${comments[i] === undefined ? "" : `${comments[i]}\n`}| ${part.text}`).join("\n");
  return { kind: "union", text, members: parts, comments };
}

/** Parts joined by ` & `; an intersection among them is flattened, as its text reads (one part: itself). */
export function intersectionType(parts: readonly TypeExpr[]): TypeExpr {
  if (parts.length === 1) return parts[0]!;
  return {
    kind: "intersection",
    text: parts.map((part) => part.text).join(" & "),
    parts: parts.flatMap((part) => (part.kind === "intersection" ? part.parts : [part])),
  };
}

/** `(type)`. */
export const parenthesized = (inner: TypeExpr): TypeExpr => ({ kind: "parens", text: `(${inner.text})`, inner });

/** `type[]` (the element in parentheses where it needs them: the caller's). */
export const arrayType = (element: TypeExpr): TypeExpr => ({ kind: "array", text: `${element.text}[]`, element });

/** `readonly type`. */
export const readonlyType = (inner: TypeExpr): TypeExpr => ({ kind: "readonly", text: `readonly ${inner.text}`, inner });

/** `name<args>`. */
export const genericType = (name: string, args: readonly TypeExpr[]): TypeExpr => ({
  kind: "generic",
  text: `${name}<${args.map((arg) => arg.text).join(", ")}>`,
  name,
  args,
});

/** `[A, B?, ...C]`. */
export function tupleType(elements: readonly TupleElement[]): TypeExpr {
  const text = elements.map((e) => `${e.rest ? "..." : ""}${e.type.text}${e.optional ? "?" : ""}`).join(", ");
  return { kind: "tuple", text: `[${text}]`, elements };
}

/** `{ a: A; b?: B }` (`{}` without members), each member's comment on lines of its own. */
export function objectType(members: readonly Member[]): TypeExpr {
  if (members.length === 0) return { kind: "object", text: "{}", members };
  const text = members.map(memberText).join("; ");
  return { kind: "object", text: `{ ${text} }`, members };
}

function memberText(member: Member): string {
  const comment = member.comment === undefined ? "" : `\n${member.comment}\n`;
  return `${comment}${member.readonly ? "readonly " : ""}${member.key}${member.optional ? "?" : ""}: ${member.type.text}`;
}

/** A member named `name` (written as propertyKey writes it), with the doc comment of `description`. */
export function member(name: string, type: TypeExpr, options: { optional?: boolean; readonly?: boolean; description?: string | undefined } = {}): Member {
  const comment = options.description === undefined ? undefined : docComment(options.description);
  return { comment, readonly: options.readonly === true, key: propertyKey(name), optional: options.optional === true, type };
}

/** An index signature `[parameter: type]: value`. */
export function indexMember(parameter: string, type: TypeExpr, value: TypeExpr, readonly = false): Member {
  return { comment: undefined, readonly, key: `[${parameter}: ${type.text}]`, optional: false, type: value };
}

/** The doc comment of free text (made of docLines: nothing in it can end it); none for text without any. */
export function docComment(text: string | undefined): string | undefined {
  const lines = docLines(text);
  if (lines.length === 0) return undefined;
  if (lines.length === 1) return `/** ${lines[0]} */`;
  return `/**\n${lines.map((line) => (line === "" ? " *" : ` * ${line}`)).join("\n")}\n */`;
}
