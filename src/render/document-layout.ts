import { stringLiteral } from "../model/escape.js";
import { YamlUnsupported, yamlOfData } from "#runtime/yaml.gen.js";
import { PRINT_WIDTH, laidOut, printDoc, stringPropertyDoc, widthOf } from "./layout.js";

/** What document.gen.ts holds of the served document, as the template takes it. */
export interface ServedDocument {
  /** The members of document.gen.ts's `document` (one per line), as prettier prints them, or as written where that is not sure. */
  readonly members: string;
  /** Whether `members` is prettier's layout (else the file is left to prettier). */
  readonly sure: boolean;
  /** The string literals `members` holds as written, for prettier to be spared from measuring (none when `sure`). */
  readonly literals: readonly string[];
}

/**
 * What document.gen.ts holds of the served document: the path of its first server URL, its JSON
 * text, and openapi.yaml's text (`yaml`) only where the generated server's writer
 * (runtime/yaml.gen.ts) would not make exactly it from the JSON at its first request.
 * Why (issue 16 item 7): a 5 MB document was held twice, as both texts, in the generated file and
 * in codegen's memory while writing it (20 MB of literals for GitHub Enterprise's document).
 * `servedAsIs`: openapi.yaml was written by the server's writer's rules throughout (src/write/yaml.ts,
 * yamlOfDocument), so the server makes it by construction; else that is checked on `data`.
 */
export function servedDocument(basePath: string, data: unknown, json: string, yaml: string, servedAsIs: boolean): ServedDocument {
  const entries: [string, string][] = [
    ["basePath", basePath],
    ["json", json],
  ];
  if (!servedAsIs && !servesYaml(data, yaml)) entries.push(["yaml", yaml]);
  return documentMembers(entries);
}

/**
 * Whether the server's YAML writer makes exactly `yaml` from the JSON text of `data` (yamlOfData
 * refuses what that text would not keep, so the data is checked, not a copy parsed from the text).
 */
function servesYaml(data: unknown, yaml: string): boolean {
  try {
    return yamlOfData(data) === yaml;
  } catch (error) {
    if (error instanceof YamlUnsupported) return false;
    throw error;
  }
}

/**
 * The members of document.gen.ts's `document` (its object is broken: one member per line), each
 * `key: "text",` as prettier prints it, and whether that layout is sure (else the file is left to
 * prettier, with the literals as escape.ts writes them).
 * Why not printDoc for the long texts (issue 14): prettier never moves a string after a key
 * narrower than tabWidth + 3 to a line of its own (stringPropertyDoc's "never" layout), so such a
 * member is one line, and its only question is prettier's choice of quotes; the literal is made
 * once, in pieces (literalPieces), and the members joined once, where escaping, re-quoting and
 * laying out the 25 MB of 1000 resources made some 200 MB of garbage.
 */
export function documentMembers(entries: readonly (readonly [string, string])[], piece = LITERAL_PIECE): ServedDocument {
  const { text, sure } = laidOut(
    () => {
      const parts: string[] = [];
      entries.forEach(([key, value], i) => {
        if (i > 0) parts.push("\n");
        if (!/^[a-z]{1,4}$/.test(key)) {
          parts.push(`  ${printDoc([stringPropertyDoc(key, stringLiteral(value)), ","], { indentation: 2 })}`);
          return;
        }
        const line = [`  ${key}: `, ...literalPieces(value, piece), ","];
        measure(line);
        parts.push(...line);
      });
      return parts.join("");
    },
    () => entries.map(([key, value]) => `  ${key}: ${stringLiteral(value)},`).join("\n"),
  );
  return { members: text, sure, literals: sure ? [] : entries.filter(([key]) => key !== "basePath").map(([, value]) => stringLiteral(value)) };
}

/**
 * What printDoc measures of a line it prints (Unsure at a character of unknown width before the
 * line's end and one column past it), reading only as many of its parts as that takes.
 */
function measure(line: readonly string[]): void {
  let read = "";
  for (const part of line) {
    read += part;
    if (widthOf(read, PRINT_WIDTH + 1) > PRINT_WIDTH + 1) return;
  }
}

/** How many characters of a text literalPieces escapes at once. */
export const LITERAL_PIECE = 1 << 16;

/**
 * A text as prettier writes its string literal (layout.ts printedString of escape.ts's
 * stringLiteral): JSON's escaping and the two line separators, in the quotes that need fewer
 * escapes (double on a tie).
 */
export function printedLiteral(text: string, piece = LITERAL_PIECE): string {
  return literalPieces(text, piece).join("");
}

/**
 * printedLiteral's text in pieces, each made of `piece` characters of the text (never parting the
 * two halves of a surrogate pair, which escape.ts would escape apart), so that no copy of the
 * whole is made but the one the caller joins.
 */
function literalPieces(text: string, piece: number): string[] {
  // Why counted up to one past the other (issue 14): a JSON text holds millions of `"` and a few `'`.
  const apostrophes = count(text, "'");
  const single = count(text, '"', apostrophes + 1) > apostrophes;
  const quote = single ? "'" : '"';
  const parts = [quote];
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + piece, text.length);
    if (isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end))) end++;
    const chunk = text.slice(start, end);
    if (single && !JSON_ESCAPED.test(chunk)) parts.push(singleQuotedBody(chunk));
    else {
      const escaped = stringLiteral(chunk).slice(1, -1);
      // In JSON's escaping a `'` is never escaped and a `"` always is: in single quotes `\"` loses its
      // backslash, `'` gains one. Why split and join (issue 14): a replace of the million `\"` of
      // 1000 resources took seconds and a hundred megabytes; this, a fifth of either.
      parts.push(single ? escaped.split("'").join("\\'").split('\\"').join('"') : escaped);
    }
    start = end;
  }
  parts.push(quote);
  return parts;
}

/** What JSON's escaping writes apart besides `\\`, `"` and a line break: other control characters and lone surrogates (a pair too, here). */
const JSON_ESCAPED = /[\x00-\x09\x0b-\x1f\ud800-\udfff]/;

/**
 * A text without what JSON_ESCAPED finds, as stringLiteral's escaping in single quotes writes it:
 * `\\`, `'`, a line break and the two line separators escaped, nothing else. Why (issue 14): the
 * JSON text of a document is such a text, and this is half the work of escaping it as JSON would
 * and then swapping the escapes of the quotes (a `"` in every key).
 */
function singleQuotedBody(chunk: string): string {
  let body = chunk;
  for (const [character, escape] of SINGLE_QUOTED_ESCAPES) if (body.includes(character)) body = body.split(character).join(escape);
  return body;
}
/** The backslash first: the escapes after it add backslashes of their own. */
const SINGLE_QUOTED_ESCAPES = [
  ["\\", "\\\\"],
  ["'", "\\'"],
  ["\n", "\\n"],
  ["\u2028", "\\u2028"],
  ["\u2029", "\\u2029"],
] as const;

/** How many times `character` stands in `text`, counted up to `limit`. */
function count(text: string, character: string, limit = Infinity): number {
  let found = 0;
  for (let at = text.indexOf(character); at !== -1 && found < limit; at = text.indexOf(character, at + 1)) found++;
  return found;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
