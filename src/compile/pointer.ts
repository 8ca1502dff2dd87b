/**
 * JSON Pointer reference tokens (RFC 6901): `~` is written `~0` and `/` `~1`; in a URI fragment
 * (`#/paths/~1a/get`, section 6) each token is percent-encoded as well.
 */

/** A key as a reference token. */
export const escapeToken = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1");

/** A reference token as the key it stands for. */
export const unescapeToken = (token: string): string => token.replace(/~1/g, "/").replace(/~0/g, "~");

/** A percent-encoded token decoded; as written when it is not valid percent-encoding. */
export function percentDecoded(token: string): string {
  try {
    return decodeURIComponent(token);
  } catch {
    return token;
  }
}

/** The value reached from `root` through `keys` (own keys and array indexes only), or undefined when there is none. */
export function valueAt(root: unknown, keys: readonly string[]): unknown {
  let value = root;
  for (const key of keys) {
    // Why `length` apart: an array's own keys are its indexes and `length`, which names no element (RFC 6901 section 4).
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key) || (key === "length" && Array.isArray(value))) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The keys a pointer in a URI fragment (`#/paths/~1a/get`, or without its `#`) leads through; empty tokens are left out. */
export function fragmentKeys(pointer: string): string[] {
  return pointer
    .replace(/^#?\/?/, "")
    .split("/")
    .filter((token) => token !== "")
    .map((token) => unescapeToken(percentDecoded(token)));
}

/** The keys a reference within the document (`#/...`, or `#` for the root) leads through, decoded; undefined when it is another or malformed. */
export function refKeys(ref: string): string[] | undefined {
  if (ref === "#") return [];
  if (!ref.startsWith("#/")) return undefined;
  try {
    return ref
      .slice(2)
      .split("/")
      .map((part) => unescapeToken(decodeURIComponent(part)));
  } catch {
    return undefined;
  }
}
