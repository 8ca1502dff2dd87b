import { linearPatternProblem } from "#runtime/pattern.gen.js";
import { visitSchemas } from "../api/foreign.js";
import { escapeToken } from "../pointer.js";
import { asObject } from "../../model/json.js";

/**
 * Why the generated validator cannot match `pattern` in time linear in the text (a backreference,
 * a lookaround, too many steps), or undefined when it can. An invalid pattern is reported on its
 * own (decl/bad-regex, openapi/invalid), so it has no problem here.
 */
export function patternProblem(pattern: string): string | undefined {
  return compiles(pattern) ? linearPatternProblem(pattern) : undefined;
}

/** Whether ECMAScript compiles a pattern with these flags; by default `u`, as ajv and the generated validator do. */
export function compiles(pattern: string, flags = "u"): boolean {
  try {
    new RegExp(pattern, flags);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the generated validator matches a pattern in linear time (an invalid one counts as such:
 * it is refused on its own), each pattern judged once: what the validator's schema nodes may hold
 * without the user's --allow-unsafe-patterns (src/compile/api/schema-code.ts, PatternCheck).
 */
export function linearPatterns(): (pattern: string) => boolean {
  const known = new Map<string, boolean>();
  return (pattern) => {
    let linear = known.get(pattern);
    if (linear === undefined) known.set(pattern, (linear = patternProblem(pattern) === undefined));
    return linear;
  };
}

/**
 * Every `pattern` (and name of `patternProperties`) in the schemas of an OpenAPI document (components, parameters, bodies,
 * responses, headers: request and response alike) that the generated validator cannot match in
 * linear time, handed to `each` with the JSON pointer of its keyword and why. Why every schema
 * and not only those validated today: the document is also what clients and other tools read,
 * and a schema validated later must not bring a regression.
 */
export function unsafePatterns(document: object, each: (pointer: string, pattern: string, reason: string) => void): void {
  visitSchemas(document, (node, pointer) => {
    if (typeof node.pattern === "string") {
      const reason = patternProblem(node.pattern);
      if (reason !== undefined) each(`${pointer}/pattern`, node.pattern, reason);
    }
    // The names of patternProperties are patterns the validator matches too (on property names).
    for (const name of Object.keys(asObject(node.patternProperties) ?? {})) {
      const reason = patternProblem(name);
      if (reason !== undefined) each(`${pointer}/patternProperties/${escapeToken(name)}`, name, reason);
    }
  });
}
