/**
 * Validator nodes too deep to stand inline in a route. Why: api.gen.ts writes a route's body and
 * parameter nodes inside `routes: readonly RouteSpec[]`, and TypeScript compares such a literal
 * with RouteSpec level by level; a body schema nested two dozen schemas deep (inline, or inlined
 * from references to parts of the document) made `tsc` fail with TS2321 ("Excessive stack depth
 * comparing types"). In the schema table, typed SchemaTable, the same node compiles at the depth
 * the document may have (compile/openapi/depth.ts, INLINE_DEPTH_LIMIT): there it is kept, and the
 * route refers to it.
 */
import type { SchemaNode } from "#runtime/validate.gen.js";

/**
 * The most levels of objects and arrays a node may nest inline in a route: half of what TypeScript
 * 6 was seen to take there (a body of 23 nested objects, about 50 levels, compiled; 24 did not).
 */
export const ROUTE_NODE_DEPTH = 32;

/** Whether a value nests objects and arrays more than `limit` levels deep (a stack, no recursion). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== "object" || item === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(item)) if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/** The schema table's key of the `n`th node kept there for a route: never a schema's name (those are identifiers). */
export const tableKey = (n: number): string => `#route-node-${n}`;

/** A node as a route holds it: itself, or a reference to the table where `kept` (a list of the table's extra entries) keeps it. */
export function routeNode(node: SchemaNode, kept: [string, SchemaNode][]): SchemaNode {
  if (!nestsDeeperThan(node, ROUTE_NODE_DEPTH)) return node;
  const key = tableKey(kept.length + 1);
  kept.push([key, node]);
  return { ref: key };
}
