import SwaggerParser from "@apidevtools/swagger-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { OpenAPIV3_1 } from "openapi-types";
import { type Diagnostic, diagnostic } from "../../diagnostics/index.js";
import { schemaPlaces } from "../api/foreign.js";
import { percentDecoded, unescapeToken } from "../pointer.js";
import { compiles } from "./patterns.js";
import type { Json } from "../../model/json.js";

/** OpenAPI's own schema keywords that are not JSON Schema vocabulary. */
const OPENAPI_KEYWORDS = ["discriminator", "xml", "externalDocs", "example"];

/**
 * Check an expanded document: with swagger-parser (on a copy, since it dereferences its
 * input in place) and, because swagger-parser does not look inside 3.1 schemas, by compiling
 * every schema with ajv in its strict 2020-12 mode. Any failure is codegen's own bug.
 */
export async function verifyDocument(document: OpenAPIV3_1.Document): Promise<Diagnostic[]> {
  const diagnostics: Diagnostic[] = [];
  try {
    // A JSON copy (the document is plain JSON data) is several times faster than structuredClone
    // on large documents; an expanded document never refers to other files.
    const copy = JSON.parse(JSON.stringify(document)) as never;
    await SwaggerParser.validate(copy, { resolve: { external: false } });
  } catch (error) {
    diagnostics.push(diagnostic("internal/invalid-openapi", { message: (error as Error).message }));
  }
  diagnostics.push(...compileSchemas(document));
  return diagnostics;
}

/** Compile every schema of the document with ajv (2020-12, strict); one diagnostic per failure. */
export function compileSchemas(document: OpenAPIV3_1.Document, origin: "ours" | "input" = "ours"): Diagnostic[] {
  // Only whether each schema compiles matters (nothing is validated with the result), so ajv's
  // code optimiser and ref inlining, which cost most of the time on large documents, are off.
  // Our own schemas are held to ajv's strict mode; a document written by others only has to be
  // valid JSON Schema (unknown formats and `properties` without `type` are allowed there).
  const strict = origin === "ours";
  const ajv = new Ajv2020({ strict, allErrors: true, validateFormats: strict, logger: false, inlineRefs: false, code: { optimize: false } });
  addFormats.default(ajv);
  ajv.addFormat("password", true);
  const extensionKeywords = new Set<string>(OPENAPI_KEYWORDS);
  // Found by the grammar of OpenAPI: a `schema` key inside an example or an extension is data.
  const schemas = schemaPlaces(document);
  for (const { schema } of schemas) collectExtensionKeys(schema, extensionKeywords);
  // Why: ajv throws on a keyword name it does not allow, and an `x-` key may be any text (a
  // property named `x-rate limit` among them); such a key is no keyword ajv would meet anyway.
  for (const keyword of extensionKeywords) if (KEYWORD_NAME.test(keyword)) ajv.addKeyword({ keyword });
  // In codegen's own documents an `x-` key inside a schema is always an extension (a field may not
  // be named `x-...`), so one ajv cannot take as a keyword (`x-*/source`) is left out of the copy
  // ajv compiles; strict mode would otherwise call it an unknown keyword. Other documents are not
  // strict: ajv ignores unknown keywords there, and their `x-` keys may be property names.
  const rewriteRefs = (value: unknown): Json => copyForAjv(value, strict);

  // Why the whole document and not only its schemas: a ref may point at any schema of it
  // (`#/components/parameters/x/schema`, `#/paths/~1x/get/responses/200/content/application~1json/schema`).
  // ajv resolves a ref's pointer in the raw root, so one root holding the document serves them all.
  const root: Json = { ...rewriteRefs(document), $id: "urn:codegen:document" };
  for (const key of Object.keys(root)) if (key !== "$id" && KEYWORD_NAME.test(key) && !ajv.getKeyword(key)) ajv.addKeyword({ keyword: key });
  let rootAdded = false;
  const diagnostics: Diagnostic[] = [];
  const components = document.components?.schemas ?? {};
  // Why: compiling is slow (~3 ms a schema) and large documents repeat a few shapes (every
  // resource's `Article`, `ArticleInput`, ... differ only in the names they refer to). A schema
  // compiles when its own keywords do and its refs resolve, so each shape, with its refs pointed
  // at one stand-in, is compiled once, and every ref is checked to name a component (each of
  // which is itself compiled). Anything else, and any failure, takes the exact path below, so the
  // messages are ajv's own.
  ajv.addSchema({ $id: STAND_IN });
  const shapes = new Map<string, boolean>();
  const exact = (pointer: string, schema: Json, index: number): string | undefined => {
    try {
      if (!rootAdded) {
        ajv.addSchema(root);
        rootAdded = true;
      }
      if (pointer.startsWith("#/components/schemas/")) {
        if (!ajv.getSchema(inRoot(pointer))) throw new Error("the schema cannot be resolved");
      } else {
        ajv.compile({ $id: `urn:codegen:schema:${index}`, ...rewriteRefs(schema) });
      }
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };
  for (const [index, { pointer, schema }] of schemas.entries()) {
    let resolvable = true;
    const shape = JSON.stringify(schema, (key, v: unknown) => {
      // Values that cannot change whether a schema compiles: extension keywords (no-ops) and
      // annotation texts. (Were such a key a property name, the stand-in fails, and the exact path runs.)
      if (key.startsWith("x-")) return strict && !KEYWORD_NAME.test(key) ? undefined : "x";
      if ((key === "description" || key === "title") && typeof v === "string") return "";
      if (key !== "$ref" || typeof v !== "string") return v;
      const name = v.startsWith("#/components/schemas/") ? unescapeToken(percentDecoded(v.slice("#/components/schemas/".length))) : undefined;
      if (name === undefined || !Object.hasOwn(components, name)) resolvable = false;
      return STAND_IN;
    });
    let compiles = resolvable ? shapes.get(shape) : false;
    if (compiles === undefined) {
      const parsed = JSON.parse(shape) as Json;
      // Why: compiling generates and parses a validator's code, 7 of 33 s of a
      // 5 MB document. Outside strict mode, what makes a schema fail to compile is what its meta-
      // schema refuses, a regular expression the `u` flag refuses, or a ref that does not resolve
      // (refs are checked above); a schema clear of the first two is taken as compiling, and any
      // other is compiled, so a refusal's message is still ajv's own.
      compiles = !strict && isValidSchema(ajv, parsed) && patternsCompile(parsed);
      if (!compiles) {
        try {
          ajv.compile({ $id: `urn:codegen:shape:${shapes.size}`, ...parsed });
          compiles = true;
        } catch {
          compiles = false;
        }
      }
      shapes.set(shape, compiles);
    }
    const failure = compiles ? undefined : exact(pointer, schema, index);
    if (failure === undefined) continue;
    diagnostics.push(
      strict
        ? diagnostic("internal/invalid-schema", { name: pointer, message: failure })
        : diagnostic("openapi/invalid", { message: `the schema at ${pointer} is not valid JSON Schema: ${failure}` }),
    );
  }
  return diagnostics;
}

/** Names ajv accepts for a keyword (`ajv.addKeyword` throws on others). */
const KEYWORD_NAME = /^[a-z_$][a-z0-9_$:-]*$/i;

/**
 * A copy of a schema for ajv: refs point into the shared root; with `dropOddExtensions`, `x-` keys
 * that cannot be registered as keywords are left out.
 */
function copyForAjv(value: unknown, dropOddExtensions: boolean): Json {
  return JSON.parse(
    JSON.stringify(value, (key, v: unknown) => {
      if (dropOddExtensions && key.startsWith("x-") && !KEYWORD_NAME.test(key)) return undefined;
      return key === "$ref" && typeof v === "string" && v.startsWith("#/") ? inRoot(v) : v;
    }),
  ) as Json;
}

/**
 * A `#/...` pointer as a URI of the shared root, each token percent-encoded anew: a document's refs
 * may hold what a URI may not (`#/components/schemas/My Pet`), which ajv cannot resolve.
 */
const inRoot = (ref: string): string =>
  `urn:codegen:document#/${ref
    .slice(2)
    .split("/")
    .map((token) => encodeURIComponent(percentDecoded(token)))
    .join("/")}`;

/** The schema every ref of a shape points to while shapes are compiled: accepts anything. */
const STAND_IN = "urn:codegen:stand-in";

/** Whether ajv's meta-schema accepts a schema; false when it cannot tell (an unknown `$schema`), so that compiling says why. */
function isValidSchema(ajv: Ajv2020, schema: Json): boolean {
  try {
    return ajv.validateSchema(schema) === true;
  } catch {
    return false;
  }
}

/**
 * Whether every regular expression a schema may hold compiles as ajv compiles it (the `u` flag):
 * each string under a `pattern` key and each key under `patternProperties`, wherever they stand
 * (one inside an example that is no regular expression only sends the schema to ajv's compile).
 */
function patternsCompile(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  for (const [key, child] of Object.entries(value)) {
    if (key === "pattern" && typeof child === "string" && !compiles(child)) return false;
    if (key === "patternProperties" && typeof child === "object" && child !== null && !Object.keys(child).every((name) => compiles(name))) return false;
    if (!patternsCompile(child)) return false;
  }
  return true;
}

/** `x-` keys anywhere in a schema become known (no-op) keywords, so strict mode allows them. */
function collectExtensionKeys(value: unknown, into: Set<string>): void {
  if (typeof value !== "object" || value === null) return;
  for (const [key, child] of Object.entries(value)) {
    if (key.startsWith("x-")) into.add(key);
    else collectExtensionKeys(child, into);
  }
}
