/**
 * What the document says of conditional requests (http-behaviour.md, "Conditional requests"; RFC
 * 9110 section 13): the `ETag` of every answer that carries one object, `If-None-Match` and 304 on
 * a read, `If-Match` on every change (its 412 and 428 are shared answers, responses.ts), and the
 * 409 of a reference deleted while a write was under way (http-behaviour.md, "Running in production").
 */
import type { Resource } from "../declaration/model.js";
import { type ErrorCase, errorCase, textHeader } from "./responses.js";
import type { JsonSchema } from "./schemas.js";

type Json = Record<string, unknown>;

/** The `ETag` response header of an answer carrying one object. */
export const etagHeader = (): Json => ({
  ETag: textHeader(
    "The object's version: a strong entity tag that changes with every change of its fields or status. Send it back in `If-Match` to change only this version.",
  ),
});

/** A success response (`description`, `headers`, `content`) with the `ETag` header added after any header it has. */
export function withEtag(response: Json): Json {
  // Why assignments, not spreads of a rest and of conditional objects: those were garbage at every read and change.
  const out: Json = { description: response.description, headers: Object.assign({}, response.headers, etagHeader()) };
  if (response.content !== undefined) out.content = response.content;
  return out;
}

/** The `If-Match` parameter of a change (PUT, PATCH, DELETE, an action). */
export const ifMatchParameter = (): JsonSchema =>
  headerParameter(
    "If-Match",
    "Apply the change only while the object's `ETag` is one of these (or `*`: while it exists); otherwise 412 and nothing changes. Required (428 without it) when the server runs with `requireIfMatch`.",
  );

/** The `If-None-Match` parameter of a read of one object. */
export const ifNoneMatchParameter = (): JsonSchema =>
  headerParameter("If-None-Match", "Answer 304 with no body when the object's `ETag` is one of these (weak comparison) or `*`.");

/** An optional header parameter whose value is a list of entity tags. */
function headerParameter(name: string, description: string): JsonSchema {
  return { name, in: "header", required: false, description, schema: { type: "string" } };
}

/** The 304 of a read whose `If-None-Match` names the object's current version. */
export function notModifiedResponse(): Json {
  return { description: "The object has not changed since the version `If-None-Match` names; no body.", headers: etagHeader() };
}

/**
 * The 409 of a write whose `ref` field names an object deleted after the server checked it
 * (resources.gen.ts, brokenReference), for the example the resource's first `ref` field.
 */
export function referenceGoneCase(resource: Resource): ErrorCase | undefined {
  const field = resource.fields.find((f) => f.ref !== undefined);
  if (field === undefined) return undefined;
  return errorCase(
    "An object a `ref` field names was deleted while this write was under way; the field is named in `detail`.",
    "referenceGone",
    "A reference deleted meanwhile",
    "Conflict",
    { [field.name]: "the object it names was deleted meanwhile" },
  );
}
