import SwaggerParser from "@apidevtools/swagger-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { OpenAPIV3_1 } from "openapi-types";
import { type Diagnostic, diagnostic } from "../diagnostics/index.js";

/** OpenAPI's own schema keywords that are not JSON Schema vocabulary. */
const OPENAPI_KEYWORDS = ["discriminator", "xml", "externalDocs", "example"];

type Json = Record<string, unknown>;

/**
 * Check an expanded document: with swagger-parser (on a copy, since it dereferences its
 * input in place) and, because swagger-parser does not look inside 3.1 schemas, by compiling
 * every schema with ajv in its strict 2020-12 mode. Any failure is codegen's own bug.
 */
export async function verifyDocument(document: OpenAPIV3_1.Document): Promise<Diagnostic[]> {
  const diagnostics: Diagnostic[] = [];
  try {
    await SwaggerParser.validate(structuredClone(document) as never);
  } catch (error) {
    diagnostics.push(diagnostic("internal/invalid-openapi", { message: (error as Error).message }));
  }
  diagnostics.push(...compileSchemas(document));
  return diagnostics;
}

/** Compile every schema of the document with ajv (2020-12, strict); one diagnostic per failure. */
export function compileSchemas(document: OpenAPIV3_1.Document): Diagnostic[] {
  const ajv = new Ajv2020({ strict: true, allErrors: false, validateFormats: true });
  addFormats.default(ajv);
  ajv.addFormat("password", true);
  const extensionKeywords = new Set<string>(OPENAPI_KEYWORDS);
  const schemas = collectSchemas(document);
  for (const { schema } of schemas) collectExtensionKeys(schema, extensionKeywords);
  for (const keyword of extensionKeywords) ajv.addKeyword({ keyword });

  // Every schema refers to the others as `#/components/schemas/X`: one root holds them all.
  const root = { $id: "urn:codegen:document", components: { schemas: document.components?.schemas ?? {} } };
  ajv.addKeyword({ keyword: "components" });
  ajv.addSchema(root);
  const diagnostics: Diagnostic[] = [];
  for (const [index, { pointer, schema }] of schemas.entries()) {
    try {
      if (pointer.startsWith("#/components/schemas/")) {
        if (!ajv.getSchema(`urn:codegen:document${pointer}`)) throw new Error("the schema cannot be resolved");
      } else {
        ajv.compile({ $id: `urn:codegen:schema:${index}`, ...rewriteRefs(schema) });
      }
    } catch (error) {
      diagnostics.push(diagnostic("internal/invalid-schema", { name: pointer, message: (error as Error).message }));
    }
  }
  return diagnostics;
}

/** Refs in a schema outside `components` point into the shared root. */
function rewriteRefs(value: unknown): Json {
  return JSON.parse(
    JSON.stringify(value, (key, v: unknown) => (key === "$ref" && typeof v === "string" && v.startsWith("#/") ? `urn:codegen:document${v}` : v)),
  ) as Json;
}

const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

/** Every schema in the document with its JSON pointer: components, parameters, bodies, headers. */
function collectSchemas(document: OpenAPIV3_1.Document): { pointer: string; schema: Json }[] {
  const out: { pointer: string; schema: Json }[] = [];
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    out.push({ pointer: `#/components/schemas/${escape(name)}`, schema: schema as Json });
  }
  const walk = (value: unknown, pointer: string): void => {
    if (typeof value !== "object" || value === null) return;
    for (const [key, child] of Object.entries(value)) {
      const at = `${pointer}/${escape(key)}`;
      if (key === "schema" && typeof child === "object" && child !== null) out.push({ pointer: at, schema: child as Json });
      else walk(child, at);
    }
  };
  walk(document.paths ?? {}, "#/paths");
  return out;
}

/** `x-` keys anywhere in a schema become known (no-op) keywords, so strict mode allows them. */
function collectExtensionKeys(value: unknown, into: Set<string>): void {
  if (typeof value !== "object" || value === null) return;
  for (const [key, child] of Object.entries(value)) {
    if (key.startsWith("x-")) into.add(key);
    else collectExtensionKeys(child, into);
  }
}
