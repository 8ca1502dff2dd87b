import { distance } from "fastest-levenshtein";
import { type Diagnostic, diagnostic } from "../../diagnostics/index.js";
import type { LoadedDocument, Path } from "./load.js";

/**
 * A small description language for the declaration's shape. One description serves twice:
 * `checkShape` walks a loaded document with it (diagnostics with places and suggestions), and
 * `toJsonSchema` prints it as the JSON Schema editors use. So the two cannot drift apart.
 */
export type Shape =
  | { readonly kind: "string"; readonly enum?: readonly string[]; readonly pattern?: Pattern; readonly description?: string }
  | { readonly kind: "integer"; readonly const?: number; readonly minimum?: number; readonly description?: string }
  | { readonly kind: "number"; readonly description?: string }
  | { readonly kind: "boolean"; readonly description?: string }
  | { readonly kind: "any"; readonly description?: string }
  | {
      readonly kind: "array";
      readonly items: Shape;
      readonly minItems?: number;
      readonly noun?: string;
      readonly description?: string;
      readonly schemaOnly?: SchemaOnly;
    }
  | {
      readonly kind: "object";
      readonly properties: Readonly<Record<string, Property>>;
      /** At least this many of the properties must be given (`noun` names them in the message). */
      readonly minProperties?: { readonly count: number; readonly noun: string };
      readonly description?: string;
      readonly schemaOnly?: SchemaOnly;
    }
  | {
      readonly kind: "map";
      readonly values: Shape;
      readonly keys?: Pattern;
      readonly minProperties?: number;
      readonly noun: string;
      readonly description?: string;
      readonly schemaOnly?: SchemaOnly;
    }
  | { readonly kind: "union"; readonly options: readonly Shape[]; readonly description?: string }
  | {
      /** An object whose allowed keys depend on the value of one key (the tag). */
      readonly kind: "tagged";
      readonly tag: string;
      readonly variants: Readonly<Record<string, Extract<Shape, { kind: "object" }>>>;
      readonly description?: string;
    }
  | { readonly kind: "ref"; readonly name: string };

/** The prefix of the extensions codegen writes itself; a declaration may not use it. */
const CODEGEN_EXTENSION = "x-codegen-";

/** A regular expression with the rule it enforces, in words, for the message. */
export interface Pattern {
  readonly regex: string;
  readonly rule: string;
  /** The longest text allowed, in UTF-16 code units (names: NAME_LIMIT); checked before the regex. */
  readonly maxLength?: number;
}

/** The first characters of an over-long name, for its message (the whole would make the message as long). */
const NAME_START = 32;

/** One key of an object shape. */
export interface Property {
  readonly shape: Shape;
  readonly required?: boolean;
}

/**
 * JSON Schema keywords (`uniqueItems`, or an `allOf` of conditions) for rules the validator checks
 * after the shape, with a message that names the reason (validate.ts, read.ts): `checkShape`
 * skips them, and the printed schema states them so an editor flags what it can.
 */
export type SchemaOnly = Readonly<Record<string, unknown>>;

/** Named shapes that refer to each other (a field holds fields). */
export type ShapeDefs = Readonly<Record<string, Shape>>;

/** The JSON type of a plain value, as the shapes name them. */
function jsonType(value: unknown): "string" | "integer" | "number" | "boolean" | "array" | "object" | "null" {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "string" || typeof value === "boolean") return typeof value as "string" | "boolean";
  return "object";
}

const typeWords: Record<string, string> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "`true` or `false`",
  array: "a list",
  object: "a map",
  null: "empty (null)",
  map: "a map",
};

/** How a value is described in messages: its kind, and short scalars themselves. */
function describeValue(value: unknown): string {
  const type = jsonType(value);
  if ((type === "string" || type === "integer" || type === "number") && String(value).length <= 40) {
    return `${typeWords[type]} (${typeof value === "string" ? JSON.stringify(value) : String(value)})`;
  }
  return typeWords[type] ?? type;
}

/** A path as users read it: `resources.articles.fields.title`. */
export function displayPath(path: Path): string {
  if (path.length === 0) return "the top level";
  return "`" + path.map((p, i) => (typeof p === "number" ? `[${p}]` : (i === 0 ? "" : ".") + p)).join("") + "`";
}

/** The known key nearest to a misspelt one, when it is near enough to be a likely typo. */
export function suggest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = distance(key.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

function expectedWords(shape: Shape, defs: ShapeDefs): string {
  const s = resolve(shape, defs);
  switch (s.kind) {
    case "union":
      return [...new Set(s.options.map((o) => expectedWords(o, defs)))].join(" or ");
    case "any":
      return "a value";
    case "array":
      return s.noun ? `a list of ${s.noun}s` : "a list";
    default:
      return typeWords[s.kind] ?? s.kind;
  }
}

function resolve(shape: Shape, defs: ShapeDefs): Exclude<Shape, { kind: "ref" }> {
  let s = shape;
  while (s.kind === "ref") {
    const next = defs[s.name];
    if (!next) throw new Error(`shape ${s.name} is not defined`);
    s = next;
  }
  return s;
}

/** Whether a value's JSON type fits a shape's kind, before looking any deeper. */
function fits(shape: Shape, value: unknown, defs: ShapeDefs): boolean {
  const s = resolve(shape, defs);
  const type = jsonType(value);
  switch (s.kind) {
    case "any":
      return true;
    case "number":
      return type === "number" || type === "integer";
    case "map":
    case "object":
    case "tagged":
      return type === "object";
    case "union":
      return s.options.some((o) => fits(o, value, defs));
    default:
      return s.kind === type;
  }
}

/**
 * A place in the document: a key under a place (undefined: the root). Why: the check
 * passes one to every value of the declaration, and only a problem needs the path; copied as
 * an array at every level, the paths were much of the check's garbage.
 */
type At = { readonly parent: At; readonly key: string | number } | undefined;

/** The path of a place. */
function pathOf(at: At): Path {
  const keys: (string | number)[] = [];
  for (let place = at; place; place = place.parent) keys.push(place.key);
  return keys.reverse();
}

/**
 * The path of a place in words. Why made from `at` only for a problem: the path, and its words,
 * built for every value of the declaration, were a good part of the check's time and garbage.
 */
const where = (at: At): string => displayPath(pathOf(at));

/** The required keys of each object shape, listed once (the shapes are constants). */
const required = new WeakMap<object, readonly string[]>();
function requiredKeys(shape: Extract<Shape, { kind: "object" }>): readonly string[] {
  let keys = required.get(shape);
  if (keys === undefined) required.set(shape, (keys = Object.keys(shape.properties).filter((key) => shape.properties[key]!.required)));
  return keys;
}

const isTooLong = (text: string, pattern: Pattern): boolean => pattern.maxLength !== undefined && text.length > pattern.maxLength;

/** The arguments of `decl/name-too-long`: where, how long, and the name's start rather than all of it. */
const tooLong = (where: string, text: string, pattern: Pattern) => ({
  where,
  length: text.length,
  limit: pattern.maxLength!,
  start: text.slice(0, NAME_START),
});

/** Each pattern's regular expression, compiled once (the shapes are constants: the map stays small). */
const compiled = new Map<string, RegExp>();
export function regexOf(pattern: Pattern): RegExp {
  let regex = compiled.get(pattern.regex);
  if (regex === undefined) compiled.set(pattern.regex, (regex = new RegExp(pattern.regex, "u")));
  return regex;
}

/**
 * Check a loaded document against a shape, collecting every problem: unknown keys (with the
 * nearest known key), missing keys, wrong types, values outside an enum or a pattern.
 */
export function checkShape(document: LoadedDocument, root: Shape, defs: ShapeDefs): Diagnostic[] {
  const out: Diagnostic[] = [];
  /** `alternatives`: what else the value could have been, when a union chose this shape (asked only for a message). */
  const walk = (shape: Shape, value: unknown, at: At, alternatives?: () => string | undefined): void => {
    const s = resolve(shape, defs);
    if (!fits(s, value, defs)) {
      const expected = expectedWords(s, defs);
      // A version written 1.4 or a name written yes reads as a number or boolean in YAML.
      const hint = expected === "a string" && ["number", "integer", "boolean"].includes(jsonType(value)) ? "write it in quotes" : undefined;
      out.push(diagnostic("decl/wrong-type", { where: where(at), expected, actual: describeValue(value), hint }, document.locate(pathOf(at))));
      return;
    }
    switch (s.kind) {
      case "string": {
        const text = value as string;
        if (s.enum && !s.enum.includes(text)) {
          const args = { where: where(at), allowed: s.enum, actual: describeValue(value), other: alternatives?.(), suggestion: suggest(text, s.enum) };
          out.push(diagnostic("decl/bad-value", args, document.locate(pathOf(at))));
        } else if (s.pattern && isTooLong(text, s.pattern)) {
          out.push(diagnostic("decl/name-too-long", tooLong(where(at), text, s.pattern), document.locate(pathOf(at))));
        } else if (s.pattern && !regexOf(s.pattern).test(text)) {
          out.push(diagnostic("decl/bad-pattern", { where: where(at), rule: s.pattern.rule }, document.locate(pathOf(at))));
        }
        return;
      }
      case "integer":
        if (s.const !== undefined && value !== s.const) {
          out.push(diagnostic("decl/bad-value", { where: where(at), allowed: [String(s.const)], actual: describeValue(value) }, document.locate(pathOf(at))));
        } else if (s.minimum !== undefined && (value as number) < s.minimum) {
          out.push(diagnostic("decl/bad-pattern", { where: where(at), rule: `must be at least ${s.minimum}` }, document.locate(pathOf(at))));
        }
        return;
      case "array": {
        const items = value as unknown[];
        if (s.minItems !== undefined && items.length < s.minItems) {
          out.push(diagnostic("decl/too-few", { where: where(at), min: s.minItems, noun: s.noun ?? "item" }, document.locate(pathOf(at))));
        }
        for (let i = 0; i < items.length; i++) walk(s.items, items[i], { parent: at, key: i });
        return;
      }
      case "object": {
        const record = value as Record<string, unknown>;
        // Why: made only for an unknown key, not for every map of the declaration.
        let suggested: Set<string> | undefined;
        let given = 0;
        for (const key of Object.keys(record)) {
          if (!key.startsWith("x-")) given++;
          // Why: own keys only: a key `__proto__` or `constructor` is an unknown key, not Object's.
          const property = Object.hasOwn(s.properties, key) ? s.properties[key] : undefined;
          if (property) walk(property.shape, record[key], { parent: at, key });
          else if (key.startsWith(CODEGEN_EXTENSION)) {
            // Why: codegen records what OpenAPI cannot say in `x-codegen-*` (docs/openapi.md); a
            // declared one would be copied over codegen's own and mislead the renderer.
            out.push(diagnostic("decl/reserved-extension", { key }, document.locate([...pathOf(at), key], "key")));
          } else if (!key.startsWith("x-")) {
            const suggestion = suggest(key, Object.keys(s.properties));
            if (suggestion) (suggested ??= new Set()).add(suggestion);
            out.push(diagnostic("decl/unknown-key", { key, where: where(at), suggestion }, document.locate([...pathOf(at), key], "key")));
          }
        }
        if (s.minProperties && given < s.minProperties.count) {
          out.push(diagnostic("decl/too-few", { where: where(at), min: s.minProperties.count, noun: s.minProperties.noun }, document.locate(pathOf(at))));
        }
        for (const key of requiredKeys(s)) {
          // A missing key that a misspelt one was taken for is reported once, as the typo.
          if (!(key in record) && !suggested?.has(key)) {
            out.push(diagnostic("decl/missing-key", { key, where: at ? where(at) : "the declaration" }, document.locate(pathOf(at), "key")));
          }
        }
        return;
      }
      case "map": {
        const record = value as Record<string, unknown>;
        const keys = Object.keys(record);
        if (s.minProperties !== undefined && keys.length < s.minProperties) {
          out.push(diagnostic("decl/too-few", { where: where(at), min: s.minProperties, noun: s.noun }, document.locate(pathOf(at))));
        }
        for (const key of keys) {
          if (key.startsWith("x-")) {
            out.push(diagnostic("decl/extension-as-name", { key, where: where(at) }, document.locate([...pathOf(at), key], "key")));
            continue;
          }
          if (s.keys && isTooLong(key, s.keys)) {
            const args = tooLong(`a ${s.noun} name in ${where(at)}`, key, s.keys);
            out.push(diagnostic("decl/name-too-long", args, document.locate([...pathOf(at), key], "key")));
          } else if (s.keys && !regexOf(s.keys).test(key)) {
            out.push(
              diagnostic("decl/bad-pattern", { where: displayPath([...pathOf(at), key]), rule: s.keys.rule }, document.locate([...pathOf(at), key], "key")),
            );
          }
          walk(s.values, record[key], { parent: at, key });
        }
        return;
      }
      case "union": {
        const option = s.options.find((o) => fits(o, value, defs));
        const others = () => {
          const words = s.options.filter((o) => o !== option).map((o) => expectedWords(o, defs));
          return words.length > 0 ? words.join(" or ") : undefined;
        };
        if (option) walk(option, value, at, others);
        return;
      }
      case "tagged": {
        const record = value as Record<string, unknown>;
        const allowed = Object.keys(s.variants);
        const tag = record[s.tag];
        if (!(s.tag in record)) {
          out.push(diagnostic("decl/missing-key", { key: s.tag, where: where(at) }, document.locate(pathOf(at), "key")));
        } else if (typeof tag !== "string" || !s.variants[tag]) {
          const suggestion = typeof tag === "string" ? suggest(tag, allowed) : undefined;
          out.push(
            diagnostic(
              "decl/bad-value",
              { where: displayPath([...pathOf(at), s.tag]), allowed, actual: describeValue(tag), suggestion },
              document.locate([...pathOf(at), s.tag]),
            ),
          );
        } else {
          walk(s.variants[tag], value, at);
        }
        return;
      }
      default:
        return;
    }
  };
  walk(root, document.value, undefined);
  return out;
}

/** JSON Schema (2020-12) for a shape; `x-` keys (but `x-codegen-*`) are allowed wherever an object has fixed keys. */
export function toJsonSchema(root: Shape, defs: ShapeDefs, meta: { id: string; title: string }): Record<string, unknown> {
  const convert = (shape: Shape): Record<string, unknown> => {
    const described = (schema: Record<string, unknown>) =>
      "description" in shape && shape.description ? { description: shape.description, ...schema } : schema;
    switch (shape.kind) {
      case "ref":
        return { $ref: `#/$defs/${shape.name}` };
      case "string":
        return described({
          type: "string",
          ...(shape.enum ? { enum: [...shape.enum] } : {}),
          ...(shape.pattern ? { pattern: shape.pattern.regex } : {}),
          ...(shape.pattern?.maxLength !== undefined ? { maxLength: shape.pattern.maxLength } : {}),
        });
      case "integer":
        return described({
          type: "integer",
          ...(shape.const !== undefined ? { const: shape.const } : {}),
          ...(shape.minimum !== undefined ? { minimum: shape.minimum } : {}),
        });
      case "number":
      case "boolean":
        return described({ type: shape.kind });
      case "any":
        return described({});
      case "array":
        return described({
          type: "array",
          items: convert(shape.items),
          ...(shape.minItems ? { minItems: shape.minItems } : {}),
          ...shape.schemaOnly,
        });
      case "object": {
        const required = [...requiredKeys(shape)];
        return described({
          type: "object",
          properties: Object.fromEntries(Object.entries(shape.properties).map(([k, p]) => [k, convert(p.shape)])),
          ...(required.length ? { required } : {}),
          ...(shape.minProperties ? { minProperties: shape.minProperties.count } : {}),
          patternProperties: { "^x-(?!codegen-)": {} },
          additionalProperties: false,
          ...shape.schemaOnly,
        });
      }
      case "map":
        return described({
          type: "object",
          propertyNames: {
            ...(shape.keys ? { pattern: shape.keys.regex } : {}),
            ...(shape.keys?.maxLength !== undefined ? { maxLength: shape.keys.maxLength } : {}),
            not: { pattern: "^x-" },
          },
          additionalProperties: convert(shape.values),
          ...(shape.minProperties ? { minProperties: shape.minProperties } : {}),
          ...shape.schemaOnly,
        });
      case "union":
        return described({ anyOf: shape.options.map(convert) });
      case "tagged":
        return described({
          type: "object",
          required: [shape.tag],
          properties: { [shape.tag]: { enum: Object.keys(shape.variants) } },
          allOf: Object.entries(shape.variants).map(([tag, variant]) => ({
            if: { properties: { [shape.tag]: { const: tag } } },
            then: convert(variant),
          })),
        });
    }
  };
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: meta.id,
    title: meta.title,
    ...convert(root),
    $defs: Object.fromEntries(Object.entries(defs).map(([k, s]) => [k, convert(s)])),
  };
}
