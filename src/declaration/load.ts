import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from "yaml";
import { type Diagnostic, type SourceLocation, diagnostic } from "../diagnostics/index.js";

/** A path into a loaded document: map keys and list indexes, from the root. */
export type Path = readonly (string | number)[];

/** A plain value read from YAML or JSON, with the source place of every node in it. */
export interface LoadedDocument {
  readonly file: string;
  readonly value: unknown;
  /** Where the value at `path` stands; `key` asks for its key in the parent map instead. */
  locate(path: Path, part?: "value" | "key"): SourceLocation;
}

/** Result of loading: a document when the text parsed, and every problem met. */
export interface LoadResult {
  readonly document?: LoadedDocument;
  readonly diagnostics: readonly Diagnostic[];
}

/** Deeper nesting than this is refused: no declaration needs it and walking it costs stack. */
export const MAX_DEPTH = 64;

type Range = readonly [number, number];
interface Place {
  value: Range;
  key?: Range;
}

/** Turn a path into the key of the place table; JSON Pointer escaping keeps it unambiguous. */
export function pointer(path: Path): string {
  return path.map((p) => "/" + String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

/**
 * Parse a declaration's text (YAML or JSON: JSON is read by the same YAML 1.2 parser, so both
 * get positions) into plain values. Syntax errors and duplicate keys become diagnostics.
 */
export function loadDocument(file: string, text: string): LoadResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, keepSourceTokens: false });
  const places = new Map<string, Place>();

  const at = (range: Range): SourceLocation => {
    const start = lineCounter.linePos(range[0]);
    const end = lineCounter.linePos(Math.max(range[0], range[1]));
    const length = end.line === start.line ? Math.max(1, end.col - start.col) : 1;
    return { file, line: start.line, column: start.col, length };
  };

  const diagnostics: Diagnostic[] = [];
  for (const error of doc.errors) {
    const range: Range = [error.pos[0], error.pos[1]];
    if (error.code === "DUPLICATE_KEY") {
      const key = duplicateKeyName(text, range);
      diagnostics.push(diagnostic("yaml/duplicate-key", { key }, at(range)));
    } else {
      diagnostics.push(diagnostic("yaml/syntax", { message: firstLine(error.message) }, at(range)));
    }
  }
  if (diagnostics.length > 0) return { diagnostics };
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
    return { diagnostics: [diagnostic("input/empty", {}, at([0, 0]))] };
  }

  const problems: Diagnostic[] = [];
  const toPlain = (node: YamlNode | null, path: (string | number)[], keyRange: Range | undefined): unknown => {
    if (path.length > MAX_DEPTH) {
      if (path.length === MAX_DEPTH + 1) problems.push(diagnostic("input/too-deep", { limit: MAX_DEPTH }, at(rangeOf(node))));
      return null;
    }
    const place: Place = { value: rangeOf(node) };
    if (keyRange) place.key = keyRange;
    places.set(pointer(path), place);
    if (node === null) return null;
    if (isAlias(node)) {
      // An alias reads as a copy of its anchor's node; places inside it point at the anchor.
      const target = node.resolve(doc);
      return target ? toPlain(target as YamlNode, path, keyRange) : null;
    }
    if (isScalar(node)) return node.value;
    if (isSeq(node)) return node.items.map((item, i) => toPlain(item as YamlNode, [...path, i], undefined));
    if (isMap(node)) {
      // A null prototype: a key such as `__proto__` stays an ordinary key.
      const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const keyNode = pair.key as YamlNode | null;
        if (!isScalar(keyNode) || (typeof keyNode.value === "object" && keyNode.value !== null)) {
          problems.push(diagnostic("yaml/non-string-key", {}, at(rangeOf(keyNode))));
          continue;
        }
        const key = String(keyNode.value);
        out[key] = toPlain(pair.value as YamlNode | null, [...path, key], rangeOf(keyNode));
        if (pair.value === null) places.set(pointer([...path, key]), { value: rangeOf(keyNode), key: rangeOf(keyNode) });
      }
      return out;
    }
    return null;
  };
  const value = toPlain(doc.contents as YamlNode, [], undefined);
  if (problems.length > 0) return { diagnostics: problems };

  const locate = (path: Path, part: "value" | "key" = "value"): SourceLocation => {
    // The nearest place that exists: a missing key is reported at the map that lacks it.
    for (let n = path.length; n >= 0; n--) {
      const place = places.get(pointer(path.slice(0, n)));
      if (!place) continue;
      const range = part === "key" && n === path.length && place.key ? place.key : place.value;
      return at(range);
    }
    return at([0, 0]);
  };
  return { document: { file, value, locate }, diagnostics: [] };
}

function rangeOf(node: YamlNode | null): Range {
  const range = node?.range;
  return range ? [range[0], range[1]] : [0, 0];
}

/** The key text at a duplicate-key error, for a message that names it. */
function duplicateKeyName(text: string, range: Range): string {
  const raw = text.slice(range[0], Math.max(range[1], range[0] + 1)).split(/[:\n]/)[0] ?? "";
  return raw.trim().replace(/^["']|["']$/g, "") || "?";
}

function firstLine(message: string): string {
  return (message.split("\n")[0] ?? message).replace(/ at line \d+, column \d+:?$/, "");
}
