// What `codegen serve` answers for an operation of a document written by others: the document's
// example for its first declared success, when it fits the response's schema; else a value made
// from the schema (as mock servers such as Prism do); else no handler (the server's 501), said at start.
// Checked with ajv (JSON Schema 2020-12, ajv-formats), a validator independent of the generated one.
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { isJsonMediaType } from "../compile/api/document.js";
import type { ApiModel } from "../model/api-model.js";
import { type Json, isObject, objectOf } from "../model/json.js";
import { escapeToken, unescapeToken, valueAt } from "../compile/pointer.js";

/** What a handler of serve returns for an operation. */
export interface ExampleAnswer {
  readonly status: number;
  readonly body?: unknown;
  readonly contentType?: string;
}

/** The answers (none for an operation serve cannot answer), and one line for each example not used. */
export interface ExampleAnswers {
  readonly answers: Readonly<Record<string, ExampleAnswer>>;
  readonly notes: readonly string[];
}

const ROOT_ID = "urn:codegen:served-document";

/** The value at a `#/...` pointer of the document; undefined when there is none. */
const at = (document: unknown, pointer: string): unknown => valueAt(document, pointer.slice(2).split("/").map(unescapeToken));

/** A response (or media) object with its `$ref` chain followed, and the pointer it was found at. */
function followRefs(document: unknown, pointer: string): { value: Json; pointer: string } {
  let value = objectOf(at(document, pointer));
  for (let hops = 0; typeof value["$ref"] === "string" && value["$ref"].startsWith("#/") && hops < 32; hops++) {
    pointer = value["$ref"];
    value = objectOf(at(document, pointer));
  }
  return { value, pointer };
}

export function exampleAnswers(document: unknown, mocks: ApiModel["mockAnswers"]): ExampleAnswers {
  let ajv: Ajv2020 | undefined;
  const validatorOf = (pointer: string): ValidateFunction | undefined => {
    if (ajv === undefined) {
      ajv = new Ajv2020({ strict: false, allErrors: false, logger: false, inlineRefs: false, code: { optimize: false } });
      addFormats.default(ajv);
      ajv.addSchema({
        ...(JSON.parse(
          JSON.stringify(document, (key, v: unknown) => (key === "$ref" && typeof v === "string" && v.startsWith("#/") ? `${ROOT_ID}${v}` : v)),
        ) as Json),
        $id: ROOT_ID,
      });
    }
    try {
      return ajv.compile({ $ref: `${ROOT_ID}${pointer}` });
    } catch {
      return undefined;
    }
  };
  const answers: Record<string, ExampleAnswer> = {};
  const notes: string[] = [];
  for (const [operationId, mock] of Object.entries(mocks)) {
    if (mock.responseAt === undefined) {
      answers[operationId] = { status: mock.status };
      continue;
    }
    const response = followRefs(document, mock.responseAt);
    const content = objectOf(response.value["content"]);
    const types = Object.keys(content).filter((type) => !type.includes("*"));
    const json = types.find((type) => isJsonMediaType(type.split(";")[0]!.trim().toLowerCase()));
    if (json === undefined) {
      // A text example is sent as it stands; other media without an example get no body.
      const text = types.map((type) => ({ type, example: exampleOf(document, objectOf(content[type])) })).find((e) => typeof e.example?.value === "string");
      answers[operationId] = text === undefined ? { status: mock.status } : { status: mock.status, body: text.example!.value, contentType: text.type };
      continue;
    }
    const media = objectOf(content[json]);
    const schemaAt = `${response.pointer}/content/${escapeToken(json)}/schema`;
    const validate = "schema" in media ? validatorOf(schemaAt) : undefined;
    let unending = false;
    const fits = (value: unknown) => {
      try {
        return validate === undefined || validate(value) === true;
      } catch {
        // ajv checks a schema that applies to the same value through a cycle (`Pet` one of
        // `Cat`, `Cat` all of `Pet`) without end, until the stack runs out: no verdict, so the
        // example is answered as the document gives it, and the start-up note says so.
        unending = true;
        return true;
      }
    };
    const example = exampleOf(document, media);
    if (example !== undefined && fits(example.value)) {
      answers[operationId] = { status: mock.status, body: example.value, contentType: json };
      if (unending) notes.push(`${operationId}: its response schema refers to itself without end, so its example is answered unchecked`);
      continue;
    }
    const why =
      example === undefined
        ? undefined
        : validate?.errors?.[0]
          ? `${validate.errors[0].instancePath || "the body"} ${validate.errors[0].message ?? "does not fit"}`
          : "it does not fit";
    const made = sampleOf(document, media["schema"], 0, { left: SAMPLE_VALUES });
    if (validate !== undefined && fits(made)) {
      answers[operationId] = { status: mock.status, body: made, contentType: json };
      if (unending) notes.push(`${operationId}: its response schema refers to itself without end, so the value made from it is answered unchecked`);
      else if (why !== undefined)
        notes.push(`${operationId}: the document's example does not fit its schema (${why}); serve answers a value made from the schema`);
      continue;
    }
    // No handler: the generated server answers 501 in the document's error shape, as for any
    // operation the application has not implemented.
    notes.push(`${operationId}: no example fits the response schema${why === undefined ? "" : ` (${why})`}, and serve could make none: it answers 501`);
  }
  const operations = Object.keys(mocks);
  if (operations.length > 0) notes.unshift(unhandledNote(operations, answers));
  return { answers, notes };
}

/** The most operations a note names; the others are counted. */
const NAMED = 10;

/**
 * The note that says, at start, that no handler of the application runs under serve: which
 * operations answer with the document's examples (or values made from its schemas), which 501.
 */
function unhandledNote(operations: readonly string[], answers: Readonly<Record<string, ExampleAnswer>>): string {
  const named = (ids: readonly string[]) => `${ids.slice(0, NAMED).join(", ")}${ids.length > NAMED ? ` and ${ids.length - NAMED} more` : ""}`;
  const answered = operations.filter((id) => Object.hasOwn(answers, id));
  const unanswered = operations.filter((id) => !Object.hasOwn(answers, id));
  const parts = [
    ...(answered.length > 0 ? [`${answered.length} answer${answered.length === 1 ? "s" : ""} with examples (${named(answered)})`] : []),
    ...(unanswered.length > 0 ? [`${unanswered.length} answer${unanswered.length === 1 ? "s" : ""} 501 Not Implemented (${named(unanswered)})`] : []),
  ];
  const count = operations.length === 1 ? "the 1 operation" : `all ${operations.length} operations`;
  return `no handler of yours runs under serve: of ${count} of the document, ${parts.join("; ")}`;
}

/** The media's example: `example` (null included), else the first Example Object with a `value`, else the schema's. */
function exampleOf(document: unknown, media: Json): { value: unknown } | undefined {
  if (Object.hasOwn(media, "example")) return { value: media["example"] };
  for (const raw of Object.values(objectOf(media["examples"]))) {
    const reference = objectOf(raw)["$ref"];
    const object = typeof reference === "string" && reference.startsWith("#/") ? followRefs(document, reference).value : objectOf(raw);
    if (Object.hasOwn(object, "value")) return { value: object["value"] };
  }
  const schema = objectOf(media["schema"]);
  return Object.hasOwn(schema, "example") ? { value: schema["example"] } : undefined;
}

/** The most values one made example may hold (a larger one is not made: the operation answers 501). */
const SAMPLE_VALUES = 10_000;

/** Sample strings of the formats ajv-formats checks. */
const FORMAT_SAMPLES: Readonly<Record<string, string>> = {
  date: "2026-01-01",
  "date-time": "2026-01-01T00:00:00Z",
  time: "00:00:00Z",
  duration: "P1D",
  email: "user@example.com",
  "idn-email": "user@example.com",
  hostname: "example.com",
  "idn-hostname": "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  uri: "https://example.com/",
  "uri-reference": "https://example.com/",
  iri: "https://example.com/",
  "iri-reference": "https://example.com/",
  url: "https://example.com/",
  "uri-template": "https://example.com/{id}",
  uuid: "00000000-0000-4000-8000-000000000000",
  "json-pointer": "/a",
  "relative-json-pointer": "0",
  regex: "a",
  byte: "",
  int32: "0",
  int64: "0",
};

/**
 * The smallest value the schema describes, as far as its keywords tell: `const`, `default`,
 * examples and enums first, then each type's least value within its bounds, objects with their
 * required properties. Not every schema has one this finds (a `pattern`, a `not`): the caller
 * checks the result.
 */
function sampleOf(document: unknown, raw: unknown, depth: number, budget: { left: number }): unknown {
  // Why a budget: nested `minItems` multiply (100 items of 100 items of ...); a document's schema
  // must not make serve's start cost more than a bounded number of values.
  if (--budget.left < 0) return null;
  let schema = objectOf(raw);
  for (let hops = 0; typeof schema["$ref"] === "string" && hops < 32; hops++) schema = objectOf(at(document, schema["$ref"]));
  if (depth > 16) return null;
  if (Object.hasOwn(schema, "const")) return schema["const"];
  if (Object.hasOwn(schema, "default")) return schema["default"];
  if (Array.isArray(schema["examples"]) && schema["examples"].length > 0) return schema["examples"][0];
  if (Object.hasOwn(schema, "example")) return schema["example"];
  if (Array.isArray(schema["enum"]) && schema["enum"].length > 0) return schema["enum"][0];
  const choice = [schema["oneOf"], schema["anyOf"]].find((list) => Array.isArray(list) && list.length > 0) as unknown[] | undefined;
  if (choice !== undefined) return sampleOf(document, choice[0], depth + 1, budget);
  if (Array.isArray(schema["allOf"]) && schema["allOf"].length > 0) {
    const parts = schema["allOf"].map((part) => sampleOf(document, part, depth + 1, budget));
    if (parts.every(isObject)) return Object.assign({}, ...parts, objectOf(sampleOf(document, { ...schema, allOf: undefined }, depth + 1, budget)));
    return parts[0];
  }
  const types = Array.isArray(schema["type"]) ? (schema["type"] as unknown[]) : [schema["type"]];
  const type =
    types.find((t) => t !== "null") ?? (types.includes("null") ? "null" : "properties" in schema ? "object" : "items" in schema ? "array" : undefined);
  const number = (integer: boolean) => {
    const minimum =
      typeof schema["minimum"] === "number"
        ? schema["minimum"]
        : typeof schema["exclusiveMinimum"] === "number"
          ? schema["exclusiveMinimum"] + (integer ? 1 : 0.5)
          : 0;
    const maximum =
      typeof schema["maximum"] === "number"
        ? schema["maximum"]
        : typeof schema["exclusiveMaximum"] === "number"
          ? schema["exclusiveMaximum"] - (integer ? 1 : 0.5)
          : undefined;
    let value = maximum !== undefined && maximum < minimum ? maximum : Math.max(minimum, maximum !== undefined && maximum < 0 ? maximum : minimum);
    if (integer) value = Math.ceil(value);
    const step = schema["multipleOf"];
    if (typeof step === "number" && step > 0) value = Math.ceil(value / step) * step;
    return value;
  };
  switch (type) {
    case "null":
      return null;
    case "boolean":
      return false;
    case "integer":
      return number(true);
    case "number":
      return number(false);
    case "string": {
      const format = typeof schema["format"] === "string" ? schema["format"] : "";
      let text = Object.hasOwn(FORMAT_SAMPLES, format) ? FORMAT_SAMPLES[format]! : "string";
      const min = typeof schema["minLength"] === "number" ? schema["minLength"] : 0;
      const max = typeof schema["maxLength"] === "number" ? schema["maxLength"] : undefined;
      if ([...text].length < min) text = text.padEnd(Math.min(min, 10_000), "x");
      if (max !== undefined && [...text].length > max) text = [...text].slice(0, max).join("");
      return text;
    }
    case "array": {
      const count = typeof schema["minItems"] === "number" ? Math.min(schema["minItems"], 100) : 0;
      return Array.from({ length: count }, () => sampleOf(document, schema["items"], depth + 1, budget));
    }
    case "object": {
      const properties = objectOf(schema["properties"]);
      const required = Array.isArray(schema["required"]) ? schema["required"].filter((name): name is string => typeof name === "string") : [];
      const value: Json = {};
      for (const name of required)
        Object.defineProperty(value, name, {
          value: sampleOf(document, Object.hasOwn(properties, name) ? properties[name] : {}, depth + 1, budget),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return value;
    }
    default:
      return {};
  }
}
