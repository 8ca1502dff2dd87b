/**
 * Reading raw declaration values once the shape check has run: typed views of plain data that
 * tolerate what the shape check already reported, and the field reader that every place holding
 * fields shares (resource fields, nested fields, query parameters, action bodies).
 */
import type { DiagnosticArgs, DiagnosticCode } from "../../diagnostics/index.js";
import type { Path } from "./load.js";
import type { EnumValue, Extensions, Field, FieldType, StringFormat } from "./model.js";
import { patternProblem } from "../verify/patterns.js";
import { checkValue } from "./values.js";
import { KEYS_FOR_TYPE } from "./schema.js";
import { type Json, isObject, objectOf } from "../../model/json.js";

/** A raw map of the declaration (`objectOf` gives an empty one for a value that is none: the shape check reported that). */
export type Raw = Json;
/** A raw value as a list (empty when it is none). */
export const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** A raw value as a string, if it is one. */
export const asString = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
/** The strings of a raw list. */
export const strings = (v: unknown): string[] => asArray(v).filter((x): x is string => typeof x === "string");

/** The `x-` keys of a raw map. */
export function extensionsOf(raw: Raw): Extensions {
  // Why a loop: an array of the entries of every map of the declaration was garbage.
  // Assignment is safe: a key that starts with `x-` is no accessor of Object.prototype.
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) if (key.startsWith("x-")) out[key] = raw[key];
  return out;
}

/** Keys whose value may be undefined become optional keys. */
export type Defined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** Copy of a map without undefined values, so optional keys are absent rather than undefined. */
export function defined<const T extends object>(value: T): Defined<T> {
  // The keys are codegen's own (an object literal's): assignment is safe, and no entries are made.
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) out[key] = item;
  }
  return out as Defined<T>;
}

/** How validators report a problem at a path of the document. */
export type Report = <C extends DiagnosticCode>(code: C, args: DiagnosticArgs<C>, path: Path, part?: "value" | "key") => void;

/**
 * Where a field stands, which decides the keys it may carry: a resource's own field (`filter`
 * and `ref` allowed), a nested field or array item, an extra query parameter of a list (a
 * scalar, no `filter`, `ref`, `nullable`, `readOnly` or `writeOnly`), or a field of an action's
 * body (no `filter` or `ref`: the body is not stored).
 */
export type FieldPlace = "resource" | "nested" | "query" | "body";

/** Keys that mean nothing at a place, and how the place reads in the message. */
const NOT_AT_PLACE: Partial<Record<FieldPlace, { readonly keys: readonly string[]; readonly words: string }>> = {
  query: { keys: ["filter", "ref", "renamedFrom", "nullable", "readOnly", "writeOnly"], words: "a query parameter" },
  body: { keys: ["filter", "ref", "renamedFrom"], words: "a field of an action's body" },
};

/** The bounds that must not cross, each a minimum and its maximum. */
const MIN_MAX = [
  ["minLength", "maxLength"],
  ["minimum", "maximum"],
  ["minItems", "maxItems"],
] as const;

/** The fields of a raw `fields` map, in declaration order, each read at `place`. */
export function readFields(raw: unknown, path: Path, report: Report, place: FieldPlace): Field[] {
  const out: Field[] = [];
  for (const [name, value] of Object.entries(objectOf(raw))) {
    if (name.startsWith("x-")) continue;
    const field = readField(name, value, [...path, name], report, place);
    if (field) out.push(field);
  }
  return out;
}

/** Read one field, checking every rule that concerns it alone (and its place). */
export function readField(name: string, raw: unknown, path: Path, report: Report, place: FieldPlace): Field | undefined {
  if (typeof raw === "string") {
    const array = raw.endsWith("[]");
    const base = (array ? raw.slice(0, -2) : raw) as FieldType;
    if (!["string", "integer", "number", "boolean"].includes(base)) return undefined;
    if (array && place === "query") report("decl/query-not-scalar", { type: "array" }, path);
    return array ? { ...plainField(name, "array"), items: plainField("items", base) } : plainField(name, base);
  }
  if (!isObject(raw)) return undefined;
  const type = raw.type as FieldType;
  if (!["string", "integer", "number", "boolean", "array", "object"].includes(type)) return undefined;
  for (const key in KEYS_FOR_TYPE) {
    if (key in raw && !KEYS_FOR_TYPE[key]!.includes(type)) report("decl/key-not-for-type", { key, type }, [...path, key], "key");
  }
  if (type === "array" && !("items" in raw)) report("decl/items-required", {}, [...path, "type"]);
  if (type === "object" && !("fields" in raw)) report("decl/fields-required", {}, [...path, "type"]);
  if (place === "nested") {
    for (const key of ["filter", "ref", "renamedFrom"]) if (key in raw) report("decl/only-top-level", { key }, [...path, key], "key");
  }
  const notHere = NOT_AT_PLACE[place];
  if (notHere) {
    for (const key of notHere.keys) if (key in raw) report("decl/key-not-for-place", { key, place: notHere.words }, [...path, key], "key");
  }
  if (place === "query" && (type === "array" || type === "object")) report("decl/query-not-scalar", { type }, [...path, "type"]);
  if (raw.filter === true && (type === "array" || type === "object")) report("decl/filter-not-scalar", { type }, [...path, "filter"]);
  // Why: `?secret=guess` would tell a client the value that responses hide, as a sort order would.
  else if (raw.filter === true && raw.writeOnly === true) report("decl/filter-write-only", {}, [...path, "filter"]);
  if (typeof raw.pattern === "string") {
    try {
      new RegExp(raw.pattern, "u");
    } catch (error) {
      report("decl/bad-regex", { reason: (error as Error).message.replace(/^Invalid regular expression: /, "") }, [...path, "pattern"]);
    }
    const reason = patternProblem(raw.pattern);
    if (reason !== undefined) report("schema/unsafe-pattern", { pattern: raw.pattern, reason }, [...path, "pattern"]);
  }
  for (const [min, max] of MIN_MAX) {
    if (typeof raw[min] === "number" && typeof raw[max] === "number" && raw[min] > raw[max]) {
      report("decl/min-above-max", { min, max }, [...path, min]);
    }
  }
  const items = type === "array" && "items" in raw ? readField("items", raw.items, [...path, "items"], report, "nested") : undefined;
  const field: Field = defined({
    name,
    type,
    items,
    fields: type === "object" ? readFields(raw.fields, [...path, "fields"], report, "nested") : undefined,
    enum: Array.isArray(raw.enum) ? (raw.enum as EnumValue[]) : undefined,
    format: asString(raw.format) as StringFormat | undefined,
    required: raw.required === true,
    nullable: raw.nullable === true,
    default: "default" in raw ? { value: raw.default } : undefined,
    readOnly: raw.readOnly === true,
    writeOnly: raw.writeOnly === true,
    filter: raw.filter === true,
    ref: asString(raw.ref),
    renamedFrom: asString(raw.renamedFrom),
    description: asString(raw.description),
    example: "example" in raw ? { value: raw.example } : undefined,
    extensions: extensionsOf(raw),
    minLength: numberOrUndefined(raw.minLength),
    maxLength: numberOrUndefined(raw.maxLength),
    pattern: asString(raw.pattern),
    minimum: numberOrUndefined(raw.minimum),
    maximum: numberOrUndefined(raw.maximum),
    minItems: numberOrUndefined(raw.minItems),
    maxItems: numberOrUndefined(raw.maxItems),
  });
  if (field.enum) {
    const { enum: _values, ...withoutEnum } = field;
    field.enum.forEach((value, i) => {
      const problem = checkValue(withoutEnum, value);
      if (problem) report("decl/bad-enum-value", { problem }, [...path, "enum", i]);
    });
  }
  if (field.default) {
    const problem = checkValue(field, field.default.value);
    if (problem) report("decl/default-invalid", { problem }, [...path, "default"]);
  }
  return field;
}

const numberOrUndefined = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

function plainField(name: string, type: FieldType): Field {
  return { name, type, required: false, nullable: false, readOnly: false, writeOnly: false, filter: false, extensions: {} };
}
