import { literal, propertyKey } from "./escape.js";

/** A JSON Schema as plain data. */
export type JsonSchema = { readonly [key: string]: unknown };

const asSchema = (value: unknown): JsonSchema | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonSchema) : undefined;

/** The name a `$ref` to `#/components/schemas/<name>` points at. */
export function refName(schema: JsonSchema): string | undefined {
  const ref = schema.$ref;
  return typeof ref === "string" && ref.startsWith("#/components/schemas/") ? decodeURIComponent(ref.slice("#/components/schemas/".length)) : undefined;
}

/** The JSON types a schema allows, from `type` (string or 3.1 array). */
export function schemaTypes(schema: JsonSchema): string[] {
  const type = schema.type;
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
  return [];
}

/**
 * The TypeScript type of a schema. Named schemas are referred to through `prefix`
 * (`T.Article`), so a schema named like a global (`Record`, `Promise`) never shadows one.
 */
export function typeScriptType(schema: JsonSchema, prefix: string, typeNameOf: (name: string) => string): string {
  const ref = refName(schema);
  if (ref !== undefined) return prefix + typeNameOf(ref);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => literal(v)).join(" | ") || "never";
  const types = schemaTypes(schema);
  if (types.length === 0) return "unknown";
  return types.map((type) => singleType(type, schema, prefix, typeNameOf)).join(" | ");
}

function singleType(type: string, schema: JsonSchema, prefix: string, typeNameOf: (name: string) => string): string {
  switch (type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const items = asSchema(schema.items);
      const inner = items ? typeScriptType(items, prefix, typeNameOf) : "unknown";
      return /[ |]/.test(inner) ? `(${inner})[]` : `${inner}[]`;
    }
    case "object":
      return objectType(schema, prefix, typeNameOf);
    default:
      return "unknown";
  }
}

/** An object type literal: `{ a: string; b?: number }`, with an index signature for extra keys. */
export function objectType(schema: JsonSchema, prefix: string, typeNameOf: (name: string) => string, omit: readonly string[] = []): string {
  const properties = Object.entries(asSchema(schema.properties) ?? {}).filter(([name]) => !omit.includes(name));
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const members = properties.map(([name, property]) => {
    const optional = required.has(name) ? "" : "?";
    return `${propertyKey(name)}${optional}: ${typeScriptType(asSchema(property) ?? {}, prefix, typeNameOf)}`;
  });
  const additional = schema.additionalProperties;
  if (asSchema(additional)) members.push(`[key: string]: ${typeScriptType(additional as JsonSchema, prefix, typeNameOf)}`);
  else if (additional !== false && properties.length === 0) members.push("[key: string]: unknown");
  return members.length === 0 ? "{}" : `{ ${members.join("; ")} }`;
}

/** A validator node (see the runtime's `SchemaNode`) for a schema, as plain data. */
export function schemaNode(schema: JsonSchema): Record<string, unknown> {
  const ref = refName(schema);
  if (ref !== undefined) return { ref };
  const node: Record<string, unknown> = {};
  const types = schemaTypes(schema);
  if (types.length > 0) node.types = types;
  for (const key of ["enum", "format", "minLength", "maxLength", "pattern", "minimum", "maximum", "minItems", "maxItems", "default"] as const) {
    if (schema[key] !== undefined) node[key] = schema[key];
  }
  const items = asSchema(schema.items);
  if (items) node.items = schemaNode(items);
  const properties = asSchema(schema.properties);
  if (properties) node.properties = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, schemaNode(asSchema(v) ?? {})]));
  if (Array.isArray(schema.required) && schema.required.length > 0) node.required = schema.required;
  const additional = schema.additionalProperties;
  if (additional === false) node.additionalProperties = false;
  else if (asSchema(additional)) node.additionalProperties = schemaNode(additional as JsonSchema);
  return node;
}
