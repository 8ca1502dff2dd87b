/**
 * Moving a document between OpenAPI 3.1 (what codegen writes and renders from) and 3.0 (what
 * some docs portals still read). Pure functions over plain data; the input is never changed.
 */

import { rewriteSchemas } from "../api/foreign.js";
import { type Json, isObject } from "../../model/json.js";

/** The OpenAPI 3.0 version codegen writes. */
export const OPENAPI_30 = "3.0.3";

/**
 * A 3.1 document as OpenAPI 3.0.3: `nullable` instead of type arrays, `example` instead of
 * `examples`, `$ref` siblings moved into an `allOf`, and no 3.1-only keywords (`info.summary`,
 * `license.identifier`, `jsonSchemaDialect`, `webhooks`).
 */
export function toOpenApi30(document: Json): Json {
  const converted = rewriteSchemas(document, (schema) => {
    const out: Record<string, unknown> = { ...schema };
    if (Array.isArray(schema.type)) {
      const types = schema.type.filter((t) => t !== "null");
      if (types.length !== schema.type.length) out.nullable = true;
      if (types.length === 1) out.type = types[0];
      else if (types.length === 0) delete out.type;
      else {
        delete out.type;
        out.anyOf = types.map((type) => ({ type }));
      }
    }
    if (Array.isArray(schema.examples)) {
      delete out.examples;
      if (schema.examples.length > 0) out.example = schema.examples[0];
    }
    // In 3.0 a $ref replaces its whole object: keep what stands beside it through an allOf.
    if (typeof schema.$ref === "string" && Object.keys(schema).some((k) => k !== "$ref" && !k.startsWith("x-"))) {
      const { $ref, ...siblings } = out;
      return { allOf: [{ $ref }], ...siblings };
    }
    return out;
  });
  const { jsonSchemaDialect: _dialect, webhooks: _webhooks, ...rest } = converted;
  const info: Record<string, unknown> = { ...(rest.info as Json) };
  delete info.summary;
  if (isObject(info.license)) {
    const { identifier: _identifier, ...license } = info.license;
    info.license = license;
  }
  return { ...rest, openapi: OPENAPI_30, info };
}

/**
 * A 3.0 document read as 3.1, as far as the renderer needs: `nullable: true` becomes a type
 * array (or `null` in an enum), `example` becomes `examples`.
 */
export function fromOpenApi30(document: Json): Json {
  const converted = rewriteSchemas(document, (schema) => {
    const out: Record<string, unknown> = { ...schema };
    if (schema.nullable === true) {
      delete out.nullable;
      if (typeof schema.type === "string") out.type = [schema.type, "null"];
      if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
    } else if (schema.nullable === false) {
      delete out.nullable;
    }
    // 3.0 (JSON Schema draft 4) marks a bound exclusive with a boolean; 2020-12 makes the bound itself exclusive.
    for (const [flag, bound] of [
      ["exclusiveMinimum", "minimum"],
      ["exclusiveMaximum", "maximum"],
    ] as const) {
      if (schema[flag] === true && typeof schema[bound] === "number") {
        out[flag] = schema[bound];
        delete out[bound];
      } else if (schema[flag] === false) {
        delete out[flag];
      }
    }
    if ("example" in schema && !("examples" in schema)) {
      delete out.example;
      out.examples = [schema.example];
    }
    // The 3.0 way of giving a $ref siblings (an allOf of the one $ref) reads as the 3.1 way.
    const [only] = Array.isArray(schema.allOf) && schema.allOf.length === 1 ? schema.allOf : [];
    if (isObject(only) && typeof only.$ref === "string" && Object.keys(only).length === 1 && !("type" in schema)) {
      delete out.allOf;
      return { $ref: only.$ref, ...out };
    }
    return out;
  });
  return { ...converted, openapi: "3.1.1" };
}
