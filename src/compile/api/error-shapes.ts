/**
 * How a server rendered from a document written by others answers its own refusals
 * (runtime/problems.gen.ts; docs/openapi.md, "How a server from a document answers errors"): for
 * each error response an operation declares, a template that builds a body its schema accepts
 * from the server's problem (status, title, a message per field), found by the names and types of
 * the schema's properties. The common shapes fall out of it: RFC 9457 problem details,
 * `{code, message}`, `{message}`, `{error: {code, message}}`, FastAPI's `{detail: [...]}`,
 * `{message, errors}`, and the required fields of others (HubSpot's `{category, correlationId, message}`).
 */

import type { ErrorTemplate, RefusalShapes } from "#runtime/problems.gen.js";
import { type Json, isObject, listOf, objectOf } from "../../model/json.js";
import { type MediaEntry, type ResponseObject, stringOf, stringsOf } from "./document.js";
import { statusMap } from "../expand/schemas.js";
import { unescapeToken, valueAt } from "../pointer.js";

/** The names a property holding the problem's sentence goes by. */
const MESSAGE = /^(message|msg|detail|details|description|error_?description|error_?message|reason|summary|text)$/i;
/** The names of a code: a word for the kind of problem (`not_found`). */
const CODE = /^(code|error_?code|type|category|error_?type|kind|name|key|reason_?code|sub_?code)$/i;
/** The names of the HTTP status. */
const STATUS = /^(status|status_?code|http_?status|http_?code|code)$/i;
/** The names of a list of one item per offending field. */
const LIST =
  /^(errors|details|detail|issues|violations|fields|field_?errors|invalid_?params|invalid-params|validation_?errors|causes|problems|messages|error_?details)$/i;
/** The names of an offending field in a list item. */
const FIELD = /^(field|name|param|parameter|property|path|location|target|attribute|source|key)$/i;
/** The names of an RFC 6901 pointer in a list item. */
const POINTER = /^(pointer|json_?pointer)$/i;

/** Follows `$ref`s (to places of the document) and merges an `allOf`'s objects; undefined where it cannot. */
function resolved(schema: unknown, document: Json, depth = 0): Json | undefined {
  let node = objectOf(schema);
  for (let hops = 0; typeof node.$ref === "string"; hops++) {
    const ref = node.$ref;
    if (hops > 32 || !ref.startsWith("#/")) return undefined;
    const at = valueAt(document, ref.slice(2).split("/").map(unescapeToken));
    if (!isObject(at)) return undefined;
    node = at;
  }
  const parts = listOf(node.allOf);
  if (parts.length === 0 || depth > 8) return node;
  // Why merged: `allOf: [Base, {properties: ...}]` is how documents extend an error schema.
  const properties: { [name: string]: unknown } = { ...objectOf(node.properties) };
  const required = new Set(stringsOf(node.required));
  let type = node.type;
  for (const part of parts) {
    const merged = resolved(part, document, depth + 1);
    if (merged === undefined) return undefined;
    Object.assign(properties, objectOf(merged.properties));
    for (const name of stringsOf(merged.required)) required.add(name);
    type ??= merged.type;
  }
  return { ...node, type: type ?? "object", properties, required: [...required] };
}

/** The JSON types a schema admits (`type`, or what its keywords imply). */
function typesOf(schema: Json): string[] {
  const type = schema.type;
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return stringsOf(type);
  if (isObject(schema.properties)) return ["object"];
  if (isObject(schema.items)) return ["array"];
  return [];
}

/** Where in the problem a template is built: the problem, or one item of a list of offending fields. */
type Place = "problem" | "item";

/**
 * The template of a schema, or undefined when no body built from the problem would pass it.
 * `name` is the property it is the value of.
 */
export function templateOf(schema: unknown, document: Json, name = "", place: Place = "problem", depth = 0): ErrorTemplate | undefined {
  const node = resolved(schema, document);
  if (node === undefined || depth > 8) return undefined;
  if ("const" in node) return { k: "c", value: node.const };
  const choices = [...listOf(node.oneOf), ...listOf(node.anyOf)];
  if (choices.length > 0 && !isObject(node.properties)) {
    // Why the first that yields: a `oneOf` of error shapes takes any one of them.
    for (const choice of choices) {
      const found = templateOf(choice, document, name, place, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const values = listOf(node.enum);
  if (values.length > 0) return { k: "c", value: values[0] };
  const types = typesOf(node);
  const admits = (type: string) => types.length === 0 || types.includes(type) || (type === "integer" && types.includes("number"));
  if (admits("object") && (isObject(node.properties) || types.includes("object"))) return objectTemplate(node, document, place, depth);
  if (admits("array") && (types.includes("array") || LIST.test(name))) {
    if (place === "item" && /^loc$/i.test(name)) return { k: "loc" };
    const item = templateOf(node.items ?? {}, document, "", "item", depth + 1);
    return item === undefined ? undefined : { k: "list", item };
  }
  if (admits("integer") && (types.includes("integer") || types.includes("number"))) {
    if (STATUS.test(name) && place === "problem") return { k: "status" };
    return leastInteger(node);
  }
  if (admits("string")) return stringTemplate(node, name, place);
  if (admits("boolean")) return { k: "c", value: false };
  if (admits("null")) return { k: "c", value: null };
  return undefined;
}

/**
 * The least whole number from 0 up (from `minimum` where there is one) that the schema's
 * `exclusiveMinimum`, `multipleOf`, `maximum` and `exclusiveMaximum` admit, as a constant; none
 * where they admit none such (a fractional `multipleOf`, a bound below it).
 */
function leastInteger(node: Json): ErrorTemplate | undefined {
  const { minimum, exclusiveMinimum, maximum, exclusiveMaximum, multipleOf } = node;
  let value = typeof minimum === "number" ? Math.ceil(minimum) : 0;
  if (typeof exclusiveMinimum === "number" && value <= exclusiveMinimum) value = Math.floor(exclusiveMinimum) + 1;
  if (typeof multipleOf === "number") {
    if (!Number.isInteger(multipleOf) || multipleOf <= 0) return undefined;
    value = Math.ceil(value / multipleOf) * multipleOf;
  }
  if ((typeof maximum === "number" && value > maximum) || (typeof exclusiveMaximum === "number" && value >= exclusiveMaximum)) return undefined;
  return { k: "c", value };
}

/**
 * The template of a string by its format, then by its name, where what it builds keeps the
 * schema's `pattern`, `minLength` and `maxLength`: a constant that does; a text the server makes
 * (a title, a sentence, a field's name) only without a `pattern` or a `minLength` past 1 (a field's
 * name or pointer may be empty), cut to `maxLength` (a uuid or a time is not cut, so it must fit).
 */
function stringTemplate(node: Json, name: string, place: Place): ErrorTemplate | undefined {
  const template = namedString(node, name, place);
  const { pattern, minLength = 0, maxLength } = node;
  if (template === undefined || template.k === "c") {
    const text = template?.value;
    if (typeof text !== "string" || (typeof maxLength === "number" && [...text].length > maxLength) || [...text].length < Number(minLength)) return undefined;
    return typeof pattern !== "string" || matches(pattern, text) ? template : undefined;
  }
  if (typeof pattern === "string" || Number(minLength) > (template.k === "field" || template.k === "pointer" ? 0 : 1)) return undefined;
  if (typeof maxLength !== "number") return template;
  // (A uuid has 36 characters, an RFC 3339 time as Date's toISOString writes it 24.)
  if (template.k === "uuid" || template.k === "now") return maxLength >= (template.k === "uuid" ? 36 : 24) ? template : undefined;
  return { k: template.k, max: maxLength };
}

/** Whether a constant matches a schema's `pattern` (ECMA-262 with the `u` flag, as the validator reads it). */
function matches(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, "u").test(text);
  } catch {
    return false;
  }
}

/** stringTemplate's choice before the schema's bounds. */
function namedString(node: Json, name: string, place: Place): Exclude<ErrorTemplate, { readonly k: "o" | "list" }> | undefined {
  const format = stringOf(node.format);
  if (format === "uuid") return { k: "uuid" };
  if (format === "date-time") return { k: "now" };
  // Why `about:blank` (RFC 9457 section 4.2.1): the problem has no type of its own beyond its status.
  if (format === "uri" || format === "uri-reference") return { k: "c", value: "about:blank" };
  if (format !== undefined && format !== "string") return undefined;
  if (place === "item") {
    if (POINTER.test(name)) return { k: "pointer" };
    if (FIELD.test(name)) return { k: "field" };
    if (MESSAGE.test(name)) return { k: "fieldMessage" };
    if (CODE.test(name)) return { k: "c", value: "invalid" };
  } else {
    // (`error` as text is a title: codegen's own `{error, detail}` and OAuth's `error` hold one.)
    if (/^(title|error)$/i.test(name)) return { k: "title" };
    if (name === "type") return { k: "c", value: "about:blank" };
    if (STATUS.test(name) && name !== "code") return { k: "statusText" };
    if (CODE.test(name)) return { k: "code" };
    if (MESSAGE.test(name)) return { k: "message" };
  }
  // Why a sentence for any other text: a string the problem has no word for still says what happened.
  return typeof node.pattern === "string" || typeof node.maxLength === "number" ? undefined : { k: place === "item" ? "fieldMessage" : "message" };
}

/** An object's template: its required properties, and the optional ones the problem has a value for. */
function objectTemplate(node: Json, document: Json, place: Place, depth: number): ErrorTemplate | undefined {
  const properties = objectOf(node.properties);
  const required = new Set(stringsOf(node.required));
  const fields: [string, ErrorTemplate][] = [];
  for (const [name, schema] of Object.entries(properties)) {
    const known =
      MESSAGE.test(name) ||
      CODE.test(name) ||
      STATUS.test(name) ||
      LIST.test(name) ||
      /^(title|error)$/i.test(name) ||
      (place === "item" && (FIELD.test(name) || POINTER.test(name) || /^loc$/i.test(name)));
    if (!required.has(name) && !known) continue;
    const template = templateOf(schema, document, name, place, depth + 1);
    if (template === undefined) {
      if (required.has(name)) return undefined;
      continue;
    }
    fields.push([name, template]);
  }
  // A required property the schema does not describe: an open object may still hold it as text.
  for (const name of required) {
    if (Object.hasOwn(properties, name)) continue;
    const extra = node.additionalProperties;
    if (extra === false) return undefined;
    const template = isObject(extra) ? templateOf(extra, document, name, place, depth + 1) : { k: "message" as const };
    if (template === undefined) return undefined;
    fields.push([name, template]);
  }
  // Why `map` for our own `detail` and its kind: an object of strings by field is what it holds.
  if (fields.length === 0 && isObject(node.additionalProperties) && typesOf(objectOf(node.additionalProperties)).includes("string")) return { k: "map" };
  return { k: "o", fields };
}

/** Whether a status key is an error's: `4XX`, `5XX`, a 4xx or 5xx code, or `default`. */
const isErrorKey = (status: string): boolean => status === "default" || /^[45]([0-9]{2}|XX)$/i.test(status);

/**
 * The shapes of an operation's refusals: per declared error status, the template of its JSON
 * schema (the problem+json entry first), a sentence for text, or no body where none is declared.
 * A response whose schema no template fits is left out: the server answers it with its own body
 * (or the application's `formatError`).
 */
export function refusalShapes(responses: readonly ResponseObject[], document: Json, unmapped: (response: UnmappedResponse) => void): RefusalShapes {
  // Why statusMap: keys such as "404" would otherwise make an array of 600 slots (expand/schemas.ts).
  const shapes = statusMap<RefusalShapes[string]>();
  const left: { key: string; written: string; entry: MediaEntry }[] = [];
  for (const response of responses) {
    if (!isErrorKey(response.status)) continue;
    const key = response.status === "default" ? "default" : response.status.toUpperCase();
    if (response.content.length === 0) {
      shapes[key] = { template: null, contentType: "" };
      continue;
    }
    const json = [...response.json].sort((a, b) => Number(b.type === "application/problem+json") - Number(a.type === "application/problem+json"));
    const entry = json.find((t) => !t.type.includes("*"));
    if (entry !== undefined) {
      const template = entry.schema === undefined ? { k: "message" as const } : templateOf(entry.schema, document);
      if (template !== undefined) shapes[key] = { template, contentType: entry.type };
      else left.push({ key, written: response.status, entry });
      continue;
    }
    const text = response.content.find((t) => t.type.startsWith("text/") && !t.type.includes("*"));
    if (text !== undefined) shapes[key] = { template: { k: "message" }, contentType: text.type };
    else {
      // A range that admits JSON (`*/*`, HubSpot's errors): JSON built from its schema.
      const range = response.content.find((t) => t.type === "*/*" || t.type === "application/*");
      const template = range === undefined ? undefined : range.schema === undefined ? { k: "message" as const } : templateOf(range.schema, document);
      if (template !== undefined) shapes[key] = { template, contentType: "application/json" };
      else if (range !== undefined) left.push({ key, written: response.status, entry: range });
    }
  }
  for (const { key, written, entry } of left) unmapped({ status: written, mediaKey: entry.key, schema: entry.schema!, instead: answeredInstead(key, shapes) });
  return shapes;
}

/** A declared error response whose JSON schema no template fits (refusalShapes leaves it out). */
export interface UnmappedResponse {
  /** Its key in `responses` (`400`, `4XX`, `default`). */
  readonly status: string;
  /** Its media type's key in `content`, as written. */
  readonly mediaKey: string;
  readonly schema: Json;
  /** How the server answers the refusals of that status instead, in words. */
  readonly instead: string;
}

/**
 * How the server answers a refusal of a status whose declared response it cannot build, in
 * words: the runtime's refusalStatus goes on to the range, then `default`, then its own body.
 */
function answeredInstead(key: string, shapes: RefusalShapes): string {
  const has = (k: string) => Object.hasOwn(shapes, k);
  if (key === "400" && has("422")) return "a validation failure as its `422` response (that status and body)";
  const range = /^[0-9]{3}$/.test(key) ? `${key[0]!}XX` : undefined;
  const next = range !== undefined && has(range) ? range : key !== "default" && has("default") ? "default" : undefined;
  const status = /^[0-9]{3}$/.test(key) ? `the status ${key}` : "the status of each situation";
  return next === undefined ? `with ${status} and codegen's own body \`{"error", "detail"}\`` : `with ${status} and the body of its \`${next}\` response`;
}
