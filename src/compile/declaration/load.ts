import {
  Composer,
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  Lexer,
  LineCounter,
  Parser,
  visit,
  YAMLParseError,
  type Alias,
  type Node as YamlNode,
} from "yaml";
import { type Diagnostic, type SourceLocation, diagnostic } from "../../diagnostics/index.js";
import { JsonPlaces, type Place, type PlaceNode, type Range, nearest, parseJson } from "./json.js";
import { readYamlSubset } from "./yaml-subset.js";

/** A path into a loaded document: map keys and list indexes, from the root. */
export type Path = readonly (string | number)[];

/** A plain value read from YAML or JSON, with the source place of every node in it. */
export interface LoadedDocument {
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

/**
 * Entries allowed on the YAML parser's stack (about one per level of nesting, at most two).
 * Why: the parser keeps its stack in an array, but composing the nodes recurses once per level,
 * and a 200 KB `[[[[...` or `- - - ...` overflows the call stack there, which at worst kills the
 * process (V8 cannot compile a regular expression with no stack left). Stopping the parser this
 * deep keeps every later walk shallow; MAX_DEPTH then reports nesting with a finer location.
 */
const MAX_PARSER_STACK = 2 * MAX_DEPTH + 8;

/**
 * Values that aliases may add to a document: as many as the text has characters, and at least
 * this many. Why: an alias reads as a copy of its anchor, and aliases of aliases grow
 * exponentially (nine levels of nine `*a` in 500 bytes are 387 million values); the budget keeps
 * the plain value, and all later work on it, linear in the size of the text.
 */
const MIN_ALIAS_BUDGET = 100_000;

/**
 * Every key that repeats an earlier key of its map (scalar keys compared by value, as the YAML
 * parser's `uniqueKeys` does), as the parser would report it; the walk stops past MAX_DEPTH.
 */
function duplicateKeys(root: YamlNode | null): { code: string; message: string; pos: [number, number] }[] {
  const found: { code: string; message: string; pos: [number, number] }[] = [];
  const walk = (node: unknown, depth: number): void => {
    if (depth > MAX_DEPTH + 1) return;
    if (isSeq(node)) for (const item of node.items) walk(item, depth + 1);
    if (!isMap(node)) return;
    const seen = new Set<unknown>();
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = pair.key as YamlNode | null;
      const identity = keyText(key) ?? (isScalar(key) ? key.value : key);
      if (seen.has(identity)) {
        const start = key?.range?.[0] ?? 0;
        found.push({ code: "DUPLICATE_KEY", message: "Map keys must be unique", pos: [start, start + 1] });
      }
      seen.add(identity);
      walk(pair.value, depth + 1);
    }
  };
  walk(root, 0);
  return found;
}

/**
 * The name a map key stands for: a string, or a plain key of digits only, read as written (an HTTP
 * status under `errors`: `409: ...`). Any other key has none: `true:`, `~:`, `1.5:` or `0x1F:`
 * would silently become the names "true", "null", "1.5" or "31".
 */
function keyText(node: YamlNode | null): string | undefined {
  if (!isScalar(node)) return undefined;
  if (typeof node.value === "string") return node.value;
  return typeof node.value === "number" && node.type === "PLAIN" && typeof node.source === "string" && /^[0-9]+$/.test(node.source) ? node.source : undefined;
}

/**
 * Parse a declaration's text (YAML or JSON) into plain values that know where each node stands.
 * Syntax errors and duplicate keys become diagnostics.
 */
export function loadDocument(file: string, text: string): LoadResult {
  // Why: JSON text (a .json file, or YAML written as JSON) is read by JSON.parse, its
  // places found only when asked; what JSON.parse cannot tell (a repeated key, nesting too deep)
  // sends it to the YAML parser, which reports it as before.
  const isJsonFile = /\.json$/i.test(file);
  const parsed = isJsonFile || /^\s*[{[]/.test(text) ? parseJson(text, MAX_DEPTH) : undefined;
  // YAML accepts more than JSON (comments, trailing commas, unquoted keys): a .json file must be strict JSON.
  if (isJsonFile && parsed && "error" in parsed) {
    const problem = jsonSyntaxError(text, parsed.error);
    return { diagnostics: [diagnostic("json/syntax", { message: problem.message }, placeFinder(file, text)([problem.offset, problem.offset + 1]))] };
  }
  const json = parsed && "value" in parsed ? parsed : undefined;
  if (json) {
    const places = new JsonPlaces(text);
    return { document: { value: json.value, locate: locator((path) => places.find(path), placeFinder(file, text)) }, diagnostics: [] };
  }
  // Why (S6): most declarations and OpenAPI documents are written in a small part of YAML, read in
  // one pass by readYamlSubset; what it does not cover, and every text with a problem to report,
  // is read by the yaml package as before.
  const subset = readYamlSubset(text, MAX_DEPTH);
  if (subset) {
    return { document: { value: subset.value, locate: locator((path) => nearest(subset.root, path, membersOf), placeFinder(file, text)) }, diagnostics: [] };
  }
  return loadWithYamlParser(file, text);
}

/**
 * `locate` over `find`, which gives the nearest place that exists along a path and how many of its
 * steps that took (a missing key is reported at the map that lacks it).
 */
function locator(find: (path: Path) => { place: Place; depth: number }, at: (range: Range) => SourceLocation): LoadedDocument["locate"] {
  return (path, part = "value") => {
    const { place, depth } = find(path);
    return at(part === "key" && depth === path.length && place.key ? place.key : place.value);
  };
}

const membersOf = (place: PlaceNode) => place.members;

/** Whether a value is what a YAML 1.1 merge key takes: an alias, or a list of aliases. */
const mergesAliases = (node: YamlNode | null): boolean => isAlias(node) || (isSeq(node) && node.items.length > 0 && node.items.every((item) => isAlias(item)));

/**
 * Parse a text with the YAML 1.2 parser, which keeps every node's place (JSON is YAML too):
 * syntax errors, duplicate keys, aliases and nesting become diagnostics. Exported for the tests,
 * which compare JSON's places found later with the parser's.
 */
export function loadWithYamlParser(file: string, text: string): LoadResult {
  const lineCounter = new LineCounter();
  const { doc, tooDeepAt } = parseShallow(text, lineCounter);
  const at = placeFinder(file, text, lineCounter);

  if (tooDeepAt !== undefined) return { diagnostics: [diagnostic("input/too-deep", { limit: MAX_DEPTH }, at([tooDeepAt, tooDeepAt + 1]))] };
  const diagnostics: Diagnostic[] = [];
  let syntaxReported = false;
  const errors = [...doc.errors.map((e) => ({ code: e.code as string, message: e.message, pos: e.pos })), ...duplicateKeys(doc.contents as YamlNode | null)];
  // Stable: the parser's errors keep their order; each duplicate key goes where the parser put it.
  errors.sort((a, b) => a.pos[0] - b.pos[0]);
  for (const error of errors) {
    const range: Range = [error.pos[0], error.pos[1]];
    if (error.code === "DUPLICATE_KEY") {
      const key = keyAt(text, range[0]);
      diagnostics.push(diagnostic("yaml/duplicate-key", { key: key.name }, at([range[0], range[0] + key.length])));
    } else if (error.code === "MULTIPLE_DOCS") {
      diagnostics.push(diagnostic("yaml/multiple-documents", {}, at(range)));
    } else if (error.code === "MISSING_CHAR" && /quote/.test(error.message) && !syntaxReported) {
      // Shown at the opening quote: the end of the file says little about where the string began.
      syntaxReported = true;
      const quote = /double/.test(error.message) || /"quote/.test(error.message) ? '"' : "'";
      const open = text.lastIndexOf(quote, Math.min(range[0], text.length) - 1);
      diagnostics.push(diagnostic("yaml/syntax", { message: "this quoted string is never closed" }, at(open >= 0 ? [open, open + 1] : range)));
    } else if (!syntaxReported) {
      // The parser's later errors mostly follow from its first one: only that one is shown.
      syntaxReported = true;
      const message = YAML_HINTS[error.code] ?? firstLine(error.message);
      diagnostics.push(diagnostic("yaml/syntax", { message }, at(range)));
    }
  }
  if (diagnostics.length > 0) return { diagnostics };
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
    return { diagnostics: [diagnostic("input/empty", {}, at([0, 0]))] };
  }

  const problems: Diagnostic[] = [];
  const targets = aliasTargets(doc);
  let aliasBudget = Math.max(MIN_ALIAS_BUDGET, text.length);
  /** The alias, as written in the document (not one inside another's anchor), being read. */
  let expanding: Alias | undefined;
  /** The plain value of a node `depth` steps below the root; its place is recorded under `name` in `into`. */
  const toPlain = (node: YamlNode | null, depth: number, into: Map<string, PlaceNode>, name: string, keyRange: Range | undefined): unknown => {
    if (expanding && --aliasBudget < 0) {
      if (aliasBudget === -1) problems.push(diagnostic("yaml/alias-expansion", { limit: Math.max(MIN_ALIAS_BUDGET, text.length) }, at(rangeOf(expanding))));
      return null;
    }
    if (depth > MAX_DEPTH) {
      if (!problems.some((p) => p.code === "input/too-deep")) problems.push(diagnostic("input/too-deep", { limit: MAX_DEPTH }, at(rangeOf(node))));
      return null;
    }
    const members = isSeq(node) || isMap(node) ? new Map<string, PlaceNode>() : undefined;
    into.set(name, { value: rangeOf(node), key: keyRange, members });
    if (node === null) return null;
    if (isAlias(node)) {
      // An alias reads as a copy of its anchor's node; places inside it point at the anchor.
      const target = targets.get(node);
      if (!target) {
        problems.push(diagnostic("yaml/unknown-alias", { alias: node.source }, at(rangeOf(node))));
        return null;
      }
      if (expanding) return toPlain(target, depth, into, name, keyRange);
      expanding = node;
      try {
        return toPlain(target, depth, into, name, keyRange);
      } finally {
        expanding = undefined;
      }
    }
    if (isScalar(node)) return node.value;
    if (isSeq(node)) return node.items.map((item, i) => toPlain(item as YamlNode, depth + 1, members!, String(i), undefined));
    if (isMap(node)) {
      // A null prototype: a key such as `__proto__` stays an ordinary key.
      const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const keyNode = pair.key as YamlNode | null;
        const key = keyText(keyNode);
        if (key === undefined) {
          problems.push(diagnostic("yaml/non-string-key", {}, at(rangeOf(keyNode))));
          continue;
        }
        if (key === "<<" && isScalar(keyNode) && keyNode.type === "PLAIN" && mergesAliases(pair.value as YamlNode | null)) {
          // YAML 1.1's merge key; YAML 1.2 reads `<<` as a key like any other, which would only confuse.
          problems.push(diagnostic("yaml/merge-key", {}, at(rangeOf(keyNode))));
          continue;
        }
        out[key] = toPlain(pair.value as YamlNode | null, depth + 1, members!, key, rangeOf(keyNode));
        if (pair.value === null) members!.set(key, { value: rangeOf(keyNode), key: rangeOf(keyNode) });
      }
      return out;
    }
    return null;
  };
  const top = new Map<string, PlaceNode>();
  const value = toPlain(doc.contents as YamlNode, 0, top, "", undefined);
  if (problems.length > 0) return { diagnostics: problems };

  return { document: { value, locate: locator((path) => nearest(top.get("")!, path, membersOf), at) }, diagnostics: [] };
}

/**
 * A range of the text to the location a diagnostic shows. A place past the last character (an
 * unclosed bracket at the end) is shown at the last one. The lines are the parser's, else counted
 * when a diagnostic first needs them.
 */
export function placeFinder(file: string, text: string, lines?: LineCounter): (range: Range) => SourceLocation {
  let last: number | undefined;
  return (range) => {
    last ??= Math.max(0, text.trimEnd().length - 1);
    const lineCounter = (lines ??= countLines(text));
    const start = lineCounter.linePos(Math.min(range[0], last));
    const end = lineCounter.linePos(Math.min(Math.max(range[0], range[1]), last + 1));
    const length = end.line === start.line ? Math.max(1, end.col - start.col) : 1;
    return { file, line: start.line, column: start.col, length };
  };
}

/** The lines of a text as the YAML parser counts them. */
function countLines(text: string): LineCounter {
  const lineCounter = new LineCounter();
  lineCounter.addNewLine(0);
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lineCounter.addNewLine(i + 1);
  return lineCounter;
}

/**
 * Parse one YAML document as `parseDocument` does, with the parser fed by hand (the way the
 * yaml package documents for a user-provided lexer) so that its stack can be watched: past
 * MAX_PARSER_STACK the parse stops, and `tooDeepAt` is the offset where it did.
 */
function parseShallow(text: string, lineCounter: LineCounter): { doc: Document.Parsed; tooDeepAt?: number } {
  const parser = new Parser(lineCounter.addNewLine);
  let tooDeepAt: number | undefined;
  function* tokens() {
    lineCounter.addNewLine(0); // as Parser.parse does: the first line starts at 0
    for (const lexeme of new Lexer().lex(text)) {
      yield* parser.next(lexeme);
      if (parser.stack.length > MAX_PARSER_STACK) {
        tooDeepAt = parser.offset;
        return;
      }
    }
    yield* parser.end();
  }
  // Why uniqueKeys false: the parser's own duplicate-key check compares each key with every earlier
  // one of its map, so a map of 100,000 keys (a hostile or generated file) took minutes;
  // duplicateKeys() does the same check with a set per map, in linear time.
  const composer = new Composer({ uniqueKeys: false, keepSourceTokens: false });
  let doc: Document.Parsed | undefined;
  for (const next of composer.compose(tokens(), true, text.length)) {
    if (!doc) doc = next;
    else {
      doc.errors.push(new YAMLParseError([next.range[0], next.range[1]], "MULTIPLE_DOCS", "Source contains multiple documents"));
      break;
    }
  }
  // compose(…, true) always ends with a document, empty for an empty text.
  return { doc: doc!, ...(tooDeepAt === undefined ? {} : { tooDeepAt }) };
}

/**
 * The node each alias reads, found in one walk of the document: the last node before the alias
 * with its anchor. Why: `Alias.resolve` walks the whole document for every alias, so a document
 * with many aliases took time quadratic in its size.
 */
function aliasTargets(doc: Document.Parsed): Map<Alias, YamlNode> {
  const anchors = new Map<string, YamlNode>();
  const targets = new Map<Alias, YamlNode>();
  visit(doc, {
    Node(_key, node) {
      if (isAlias(node)) {
        const target = anchors.get(node.source);
        if (target) targets.set(node, target);
      } else if (node.anchor) anchors.set(node.anchor, node);
    },
  });
  return targets;
}

/** Plainer words for the parser's errors that users meet most. */
const YAML_HINTS: Partial<Record<string, string>> = {
  TAB_AS_INDENT: "indent with spaces: YAML does not allow tabs as indentation",
  BLOCK_AS_IMPLICIT_KEY: "this value runs on into the next line, which is indented deeper than its key: check the indentation below",
  MULTILINE_IMPLICIT_KEY: "a key must stand on one line: check the indentation of the lines below",
};

function rangeOf(node: YamlNode | null): Range {
  const range = node?.range;
  return range ? [range[0], range[1]] : [0, 0];
}

/** The key that starts at `offset` (quoted or plain), for a message that names it and a caret under it. */
function keyAt(text: string, offset: number): { name: string; length: number } {
  const rest = text.slice(offset);
  const quoted = /^(["'])((?:\\.|(?!\1).)*)\1/.exec(rest);
  if (quoted) return { name: quoted[2]!, length: quoted[0].length };
  const plain = /^[^:\n,{}[\]]*/.exec(rest)![0].trimEnd();
  return { name: plain || "?", length: Math.max(1, plain.length) };
}

/** Where strict JSON parsing failed: V8 names the offset in its message. */
function jsonSyntaxError(text: string, error: Error): { message: string; offset: number } {
  const message = error.message;
  const position = /at position (\d+)/.exec(message);
  const offset = position ? Number(position[1]) : text.length;
  const clean = message.replace(/\s*(in JSON )?at position \d+.*$/, "").replace(/^Unexpected end of JSON input$/, "the text ends before the JSON value does");
  return { message: clean, offset: Math.min(offset, Math.max(0, text.trimEnd().length - 1)) };
}

function firstLine(message: string): string {
  return (message.split("\n")[0] ?? message).replace(/ at line \d+, column \d+:?$/, "");
}
