/**
 * How deep an OpenAPI document nests, found without recursion. Why: the walks after loading
 * (swagger-parser's bundling, reading leniently, inlining references, the model) recurse once per
 * level of what they walk, and a document nests as deep as its references lead: a chain of a few
 * thousand references (schemas, parameters or responses each referring to the next, files
 * referring to files) overflowed the call stack, and the user saw "Maximum call stack size
 * exceeded". A place found here is reported instead, located: past INLINE_DEPTH_LIMIT once a
 * document is bundled (placeDeeperThan), or along the chain where bundling ran out of stack
 * (referencePlace).
 */
import { refKeys } from "../pointer.js";

type Node = object;

/**
 * How far down through its references `referencePlace` looks for the place it reports: where a
 * chain that exhausted swagger-parser's stack (about 4,000 levels of references to references, or
 * 1,000 files) is well under way.
 */
export const REF_CHAIN_PLACE = 1000;

/**
 * The most levels a document may nest once its references other than to named schemas are
 * followed (`openapi/too-deep`): after bundling (files pulled in where they are referred to), and
 * with parameters, responses and parts of schemas inlined. Why 128: twice the nesting a file may
 * have (64, input/too-deep), so a part pulled in from another file nests as deep as it may in its
 * own; every later walk (reading leniently, the model, the validator's nodes, the types) recurses
 * within that.
 */
export const INLINE_DEPTH_LIMIT = 128;

/**
 * The reference tokens (from the root, as they stand in the document) of a place that lies more
 * than `limit` levels below the root on some way down the document, or undefined when none does.
 * A level is an object or array inside another (references are not followed: a parsed or bundled
 * document holds them as `$ref`s). Linear in the document: each value is looked at once, the
 * longest way down from it remembered (an object met at two places, once).
 */
export function placeDeeperThan(root: unknown, limit: number): string[] | undefined {
  if (typeof root !== "object" || root === null) return undefined;
  /** The longest way down from each value done, in values (1 for a value with nothing below). */
  const height = new Map<Node, number>();
  /** Where each value stands in the document: its parent and key (the first found). */
  const parent = new Map<Node, [Node, string]>();
  const onStack = new Set<Node>();
  const below = (node: Node) => childrenOf(node, root, parent);
  const stack: { node: Node; next: Node[]; at: number }[] = [{ node: root, next: below(root), at: 0 }];
  onStack.add(root);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.at < top.next.length) {
      const child = top.next[top.at++]!;
      if (!height.has(child) && !onStack.has(child)) {
        onStack.add(child);
        stack.push({ node: child, next: below(child), at: 0 });
      }
      continue;
    }
    let longest = 0;
    for (const child of top.next) longest = Math.max(longest, height.get(child) ?? 0);
    height.set(top.node, longest + 1);
    onStack.delete(top.node);
    stack.pop();
  }
  if (height.get(root)! <= limit + 1) return undefined;
  // Down the longest way, `limit` levels: the first place past the limit.
  let node: Node = root;
  for (let level = 0; level < limit + 1; level++) {
    // The child with the longest way down, shorter than this value's (a cycle's way back is not one).
    const own = height.get(node)!;
    let next: Node | undefined;
    for (const child of below(node)) {
      const reach = height.get(child) ?? 0;
      if (reach < own && (next === undefined || reach > height.get(next)!)) next = child;
    }
    if (next === undefined) break;
    node = next;
  }
  return tokensOf(node, parent);
}

/** The objects and arrays right below a value; the place of each is noted in `parent` (where none is yet). */
function childrenOf(node: Node, root: object, parent: Map<Node, [Node, string]>): Node[] {
  const found: Node[] = [];
  for (const key of Object.keys(node)) {
    const child = (node as Record<string, unknown>)[key];
    if (typeof child !== "object" || child === null) continue;
    if (!parent.has(child) && child !== root) parent.set(child, [node, key]);
    found.push(child);
  }
  return found;
}

/** The reference tokens of a value's place, from the root, as `parent` notes them. */
function tokensOf(node: Node, parent: ReadonlyMap<Node, [Node, string]>): string[] {
  const tokens: string[] = [];
  for (let at = parent.get(node); at !== undefined; at = parent.get(at[0])) tokens.unshift(at[1]);
  return tokens;
}

/**
 * The value a `#/...` reference of the document points at, when it is an object or array; the
 * place of each value on the way is noted in `parent` (where none is yet).
 */
function targetOf(root: object, ref: unknown, parent: Map<Node, [Node, string]>): Node | undefined {
  // `#/` names the root, as `#` does.
  const keys = typeof ref !== "string" ? undefined : ref === "#/" ? [] : refKeys(ref);
  if (keys === undefined) return undefined;
  let node: unknown = root;
  for (const key of keys) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined;
    const child = (node as Record<string, unknown>)[key];
    if (typeof child === "object" && child !== null && child !== root && !parent.has(child)) parent.set(child, [node, key]);
    node = child;
  }
  return typeof node === "object" && node !== null ? node : undefined;
}

/**
 * Where a chain of references of the document is REF_CHAIN_PLACE levels down (or the deepest
 * place it reaches, when none is that deep), as reference tokens: each object or array and each
 * `$ref` to a place of the document (`#/...`) followed is a level, in the order of a depth-first
 * walk, each value walked once (an explicit stack, no recursion). What bundling follows as
 * swagger-parser does, to show the user where the chain it could not follow runs.
 */
export function referencePlace(root: unknown): string[] {
  if (typeof root !== "object" || root === null) return [];
  const parent = new Map<Node, [Node, string]>();
  const seen = new Set<Node>([root]);
  const next = (node: Node): Node[] => {
    const target = Array.isArray(node) ? undefined : targetOf(root, (node as { $ref?: unknown }).$ref, parent);
    return target !== undefined ? [target] : childrenOf(node, root, parent);
  };
  const stack: { node: Node; next: Node[]; at: number }[] = [{ node: root, next: next(root), at: 0 }];
  let deepest: Node = root;
  let deepestLevel = 0;
  while (stack.length > 0 && deepestLevel < REF_CHAIN_PLACE) {
    const top = stack[stack.length - 1]!;
    if (top.at >= top.next.length) {
      stack.pop();
      continue;
    }
    const child = top.next[top.at++]!;
    if (seen.has(child)) continue;
    seen.add(child);
    stack.push({ node: child, next: next(child), at: 0 });
    if (stack.length > deepestLevel) [deepest, deepestLevel] = [child, stack.length];
  }
  return tokensOf(deepest, parent);
}
