/**
 * Reading JSON text fast: the value with `JSON.parse`, the place of a node only when
 * a diagnostic asks for one. Why: the YAML parser, which keeps a node with a range for every
 * value, took 2-4 s and most of a gigabyte for a 5 MB document, where `JSON.parse` takes tens of
 * milliseconds; places are found afterwards by walking the text along the pointer asked for.
 */

/** A span of the text: its first offset and the offset after it. */
export type Range = readonly [number, number];

/** Where a node stands: its value, and its key when it is a member of a map (JSON's objects, YAML's maps alike). */
export interface Place {
  readonly value: Range;
  readonly key?: Range | undefined;
}

/** A node's place with its members' (a map's by key, a list's by index written in decimal), as the YAML readers record them. */
export interface PlaceNode extends Place {
  readonly members?: ReadonlyMap<string, PlaceNode> | undefined;
}

/**
 * The place of the deepest node along `path` that exists, and how many steps of the path it took
 * (a missing key is reported at the map that lacks it); `membersOf` gives a node's members.
 */
export function nearest<P extends Place>(
  root: P,
  path: readonly (string | number)[],
  membersOf: (place: P) => ReadonlyMap<string, P> | undefined,
): { place: P; depth: number } {
  let place = root;
  for (let depth = 0; depth < path.length; depth++) {
    const next = membersOf(place)?.get(String(path[depth]));
    if (!next) return { place, depth };
    place = next;
  }
  return { place, depth: path.length };
}

/**
 * The value of a JSON text read by `JSON.parse`, the error when it is not JSON, or undefined when
 * the text must be read by the YAML parser after all, which reports it as it always did: a value that
 * is not an object or an array, nesting past `maxDepth`, or a key that repeats in its object.
 * Objects get a null prototype, as the YAML reader gives them: `__proto__` stays an ordinary key.
 */
export function parseJson(text: string, maxDepth: number): { value: object } | { error: Error } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: error as Error };
  }
  if (typeof value !== "object" || value === null) return undefined;
  let keys = 0;
  const adopt = (node: unknown, depth: number): boolean => {
    if (typeof node !== "object" || node === null) return true;
    // Nesting is measured as the YAML reader does: a path longer than maxDepth is too deep.
    if (depth > maxDepth) return false;
    if (Array.isArray(node)) {
      for (const item of node) if (!adopt(item, depth + 1)) return false;
      return true;
    }
    Object.setPrototypeOf(node, null);
    const record = node as Record<string, unknown>;
    const own = Object.keys(record);
    keys += own.length;
    for (const key of own) if (!adopt(record[key], depth + 1)) return false;
    return true;
  };
  if (!adopt(value, 0)) return undefined;
  // Why count: `JSON.parse` keeps the last of two equal keys silently, where codegen reports
  // the second as an error. In JSON every `:` outside a string ends one key, so the text has as
  // many keys as the value exactly when no key repeats; else the YAML reader says which.
  return keys === membersIn(text) ? { value } : undefined;
}

/** How many `:` stand outside strings in a JSON text: one per member of an object. */
function membersIn(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(text, i) - 1;
    else if (c === COLON) count++;
  }
  return count;
}

const QUOTE = 0x22;
const COLON = 0x3a;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/** The offset after the string whose opening quote is at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote < 0) return text.length;
    // A quote after an odd number of backslashes is escaped.
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

/**
 * Places in a JSON text known to be valid, found by walking the text along a path: each object
 * or array on the way is read once (its members' places kept), so a run that places many
 * diagnostics reads each part of the text about once per level above it, and one that places
 * none reads nothing.
 */
export class JsonPlaces {
  /** The members of each object or array read so far, by its start: an array's by index written in decimal. */
  private readonly members = new Map<number, Map<string, Place>>();
  private readonly root: Place;

  constructor(private readonly text: string) {
    const start = this.space(0);
    this.root = { value: [start, this.valueEnd(start)] };
  }

  /** The place of the deepest node along `path` that exists, and how many steps of the path it took. */
  find(path: readonly (string | number)[]): { place: Place; depth: number } {
    return nearest(this.root, path, (place) => this.childrenOf(place.value[0]));
  }

  /** The members of the object or array starting at `start` (undefined for a scalar), read once. */
  private childrenOf(start: number): Map<string, Place> | undefined {
    const open = this.text.charCodeAt(start);
    if (open !== OPEN_BRACE && open !== OPEN_BRACKET) return undefined;
    const known = this.members.get(start);
    if (known) return known;
    const text = this.text;
    const isObject = open === OPEN_BRACE;
    const found = new Map<string, Place>();
    let i = this.space(start + 1);
    while (i < text.length && text.charCodeAt(i) !== (isObject ? CLOSE_BRACE : CLOSE_BRACKET)) {
      let key: Range | undefined;
      if (isObject) {
        key = [i, stringEnd(text, i)];
        i = this.space(this.space(key[1]) + 1); // past the colon
      }
      const value: Range = [i, this.valueEnd(i)];
      if (key) found.set(this.keyName(key), { value, key });
      else found.set(String(found.size), { value });
      i = this.space(value[1]);
      if (text.charCodeAt(i) === COMMA) i = this.space(i + 1);
    }
    this.members.set(start, found);
    return found;
  }

  /** A key as the value has it: escapes (`\"`, `\u00e9`) decoded. */
  private keyName([start, end]: Range): string {
    const raw = this.text.slice(start, end);
    return raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
  }

  /** The offset after the value starting at `start`. */
  private valueEnd(start: number): number {
    const text = this.text;
    const c = text.charCodeAt(start);
    if (c === QUOTE) return stringEnd(text, start);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      let depth = 0;
      for (let i = start; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === QUOTE) i = stringEnd(text, i) - 1;
        else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
        else if ((d === CLOSE_BRACE || d === CLOSE_BRACKET) && --depth === 0) return i + 1;
      }
      return text.length;
    }
    // A number, true, false or null: up to the next delimiter or space.
    let i = start;
    while (i < text.length && !/[\s,\]}]/.test(text[i]!)) i++;
    return i;
  }

  /** The first offset from `i` that is not JSON white space. */
  private space(i: number): number {
    const text = this.text;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
      i++;
    }
  }
}
