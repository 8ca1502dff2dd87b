import { parse, stringify } from "yaml";
import { YamlUnsupported, yamlOfData } from "#runtime/yaml.gen.js";

/** The options codegen writes YAML with: no anchors, no folding. */
export const YAML_OPTIONS = { aliasDuplicateObjects: false, lineWidth: 0 } as const;

/** Raised when a value takes a form the fast writer leaves to `yaml` (a very long key, a non-JSON value). */
class Unsupported extends Error {}

// Why two of each: `yaml` writes some texts apart at the start of a line of the top level (a
// `%` there would read as a directive); deeper, every level is laid out alike.
const caches = () => ({ top: new Map<unknown, string>(), nested: new Map<unknown, string>() });
type Caches = ReturnType<typeof caches>;
/**
 * Each scalar's layout, kept for the process's later runs (`--watch`): it depends on nothing but
 * the scalar and its place. Emptied when it grows past `MAX_CACHED` entries.
 */
const keys = caches();
const inMap = caches();
const inSequence = caches();
const MAX_CACHED = 200_000;

/**
 * A string `yaml` writes plain, as it stands, wherever it is (a key or a value, at any depth):
 * words of letters, digits, `_`, `.`, `/` and `-` parted by single spaces, the first a letter, not
 * one of the words YAML reads as null or a boolean, and short enough for a plain key.
 * Why: at 1000 resources most of a document's scalars are such names, and asking `yaml`
 * for each distinct one cost a second. test/emit/yaml-writer.test.ts holds the rule to `yaml` byte for byte.
 */
export function isPlainSafe(text: string): boolean {
  // Why the length first: the reserved words are 4 or 5 letters, and most names are not (a regexp call fewer per scalar).
  return text.length <= 1000 && PLAIN.test(text) && (text.length < 4 || text.length > 5 || !RESERVED.test(text));
}
const PLAIN = /^[A-Za-z][\w./-]*(?: [\w./-]+)*$/;
const RESERVED = /^(?:null|true|false)$/i;

/**
 * JSON data as YAML, byte-identical to `stringify(value, YAML_OPTIONS)` of the `yaml` package
 * wherever that reads back as the data (see `faithfully`).
 * Why: `yaml` builds a node tree of the whole document first, 9 of 13 s of
 * `codegen openapi` at 1000 resources. Here the block structure (maps, sequences, indentation) is
 * written directly and every scalar and key is still laid out by `yaml` itself, once per distinct
 * text; anything else falls back to `yaml` whole.
 */
export function jsonToYaml(value: unknown): string {
  return writeYaml(value, false).text;
}

/**
 * jsonToYaml's text, and whether the generated server's writer (runtime/yaml.gen.ts,
 * yamlOfData) makes exactly it from the data's JSON text, known by construction (`servedAsIs`; false:
 * not known, src/render/document-layout.ts then checks the whole). Why: running the
 * server's writer over the whole document to compare its text was a second writing of it (50 ms
 * at 100 resources). Both writers lay out the block structure alike (maps, sequences, indentation:
 * test/emit/document-yaml.test.ts); so the texts are equal when every scalar and key is: plain names
 * and JSON's numbers are written alike by the rules of both, and each other distinct scalar is
 * asked of the server's writer itself, once, at the indentation it stands at.
 */
export function yamlOfDocument(value: unknown): { readonly text: string; readonly servedAsIs: boolean } {
  return writeYaml(value, true);
}

/** The generated server's writer's YAML of `data` (runtime/yaml.gen.ts, yamlOfData); undefined for data it does not write (YamlUnsupported). */
export function serverYaml(data: unknown): string | undefined {
  try {
    return yamlOfData(data);
  } catch (error) {
    if (error instanceof YamlUnsupported) return undefined;
    throw error;
  }
}

/** The server's writer's text of a scalar after `key: ` in a map whose lines are indented by `indent`; undefined: none. */
function serversScalar(v: unknown, indent: string): string | undefined {
  // Wrapped in maps down to that indentation: the text is the scalar's after the last `a: `.
  let wrapped: unknown = v;
  let prefix = "a: ";
  for (let depth = indent.length / 2; depth > 0; depth--) {
    wrapped = { a: wrapped };
    prefix = `a:\n  ${prefix.replace(/\n/g, "\n  ")}`;
  }
  const text = serverYaml({ a: wrapped });
  if (text === undefined) return undefined;
  if (!text.startsWith(prefix)) throw new Error(`the server's YAML writer wrote ${JSON.stringify(text.slice(0, 40))} for a scalar`);
  return text.slice(prefix.length);
}

/** Whether the server's writer writes a scalar as `text` (what follows `: `) at `indent`; remembered per distinct scalar (and indentation, for one of several lines). */
function serverAgrees(v: string, indent: string, text: string): boolean {
  // Why one line is asked once at the top: the server's writer indents nothing but the lines after a line break.
  const lines = v.includes("\n");
  const cacheKey = lines ? `${indent.length}:${v}` : v;
  let agrees = agreements.get(cacheKey);
  if (agrees === undefined) {
    agrees = serversScalar(v, lines ? indent : "") === text;
    agreements.set(cacheKey, agrees);
  }
  return agrees;
}

/**
 * Whether the server's writer writes each scalar of one line as its text (without its line break),
 * asked of it at once as the items of one sequence. Why: one call per scalar spent as
 * much on the wrapping map's key as on the scalar (12,000 distinct scalars at 1000 resources).
 */
function serverAgreesOnAll(asked: ReadonlyMap<string, string>): boolean {
  if (asked.size === 0) return true;
  const values = [...asked.keys()];
  const lines = serverYaml({ a: values })?.split("\n");
  // "a:", one line per item, and the empty rest after the last line break; else each is asked alone.
  if (lines?.length !== values.length + 2) return values.every((v) => serverAgrees(v, "", asked.get(v)!));
  let all = true;
  values.forEach((v, i) => {
    const agrees = lines[i + 1] === `  - ${asked.get(v)!.slice(0, -1)}`;
    agreements.set(v, agrees);
    all &&= agrees;
  });
  return all;
}

/** Whether the server's writer writes a key as `text`; remembered per distinct key. */
function serverAgreesOnKey(k: string, text: string): boolean {
  let agrees = keyAgreements.get(k);
  if (agrees === undefined) {
    agrees = serverYaml({ [k]: null }) === `${text}: null\n`;
    keyAgreements.set(k, agrees);
  }
  return agrees;
}
/** What serverAgrees and serverAgreesOnKey found, kept like the layouts (`--watch`). */
const agreements = new Map<string, boolean>();
const keyAgreements = new Map<string, boolean>();

function writeYaml(value: unknown, check: boolean): { text: string; servedAsIs: boolean } {
  // Whether every scalar so far is one the server's writer writes alike (see yamlOfDocument).
  let asIs = check;
  /** Distinct scalars of one line not yet asked of the server's writer -> their text. */
  const asked = new Map<string, string>();
  if (agreements.size + keyAgreements.size > MAX_CACHED) {
    agreements.clear();
    keyAgreements.clear();
  }
  if (keys.top.size + keys.nested.size + inMap.top.size + inMap.nested.size + inSequence.top.size + inSequence.nested.size > MAX_CACHED) {
    for (const cache of [keys, inMap, inSequence]) for (const map of [cache.top, cache.nested]) map.clear();
  }

  /**
   * `yaml`'s text of `wrap(v)` at the top level or one level down, without what `wrap` adds
   * before it (`prefix`), its block lines made relative to the line that holds it.
   */
  const laidOut = (v: unknown, cache: Caches, indent: string, prefix: string, wrap: (v: unknown) => unknown): string => {
    const top = indent === "";
    const map = top ? cache.top : cache.nested;
    // -0 is no key of its own in a Map (it is 0 there), and `yaml` writes it apart.
    let text = Object.is(v, -0) ? undefined : map.get(v);
    if (text === undefined) {
      const whole = faithfully(top ? wrap(v) : { a: wrap(v) }, typeof v === "string" && v.includes("\n"));
      const start = top ? prefix : `a:\n  ${prefix}`;
      if (!whole.startsWith(start)) throw new Unsupported();
      text = whole.slice(start.length);
      if (!top) text = text.replace(/\n {2}/g, "\n");
      if (!Object.is(v, -0)) map.set(v, text);
    }
    // Lines after the first are a block scalar's, indented relative to the line that holds it.
    return top || !text.includes("\n", text.indexOf("\n") + 1) ? text : text.replace(/\n(?=[^\n])/g, `\n${indent}`);
  };
  /** A scalar as `yaml` writes it after `k: ` or `- ` on a line indented by `indent`. */
  const scalar = (v: unknown, inSeq: boolean, indent: string): string => {
    if (!(typeof v === "string" || typeof v === "number" || typeof v === "boolean" || v === null)) throw new Unsupported();
    // Plain names (isPlainSafe), null and booleans the server's writer writes alike by its rules; a number unless it is not JSON's.
    if (typeof v === "string" && isPlainSafe(v)) return `${v}\n`;
    if (typeof v === "number" && !(Number.isFinite(v) && !Object.is(v, -0))) asIs = false;
    const line = oneLineScalar(v);
    const text =
      line !== undefined ? `${line}\n` : inSeq ? laidOut(v, inSequence, indent, "- ", (x) => [x]) : laidOut(v, inMap, indent, "k: ", (x) => ({ k: x }));
    // A string of one line without control characters (no document marker either: `line`) the
    // server's writer writes alike by its rules too (runtime/yaml.gen.ts, stringText): the
    // same tests choose plain, single or double quotes, and JSON's double quotes hold no escape both
    // write apart. Why not asked: asking the server's writer for each distinct one (12,000
    // at 1000 resources) was a quarter of the writer's time. test/emit/yaml-writer.test.ts holds the rule.
    if (asIs && typeof v === "string" && !(line !== undefined && !FORCE_DOUBLE.test(v))) {
      // A scalar of one line is asked with the others at the end, all at once (serverAgreesOnAll).
      const known = agreements.get(v);
      if (known === false) asIs = false;
      else if (known === undefined) {
        if (v.includes("\n") || text.indexOf("\n") !== text.length - 1) asIs = serverAgrees(v, indent, text);
        else asked.set(v, text);
      }
    }
    return text;
  };
  const key = (k: string, indent: string): string => {
    if (isPlainSafe(k)) return k;
    const line = oneLineScalar(k);
    // Past 1024 characters `yaml` writes an explicit key (`? `): left to it.
    let text: string;
    if (line !== undefined && line.length <= 1000) text = line;
    else {
      const whole = laidOut(k, keys, indent, "", (x) => ({ [x as string]: null }));
      if (!whole.endsWith(": null\n") || whole.indexOf("\n") !== whole.length - 1) throw new Unsupported();
      text = whole.slice(0, -": null\n".length);
    }
    if (asIs) asIs = serverAgreesOnKey(k, text);
    return text;
  };
  // Why a list of parts joined in batches (S6): strings concatenated level by level made a rope of
  // millions of pieces for a 7 MB document, and most of the writer's time went to collecting it;
  // one list of them all held as many pieces at once (90 MB more at 1000 resources).
  const parts: string[] = [];
  const chunks: string[] = [];
  const flush = (): void => {
    // Why no string of the document among the parts (a plain name's line is made here, ` ${item}\n`):
    // join writes two bytes a character for the whole chunk when any part is a string V8 has since
    // internalized (a value also used as a property key, such as a link's `PATCH`), so the 20 MB
    // openapi.yaml of 1000 resources took 40 MB. Why join, not concat: concat made a rope of a
    // node per part, millions of them, copied again when the chunks were joined (the writer 2x).
    chunks.push(parts.join(""));
    parts.length = 0;
  };
  // Why the texts of a run are remembered: a document repeats its keys and most of its
  // scalars (`$ref`s, types, media types) thousands of times; each line is then two parts made
  // once (its start, its value) instead of five made and tested per line.
  /** Indentation of each depth, and `-` after it. */
  const indents = [""];
  const dashes = ["-"];
  const indentOf = (depth: number): string => (indents[depth] ??= `${indentOf(depth - 1)}  `);
  const dashOf = (depth: number): string => (dashes[depth] ??= `${indentOf(depth)}-`);
  /** Per depth, each key's line start: its indentation, its text and `:`. */
  const starts: Map<string, string>[] = [];
  /** Each key's text and `:` after `- ` (a map's first key in a sequence, never at the top). */
  const inlineStarts = new Map<string, string>();
  const startOf = (k: string, depth: number, inline: boolean): string => {
    const cache = inline ? inlineStarts : (starts[depth] ??= new Map());
    let start = cache.get(k);
    if (start === undefined) {
      // key()'s effect on `asIs` is had at the first; it is the same at the others.
      start = `${inline ? "" : indentOf(depth)}${key(k, indentOf(depth))}:`;
      cache.set(k, start);
    }
    return start;
  };
  /**
   * Each string's text after `k:` or `-` (a space first) where it is the same at every place: one line (oneLineScalar).
   * A plain name is not asked here (block writes it as it stands): at 1000 resources most are distinct, and a copy of each was kept.
   */
  const spaced = new Map<string, string>();
  const scalarAfter = (v: unknown, inSeq: boolean, depth: number): string => {
    if (typeof v !== "string") return ` ${scalar(v, inSeq, indentOf(depth))}`;
    let text = spaced.get(v);
    if (text === undefined) {
      // scalar()'s effect on `asIs` is had at the first; it is the same at the others.
      text = ` ${scalar(v, inSeq, indentOf(depth))}`;
      if (!v.includes("\n") && !DOCUMENT_MARKER.test(v)) spaced.set(v, text);
    }
    return text;
  };
  /** What follows `key:` or `-` at `depth`: a collection starts on the next line after a key (`inSeq` false), on this one after `-`. */
  const after = (v: unknown, depth: number, inSeq: boolean): void => {
    if (Array.isArray(v)) {
      if (v.length === 0) parts.push(" []\n");
      else {
        // Why one level deeper after a key too: `yaml` indents a sequence under its key.
        parts.push(inSeq ? " " : "\n");
        block(v, depth + 1, inSeq);
      }
    } else if (isMap(v)) {
      const ks = Object.keys(v);
      if (ks.length === 0) parts.push(" {}\n");
      else {
        parts.push(inSeq ? " " : "\n");
        block(v, depth + 1, inSeq, ks);
      }
    } else parts.push(scalarAfter(v, inSeq, depth));
  };
  /** A non-empty collection whose lines are indented to `depth`; `inline`: its first line is begun (after `- `). */
  const block = (v: unknown[] | Record<string, unknown>, depth: number, inline: boolean, mapKeys?: string[]): void => {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        if (parts.length > 4096) flush();
        const dash = i === 0 && inline ? "-" : dashOf(depth);
        const item = v[i];
        // A plain name as it stands (isPlainSafe): its text is itself (in a line made here: flush).
        if (typeof item === "string" && isPlainSafe(item)) parts.push(dash, ` ${item}\n`);
        else if (typeof item === "string") parts.push(dash, scalarAfter(item, true, depth));
        else {
          parts.push(dash);
          after(item, depth, true);
        }
      }
    } else {
      let first = inline;
      const known = (starts[depth] ??= new Map());
      // Why indexed: most of a run is before the writer is optimised, where an iterator costs a call per key.
      // Why the values listed at once: a lookup by key per line, of maps of every shape, cost more.
      const ks = mapKeys ?? Object.keys(v);
      const values = Object.values(v);
      for (let i = 0; i < ks.length; i++) {
        const k = ks[i]!;
        if (parts.length > 4096) flush();
        const start = (first ? undefined : known.get(k)) ?? startOf(k, depth, first);
        const item = values[i];
        // The most common line, a string after a key, without a call (a run's code is mostly not yet optimised).
        if (typeof item === "string" && isPlainSafe(item)) parts.push(start, ` ${item}\n`);
        else if (typeof item === "string") parts.push(start, scalarAfter(item, false, depth));
        else {
          parts.push(start);
          after(item, depth, false);
        }
        first = false;
      }
    }
  };
  try {
    // `yaml`'s text of the whole (the fallback): the server's writer is not known to make it.
    if (!isMap(value) || Object.keys(value).length === 0) return { text: faithfully(value, true), servedAsIs: false };
    block(value, 0, false);
    flush();
    return { text: chunks.join(""), servedAsIs: asIs && serverAgreesOnAll(asked) };
  } catch (error) {
    if (error instanceof Unsupported) return { text: faithfully(value, true), servedAsIs: false };
    throw error;
  }
}

/**
 * A scalar that `yaml` writes on one line, as it writes it (the same as a key, a map's value or a
 * sequence's item, at any depth): null, a boolean, a number, or a string without a line break
 * (node_modules/yaml/dist/stringify/stringifyString.js with YAML_OPTIONS: plain when it reads back
 * as that string, else quoted, single quotes for a text with `"` and no `'`), or undefined for the
 * rest, which `yaml` lays out: a line break (block scalars, which `faithfully` checks) and a text
 * with a line that starts like a document marker (`---`, `...`, `%`), laid out apart at the top level.
 * Why (S6): asking `yaml` for each distinct scalar was 80 ms of the 100-resource document.
 * test/emit/yaml-writer.test.ts holds it to `yaml` byte for byte.
 */
export function oneLineScalar(v: unknown): string | undefined {
  if (v === null) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return !Number.isFinite(v) ? (Number.isNaN(v) ? ".nan" : v < 0 ? "-.inf" : ".inf") : Object.is(v, -0) ? "-0" : JSON.stringify(v);
  if (typeof v !== "string" || v.includes("\n") || DOCUMENT_MARKER.test(v)) return undefined;
  if (FORCE_DOUBLE.test(v)) return doubleQuoted(v);
  if (!NOT_PLAIN.test(v) && !READS_AS_OTHER.some((test) => test.test(v))) return v;
  return v.includes('"') && !v.includes("'") ? `'${v}'` : doubleQuoted(v);
}
/** A line that starts like a directive or a document marker (`yaml` tests with `^` of a multi-line pattern, which also follows U+2028, U+2029 and CR). */
const DOCUMENT_MARKER = /(?:^|[\r\u2028\u2029])(?:%|---|\.\.\.)/;
/** Control characters and lone surrogates: `yaml` writes such a text double-quoted. */
const FORCE_DOUBLE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;
/** What may not stand in a plain scalar (`yaml`'s `plainString`, for texts without a line break). */
const NOT_PLAIN = /^[\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|:[ \t]|[\t ]#|[\t :]$/;
/** The core schema's tests: a plain text that matches one reads as null, a boolean or a number. */
const READS_AS_OTHER = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
  /^0o[0-7]+$/,
  /^[-+]?[0-9]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
];
/** `yaml`'s double quotes of a one-line text: JSON's, with YAML's short escapes for some characters. */
function doubleQuoted(v: string): string {
  const json = JSON.stringify(v);
  if (!json.includes("\\u")) return json;
  return json.replace(/\\(?:u(00[0-9a-f]{2})|.)/g, (escape, code?: string) => (code === undefined ? escape : (SHORT_ESCAPES[code] ?? `\\x${code.slice(2)}`)));
}
const SHORT_ESCAPES: Partial<Record<string, string>> = { "0000": "\\0", "0007": "\\a", "000b": "\\v", "001b": "\\e" };

/**
 * `yaml`'s text of a value, as `stringify` writes it when that reads back as the value; else with
 * double-quoted strings instead of block scalars. Why: `yaml` writes a string whose
 * first line is only spaces (`" \n"`) as a block scalar that reads back without them (or not at
 * all): the document served would not be the API's, and the manifest, which hashes the data
 * written (src/write/plan.ts), would not match the file. Checked only where a block scalar can
 * appear (`check`: a string with a line break), so the cost is per such distinct string.
 */
function faithfully(value: unknown, check: boolean): string {
  const text = stringify(value, YAML_OPTIONS);
  if (!check) return text;
  let back: unknown;
  try {
    back = parse(text, { maxAliasCount: -1 });
  } catch {
    back = undefined;
  }
  return JSON.stringify(back) === JSON.stringify(value) ? text : stringify(value, { ...YAML_OPTIONS, blockQuote: false });
}

function isMap(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) throw new Unsupported();
  return true;
}
