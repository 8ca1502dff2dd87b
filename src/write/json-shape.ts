/**
 * The shape hash of data (plan.ts, shapeOfJson) without its whole JSON text made at once. Why: the
 * shape of openapi.yaml is the hash of `JSON.stringify` of the document, a string of 15 MB at 1000
 * resources made only to be hashed; so large a string lives in V8's large-object space until the
 * next full collection, and the run's peak memory grew by it. Here the text is the same, made and
 * hashed a member at a time (test/write/json-shape.test.ts holds it equal to JSON.stringify's).
 */
import { type Hash, createHash } from "node:crypto";

/** How many levels of objects and arrays are opened before a member is stringified whole (an operation, a schema). */
const LEVELS = 4;

/** How long the text collected before it is hashed grows (so the hash is not called per key). */
const BATCH = 64 * 1024;

/** `shapeOfJson(JSON.stringify(value))`, for a value JSON.stringify gives text for. */
export function shapeOfData(value: unknown): string {
  const hash = createHash("sha256");
  const text = { pending: "" };
  feed(hash, text, value, LEVELS);
  hash.update(text.pending);
  return `shape1-${hash.digest("hex")}`;
}

/**
 * The shape hash of a JSON text told a piece at a time (a JsonListener): `shape()` gives it once
 * the text has ended, and undefined before.
 */
export function jsonShape(): { add(piece: string): void; end(): void; shape(): string | undefined } {
  const hash = createHash("sha256");
  let shape: string | undefined;
  return {
    // Why not after the end: a literal printed again would tell its text twice.
    add: (piece) => void (shape === undefined && hash.update(piece)),
    end: () => void (shape ??= `shape1-${hash.digest("hex")}`),
    shape: () => shape,
  };
}

/** What JSON.stringify leaves out of an object and writes as `null` in an array. */
const isSkipped = (value: unknown) => value === undefined || typeof value === "function" || typeof value === "symbol";

/** Add JSON.stringify's text of `value` (one it gives text for) to the hash, `levels` levels opened. */
function feed(hash: Hash, text: { pending: string }, value: unknown, levels: number): void {
  const put = (piece: string) => {
    text.pending += piece;
    if (text.pending.length > BATCH) {
      hash.update(text.pending);
      text.pending = "";
    }
  };
  // A scalar, a member deep enough, or a value with its own toJSON (which JSON.stringify calls): stringified whole.
  if (levels === 0 || typeof value !== "object" || value === null || typeof (value as { toJSON?: unknown }).toJSON === "function") {
    put(JSON.stringify(value));
    return;
  }
  if (Array.isArray(value)) {
    put("[");
    for (let i = 0; i < value.length; i++) {
      if (i > 0) put(",");
      const item: unknown = value[i];
      if (isSkipped(item)) put("null");
      else feed(hash, text, item, levels - 1);
    }
    put("]");
    return;
  }
  put("{");
  let first = true;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (isSkipped(item)) continue;
    put(`${first ? "" : ","}${JSON.stringify(key)}:`);
    first = false;
    feed(hash, text, item, levels - 1);
  }
  put("}");
}
