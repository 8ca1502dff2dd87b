/**
 * Lenient reading of OpenAPI documents written by others: schema mistakes real
 * documents make that do not stop rendering are read the way their authors meant, each with a
 * warning at its place; `--strict` makes these warnings errors. Only what cannot be rendered
 * soundly stays an error (elsewhere). Pure: the input is not changed.
 */
import { type Diagnostic, type SourceLocation, warning } from "../../diagnostics/index.js";
import { rewriteSchemas } from "../api/foreign.js";
import { escapeToken } from "../pointer.js";
import { compiles } from "../verify/patterns.js";
import { isObject } from "../../model/json.js";

/**
 * The document as its authors meant it, and a warning at the place (`at`: of a JSON pointer) of
 * each mistake read so:
 * - in 3.0, keywords beside a `$ref` are ignored (OpenAPI 3.0: "any sibling elements of a $ref
 *   are ignored"); `x-` keys are kept, they change nothing;
 * - `nullable` without `type` has no effect in 3.0 (3.0.3 clarifies it adds null to `type` only)
 *   and is dropped; in 3.1 `nullable` is no keyword, so with a `type` it is read as 3.0 means it;
 * - a `pattern` that ECMAScript reads without the `u` flag but not with it (`\:`, `\_`, a lone `{`)
 *   is rewritten to the same language in a form the `u` flag takes (what ajv and the generated
 *   validator compile).
 */
export function readLeniently<D extends object>(
  document: D,
  version: "3.0" | "3.1",
  at: (pointer: string) => SourceLocation,
): { document: D; warnings: Diagnostic[] } {
  const warnings: Diagnostic[] = [];
  const read = rewriteSchemas(document, (schema, pointer) => {
    let out: Record<string, unknown> | undefined;
    const copy = () => (out ??= Object.fromEntries(Object.entries(schema)));
    if (version === "3.0" && typeof schema.$ref === "string") {
      const keys = Object.keys(schema).filter((key) => key !== "$ref" && !key.startsWith("x-"));
      // Why annotations are dropped without a word: a `description` beside a `$ref` is in most 3.0
      // documents, means nothing to the code either way, and a warning on each would hide the rest.
      const meaningful = keys.filter((key) => !ANNOTATIONS.has(key));
      if (keys.length > 0) {
        if (meaningful.length > 0) warnings.push(warning("openapi/ref-siblings-ignored", { keys: meaningful }, at(pointer)));
        out = Object.fromEntries(Object.entries(schema).filter(([key]) => !keys.includes(key)));
        return out;
      }
    }
    // An empty `required` list is invalid in 3.0 (draft 4) but means what 2020-12 reads: nothing is
    // required. Real documents and the 2.0 converter write it; read so without a word.
    if (version === "3.0" && Array.isArray(schema.required) && schema.required.length === 0) delete copy().required;
    if ("nullable" in schema && !("type" in schema)) {
      warnings.push(warning("openapi/nullable-without-type", {}, at(`${pointer}/nullable`)));
      delete copy().nullable;
    } else if (version === "3.1" && "nullable" in schema) {
      warnings.push(warning("openapi/nullable-not-3.1", {}, at(`${pointer}/nullable`)));
      const target = copy();
      delete target.nullable;
      if (schema.nullable === true && typeof schema.type === "string") target.type = [schema.type, "null"];
    }
    if (typeof schema.pattern === "string") {
      const meant = unicodePattern(schema.pattern);
      if (meant !== undefined) {
        warnings.push(warning("openapi/pattern-without-u", { pattern: schema.pattern, meant }, at(`${pointer}/pattern`)));
        copy().pattern = meant;
      }
    }
    // The names of patternProperties are patterns too, read the same way.
    const patterns = schema.patternProperties;
    if (isObject(patterns)) {
      const entries = Object.entries(patterns).map(([name, item]): [string, unknown] => {
        const meant = unicodePattern(name);
        if (meant === undefined) return [name, item];
        warnings.push(warning("openapi/pattern-without-u", { pattern: name, meant }, at(`${pointer}/patternProperties/${escapeToken(name)}`)));
        return [meant, item];
      });
      if (entries.some(([name], i) => name !== Object.keys(patterns)[i])) copy().patternProperties = Object.fromEntries(entries);
    }
    return out;
  });
  return { document: read, warnings };
}

/** Keywords that annotate a schema without changing what it accepts or the type it gives. */
const ANNOTATIONS = new Set(["description", "title", "summary", "example", "examples", "externalDocs", "xml", "deprecated"]);

/** Characters an escape may name under the `u` flag without being a letter or digit (SyntaxCharacter and `/`). */
const SYNTAX = "^$\\.*+?()[]{}|/";

/** Letters that start an escape with a meaning of its own (a class, a control, a code point, a name). */
const MEANINGFUL = "bBdDwWsSfnrtvcxukpP";

/**
 * A pattern that ECMAScript compiles without the `u` flag but not with it, rewritten to match the
 * same texts under `u`: identity escapes of other characters (`\:`, `\_`, `\-` outside a class,
 * `\a`) become the characters, and a `{`, `}` or `]` that is a literal without `u` is escaped.
 * Undefined when the pattern is fine under `u`, invalid either way, or not rewritable so.
 */
export function unicodePattern(pattern: string): string | undefined {
  if (compiles(pattern) || !compiles(pattern, "")) return undefined;
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      i++;
      const kept = /[0-9]/.test(next) || MEANINGFUL.includes(next) || SYNTAX.includes(next) || (inClass && next === "-");
      out += kept ? c + next : next;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      continue;
    }
    if (c === "{") {
      const quantifier = /^\{[0-9]+(,[0-9]*)?\}/.exec(pattern.slice(i))?.[0];
      if (quantifier !== undefined) {
        out += quantifier;
        i += quantifier.length - 1;
      } else out += "\\{";
      continue;
    }
    out += c === "}" || c === "]" ? `\\${c}` : c;
  }
  return compiles(out) ? out : undefined;
}
