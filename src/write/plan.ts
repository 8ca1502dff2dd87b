import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type { GeneratedFile } from "../render/render.js";

/** The manifest's file name inside the output folder. */
export const MANIFEST = ".codegen-manifest.json";

/** The files the generator wrote into a folder, each with the hash of what it wrote. */
export interface Manifest {
  /** Path inside the folder -> hash; a map, so a path such as `constructor` is no inherited key. */
  readonly files: ReadonlyMap<string, string>;
  /** The hash of everything the files were generated from (src/run.ts, generationKey). */
  readonly input?: string;
  /** Path -> formatting key of the text the file was formatted from (src/format/format.ts, formatKey). */
  readonly rendered: ReadonlyMap<string, string>;
  /** Path -> `hashOf` the very bytes written (absent in manifests of codegen before issue 14's). */
  readonly bytes: ReadonlyMap<string, string>;
}

/** Longest path, and longest part of a path, codegen writes or trusts a manifest with. */
const MAX_PATH = 1024;
const MAX_PART = 255;

/**
 * The one rule for a path inside the output folder, obeyed by every file codegen generates and by
 * every path a manifest names (a manifest is input: anyone could have written it): relative,
 * `/`-separated parts, none empty, `.` or `..`, and no backslash, colon, NUL or control character
 * (a Windows drive, a second separator, a truncated C string). Such a path cannot leave the folder.
 */
export function isFolderPath(candidate: string): boolean {
  if (candidate.length === 0 || candidate.length > MAX_PATH) return false;
  return candidate
    .split("/")
    .every((part) => part.length > 0 && part.length <= MAX_PART && part !== "." && part !== ".." && !/[\\:\u0000-\u001f\u007f]/.test(part));
}

/** `sha256-<hex>` of a file's text. */
export function hashOf(contents: string): string {
  return `sha256-${createHash("sha256").update(contents).digest("hex")}`;
}

/**
 * The hash of what a file says, whatever formatter ran over it (issue 13: the user's own prettier
 * over the generated folder must not make it "edited by hand"). YAML and JSON: the data. Code:
 * the text without what formatters choose, whatever their options: whitespace, semicolons,
 * trailing commas, the quote character (and escapes of quotes), parentheses (prettier adds and
 * drops them with the line width and `arrowParens`), quotes around a key that needs none, the `|`
 * or `&` before a union's first member. An edit of only these is taken for formatting. An edit of anything else changes it.
 * Why so coarse a normal form and not a formatter: formatting back with codegen's options does
 * not undo everything (prettier keeps an object broken over lines once it is), and what it
 * cannot tell apart (whitespace inside a string, a semicolon) is no edit worth keeping.
 */
export function shapeHashOf(path: string, text: string, piece = SHAPE_PIECE): string {
  const data = dataShapeOf(path, text);
  if (data !== undefined) return shapeHash(data);
  return codeHashes(text, piece).shape;
}

/**
 * A code text's shape hash (shapeHashOf) and its hashOf, from its UTF-8 bytes made and scanned a
 * piece at a time (codeShapeBytes), or, for a text the scan declines, its shape by the passes.
 * Why in pieces (issue 14): each file's bytes, and the scan's copy of them, made at once were
 * 2 x 29 MB outside the heap at 1000 resources, some 12 MB more at the run's peak; a piece ends
 * after a character no pass matches or looks at (SHAPE_SAFE_END), so the pieces' shapes are the
 * whole's, and their bytes the whole's (no piece parts a surrogate pair).
 */
function codeHashes(text: string, piece = SHAPE_PIECE): { readonly shape: string; readonly bytes: string } {
  const shape = createHash("sha256");
  const bytes = createHash("sha256");
  try {
    for (let start = 0; start < text.length;) {
      const end = pieceEnd(text, start, piece);
      const encoded = utf8Of(text.slice(start, end));
      bytes.update(encoded);
      const scanned = codeShapeBytes(encoded, scratchOut);
      if (scanned === undefined) return { shape: passesShapeHash(text, piece), bytes: hashOf(text) };
      shape.update(scanned);
      start = end;
    }
  } finally {
    // A long --watch session does not keep a large file's scratch.
    if (scratchIn.length > SCRATCH_KEPT) scratchIn = scratchOut = Buffer.allocUnsafeSlow(0);
  }
  return { shape: `shape1-${shape.digest("hex")}`, bytes: `sha256-${bytes.digest("hex")}` };
}

/** Where the piece of `text` from `start` ends: after the first SHAPE_SAFE_END at least `piece` characters on, else at the end. */
function pieceEnd(text: string, start: number, piece: number): number {
  if (start + piece >= text.length) return text.length;
  SHAPE_SAFE_END.lastIndex = start + piece;
  const found = SHAPE_SAFE_END.exec(text);
  return found ? found.index + 1 : text.length;
}

/** The buffers a piece is encoded into and scanned out of, grown as a piece needs (one pair for the run). */
let scratchIn = Buffer.allocUnsafeSlow(0);
let scratchOut = scratchIn;
/** The largest scratch kept between files (bytes). */
const SCRATCH_KEPT = 4 * 1024 * 1024;

/** A text's UTF-8 bytes, in scratchIn (valid until the next call). */
function utf8Of(text: string): Buffer {
  const length = Buffer.byteLength(text, "utf8");
  if (scratchIn.length < length) {
    scratchIn = Buffer.allocUnsafeSlow(length);
    scratchOut = Buffer.allocUnsafeSlow(length);
  }
  scratchIn.write(text, 0, length, "utf8");
  return scratchIn.subarray(0, length);
}

/** shapeHashOf a code text by the passes (codeShape), in pieces: what the scan declines. */
function passesShapeHash(text: string, piece: number): string {
  const hash = createHash("sha256");
  for (let start = 0; start < text.length;) {
    const end = pieceEnd(text, start, piece);
    hash.update(codeShape(text.slice(start, end)));
    start = end;
  }
  return `shape1-${hash.digest("hex")}`;
}

const shapeHash = (shape: string) => `shape1-${hashOf(shape).slice("sha256-".length)}`;

/** How long a piece of a text codeShape rewrites at once is (shapeHashOf), up to the next SHAPE_SAFE_END. */
export const SHAPE_PIECE = 256 * 1024;

/**
 * A character no pass of codeShape matches or looks at from beside it (none of `\w$`, white space,
 * the punctuation the passes name, quotes, backslash) and no half of a surrogate pair (a piece is
 * hashed as UTF-8 on its own): `.`, `/`, `-`, `#` ... A piece may end after one.
 */
const SHAPE_SAFE_END = /[^\w$\s:=<>()[\]{},|&;"'`\\\ud800-\udfff]/g;

/**
 * A generated file; a YAML or JSON one may carry the JSON data its text was written from
 * (`jsonToYaml(data)` or `JSON.stringify(data)`), whose shape is then that data's.
 */
export interface DataFile extends GeneratedFile {
  readonly data?: unknown;
  /** Or that data's shape hash, made where its JSON text was at hand (`shapeOfJson`). */
  readonly dataShape?: string;
}

/**
 * The shape hash of a YAML or JSON file written from data whose `JSON.stringify` text is `json`.
 * Why (issue 14): openapi.yaml's data is stringified for document.gen.ts anyway; stringifying it
 * again for the manifest was ~50 ms at 1000 resources.
 */
export function shapeOfJson(json: string): string {
  return shapeHash(json);
}

/** Each generated file's shape hash, computed once (the manifest's text is built more than once a run). */
const generatedShapes = new WeakMap<GeneratedFile, string>();

/** Each generated file's `hashOf`, computed once (as generatedShapes). */
const generatedBytes = new WeakMap<GeneratedFile, string>();

/**
 * `shapeHashOf` a generated file. Why from its data when it has some (issue 14): parsing our own
 * 16 MB openapi.yaml back with `yaml` was 6 of 16 s at 1000 resources. Reading back what
 * `jsonToYaml` or `JSON.stringify` wrote gives the same data, so the hash is the same
 * (test/write-shape.test.ts proves it on every fixture and on random data).
 */
export function shapeHashOfFile(file: DataFile): string {
  let hash = generatedShapes.get(file);
  if (hash === undefined) {
    const isData = /\.(ya?ml|json)$/.test(file.path);
    if (isData && file.dataShape !== undefined) hash = file.dataShape;
    else if (isData && file.data !== undefined) hash = shapeHash(JSON.stringify(file.data));
    else {
      const data = dataShapeOf(file.path, file.contents);
      if (data !== undefined) hash = shapeHash(data);
      else {
        // The bytes a code file's shape is scanned in are those its bytes hash is of: encoded once.
        const hashes = codeHashes(file.contents);
        hash = hashes.shape;
        if (!generatedBytes.has(file)) generatedBytes.set(file, hashes.bytes);
      }
    }
    generatedShapes.set(file, hash);
  }
  return hash;
}

/**
 * The YAML parser, loaded at first use. Why not imported: a run that finds its folder current
 * (src/fresh.ts) reads the manifest through this module and compares hashes of bytes; only a
 * file that is not as written needs its shape, and `yaml` is some 70 modules to load.
 */
const yaml = () => createRequire(import.meta.url)("yaml") as typeof import("yaml");

/** The shape of a YAML or JSON file: its data as JSON text (undefined for another file, or one that does not parse). */
function dataShapeOf(path: string, text: string): string | undefined {
  if (!/\.(ya?ml|json)$/.test(path)) return undefined;
  try {
    return JSON.stringify(yaml().parse(text, { maxAliasCount: -1 }));
  } catch {
    // Not parseable: compared as text (codeShape).
    return undefined;
  }
}

/** The shape of code (or of a YAML or JSON text that does not parse): see shapeHashOf. */
export function codeShape(text: string): string {
  // Why five passes where the rule reads eight (issue 14: each pass over document.gen.ts's megabytes
  // is a copy of them): the backslash before a quote goes and every quote becomes `"` in one
  // (`\'` becomes `'`, then `"`); `;`, a comma before a closer (past the `;`s that go) and
  // parentheses go in one. test/write-shape.test.ts holds it to the eight passes.
  // The first pass finds a `|` or `&` and then looks behind it: a V8 regexp that starts with the
  // alternation tried it at every character (a fifth of the time); the white space it leaves
  // before the `|` goes in the next pass.
  return text
    .replace(/[|&](?<=(?:[:=<(,[{]|=>|\bas|\bsatisfies|\bextends)\s*[|&])(?![|&=])/g, "")
    .replace(/\s+/g, "")
    .replace(/\\["'`]|['`]/g, '"')
    .replace(/[;()]|,(?=;*[)\]}>])/g, "")
    .replace(/"([A-Za-z_$][\w$]*)":/g, "$1:");
}

/**
 * codeShape of a text's UTF-8 bytes, as UTF-8 bytes, in one scan; undefined for a text with
 * U+FFFD (which may stand for a lone surrogate: removing the space between two could pair them in
 * the text, not in its bytes), left to codeShape.
 * Why bytes (issue 14): the passes' copies of 29 MB of code at 1000 resources were ~300 ms of a
 * run, the white space pass most of it (a match per indentation). The loop stacks the passes as
 * they run in order: the first decides each `|` or `&` by looking back at the bytes read; white
 * space is skipped; a `\` waits for the next byte (a quote after it makes both one `"`); a `,`
 * waits for the next byte the fourth pass keeps or for a closer; at each `:` written, the quotes
 * of a name just before it go. A byte none of that is about (most of them) is copied at once.
 * test/shape-and-tidy.test.ts holds it to the eight passes of the rule as first written.
 */
export function codeShapeBytes(bytes: Uint8Array, out: Buffer = Buffer.allocUnsafeSlow(bytes.length)): Uint8Array | undefined {
  if (!primed) {
    primed = true;
    // Why a dozen times: V8 records no feedback for a function's first few calls.
    for (let i = 0; i < 12; i++) {
      for (const text of PRIMERS) {
        const primer = Buffer.from(text, "utf8");
        scanShape(primer, Buffer.allocUnsafeSlow(primer.length));
      }
    }
  }
  return scanShape(bytes, out);
}

/**
 * Texts that take every branch of the scan's loop, run through it before the first file.
 * Why (issue 14): V8 compiles a hot loop with what the interpreter has seen of each branch, and
 * leaves the compiled code at the first branch it had not seen (a `\` before a quote, a `,`
 * before a closer, a byte beyond ASCII); at 1000 resources the scan left it a dozen times, and
 * ran interpreted in between.
 */
const PRIMERS = [
  'a |b : |c, &d => |e as |f satisfies |g extends |h x||y x|=1 ( "k": \'v\' `t` \\" \\\' \\\\ \\x ,) ,;] ,} ,> ,( ,, ,\\" ,\\\\ ,a ; \u00e9\u00a9\u1100\u2014\u20ac\u3042\uff71 "1": "a"b" "$_9":x "":, :a: \\',
  "a: \u00a0| b:\u3000\u2028& c =\ufeff|\u2000x\u205f\u1680\u202f \u00a0\u00a9",
  "a,",
];
let primed = false;

/** What the scan does with an ASCII byte when nothing waits: 0 copy it, 1 skip it (white space), 2 look at it; and the lead bytes of wide spaces and U+FFFD: 2. */
const BYTE_CLASS = (() => {
  const classes = new Uint8Array(256);
  for (const c of [9, 10, 11, 12, 13, 32]) classes[c] = 1;
  for (const c of "|&\\'`;(),:") classes[c.charCodeAt(0)] = 2;
  for (const c of [0xc2, 0xe1, 0xe2, 0xe3, 0xef]) classes[c] = 2;
  return classes;
})();

/**
 * codeShapeBytes without its priming; `out` holds at least as many bytes as `bytes`. Why `out`
 * never from the pool, whatever its size: one path for V8 to compile (the pool's was a
 * deoptimization at the first large file).
 */
function scanShape(bytes: Uint8Array, out: Buffer): Uint8Array | undefined {
  const n = bytes.length;
  let w = 0;
  /** A backslash read, not yet written (the third pass: a quote after it makes both one `"`). */
  let backslash = false;
  /** A `,` read, not yet written (the fourth pass: gone if `;`s and a closer follow). */
  let comma = false;
  /** backslash || comma. */
  let waiting = false;
  for (let r = 0; r < n; r++) {
    let c = bytes[r]!;
    const kind = BYTE_CLASS[c]!;
    if (kind === 0) {
      if (!waiting) {
        out[w++] = c;
        continue;
      }
      // Only a comma waits (most often before a `"`): kept unless this is a closer.
      if (!backslash) {
        comma = waiting = false;
        if (c !== 93 && c !== 125 && c !== 62) out[w++] = 44;
        out[w++] = c;
        continue;
      }
    } else if (kind === 1) continue;
    else if (c === 58 && !waiting) {
      w = withoutKeyQuotes(out, w) + 1;
      continue;
    }
    if (c >= 0x80) {
      if (kind === 2) {
        const wide = wideCharAt(bytes, r);
        if (wide === REPLACEMENT) return undefined;
        if (wide > 0) {
          r += wide - 1;
          continue;
        }
      }
    } else if ((c === 124 || c === 38) && dropsUnionMark(bytes, r)) continue;
    if (backslash) {
      backslash = false;
      if (c === 34 || c === 39 || c === 96) c = 34;
      else {
        if (comma) {
          out[w++] = 44;
          comma = false;
        }
        out[w++] = 92;
        if (c === 92) {
          backslash = waiting = true;
          continue;
        }
      }
    } else if (c === 92) {
      backslash = waiting = true;
      continue;
    } else if (c === 39 || c === 96) c = 34;
    waiting = false;
    if (c === 59) {
      waiting = comma;
      continue;
    }
    if (comma) {
      comma = false;
      if (!(c === 41 || c === 93 || c === 125 || c === 62)) out[w++] = 44;
    }
    if (c === 40 || c === 41) continue;
    if (c === 44) comma = waiting = true;
    else if (c === 58) w = withoutKeyQuotes(out, w) + 1;
    else out[w++] = c;
  }
  if (backslash) {
    if (comma) out[w++] = 44;
    comma = false;
    out[w++] = 92;
  }
  if (comma) out[w++] = 44;
  return out.subarray(0, w);
}

/**
 * The fifth pass at a `:` about to be written at `w`: `"key"` before it, where the key is a name,
 * loses its quotes. Writes the `:` and answers where it stands. Why looking back is the pass:
 * a name holds no quote, so no two `"name":` overlap, and the pass takes each one.
 */
function withoutKeyQuotes(out: Uint8Array, w: number): number {
  if (w >= 3 && out[w - 1] === 34) {
    let j = w - 2;
    while (j >= 0 && NAME_BYTE[out[j]!] !== 0) j--;
    if (j >= 0 && j < w - 2 && out[j] === 34 && NAME_BYTE[out[j + 1]!] === 1) {
      // A loop, not copyWithin: a name is a few bytes, and a call per key cost more than their copy.
      for (let k = j + 1; k < w - 1; k++) out[k - 1] = out[k]!;
      w -= 2;
    }
  }
  out[w] = 58;
  return w;
}

/** Per byte: 1 `[A-Za-z_$]`, 2 a digit, 0 another. */
const NAME_BYTE = (() => {
  const classes = new Uint8Array(256);
  for (let c = 0; c < 128; c++) if (/[A-Za-z_$]/.test(String.fromCharCode(c))) classes[c] = 1;
  for (let c = 48; c <= 57; c++) classes[c] = 2;
  return classes;
})();

/** `[A-Za-z_$]` as a byte. */
const isNameStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36;

/** wideCharAt's answer for U+FFFD. */
const REPLACEMENT = -1;

/**
 * At the start of a character beyond ASCII: the length of its bytes if it is white space `\s`
 * knows (U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF), REPLACEMENT
 * for U+FFFD, else 0.
 */
function wideCharAt(bytes: Uint8Array, r: number): number {
  const [a, b, c] = [bytes[r], bytes[r + 1], bytes[r + 2]];
  if (a === 0xc2) return b === 0xa0 ? 2 : 0;
  if (a === 0xef && b === 0xbf && c === 0xbd) return REPLACEMENT;
  return isWideSpace3(a, b, c) ? 3 : 0;
}

/** Whether three bytes are a white space `\s` knows of three bytes in UTF-8. */
function isWideSpace3(a: number | undefined, b: number | undefined, c: number | undefined): boolean {
  if (a === 0xe1) return b === 0x9a && c === 0x80;
  if (a === 0xe2) return (b === 0x80 && c !== undefined && (c <= 0x8a || c === 0xa8 || c === 0xa9 || c === 0xaf)) || (b === 0x81 && c === 0x9f);
  if (a === 0xe3) return b === 0x80 && c === 0x80;
  return a === 0xef && b === 0xbb && c === 0xbf;
}

/** The length of the white space `\s` knows that ends at byte `j` (a character's last), 0 if none. */
function spaceEndingAt(bytes: Uint8Array, j: number): number {
  const c = bytes[j]!;
  if (c === 32 || (c >= 9 && c <= 13)) return 1;
  if (c < 0x80) return 0;
  if (c === 0xa0 && bytes[j - 1] === 0xc2) return 2;
  return isWideSpace3(bytes[j - 2], bytes[j - 1], c) ? 3 : 0;
}

/** The first pass at a `|` or `&` (codeShape): not before `|`, `&` or `=`, and after `:=<(,[{`, `=>` or the word `as`, `satisfies` or `extends`, past white space. */
function dropsUnionMark(bytes: Uint8Array, r: number): boolean {
  const next = bytes[r + 1];
  if (next === 124 || next === 38 || next === 61) return false;
  let j = r - 1;
  while (j >= 0) {
    const space = spaceEndingAt(bytes, j);
    if (space === 0) break;
    j -= space;
  }
  if (j < 0) return false;
  const c = bytes[j]!;
  if (c === 58 || c === 61 || c === 60 || c === 40 || c === 44 || c === 91 || c === 123) return true;
  if (c === 62) return bytes[j - 1] === 61;
  return UNION_WORDS.some((word) => endsWithWord(bytes, j, word));
}
const UNION_WORDS = ["as", "satisfies", "extends"].map((word) => Buffer.from(word, "latin1"));

/** Whether `word` ends at `end` with no `\w` before it. */
function endsWithWord(bytes: Uint8Array, end: number, word: Uint8Array): boolean {
  const start = end - word.length + 1;
  if (start < 0) return false;
  for (let k = 0; k < word.length; k++) if (bytes[start + k] !== word[k]) return false;
  const before = bytes[start - 1];
  return before === undefined || (!(isNameStart(before) && before !== 36) && !(before >= 48 && before <= 57));
}

/** Whether a file's text is what the manifest's hash says: the very bytes, or their shape (`shapeHashOf`). */
export function matchesHash(path: string, text: string, hash: string): boolean {
  return hash.startsWith("shape1-") ? shapeHashOf(path, text) === hash : hashOf(text) === hash;
}

/**
 * The shape hash the manifest gives a file whose text is exactly the bytes it records as written,
 * else undefined. Why (issue 14): telling whether a file is as codegen wrote it took parsing it
 * (the 16 MB openapi.yaml at 1000 resources: seconds); a file still as written is known by a hash
 * of its bytes, and only another text (a user's reformatting or edit) needs its shape computed.
 */
function recordedShape(manifest: Manifest, path: string, text: string): string | undefined {
  const exact = manifest.bytes.get(path);
  return exact !== undefined && manifest.files.has(path) && hashOf(text) === exact ? manifest.files.get(path) : undefined;
}

/** Whether a file the manifest lists stands as the manifest says: the bytes it records, or the shape its hash gives (`matchesHash`). */
export function isAsWritten(manifest: Manifest, path: string, text: string): boolean {
  const hash = manifest.files.get(path);
  return hash !== undefined && (recordedShape(manifest, path, text) !== undefined || matchesHash(path, text, hash));
}

/** `hashOf` a generated file's text. */
function bytesHashOfFile(file: GeneratedFile): string {
  let hash = generatedBytes.get(file);
  if (hash === undefined) {
    hash = hashOf(file.contents);
    generatedBytes.set(file, hash);
  }
  return hash;
}

/** The manifest's text: keys sorted by code unit, so it is byte-identical for the same files. */
export function manifestText(files: readonly GeneratedFile[], input?: string, rendered: ReadonlyMap<string, string> = new Map()): string {
  const byPath = ([a]: readonly [string, string], [b]: readonly [string, string]) => (a < b ? -1 : a > b ? 1 : 0);
  // Why the shortest first (issue 14): V8 compiles the shape's scan while it reads the small files,
  // and reads the megabytes compiled; longest first, the first of them was read half interpreted.
  for (const file of [...files].sort((a, b) => a.contents.length - b.contents.length)) shapeHashOfFile(file);
  const entries = files.map((f) => [f.path, shapeHashOfFile(f)] as const).sort(byPath);
  const renders = [...rendered].sort(byPath);
  const bytes = files.map((f) => [f.path, bytesHashOfFile(f)] as const).sort(byPath);
  return (
    JSON.stringify(
      {
        generator: "codegen",
        ...(input === undefined ? {} : { input }),
        files: Object.fromEntries(entries),
        ...(renders.length === 0 ? {} : { rendered: Object.fromEntries(renders) }),
        ...(bytes.length === 0 ? {} : { bytes: Object.fromEntries(bytes) }),
      },
      null,
      2,
    ) + "\n"
  );
}

/**
 * Read a manifest's text; a missing or unreadable one is an empty manifest, and an entry whose
 * path breaks `isFolderPath` is dropped: codegen never reads, keeps or deletes it.
 */
export function parseManifest(text: string | undefined): Manifest {
  const empty: Manifest = { files: new Map(), rendered: new Map(), bytes: new Map() };
  if (text === undefined) return empty;
  try {
    const value = JSON.parse(text) as { files?: unknown; input?: unknown; rendered?: unknown; bytes?: unknown };
    const isMap = (v: unknown): v is object => typeof v === "object" && v !== null && !Array.isArray(v);
    const entriesOf = (v: object) => Object.entries(v).filter((entry): entry is [string, string] => typeof entry[1] === "string" && isFolderPath(entry[0]));
    const files = value.files;
    if (!isMap(files)) return empty;
    return {
      files: new Map(entriesOf(files)),
      ...(typeof value.input === "string" ? { input: value.input } : {}),
      rendered: new Map(isMap(value.rendered) ? entriesOf(value.rendered) : []),
      bytes: new Map(isMap(value.bytes) ? entriesOf(value.bytes) : []),
    };
  } catch {
    return empty;
  }
}

/**
 * What stands at a path of the output folder: nothing, a regular file with its text, or something
 * codegen neither reads through, replaces nor deletes: a symbolic link (at the path or on the way
 * to it: `at` names it, relative to the folder), a folder, a device, a file it cannot read.
 */
export type Found =
  { readonly kind: "none" } | { readonly kind: "file"; readonly text: string } | { readonly kind: "other"; readonly at: string; readonly link: boolean };

/** What a folder holds now, as far as the plan needs: the manifest and what stands at the paths it asks about. */
export interface CurrentTree {
  readonly manifest: Manifest;
  look(path: string): Found;
}

/** A path the run would have to write, blocked by an entry that is not codegen's. */
export interface Blocked {
  readonly path: string;
  /** The entry in the way: the path itself, or a symbolic link on the way to it. */
  readonly at: string;
  readonly link: boolean;
}

/** What a run would do to each file, and what stops it. */
export interface WritePlan {
  readonly added: readonly GeneratedFile[];
  readonly changed: readonly (GeneratedFile & { readonly before: string })[];
  readonly unchanged: readonly GeneratedFile[];
  /** Generated files no longer generated, still as the generator wrote them: deleted. */
  readonly removed: readonly { readonly path: string; readonly before: string }[];
  /** Generated files edited by hand: the run stops unless forced. */
  readonly edited: readonly string[];
  /** Entries the generator did not write where it would write (a file, a symbolic link on the way): always an error. */
  readonly foreign: readonly Blocked[];
}

/**
 * Decide, without touching anything, what writing `files` into a folder means (issue: the
 * manifest's rules): a hand-edited generated file is not overwritten unless `force`; a file the
 * manifest does not list is never touched; a file no longer generated is deleted only if unedited.
 * `keepFormatting` false (`--prettier`, where codegen formats with the project's own config): a
 * file that differs only in its formatting is written again, so an edited config takes effect.
 */
export function planWrite(current: CurrentTree, files: readonly GeneratedFile[], force: boolean, keepFormatting = true): WritePlan {
  const added: GeneratedFile[] = [];
  const changed: (GeneratedFile & { before: string })[] = [];
  const unchanged: GeneratedFile[] = [];
  const removed: { path: string; before: string }[] = [];
  const edited: string[] = [];
  const foreign: Blocked[] = [];
  const owned = current.manifest.files;
  const isEdited = (path: string, text: string) => owned.has(path) && !isAsWritten(current.manifest, path, text);
  // Why: a generated file that only a formatter changed keeps its formatting while what it says stays the same.
  const reformatted = (text: string, generated: GeneratedFile) => {
    if (!keepFormatting || isEdited(generated.path, text)) return false;
    const recorded = recordedShape(current.manifest, generated.path, text);
    const shape = recorded?.startsWith("shape1-") ? recorded : shapeHashOf(generated.path, text);
    return shape === shapeHashOfFile(generated);
  };

  // The manifest is written on every run that changes anything: nothing foreign may stand there.
  const manifest = current.look(MANIFEST);
  if (manifest.kind === "other") foreign.push({ path: MANIFEST, at: manifest.at, link: manifest.link });
  for (const file of files) {
    if (!isFolderPath(file.path) || file.path === MANIFEST)
      throw new Error(`codegen generated a file at ${JSON.stringify(file.path)}, outside the rule for paths in the output folder`);
    const found = current.look(file.path);
    if (found.kind === "none") added.push(file);
    else if (found.kind === "other") foreign.push({ path: file.path, at: found.at, link: found.link });
    else if (!owned.has(file.path)) {
      if (found.text === file.contents) unchanged.push(file);
      else foreign.push({ path: file.path, at: file.path, link: false });
    } else if (found.text === file.contents || reformatted(found.text, file)) unchanged.push(file);
    else if (isEdited(file.path, found.text) && !force) edited.push(file.path);
    else changed.push({ ...file, before: found.text });
  }
  const generated = new Set(files.map((f) => f.path));
  for (const path of [...owned.keys()].sort()) {
    if (generated.has(path) || path === MANIFEST) continue;
    // Only a file the manifest names, standing as a plain file, is ever deleted; a link is left alone.
    const found = current.look(path);
    if (found.kind !== "file") continue;
    if (isEdited(path, found.text) && !force) edited.push(path);
    else removed.push({ path, before: found.text });
  }
  return { added, changed, unchanged, removed, edited, foreign };
}

/** Whether a plan changes anything. */
export function hasChanges(plan: WritePlan): boolean {
  return plan.added.length + plan.changed.length + plan.removed.length > 0;
}
