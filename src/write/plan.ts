import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type { DataFile, GeneratedFile } from "../emit/render.js";
import { codeShapeHash } from "./code-shape.js";
import { shapeOfData } from "./json-shape.js";
import type { Differing, Drift } from "./report.js";

/** The manifest's file name inside the output folder. */
export const MANIFEST = ".codegen-manifest.json";

/** The files the generator wrote into a folder, each with the hash of what it wrote. */
export interface Manifest {
  /** Path inside the folder -> hash; a map, so a path such as `constructor` is no inherited key. */
  readonly files: ReadonlyMap<string, string>;
  /** The hash of everything the files were generated from (src/write/fresh.ts, generationKey). */
  readonly input?: string;
  /** Path -> `hashOf` the very bytes written (absent in manifests written by older versions of codegen). */
  readonly bytes: ReadonlyMap<string, string>;
  /**
   * The warnings of modelling the input (what a run that renders nothing prints again): a run
   * whose input is unchanged skips modelling, and its user must see the same warnings.
   */
  readonly warnings?: readonly StoredWarning[];
}

/** A warning kept in the manifest: its code, its message and its place in the input (StoredWarning's file is the input's). */
export interface StoredWarning {
  readonly code: string;
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
  readonly length?: number;
}

/** Whether a manifest's entry is a warning as codegen writes one (a manifest is input: anything else is dropped, never printed). */
function isStoredWarning(value: unknown): value is StoredWarning {
  if (typeof value !== "object" || value === null) return false;
  const { code, message, line, column, length } = value as { [key: string]: unknown };
  const place = [line, column, length].every((n) => n === undefined || (Number.isSafeInteger(n) && (n as number) >= 1));
  // Why no control character: the message goes to a terminal as it is.
  return (
    typeof code === "string" && /^[a-z0-9-]+\/[a-z0-9.-]+$/.test(code) && typeof message === "string" && !/[\u0000-\u001f\u007f-\u009f]/.test(message) && place
  );
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
 * The hash of what a file says, whatever formatter ran over it (the user's own prettier
 * over the generated folder must not make it "edited by hand"). YAML and JSON: the data. Code:
 * the text without what formatters choose, whatever their options: whitespace, semicolons,
 * trailing commas, the quote character (and escapes of quotes), parentheses (prettier adds and
 * drops them with the line width and `arrowParens`), quotes around a key that needs none, the `|`
 * or `&` before a union's first member. An edit of only these is taken for formatting. An edit of anything else changes it.
 * Why so coarse a normal form and not a formatter: formatting back with codegen's options does
 * not undo everything (prettier keeps an object broken over lines once it is), and what it
 * cannot tell apart (whitespace inside a string, a semicolon) is no edit worth keeping.
 */
export function shapeHashOf(path: string, text: string, piece?: number, scanFrom?: number): string {
  const data = dataShapeOf(path, text);
  if (data !== undefined) return shapeOfJson(data);
  return codeShapeHash(text, piece, scanFrom);
}

/**
 * The shape hash of a YAML or JSON file written from data whose `JSON.stringify` text is `json`:
 * the definition that json-shape.ts's shapeOfData meets without making that text.
 */
export const shapeOfJson = (json: string): string => `shape1-${hashOf(json).slice("sha256-".length)}`;

/** Whether a path names a YAML or JSON file: its shape is its data's. */
const isDataPath = (path: string) => /\.(ya?ml|json)$/.test(path);

/** Each generated file's shape hash, computed once (judgeFile may need it before the manifest does). */
const generatedShapes = new WeakMap<GeneratedFile, string>();

/**
 * `shapeHashOf` a generated file. Why from its data when it has some: parsing our own
 * 16 MB openapi.yaml back with `yaml` was 6 of 16 s at 1000 resources. Reading back what
 * `jsonToYaml` or `JSON.stringify` wrote gives the same data, so the hash is the same
 * (test/write/shape.test.ts proves it on every fixture and on random data).
 */
export function shapeHashOfFile(file: DataFile): string {
  let hash = generatedShapes.get(file);
  if (hash === undefined) {
    const isData = isDataPath(file.path);
    if (isData && file.dataShape !== undefined) hash = file.dataShape();
    else if (isData && file.data !== undefined) hash = shapeOfData(file.data);
    else hash = shapeHashOf(file.path, file.contents);
    generatedShapes.set(file, hash);
  }
  return hash;
}

/**
 * `shapeHashOfFile` where no code needs shaping: one computed already, a data file's, or the
 * function that gives a data file's once every file is rendered (DataFile's dataShape); else undefined.
 */
export function knownShapeOf(file: DataFile): string | (() => string) | undefined {
  const known = generatedShapes.get(file);
  if (known !== undefined) return known;
  if (file.dataShape !== undefined) return file.dataShape;
  return isDataPath(file.path) ? shapeHashOfFile(file) : undefined;
}

/**
 * The YAML parser, loaded at first use. Why not imported: a run that finds its folder current
 * (src/write/fresh.ts) reads the manifest through this module and compares hashes of bytes; only a
 * file that is not as written needs its shape, and `yaml` is some 70 modules to load.
 */
const yaml = () => createRequire(import.meta.url)("yaml") as typeof import("yaml");

/** The shape of a YAML or JSON file: its data as JSON text (undefined for another file, or one that does not parse). */
function dataShapeOf(path: string, text: string): string | undefined {
  if (!isDataPath(path)) return undefined;
  try {
    return JSON.stringify(yaml().parse(text, { maxAliasCount: -1 }));
  } catch {
    // Not parseable: compared as text (code-shape.ts).
    return undefined;
  }
}

/** Whether a file's text is what the manifest's hash says: the very bytes, or their shape (`shapeHashOf`). */
export function matchesHash(path: string, text: string, hash: string): boolean {
  return hash.startsWith("shape1-") ? shapeHashOf(path, text) === hash : hashOf(text) === hash;
}

/**
 * Whether a file the manifest lists stands as the manifest says: the bytes it records, or the
 * shape its hash gives (`matchesHash`). Why the bytes first: telling whether a file is as codegen
 * wrote it took parsing it (the 16 MB openapi.yaml at 1000 resources: seconds); a file still as
 * written is known by a hash of its bytes, and only another text (a user's reformatting or edit)
 * needs its shape computed.
 */
export function isAsWritten(manifest: Manifest, path: string, text: string): boolean {
  const hash = manifest.files.get(path);
  const bytes = manifest.bytes.get(path);
  return hash !== undefined && ((bytes !== undefined && hashOf(text) === bytes) || matchesHash(path, text, hash));
}

/** A generated file as the manifest records it: its path, shape hash and hash of its bytes. */
export interface ManifestEntry {
  readonly path: string;
  readonly shape: string;
  readonly bytes: string;
}

/** A generated file's manifest entry. */
export function entryOf(file: GeneratedFile): ManifestEntry {
  return { path: file.path, shape: shapeHashOfFile(file), bytes: hashOf(file.contents) };
}

/** The manifest's text: keys sorted by code unit, so it is byte-identical for the same files. */
export function manifestTextOf(entries: readonly ManifestEntry[], input?: string, warnings: readonly StoredWarning[] = []): string {
  const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return (
    JSON.stringify(
      {
        generator: "codegen",
        ...(input === undefined ? {} : { input }),
        files: Object.fromEntries(sorted.map((e) => [e.path, e.shape])),
        ...(sorted.length === 0 ? {} : { bytes: Object.fromEntries(sorted.map((e) => [e.path, e.bytes])) }),
        ...(warnings.length === 0 ? {} : { warnings }),
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
  const empty: Manifest = { files: new Map(), bytes: new Map() };
  if (text === undefined) return empty;
  try {
    const value = JSON.parse(text) as { files?: unknown; input?: unknown; bytes?: unknown; warnings?: unknown };
    const isMap = (v: unknown): v is object => typeof v === "object" && v !== null && !Array.isArray(v);
    const entriesOf = (v: object) => Object.entries(v).filter((entry): entry is [string, string] => typeof entry[1] === "string" && isFolderPath(entry[0]));
    const files = value.files;
    if (!isMap(files)) return empty;
    return {
      files: new Map(entriesOf(files)),
      ...(typeof value.input === "string" ? { input: value.input } : {}),
      bytes: new Map(isMap(value.bytes) ? entriesOf(value.bytes) : []),
      ...(Array.isArray(value.warnings) ? { warnings: value.warnings.filter(isStoredWarning) } : {}),
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

/** What a run does with one generated file (judgeFile). */
export type Verdict = "added" | "changed" | "unchanged" | "edited" | "foreign";

/**
 * Judge one generated file against the folder (the manifest's rules): a hand-edited generated
 * file is not overwritten unless `force`; a file the manifest does not list is never touched.
 * `keepFormatting` false (`--prettier`, where codegen formats with the project's own config): a
 * file that differs only in its formatting is written again, so an edited config takes effect.
 */
export function judgeFile(current: CurrentTree, file: GeneratedFile, force: boolean, keepFormatting: boolean): { verdict: Verdict; found: Found } {
  if (!isFolderPath(file.path) || file.path === MANIFEST)
    throw new Error(`codegen generated a file at ${JSON.stringify(file.path)}, outside the rule for paths in the output folder`);
  const owned = current.manifest.files;
  const found = current.look(file.path);
  if (found.kind === "none") return { verdict: "added", found };
  if (found.kind === "other") return { verdict: "foreign", found };
  if (!owned.has(file.path)) return { verdict: found.text === file.contents ? "unchanged" : "foreign", found };
  if (found.text === file.contents) return { verdict: "unchanged", found };
  const edited = !isAsWritten(current.manifest, file.path, found.text);
  // Why: a generated file that only a formatter changed keeps its formatting while what it says stays the same.
  // A text as written has the shape its shape hash records (a manifest of bytes' hashes records none).
  if (keepFormatting && !edited) {
    const recorded = owned.get(file.path)!;
    const shape = recorded.startsWith("shape1-") ? recorded : shapeHashOf(file.path, found.text);
    if (shape === shapeHashOfFile(file)) return { verdict: "unchanged", found };
  }
  return { verdict: edited && !force ? "edited" : "changed", found };
}

/**
 * The files the manifest lists that the run no longer generates (`generated`: the paths it
 * does), each standing as a plain file: deleted if unedited (or with `force`), else edited.
 * Only a file the manifest names, standing as a plain file, is ever deleted; a link is left alone.
 */
export function leftBehind(current: CurrentTree, generated: ReadonlySet<string>, force: boolean): Pick<Drift, "removed" | "edited"> {
  const removed: Differing[] = [];
  const edited: Differing[] = [];
  for (const path of [...current.manifest.files.keys()].sort()) {
    if (generated.has(path) || path === MANIFEST) continue;
    const found = current.look(path);
    if (found.kind !== "file") continue;
    if (!isAsWritten(current.manifest, path, found.text) && !force) edited.push({ path, before: found.text });
    else removed.push({ path, before: found.text });
  }
  return { removed, edited };
}
