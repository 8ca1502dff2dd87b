/**
 * Chains of named schemas that apply to one and the same value: a schema that is all of, any of,
 * one of, not, or (if/then/else) conditionally the next by `$ref`. TypeScript resolves such a chain
 * at once (`type S0 = S1 | string`), and the generated validator checks the whole chain on each
 * value in nested calls; a few thousand of them overflowed TypeScript's stack (`tsc` crashed on
 * the generated types) and the server's. A chain through properties, items or additional
 * properties is no such thing: TypeScript defers an object's members and an array's items, and
 * the validator goes one level down the value per link (bodyDepthLimit bounds that).
 */
import { refName } from "./schema-code.js";
import { type Json, asObject, listOf } from "../../model/json.js";

/**
 * The most named schemas a chain may pass through before one of them is rendered otherwise. Why
 * 64: the longest such chains of real documents (allOf inheritance, a oneOf of oneOfs) are a
 * handful of links; TypeScript 6 resolves a chain of 1,000 unions but not 2,000, and the validator
 * spends a few frames of its stack per link at every level of a body.
 */
export const COMPOSITION_LIMIT = 64;

/** The keywords whose subschemas apply to the value itself (JSON Schema 2020-12, section 10.2). */
const SAME_VALUE_LISTS = ["allOf", "anyOf", "oneOf"] as const;
const SAME_VALUE_SCHEMAS = ["not", "if", "then", "else"] as const;

/** The named schemas `schema` refers to where they apply to its own value: through $ref, allOf, anyOf, oneOf, not, if, then, else. */
function sameValueRefs(schema: unknown, known: ReadonlySet<string>): string[] {
  const found: string[] = [];
  const stack = [schema];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const node = asObject(stack.pop());
    if (node === undefined || seen.has(node)) continue;
    seen.add(node);
    const ref = refName(node);
    if (ref !== undefined) {
      // The validator and the types follow a `$ref` alone (its siblings are not read).
      if (known.has(ref)) found.push(ref);
      continue;
    }
    for (const key of SAME_VALUE_LISTS) {
      const list = node[key];
      if (Array.isArray(list)) for (const item of list) stack.push(item);
    }
    for (const key of SAME_VALUE_SCHEMAS) stack.push(node[key]);
  }
  return found;
}

/**
 * The named schemas at which a chain of same-value references grows past COMPOSITION_LIMIT, or
 * comes back to itself (`cycle`: `A = B`, `B = A | string` is a type alias that refers to itself,
 * and a check of A that never ends), in the order of `schemas`. Each is rendered otherwise (any
 * value, type `unknown`), which ends the chain there, so the schemas that refer to it start
 * counting again. Linear in the schemas: one walk of each, then one pass over the references
 * (an explicit stack, no recursion).
 */
export function longCompositionChains(schemas: Readonly<Record<string, unknown>>): { readonly name: string; readonly cycle: boolean }[] {
  const names = Object.keys(schemas);
  const known = new Set(names);
  const edges = new Map<string, string[]>();
  for (const name of names) edges.set(name, sameValueRefs(schemas[name], known));
  /** The length of the longest chain from each schema done: 0 for a schema rendered otherwise. */
  const length = new Map<string, number>();
  const onStack = new Set<string>();
  const cut = new Set<string>();
  /** Schemas a chain comes back to: the same value would be checked against them without end. */
  const cycles = new Set<string>();
  for (const start of names) {
    if (length.has(start)) continue;
    // Post-order: a schema's length is known once each it refers to is.
    const stack: { name: string; next: number }[] = [{ name: start, next: 0 }];
    onStack.add(start);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const targets = edges.get(top.name)!;
      if (top.next < targets.length) {
        const target = targets[top.next++]!;
        if (onStack.has(target)) cycles.add(target);
        else if (!length.has(target)) {
          onStack.add(target);
          stack.push({ name: target, next: 0 });
        }
        continue;
      }
      let longest = 0;
      for (const target of targets) longest = Math.max(longest, length.get(target) ?? 0);
      const own = longest + 1;
      const ends = own > COMPOSITION_LIMIT || cycles.has(top.name);
      if (ends) cut.add(top.name);
      length.set(top.name, ends ? 0 : own);
      onStack.delete(top.name);
      stack.pop();
    }
  }
  return names.filter((name) => cut.has(name)).map((name) => ({ name, cycle: cycles.has(name) }));
}

/**
 * The schemas with each inheritance back-reference replaced by the parent's own part: where a
 * schema P with a `discriminator` lists C in its `oneOf` or `anyOf` and C is `allOf` P and more
 * (OpenAPI's polymorphism written both ways), C's `$ref` to P becomes P without that
 * `oneOf`/`anyOf`. Why: read as written, P is one of C, which is P again: a cycle that neither a
 * type alias nor a validator can end. What C inherits from P is P's own properties and
 * constraints, not the choice among P's kinds. Only the model's copy changes: the served document
 * keeps what was written.
 */
export function withInheritedBases(schemas: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  /** Per kind, the parents it is listed by, each with its own part (what replaces the kind's `$ref` to it). */
  const bases = new Map<string, Map<string, Json>>();
  for (const [parent, value] of Object.entries(schemas)) {
    const schema = asObject(value);
    // Only beside a discriminator, OpenAPI's mark of polymorphism: elsewhere such a cycle is
    // another schema's (`A = B`, `B = A | string`) and is rendered otherwise (longCompositionChains).
    if (schema === undefined || asObject(schema.discriminator) === undefined) continue;
    let base: Json | undefined;
    for (const item of [...listOf(schema.oneOf), ...listOf(schema.anyOf)]) {
      const kind = refName(asObject(item) ?? {});
      if (kind === undefined || kind === parent || !Object.hasOwn(schemas, kind)) continue;
      base ??= Object.fromEntries(Object.entries(schema).filter(([key]) => key !== "oneOf" && key !== "anyOf"));
      (bases.get(kind) ?? bases.set(kind, new Map()).get(kind)!).set(parent, base);
    }
  }
  if (bases.size === 0) return schemas;
  // Each kind rewritten once, whatever the number of parents listing it: linear in the document.
  const result: Record<string, unknown> = { ...schemas };
  for (const [kind, parents] of bases) {
    const child = asObject(schemas[kind]);
    const allOf = listOf(child?.allOf);
    const inherited = allOf.map((item) => {
      const name = refName(asObject(item) ?? {});
      return name === undefined ? item : (parents.get(name) ?? item);
    });
    if (child !== undefined && inherited.some((item, i) => item !== allOf[i])) result[kind] = { ...child, allOf: inherited };
  }
  return result;
}
