/**
 * The shape of a large code text (plan.ts, shapeHashOf) in three loops over its code units instead
 * of five regular-expression passes. Why: the passes made a new string each over every piece of
 * every generated file (tens of megabytes of code for a large API), the white-space pass one
 * match per run of spaces. The rule is the passes' (test/write/code-shape.test.ts holds
 * this to them on random texts, whole and in pieces): a `|` or `&` after `:=<(,[{`, `=>`, `as`,
 * `satisfies` or `extends` (white space between) and before none of `|&=` goes; white space goes;
 * a backslash before a quote goes and every quote becomes `"`; `;`, `(`, `)` and a comma before a
 * closer (past `;`s) go; the quotes of a `"key":` whose key is an identifier go.
 */
import { createHash } from "node:crypto";

/** Whether a UTF-16 code unit is one `\s` matches (ECMAScript's WhiteSpace and LineTerminator). */
const isSpace = (c: number) =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  (c >= 0xa0 &&
    (c === 0xa0 ||
      c === 0x1680 ||
      (c >= 0x2000 && c <= 0x200a) ||
      c === 0x2028 ||
      c === 0x2029 ||
      c === 0x202f ||
      c === 0x205f ||
      c === 0x3000 ||
      c === 0xfeff));

/** `\w`: ASCII letters, digits and `_`. */
const isWord = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;

/** Whether `word` ends at `end` (inclusive) with no `\w` before it (`\bword`). */
const wordEndsAt = (text: string, end: number, word: string) => {
  const start = end - word.length + 1;
  return start >= 0 && text.startsWith(word, start) && (start === 0 || !isWord(text.charCodeAt(start - 1)));
};

/** Whether the `|` or `&` at `at` is the one before a union's or intersection's first member, which goes. */
function leadsMembers(text: string, at: number): boolean {
  const next = text.charCodeAt(at + 1);
  if (next === 124 || next === 38 || next === 61) return false;
  let before = at - 1;
  while (before >= 0 && isSpace(text.charCodeAt(before))) before--;
  if (before < 0) return false;
  const c = text.charCodeAt(before);
  // : = < ( , [ {
  if (c === 58 || c === 61 || c === 60 || c === 40 || c === 44 || c === 91 || c === 123) return true;
  if (c === 62) return before > 0 && text.charCodeAt(before - 1) === 61;
  return c === 115 && (wordEndsAt(text, before, "as") || wordEndsAt(text, before, "satisfies") || wordEndsAt(text, before, "extends"));
}

/**
 * The rule's first three passes, from `text` into `out` (at least `text.length` long): the bar,
 * white space, and quotes (a quote after a backslash left in `out` takes its place). Returns the
 * length written. Why a function per loop: V8 optimizes a long loop while it runs, and a function
 * of three loops was optimized in the first before the others had run once, then thrown out and
 * optimized again at each of them, nearly doubling a cold run's time.
 */
function shapeSpaceAndQuotes(text: string, out: Uint16Array): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 || c === 39 || c === 96) {
      if (length > 0 && out[length - 1] === 92) out[length - 1] = 34;
      else out[length++] = 34;
    } else if (c === 124 || c === 38 ? !leadsMembers(text, i) : !isSpace(c)) out[length++] = c;
  }
  return length;
}

/** The fourth pass, in place over `out`'s first `end` units: `;`, parentheses, a comma before a closer. Returns the length left. */
function dropPunctuation(out: Uint16Array, end: number): number {
  let length = 0;
  for (let i = 0; i < end; i++) {
    const c = out[i]!;
    if (c === 59 || c === 40 || c === 41) continue;
    if (c === 44) {
      let k = i + 1;
      while (k < end && out[k] === 59) k++;
      const d = k < end ? out[k] : 0;
      if (d === 41 || d === 93 || d === 125 || d === 62) continue;
    }
    out[length++] = c;
  }
  return length;
}

/** The fifth pass, in place over `out`'s first `end` units: `"key":` -> `key:`. Returns the length left. */
function unquoteKeys(out: Uint16Array, end: number): number {
  let length = 0;
  for (let i = 0; i < end; i++) {
    const c = out[i]!;
    if (c === 34 && i + 1 < end) {
      const d = out[i + 1]!;
      if ((d >= 97 && d <= 122) || (d >= 65 && d <= 90) || d === 95 || d === 36) {
        let k = i + 2;
        while (k < end && (isWord(out[k]!) || out[k] === 36)) k++;
        if (k + 1 < end && out[k] === 34 && out[k + 1] === 58) {
          for (let m = i + 1; m < k; m++) out[length++] = out[m]!;
          out[length++] = 58;
          i = k + 1;
          continue;
        }
      }
    }
    out[length++] = c;
  }
  return length;
}

/**
 * Encode `units` as UTF-8 into `bytes` (at least three times as long) as `Hash.update` of the
 * string would: a lone surrogate as U+FFFD.
 */
function utf8Into(units: Uint16Array, length: number, bytes: Uint8Array): number {
  let at = 0;
  for (let i = 0; i < length; i++) {
    const c = units[i]!;
    if (c < 0x80) bytes[at++] = c;
    else if (c < 0x800) {
      bytes[at++] = 0xc0 | (c >> 6);
      bytes[at++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < length && units[i + 1]! >= 0xdc00 && units[i + 1]! <= 0xdfff) {
      const point = 0x10000 + ((c - 0xd800) << 10) + (units[++i]! - 0xdc00);
      bytes[at++] = 0xf0 | (point >> 18);
      bytes[at++] = 0x80 | ((point >> 12) & 0x3f);
      bytes[at++] = 0x80 | ((point >> 6) & 0x3f);
      bytes[at++] = 0x80 | (point & 0x3f);
    } else {
      const unit = c >= 0xd800 && c <= 0xdfff ? 0xfffd : c;
      bytes[at++] = 0xe0 | (unit >> 12);
      bytes[at++] = 0x80 | ((unit >> 6) & 0x3f);
      bytes[at++] = 0x80 | (unit & 0x3f);
    }
  }
  return at;
}

/** How long a piece of a text shaped at once is (codeShapeHash), up to the next SHAPE_SAFE_END. */
const SHAPE_PIECE = 256 * 1024;

/**
 * A character the shape rule neither matches nor looks at from beside it (none of `\w$`, white
 * space, the punctuation the rule names, quotes, backslash) and no half of a surrogate pair (a
 * pair may not be parted): `.`, `/`, `-`, `#` ... A piece may end after one.
 */
const SHAPE_SAFE_END = /[^\w$\s:=<>()[\]{},|&;"'`\\\ud800-\udfff]/g;

/** Where the piece of `text` from `start` ends: after the first SHAPE_SAFE_END at least `piece` characters on, else at the end. */
function pieceEnd(text: string, start: number, piece: number): number {
  if (start + piece >= text.length) return text.length;
  SHAPE_SAFE_END.lastIndex = start + piece;
  const found = SHAPE_SAFE_END.exec(text);
  return found ? found.index + 1 : text.length;
}

/**
 * How long a code text is before the scan shapes it rather than the passes. Why both: the scan is a
 * loop over each code unit, three times faster than the passes once V8 has optimized it, but some
 * ten times slower before; a large file (document.gen.ts, api.gen.ts) pays for its optimization
 * many times over, a small one never.
 */
const SCAN_FROM = 128 * 1024;

/** The shape of code by the rule's five passes (the scan above computes the same). */
function codeShape(text: string): string {
  // The backslash before a quote goes and every quote becomes `"` in one pass (`\'` becomes `'`,
  // then `"`); `;`, a comma before a closer (past the `;`s that go) and parentheses go in one.
  // The first pass finds a `|` or `&` and then looks behind it; the white space it leaves before
  // the `|` goes in the next pass.
  return text
    .replace(/[|&](?<=(?:[:=<(,[{]|=>|\bas|\bsatisfies|\bextends)\s*[|&])(?![|&=])/g, "")
    .replace(/\s+/g, "")
    .replace(/\\["'`]|['`]/g, '"')
    .replace(/[;()]|,(?=;*[)\]}>])/g, "")
    .replace(/"([A-Za-z_$][\w$]*)":/g, "$1:");
}

/**
 * The shape hash of a code text, shaped a piece at a time, each piece ending where `pieceEnd`
 * ends one (after a character the rule neither matches nor looks at), so the pieces' shapes are
 * the whole's and no large file is copied or scanned whole. A text of `scanFrom` units or more is
 * scanned (into scratch space grown to the longest piece), a shorter one goes through the passes.
 */
export function codeShapeHash(text: string, piece = SHAPE_PIECE, scanFrom = SCAN_FROM): string {
  const hash = createHash("sha256");
  let units = new Uint16Array(0);
  let bytes = new Uint8Array(0);
  for (let start = 0, end = 0; start < text.length; start = end) {
    end = pieceEnd(text, start, piece);
    const part = text.slice(start, end);
    if (text.length < scanFrom) {
      hash.update(codeShape(part));
      continue;
    }
    if (units.length < part.length) {
      units = new Uint16Array(part.length);
      bytes = new Uint8Array(part.length * 3);
    }
    const length = unquoteKeys(units, dropPunctuation(units, shapeSpaceAndQuotes(part, units)));
    hash.update(bytes.subarray(0, utf8Into(units, length, bytes)));
  }
  return `shape1-${hash.digest("hex")}`;
}
