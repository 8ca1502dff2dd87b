/**
 * Typed accessors of an OpenAPI document as parsed JSON: each answers a value of the type the
 * model wants (`string | undefined`, a list, a typed view of a Parameter, Request Body or
 * Response Object) or nothing, so the model reads the document without chains of casts.
 * (prepareDocument has already inlined every ref but those to named schemas.)
 */

import { type Json, listOf, objectOf } from "../../model/json.js";

/** Whether a schema has one of `keys` (its own or, as a look-up would find them, enumerable inherited ones). */
export function hasAnyKey(schema: Json, keys: ReadonlySet<string>): boolean {
  for (const key in schema) if (keys.has(key)) return true;
  return false;
}

/** The value when it is a string. */
export const stringOf = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** The strings of a list (anything else in it left out). */
export const stringsOf = (value: unknown): string[] => listOf(value).filter((item): item is string => typeof item === "string");

/** The text when it is a string with more than white space. */
export const textOf = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value : undefined);

/** Whether a media type (lower case, no parameters) is JSON: `application/json` or `+json` (RFC 6839). */
export function isJsonMediaType(type: string): boolean {
  return type === "application/json" || /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(type);
}

/** One media range of a `content` map and its schema, when it has one. */
export interface MediaEntry {
  /** Lower-cased, without parameters. */
  readonly type: string;
  readonly schema: Json | undefined;
  /** The key as written (for pointers). */
  readonly key: string;
}

/** The media ranges of a `content` map, each range of a comma-separated key on its own. */
export function mediaEntries(content: unknown): MediaEntry[] {
  const entries: MediaEntry[] = [];
  for (const [key, raw] of Object.entries(objectOf(content))) {
    const media = objectOf(raw);
    const schema = "schema" in media ? objectOf(media.schema) : undefined;
    // Why a key of one range without parameters apart: most are, and the lists of its
    // parts were garbage at every operation's every response.
    if (!key.includes(",") && !key.includes(";")) entries.push({ type: key.trim().toLowerCase(), schema, key });
    else for (const part of key.split(",")) entries.push({ type: part.split(";")[0]!.trim().toLowerCase(), schema, key });
  }
  return entries;
}

/** A Parameter Object, read. */
export interface ParameterObject {
  readonly name: string;
  /** One of OpenAPI's four locations: the document was validated against OpenAPI's schema. */
  readonly in: "path" | "query" | "header" | "cookie";
  readonly required: boolean;
  readonly schema: Json | undefined;
  /** Whether it is described by `content` (instead of `schema`). */
  readonly hasContent: boolean;
  /** Its `content` entries (a JSON one is read as JSON text). */
  readonly content: readonly MediaEntry[];
  readonly style: string | undefined;
  readonly explode: boolean | undefined;
  readonly description: string | undefined;
}

/** A Parameter Object of the document. */
export function parameterObject(value: unknown): ParameterObject {
  const parameter = objectOf(value);
  return {
    name: String(parameter.name),
    in: String(parameter.in) as ParameterObject["in"],
    required: parameter.required === true,
    schema: parameter.schema === undefined ? undefined : objectOf(parameter.schema),
    hasContent: parameter.content !== undefined,
    content: mediaEntries(parameter.content),
    style: stringOf(parameter.style),
    explode: typeof parameter.explode === "boolean" ? parameter.explode : undefined,
    description: textOf(parameter.description),
  };
}

/** A Request Body Object, read; undefined when the operation has none (or one without content). */
export interface RequestBodyObject {
  readonly required: boolean;
  readonly description: string | undefined;
  readonly content: readonly MediaEntry[];
}

/** The Request Body Object of an operation, when it has one with content. */
export function requestBodyObject(value: unknown): RequestBodyObject | undefined {
  const body = objectOf(value);
  const content = mediaEntries(body.content);
  if (content.length === 0) return undefined;
  return { required: body.required === true, description: textOf(body.description), content };
}

/** A Response Object, read, under its status key (`200`, `4XX`, `default`). */
export interface ResponseObject {
  readonly status: string;
  readonly description: string | undefined;
  readonly content: readonly MediaEntry[];
  /** Its distinct media types, in order; its JSON entries and the others; the first JSON entry's schema. */
  readonly types: readonly string[];
  readonly json: readonly MediaEntry[];
  readonly raw: readonly MediaEntry[];
  readonly jsonSchema: Json | undefined;
}

/** No media entries. */
const NONE: readonly MediaEntry[] = [];

/** Response Objects already read, by the object, under the status first read at (responseObjects). */
export type ReadResponses = Map<object, ResponseObject>;

/**
 * The Response Objects of an operation's `responses`, in their order; each object read once per
 * `read` (one per reading of the document: it is dropped with it). Why: a response of
 * `components/responses` is one object at every operation that refers to it (an API's error
 * responses, most of each operation's), and its media ranges were read again at each (and what
 * the dispatcher reads of them: their media types, JSON or not). `answers`: the document's
 * `components/responses`, for a response that is a ref to one of them (`#/components/responses/<name>`
 * and no other key: codegen's own documents, which prepareDocument leaves as they are).
 */
export function responseObjects(value: unknown, read: ReadResponses = new Map(), answers: Json = {}): ResponseObject[] {
  const responses = objectOf(value);
  const out: ResponseObject[] = [];
  // Why a for-in loop: a pair per response and a list of them, for every operation, were garbage.
  for (const status in responses) {
    if (!Object.hasOwn(responses, status)) continue;
    const response = sharedAnswer(objectOf(responses[status]), answers);
    let known = read.get(response);
    if (known === undefined) {
      const content = mediaEntries(response.content);
      // Why one loop: a list, a set and a copy of it per response, and a JSON list that is most often the content itself, were garbage.
      const types: string[] = [];
      let jsonCount = 0;
      for (const entry of content) {
        if (!types.includes(entry.type)) types.push(entry.type);
        if (isJsonMediaType(entry.type)) jsonCount++;
      }
      // Most are JSON alone: their lists are the content itself and one empty list.
      const jsonOnly = jsonCount === content.length;
      const json = jsonOnly ? content : content.filter((t) => isJsonMediaType(t.type));
      known = {
        status,
        description: textOf(response.description),
        content,
        types,
        json,
        raw: jsonOnly ? NONE : content.filter((t) => !isJsonMediaType(t.type)),
        jsonSchema: json.find((t) => t.schema !== undefined)?.schema,
      };
      read.set(response, known);
    }
    // Why the object read itself: a shared answer stands under one status everywhere, and a copy of it per operation was garbage.
    out.push(known.status === status ? known : { ...known, status });
  }
  return out;
}

const ANSWER_PREFIX = "#/components/responses/";

/** The shared answer a response refers to (`$ref` its only key, a name without escapes), else the response itself. */
function sharedAnswer(response: Json, answers: Json): Json {
  const ref = response.$ref;
  if (typeof ref !== "string" || !ref.startsWith(ANSWER_PREFIX)) return response;
  for (const key in response) if (key !== "$ref" && Object.hasOwn(response, key)) return response;
  const name = ref.slice(ANSWER_PREFIX.length);
  return /[~/%]/.test(name) || !Object.hasOwn(answers, name) ? response : objectOf(answers[name]);
}
