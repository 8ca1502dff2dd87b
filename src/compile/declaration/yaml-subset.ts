/**
 * A fast reader for the YAML that declarations and OpenAPI documents are written in (block maps
 * and sequences, one-line flow collections, one-line plain and quoted scalars, comments, a `---`
 * at the top). Why: the yaml package builds a node tree with tokens for every value, 150-190 ms of
 * a 67 KB declaration and seconds at 1000 resources; this reads the same text in one pass.
 * Anything outside the subset, and anything the yaml package would report (a repeated key, a key
 * that is not a string, nesting too deep, any syntax error), is handed back: `readYamlSubset`
 * returns undefined and the caller reads the text with the yaml package, which stays the oracle
 * for values and places (test/compile/declaration/yaml-subset.test.ts holds the two together).
 */
import type { PlaceNode, Range } from "./json.js";

/** The value of a text in the subset, and the place of its root, which holds every other node's. */
export interface SubsetDocument {
  readonly value: object;
  readonly root: PlaceNode;
}

/** Where a node's place is recorded: under `name` among its parent's members; undefined while places are not recorded. */
type Slot = { readonly into: Map<string, PlaceNode>; readonly name: string } | undefined;

/** Raised anywhere the text leaves the subset: the yaml package reads it instead. */
class Outside extends Error {}

/**
 * Characters whose handling differs in ways not worth copying (tabs, carriage returns, control
 * characters, a byte-order mark, Unicode line breaks): a text with any of them is left to the yaml package.
 */
const UNSUPPORTED = /[\t\r\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufeff\u2028\u2029]/;

/** Keys longer than this are left to the yaml package, which limits an implicit key to 1024 characters. */
const MAX_KEY = 1000;

const SPACE = 0x20;
const NEWLINE = 0x0a;
const HASH = 0x23;
const DASH = 0x2d;
const COLON = 0x3a;
const COMMA = 0x2c;
const DOUBLE = 0x22;
const SINGLE = 0x27;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const PIPE = 0x7c;
const GREATER = 0x3e;

/** Characters a plain scalar may not start with (`-` only when a space or the line's end follows). */
const INDICATORS = tableOf("-?:,[]{}#&*!|>'\"%@`");
const FLOW_INDICATORS = tableOf("[]{},");

/** A set of ASCII characters as a table by character code. Why: looked up for every character of a flow collection. */
function tableOf(characters: string): { has(code: number): boolean } {
  const table = new Uint8Array(128);
  for (const c of characters) table[c.charCodeAt(0)] = 1;
  return { has: (code) => code < 128 && table[code] === 1 };
}

/**
 * The value and places of a YAML text in the subset, exactly as the yaml-package path of load.ts
 * gives them, or undefined when the text must be read by that path (it reports what is wrong, or
 * reads what the subset does not cover). Linear in the length of the text.
 */
export function readYamlSubset(text: string, maxDepth: number): SubsetDocument | undefined {
  if (UNSUPPORTED.test(text)) return undefined;
  try {
    const { value } = new Reader(text, maxDepth, false).document();
    // Why: the places are asked only for a diagnostic, and recording one for every node was a
    // good part of the read; the text is read again, recording, then.
    let root: PlaceNode | undefined;
    return {
      value,
      get root() {
        return (root ??= new Reader(text, maxDepth, true).document().root);
      },
    };
  } catch (error) {
    if (error instanceof Outside) return undefined;
    throw error;
  }
}

/**
 * A parsed node: its value, the start of the next content line after it (or the text's length),
 * and where the yaml package ends its range (that of a block collection is its last value's).
 */
interface Parsed {
  value: unknown;
  next: number;
  end: number;
}

class Reader {
  /** Whether the last call of contentLine passed a comment line. */
  private passedComment = false;
  private readonly n: number;
  private readonly depthLimit: number;

  /** `record`: whether the places are recorded (see readYamlSubset). */
  constructor(
    private readonly text: string,
    maxDepth: number,
    private readonly record: boolean,
  ) {
    this.n = text.length;
    // Why a margin: near the limit the yaml package may stop on its parser's stack before the
    // nesting check; such documents are read (and refused) there.
    this.depthLimit = maxDepth - 8;
  }

  document(): SubsetDocument {
    const { text } = this;
    let start = this.contentLine(0, true);
    if (start < this.n && text.startsWith("---", start)) {
      // A document start marker alone on its line (a comment may follow); content after it is left out.
      const rest = this.skipSpaces(start + 3);
      if (rest === start + 3 && rest < this.n && text.charCodeAt(rest) !== NEWLINE) throw new Outside();
      if (!this.endsLine(rest, rest > start + 3)) throw new Outside();
      start = this.contentLine(this.lineEnd(start), false);
    }
    // An empty document, or a root that is not a block collection at the margin, is the yaml package's.
    if (start >= this.n || this.indentOf(start) !== 0) throw new Outside();
    const top = new Map<string, PlaceNode>();
    const root = this.blockCollection(start, 0, this.record ? { into: top, name: "" } : undefined, 0, undefined);
    if (root.next < this.n) throw new Outside();
    return { value: root.value as object, root: top.get("")! };
  }

  /** A block sequence (its first item at `p`) or map (its first key at `p`), indented by `indent`. */
  private blockCollection(p: number, indent: number, at: Slot, depth: number, key: Range | undefined): Parsed {
    const isSeq = this.isItem(p);
    if (depth + 1 > this.depthLimit) throw new Outside();
    const items: unknown[] | undefined = isSeq ? [] : undefined;
    // A null prototype, as the yaml-package path gives: `__proto__` stays an ordinary key.
    const map = isSeq ? undefined : (Object.create(null) as Record<string, unknown>);
    const members = at && new Map<string, PlaceNode>();
    let pos = p;
    let next: number;
    let end: number;
    for (;;) {
      let child: Parsed;
      if (items !== undefined) {
        child = this.valueAfter(pos + 1, indent, members && { into: members, name: String(items.length) }, depth + 1, undefined, false);
        items.push(child.value);
      } else {
        const found = this.key(pos);
        if (!found || found.name in map!) throw new Outside();
        child = this.valueAfter(found.after, indent, members && { into: members, name: found.name }, depth + 1, found.range, true);
        map![found.name] = child.value;
      }
      ({ next, end } = child);
      if (next >= this.n) break;
      const lineIndent = this.indentOf(next);
      if (lineIndent < indent) break;
      if (lineIndent > indent) throw new Outside();
      pos = next + lineIndent;
      // A line at this indent that is no item ends a sequence (a map's next key when the map holds it at its own indent).
      if (isSeq && !this.isItem(pos)) break;
    }
    if (end < 0) throw new Outside();
    this.place(at, p, end, key, members);
    return { value: items ?? map, next, end };
  }

  /**
   * The value after a key's `:` or an item's `-` at `after`, in a collection indented by `indent`:
   * on the same line, on the lines below (a block collection), or none (null).
   */
  private valueAfter(after: number, indent: number, at: Slot, depth: number, key: Range | undefined, inMap: boolean): Parsed {
    const { text } = this;
    const q = this.skipSpaces(after);
    const c = q < this.n ? text.charCodeAt(q) : NEWLINE;
    if (c === NEWLINE || (c === HASH && q > after)) {
      const next = this.contentLine(this.lineEnd(q), false);
      if (next < this.n) {
        const lineIndent = this.indentOf(next);
        if (lineIndent > indent) return this.blockCollection(next + lineIndent, lineIndent, at, depth, key);
        // A map may hold a sequence at its own indent.
        if (inMap && lineIndent === indent && this.isItem(next + lineIndent)) return this.blockCollection(next + lineIndent, indent, at, depth, key);
      }
      this.place(at, q, q, key);
      // Where the yaml package ends an empty value: at its place, or past a comment on its line
      // (a later line). Past comment lines below it, it ends at a place not worth copying.
      if (c === HASH) return { value: null, next, end: this.lineEnd(q) };
      if (this.passedComment) return { value: null, next, end: -1 };
      return { value: null, next, end: q };
    }
    if (c === DASH && this.isItem(q)) throw new Outside();
    if (c === PIPE || c === GREATER) return this.blockScalar(q, indent, at, key);
    let value: unknown;
    let end: number;
    if (c === OPEN_BRACKET || c === OPEN_BRACE) ({ value, end } = this.flow(q, at, depth, key));
    else if (!inMap && this.key(q)) return this.blockCollection(q, q - this.lineStart(q), at, depth, key);
    else {
      ({ value, end } = c === DOUBLE || c === SINGLE ? this.quoted(q) : this.plain(q, false));
      this.place(at, q, end, key);
    }
    const rest = this.skipSpaces(end);
    if (!this.endsLine(rest, rest > end)) throw new Outside();
    const lineEnd = this.lineEnd(rest);
    const next = this.contentLine(lineEnd, false);
    // A more indented line below would continue the scalar over lines: the yaml package's.
    if (next < this.n && this.indentOf(next) > indent) throw new Outside();
    return { value, next, end: lineEnd };
  }

  /**
   * A literal (`|`) or folded (`>`) block scalar whose header is at `p`, in a collection indented
   * by `indent`, read as the yaml package's resolveBlockScalar does. Left out: a `+` (keep) or an
   * indentation indicator, a comment after the header, no content, blank lines before the first
   * line or with more spaces than its indentation, and a line indented less than the first.
   */
  private blockScalar(p: number, indent: number, at: Slot, key: Range | undefined): Parsed {
    const { text } = this;
    const literal = text.charCodeAt(p) === PIPE;
    let h = p + 1;
    const strip = text.charCodeAt(h) === DASH;
    if (strip) h++;
    if (this.skipSpaces(h) < this.n && text.charCodeAt(this.skipSpaces(h)) !== NEWLINE) throw new Outside();
    /** The content lines as [indentation, content], blank ones as [spaces, ""]. */
    const lines: [number, string][] = [];
    let trim = -1;
    let last = -1;
    let lastEnd = this.lineEnd(p);
    let line = lastEnd;
    while (line < this.n) {
      const end = this.lineEnd(line);
      const first = this.skipSpaces(line);
      const lineIndent = first - line;
      const blank = first >= this.n || text.charCodeAt(first) === NEWLINE;
      if (blank) {
        if (trim < 0 || lineIndent > trim) throw new Outside();
        lines.push([lineIndent, ""]);
      } else {
        if (lineIndent <= indent) break;
        if (trim < 0) trim = lineIndent;
        else if (lineIndent < trim) throw new Outside();
        lines.push([lineIndent, text.slice(first, end - (text.charCodeAt(end - 1) === NEWLINE ? 1 : 0))]);
        last = lines.length;
        lastEnd = end;
      }
      line = end;
    }
    if (last < 0) throw new Outside();
    let value = "";
    let sep = "";
    let moreIndented = false;
    for (const [lineIndent, content] of lines.slice(0, last)) {
      const extra = " ".repeat(Math.max(0, lineIndent - trim));
      if (literal) {
        value += sep + extra + content;
        sep = "\n";
      } else if (lineIndent > trim) {
        if (sep === " ") sep = "\n";
        else if (!moreIndented && sep === "\n") sep = "\n\n";
        value += sep + extra + content;
        sep = "\n";
        moreIndented = true;
      } else if (content === "") {
        if (sep === "\n") value += "\n";
        else sep = "\n";
      } else {
        value += sep + content;
        sep = " ";
        moreIndented = false;
      }
    }
    if (!strip) value += "\n";
    this.place(at, p, lastEnd, key);
    const next = this.contentLine(lastEnd, false);
    return { value, next, end: lastEnd };
  }

  /** A key at `p` followed by `:` and a space or the line's end, or undefined when the line holds none. */
  private key(p: number): { name: string; range: Range; after: number } | undefined {
    const { text } = this;
    const c = text.charCodeAt(p);
    let name: string;
    let end: number;
    if (c === DOUBLE || c === SINGLE) {
      const quoted = this.quoted(p);
      name = quoted.value;
      end = quoted.end;
      const colon = this.skipSpaces(end);
      if (text.charCodeAt(colon) !== COLON || !this.spaceOrEnd(colon + 1)) return undefined;
      if (end - p > MAX_KEY) throw new Outside();
      return { name, range: [p, end], after: colon + 1 };
    }
    if (!this.plainStart(p)) throw new Outside();
    // The first `: ` (or `:` at the line's end) before a comment ends a plain key.
    const stop = this.lineEnd(p);
    for (let i = p; i < stop; i++) {
      const d = text.charCodeAt(i);
      if (d === HASH && text.charCodeAt(i - 1) === SPACE) return undefined;
      if (d === COLON && this.spaceOrEnd(i + 1)) {
        end = this.trimEnd(p, i);
        if (end - p > MAX_KEY) throw new Outside();
        return { name: plainKey(text.slice(p, end)), range: [p, end], after: i + 1 };
      }
    }
    return undefined;
  }

  /**
   * A one-line plain scalar at `p`: up to a comment or the line's end, and in a flow collection
   * (`flow`) up to a flow indicator or a `:` before a space, the line's end or a flow indicator too.
   */
  private plain(p: number, flow: boolean): { value: unknown; source: string; end: number } {
    const { text } = this;
    if (!this.plainStart(p)) throw new Outside();
    let i = p;
    for (; i < this.n; i++) {
      const d = text.charCodeAt(i);
      if (d === NEWLINE || (d === HASH && text.charCodeAt(i - 1) === SPACE)) break;
      if (flow && (FLOW_INDICATORS.has(d) || (d === COLON && (this.spaceOrEnd(i + 1) || FLOW_INDICATORS.has(text.charCodeAt(i + 1)))))) break;
    }
    const end = this.trimEnd(p, i);
    const source = text.slice(p, end);
    // `a: b: c` (a map in a compact value) is an error the yaml package reports.
    if (!flow && (source.includes(": ") || source.endsWith(":"))) throw new Outside();
    return { value: resolvePlain(source), source, end };
  }

  /** A flow sequence or map that opens at `p` and closes on the same line. */
  private flow(p: number, at: Slot, depth: number, key: Range | undefined): { value: unknown; end: number } {
    const { text } = this;
    const isMap = text.charCodeAt(p) === OPEN_BRACE;
    const close = isMap ? CLOSE_BRACE : CLOSE_BRACKET;
    const items: unknown[] = [];
    const map = Object.create(null) as Record<string, unknown>;
    const members = at && new Map<string, PlaceNode>();
    let j = this.skipSpaces(p + 1);
    if (text.charCodeAt(j) === close) j++;
    else {
      for (;;) {
        if (depth + 1 > this.depthLimit) throw new Outside();
        if (isMap) {
          const c = text.charCodeAt(j);
          let name: string;
          let keyEnd: number;
          if (c === DOUBLE || c === SINGLE) {
            const quoted = this.quoted(j);
            name = quoted.value;
            keyEnd = quoted.end;
          } else {
            const plain = this.plain(j, true);
            name = plainKey(plain.source);
            keyEnd = plain.end;
          }
          if (name in map || keyEnd - j > MAX_KEY) throw new Outside();
          const colon = this.skipSpaces(keyEnd);
          if (text.charCodeAt(colon) !== COLON || text.charCodeAt(colon + 1) !== SPACE) throw new Outside();
          const childKey: Range | undefined = members && [j, keyEnd];
          j = this.skipSpaces(colon + 1);
          const value = this.flowItem(j, members && { into: members, name }, depth + 1, childKey);
          map[name] = value.value;
          j = value.end;
        } else {
          const value = this.flowItem(j, members && { into: members, name: String(items.length) }, depth + 1, undefined);
          items.push(value.value);
          j = value.end;
        }
        j = this.skipSpaces(j);
        const d = text.charCodeAt(j);
        if (d === COMMA) {
          j = this.skipSpaces(j + 1);
          // A trailing comma is the yaml package's to read.
          if (text.charCodeAt(j) === close) throw new Outside();
          continue;
        }
        if (d === close) {
          j++;
          break;
        }
        throw new Outside();
      }
    }
    this.place(at, p, j, key, members);
    return { value: isMap ? map : items, end: j };
  }

  /** A value inside a flow collection; an empty one, or a pair in a sequence, is left out. */
  private flowItem(j: number, at: Slot, depth: number, key: Range | undefined): { value: unknown; end: number } {
    const c = this.text.charCodeAt(j);
    if (c === OPEN_BRACKET || c === OPEN_BRACE) return this.flow(j, at, depth, key);
    const scalar = c === DOUBLE || c === SINGLE ? this.quoted(j) : this.plain(j, true);
    if (this.text.charCodeAt(this.skipSpaces(scalar.end)) === COLON) throw new Outside();
    this.place(at, j, scalar.end, key);
    return scalar;
  }

  /** A single- or double-quoted scalar at `p` that closes on its line. */
  private quoted(p: number): { value: string; end: number } {
    const { text } = this;
    const stop = this.lineEnd(p);
    if (text.charCodeAt(p) === SINGLE) {
      let value = "";
      let from = p + 1;
      for (;;) {
        const q = text.indexOf("'", from);
        if (q < 0 || q >= stop) throw new Outside();
        value += text.slice(from, q);
        if (text.charCodeAt(q + 1) !== SINGLE) return { value, end: q + 1 };
        value += "'";
        from = q + 2;
      }
    }
    let value = "";
    let from = p + 1;
    for (let i = from; ; i++) {
      if (i >= stop) throw new Outside();
      const c = text.charCodeAt(i);
      if (c === DOUBLE) return { value: value + text.slice(from, i), end: i + 1 };
      if (c !== BACKSLASH) continue;
      value += text.slice(from, i);
      const e = text[i + 1] ?? "";
      const simple = ESCAPES[e];
      if (simple !== undefined) {
        value += simple;
        i += 1;
      } else {
        const length = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
        const hex = text.slice(i + 2, i + 2 + length);
        if (length === 0 || !/^[0-9a-fA-F]+$/.test(hex) || hex.length !== length) throw new Outside();
        const code = parseInt(hex, 16);
        if (code > 0x10ffff) throw new Outside();
        value += String.fromCodePoint(code);
        i += 1 + length;
      }
      from = i + 1;
    }
  }

  /** Whether a plain scalar may start at `p` (no indicator; `-` only before a character that is not a space). */
  private plainStart(p: number): boolean {
    const c = this.text.charCodeAt(p);
    if (p >= this.n || c === NEWLINE || c === SPACE) return false;
    if (!INDICATORS.has(c)) return true;
    if (c !== DASH || p + 1 >= this.n) return false;
    const d = this.text.charCodeAt(p + 1);
    return d !== SPACE && d !== NEWLINE && !FLOW_INDICATORS.has(d);
  }

  /** Whether a block sequence item (`-` before a space or the line's end) starts at `p`. */
  private isItem(p: number): boolean {
    return this.text.charCodeAt(p) === DASH && this.spaceOrEnd(p + 1);
  }

  private spaceOrEnd(p: number): boolean {
    if (p >= this.n) return true;
    const c = this.text.charCodeAt(p);
    return c === SPACE || c === NEWLINE;
  }

  /** Whether the line ends at `p` (after spaces): its end, or a comment when spaces preceded it. */
  private endsLine(p: number, spaced: boolean): boolean {
    if (p >= this.n) return true;
    const c = this.text.charCodeAt(p);
    return c === NEWLINE || (c === HASH && spaced);
  }

  /**
   * The start of the first line from `p` (a line start) with content, past blank and comment-only
   * lines, or the text's length; it is marked consumed. A `---` or `...` at the margin (another
   * document) is left out, except where `first` allows the document's own start.
   */
  private contentLine(p: number, first: boolean): number {
    const { text } = this;
    this.passedComment = false;
    while (p < this.n) {
      const q = this.skipSpaces(p);
      const c = q < this.n ? text.charCodeAt(q) : NEWLINE;
      if (c === HASH) this.passedComment = true;
      else if (c !== NEWLINE) {
        if (q === p && (text.startsWith("...", p) || (!first && text.startsWith("---", p)))) throw new Outside();
        return p;
      }
      p = this.lineEnd(q);
    }
    return this.n;
  }

  /** The offset after the line break that ends the line holding `p` (the text's length on the last line). */
  private lineEnd(p: number): number {
    const nl = this.text.indexOf("\n", p);
    return nl < 0 ? this.n : nl + 1;
  }

  private lineStart(p: number): number {
    return this.text.lastIndexOf("\n", p - 1) + 1;
  }

  private indentOf(lineStart: number): number {
    return this.skipSpaces(lineStart) - lineStart;
  }

  private skipSpaces(p: number): number {
    while (p < this.n && this.text.charCodeAt(p) === SPACE) p++;
    return p;
  }

  private trimEnd(start: number, end: number): number {
    while (end > start && this.text.charCodeAt(end - 1) === SPACE) end--;
    return end;
  }

  /** Records a node's place (and its members', for a collection) in its slot, when places are recorded. */
  private place(at: Slot, start: number, end: number, key: Range | undefined, members?: Map<string, PlaceNode>): void {
    at?.into.set(at.name, { value: [start, end], key, members });
  }
}

/** The yaml package's double-quote escapes of one character. */
const ESCAPES: Partial<Record<string, string>> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  e: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  N: "\u0085",
  _: "\u00a0",
  L: "\u2028",
  P: "\u2029",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
};

/**
 * The name of a plain key: a string, or digits as written (an HTTP status); any other key (`true`,
 * `~`, `1.5`) is the yaml path's to report.
 */
function plainKey(source: string): string {
  const value = resolvePlain(source);
  if (typeof value === "string") return source;
  if (typeof value === "number" && /^[0-9]+$/.test(source)) return source;
  throw new Outside();
}

const NULL_OR_BOOL_START = tableOf("nNtTfF");

/** A plain scalar as the yaml package's YAML 1.2 core schema reads it (node_modules/yaml/dist/schema/core). */
export function resolvePlain(source: string): unknown {
  // Why: most scalars are words; one that starts with a letter other than those of
  // null, true and false (n, t, f in either case) is none of the forms below.
  const first = source.charCodeAt(0);
  if (((first >= 0x61 && first <= 0x7a) || (first >= 0x41 && first <= 0x5a)) && !NULL_OR_BOOL_START.has(first)) return source;
  if (/^(?:~|[Nn]ull|NULL)?$/.test(source)) return null;
  if (/^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/.test(source)) return source[0] === "t" || source[0] === "T";
  if (/^0o[0-7]+$/.test(source)) return parseInt(source.substring(2), 8);
  if (/^[-+]?[0-9]+$/.test(source)) return parseInt(source, 10);
  if (/^0x[0-9a-fA-F]+$/.test(source)) return parseInt(source.substring(2), 16);
  if (/^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(source)) {
    return source.slice(-3).toLowerCase() === "nan" ? NaN : source[0] === "-" ? -Infinity : Infinity;
  }
  if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/.test(source) || /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/.test(source)) return parseFloat(source);
  return source;
}
