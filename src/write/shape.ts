import type { Hash } from "node:crypto";

// The shape of code in one pass (issue 14). The rule (src/write/plan.ts, shapeHashOf) reads as
// eight regexp passes, each over the previous one's result:
//   1. a `|` or `&` after one of `: = < ( , [ { => as satisfies extends` (`as` & co. after a word
//      boundary), white space between, and not before `|`, `&` or `=`, goes;
//   2. white space (`\s`) goes;  3. a backslash before a quote goes;  4. every quote becomes `"`;
//   5. `;` goes;  6. a `,` before `)`, `]`, `}` or `>` goes;  7. `(` and `)` go;
//   8. `"name":` becomes `name:` (name: `[A-Za-z_$][\w$]*`).
// Why a scanner over char codes and not the regexps: each pass copied the text (3.7 MB of code at
// 100 resources), and the eight (five, merged) took 55 ms of a 0.5 s run; one pass writing UTF-8
// straight into a buffer the hash reads makes no string at all. Passes 1, 3 and 6 look ahead or
// behind past characters later passes drop; pass 8 is a small state machine over what 1-7 keep.
// test/shape-and-tidy.test.ts holds it to the eight regexps on texts dense in these characters.

const enum C {
  Tab = 9,
  Cr = 13,
  Space = 32,
  Quote = 34,
  Dollar = 36,
  Amp = 38,
  Apos = 39,
  Open = 40,
  Close = 41,
  Comma = 44,
  Colon = 58,
  Semi = 59,
  Less = 60,
  Equal = 61,
  Greater = 62,
  Bracket = 91,
  Backslash = 92,
  CloseBracket = 93,
  Underscore = 95,
  Backtick = 96,
  Brace = 123,
  Bar = 124,
  CloseBrace = 125,
}

/** Whether a UTF-16 code unit is white space as a regexp's `\s` reads it. */
function isSpace(c: number): boolean {
  if (c <= C.Space) return c === C.Space || (c >= C.Tab && c <= C.Cr);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/** Whether a code unit is a regexp's `\w` (no `u` flag: ASCII letters, digits, `_`). */
function isWord(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === C.Underscore;
}

/** Whether `word` ends `text` at `end` (inclusive) after a word boundary. */
function endsWithWord(text: string, end: number, word: string): boolean {
  const start = end - word.length + 1;
  return start >= 0 && text.startsWith(word, start) && (start === 0 || !isWord(text.charCodeAt(start - 1)));
}

/**
 * Whether the `|` or `&` at `at` goes (pass 1), `before` being the index of the last character
 * before it that is no white space (-1 for none).
 */
function dropsBar(text: string, at: number, before: number): boolean {
  const next = text.charCodeAt(at + 1);
  if (next === C.Bar || next === C.Amp || next === C.Equal || before < 0) return false;
  const c = text.charCodeAt(before);
  switch (c) {
    case C.Colon:
    case C.Equal:
    case C.Less:
    case C.Open:
    case C.Comma:
    case C.Bracket:
    case C.Brace:
      return true;
    case C.Greater:
      return before > 0 && text.charCodeAt(before - 1) === C.Equal;
    case 115: // s: `as`, `extends`
      return endsWithWord(text, before, "as") || endsWithWord(text, before, "extends") || endsWithWord(text, before, "satisfies");
    default:
      return false;
  }
}

/** Index of the next character from `from` that is no white space (text.length for none). */
function skipSpace(text: string, from: number): number {
  let at = from;
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

/**
 * Whether the `,` at `at` goes (pass 6): the next character passes 1-5 keep is `)`, `]`, `}` or
 * `>`. Skipped to find it: white space, `;` and the `|`/`&` pass 1 drops (a `,` is a character
 * pass 1 drops one after). A `\` there is kept or goes before a quote: no closer either way.
 */
function dropsComma(text: string, at: number): boolean {
  let before = at;
  for (let j = skipSpace(text, at + 1); j < text.length; j = skipSpace(text, j + 1)) {
    const c = text.charCodeAt(j);
    if (c === C.Close || c === C.CloseBracket || c === C.CloseBrace || c === C.Greater) return true;
    if (c !== C.Semi && !((c === C.Bar || c === C.Amp) && dropsBar(text, j, before))) return false;
    before = j;
  }
  return false;
}

/** Whether a byte may start (`[A-Za-z_$]`) a key pass 8 unquotes. */
const isKeyStart = (b: number) => (b >= 97 && b <= 122) || (b >= 65 && b <= 90) || b === C.Underscore || b === C.Dollar;

/**
 * Feeds the shape of `text` (the eight passes' result, as UTF-8) to `hash`, through a buffer of
 * `size` bytes (grown only while a quoted key pass 8 may unquote is longer than it).
 */
export function hashCodeShape(hash: Hash, text: string, size: number): void {
  let out = new Uint8Array(Math.max(size, 4));
  let n = 0;
  // Pass 8: 0 nothing pending; 1 a `"` written at `quote`; 2 then a key; 3 then the closing `"`.
  let state = 0;
  let quote = 0;
  let high = 0; // a high surrogate kept, not yet written (0 for none)
  let before = -1; // last character that is no white space (pass 1 looks behind to it)
  const length = text.length;

  /** Room for 8 more bytes: what no pending key needs goes to the hash. */
  const room = () => {
    const keep = state === 0 ? n : quote;
    if (keep > 0) {
      hash.update(out.subarray(0, keep));
      out.copyWithin(0, keep, n);
      n -= keep;
      quote -= keep;
    }
    if (n + 8 > out.length) {
      const grown = new Uint8Array(out.length * 2);
      grown.set(out.subarray(0, n));
      out = grown;
    }
  };

  for (let i = 0; i < length; i++) {
    let c = text.charCodeAt(i);
    if (isSpace(c)) continue;
    const at = i;
    switch (c) {
      case C.Bar:
      case C.Amp:
        if (dropsBar(text, i, before)) {
          before = i;
          continue;
        }
        break;
      case C.Semi:
      case C.Open:
      case C.Close:
        before = i;
        continue;
      case C.Comma:
        before = i;
        if (dropsComma(text, i)) continue;
        break;
      case C.Backslash: {
        before = i;
        const next = text.charCodeAt(skipSpace(text, i + 1));
        if (next === C.Quote || next === C.Apos || next === C.Backtick) continue;
        break;
      }
      case C.Apos:
      case C.Backtick:
        c = C.Quote;
        break;
    }
    before = at;
    if (n + 8 > out.length) room();
    if (high !== 0 && (c < 0xd800 || c > 0xdfff)) {
      n = replacement(out, n);
      high = 0;
    }
    // Pass 8 over what passes 1-7 keep.
    if (state === 3) {
      if (c === C.Colon) {
        out.copyWithin(quote, quote + 1, n - 1);
        n -= 2;
        out[n++] = C.Colon;
        state = 0;
        continue;
      }
      quote = n - 1;
      state = 1;
    }
    if (c === C.Quote) {
      if (state !== 2) {
        state = 1;
        quote = n;
      } else state = 3;
    } else if (state === 1) state = isKeyStart(c) ? 2 : 0;
    else if (state === 2 && !(isWord(c) || c === C.Dollar)) state = 0;
    if (c < 0x80) {
      out[n++] = c;
    } else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 63);
    } else if (c >= 0xd800 && c <= 0xdfff) {
      // A high half waits for the next character kept: a low half makes a pair with it even with
      // white space or a `;` between them in the text (passes 2 and 5 join them).
      if (high !== 0 && c >= 0xdc00) {
        const point = 0x10000 + ((high - 0xd800) << 10) + (c - 0xdc00);
        out[n++] = 0xf0 | (point >> 18);
        out[n++] = 0x80 | ((point >> 12) & 63);
        out[n++] = 0x80 | ((point >> 6) & 63);
        out[n++] = 0x80 | (point & 63);
        high = 0;
        continue;
      }
      if (high !== 0) n = replacement(out, n);
      if (c <= 0xdbff) high = c;
      else n = replacement(out, n);
      continue;
    } else {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 63);
      out[n++] = 0x80 | (c & 63);
    }
  }
  if (high !== 0) n = replacement(out, n);
  if (n > 0) hash.update(out.subarray(0, n));
}

/** Writes U+FFFD (what a lone surrogate becomes in UTF-8) at `n`; returns the new length. */
function replacement(out: Uint8Array, n: number): number {
  out[n] = 0xef;
  out[n + 1] = 0xbf;
  out[n + 2] = 0xbd;
  return n + 3;
}
