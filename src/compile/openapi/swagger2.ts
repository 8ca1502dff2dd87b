/**
 * Swagger 2.0 input: a 2.0 document is converted to OpenAPI 3.0 on the way in, by
 * @scalar/openapi-upgrader (pure: no file or network access, which a document from others must
 * not cause), and then read as any 3.0 document. Diagnostics point into the original file: a
 * pointer of the converted document is mapped back to the place it came from (originalPointer).
 */
import { upgrade } from "@scalar/openapi-upgrader";
import { unescapeToken, valueAt } from "../pointer.js";
import { type Json, isObject } from "../../model/json.js";

/** A bundled Swagger 2.0 document as OpenAPI 3.0; the input is not changed. */
export function fromSwagger2(document: Json): Json {
  // Why a copy: the upgrader changes the object it is given on its way to 3.0.
  const upgraded = upgrade(structuredClone(document), "3.0") as unknown as Json;
  // Why: the upgrader adds `openapi` and `servers` last, after `paths`; openapi.yaml leads with
  // them where 2.0 led with `swagger`, `host` and `basePath`, as every OpenAPI document does.
  const { openapi, info, servers } = upgraded;
  return { openapi, info, ...(servers === undefined ? {} : { servers }), ...upgraded };
}

/** Where the parts of a 3.0 document's components came from in 2.0. */
const COMPONENTS: Record<string, string> = {
  schemas: "definitions",
  parameters: "parameters",
  requestBodies: "parameters",
  responses: "responses",
  securitySchemes: "securityDefinitions",
};

/**
 * The JSON pointer of the 2.0 document that a pointer of its 3.0 conversion comes from, as far as
 * the conversion keeps places: components, operations, a body parameter (now `requestBody`) and
 * response schemas (now under `content`). Deeper parts keep their path; a place that has no
 * counterpart is shown at the nearest one that exists (the locator's fallback).
 */
export function originalPointer(pointer: string, original: unknown): string {
  const parts = pointer.replace(/^#\/?/, "").split("/");
  if (parts[0] === "components" && parts[1] !== undefined && parts[1] in COMPONENTS) return ["#", COMPONENTS[parts[1]], ...parts.slice(2)].join("/");
  if (parts[0] !== "paths" || parts.length < 4) return pointer;
  const [, path, method, kind, ...rest] = parts as [string, string, string, string, ...string[]];
  const operation = `#/paths/${path}/${method}`;
  if (kind === "requestBody") {
    // A body (or form) parameter became the request body: the schema is where the parameter was.
    const parameters = (valueAt(original, ["paths", path, method, "parameters"].map(unescapeToken)) as unknown[] | undefined) ?? [];
    const index = parameters.findIndex((p) => isObject(p) && (p.in === "body" || p.in === "formData"));
    if (index < 0) return `${operation}/parameters`;
    const schemaAt = rest.indexOf("schema");
    return [`${operation}/parameters/${index}`, ...(schemaAt >= 0 ? rest.slice(schemaAt) : [])].join("/");
  }
  if (kind === "responses" && rest[1] === "content") {
    // `responses/200/content/application~1json/schema/...` was `responses/200/schema/...`.
    return [`${operation}/responses/${rest[0]}`, ...rest.slice(3)].join("/");
  }
  return pointer;
}
