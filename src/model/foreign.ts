/**
 * Preparing an OpenAPI document written by others for the model: every schema name becomes an
 * identifier, and every `$ref` that does not name a schema of `components/schemas` (a parameter,
 * a response, a part of another schema, a place swagger-parser bundled an external file into) is
 * replaced by what it points at. What the model then reads has refs of one form only:
 * `#/components/schemas/<identifier>`. codegen's own documents pass through unchanged.
 */
import { isIdentifier } from "./escape.js";

type Json = { [key: string]: unknown };
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** A ref the preparation could not resolve (a cycle not through a named schema, or a missing target). */
export interface RefProblem {
  readonly pointer: string;
  readonly reason: string;
}

const SCHEMA_PREFIX = "#/components/schemas/";

/** The document with identifier schema names and component-schema refs only; the input is not changed. */
export function prepareDocument<D extends object>(document: D): { document: D; problems: RefProblem[] } {
  const source = document as unknown as Json;
  const names = renamedSchemas(source);
  if (!needsPreparation(source, names)) return { document, problems: [] };
  const problems: RefProblem[] = [];
  const target = (pointer: string): unknown => {
    let node: unknown = source;
    for (const part of pointer.slice(2).split("/")) {
      const key = decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~");
      if (!isObject(node) && !Array.isArray(node)) return undefined;
      node = (node as Json)[key];
    }
    return node;
  };
  const rewrite = (value: unknown, pointer: string, active: readonly string[]): unknown => {
    if (Array.isArray(value)) return value.map((item, i) => rewrite(item, `${pointer}/${i}`, active));
    if (!isObject(value)) return value;
    const ref = value.$ref;
    if (typeof ref === "string") {
      const named = schemaName(ref);
      if (named !== undefined) return { ...copyEntries(value, pointer, active, rewrite), $ref: SCHEMA_PREFIX + (names.get(named) ?? named) };
      if (!ref.startsWith("#/")) {
        problems.push({ pointer, reason: `the reference ${JSON.stringify(ref)} was not bundled into the document` });
        return {};
      }
      if (active.includes(ref)) {
        problems.push({ pointer, reason: `the reference ${JSON.stringify(ref)} refers to itself; move the schema into components/schemas and refer to it by name` });
        return {};
      }
      const resolved = target(ref);
      if (resolved === undefined) {
        problems.push({ pointer, reason: `the reference ${JSON.stringify(ref)} points at nothing` });
        return {};
      }
      const { $ref: _, ...siblings } = value;
      const inlined = rewrite(resolved, pointer, [...active, ref]);
      return isObject(inlined) ? { ...inlined, ...copyEntries(siblings, pointer, active, rewrite) } : inlined;
    }
    return copyEntries(value, pointer, active, rewrite);
  };
  const prepared = rewrite(source, "#", []) as Json;
  const schemas = isObject(prepared.components) && isObject(prepared.components.schemas) ? prepared.components.schemas : undefined;
  if (schemas && names.size > 0) {
    (prepared.components as Json).schemas = Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [names.get(name) ?? name, schema]));
  }
  return { document: prepared as unknown as D, problems };
}

/** Keys whose values are data or extensions, not OpenAPI objects: their `$ref`s are left as written. */
const OPAQUE = (key: string) => key === "example" || key === "examples" || key.startsWith("x-");

function copyEntries(value: Json, pointer: string, active: readonly string[], rewrite: (v: unknown, p: string, a: readonly string[]) => unknown): Json {
  const copy: Json = {};
  for (const [key, item] of Object.entries(value)) {
    const rewritten = OPAQUE(key) ? item : rewrite(item, `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`, active);
    Object.defineProperty(copy, key, { value: rewritten, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** The schema a ref names, when it is exactly `#/components/schemas/<name>`. */
function schemaName(ref: string): string | undefined {
  if (!ref.startsWith(SCHEMA_PREFIX)) return undefined;
  const rest = ref.slice(SCHEMA_PREFIX.length);
  if (rest.includes("/")) return undefined;
  return decodeURIComponent(rest).replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Schema names that are not identifiers -> unique identifiers made of their words. */
function renamedSchemas(document: Json): Map<string, string> {
  const schemas = isObject(document.components) && isObject(document.components.schemas) ? document.components.schemas : {};
  const taken = new Set(Object.keys(schemas).filter(isIdentifier));
  const names = new Map<string, string>();
  for (const name of Object.keys(schemas)) {
    if (isIdentifier(name)) continue;
    const base = identifierOf(name);
    let candidate = base;
    for (let n = 2; taken.has(candidate); n++) candidate = `${base}${n}`;
    taken.add(candidate);
    names.set(name, candidate);
  }
  return names;
}

/** A PascalCase identifier from any text: its letters and digits, words capitalised. */
export function identifierOf(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter((word) => word.length > 0);
  const joined = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("");
  if (joined === "") return "Unnamed";
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

/** Whether any ref needs rewriting or any schema a new name (codegen's own documents need neither). */
function needsPreparation(document: Json, names: ReadonlyMap<string, string>): boolean {
  if (names.size > 0) return true;
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) stack.push(...value);
    else if (isObject(value)) {
      if (typeof value.$ref === "string" && schemaName(value.$ref) === undefined) return true;
      for (const [key, item] of Object.entries(value)) if (!OPAQUE(key) && typeof item === "object" && item !== null) stack.push(item);
    }
  }
  return false;
}
