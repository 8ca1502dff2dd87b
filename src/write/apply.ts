import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
  type Stats,
} from "node:fs";
import { createHash } from "node:crypto";
import path from "node:path";
import type { GeneratedFile } from "../emit/render.js";
import { type CurrentTree, type Found, MANIFEST, type StoredWarning, type WritePlan, manifestText, noteBytes, parseManifest } from "./plan.js";

/** A file larger than this is not read: codegen never wrote one (a manifest larger is no manifest). */
const MAX_FILE = 64 * 1024 * 1024;

/**
 * The folder a run writes (`named` is absolute): the named folder, or, when the name is a symbolic link, the folder it
 * points to (resolved link by link, so a link whose folder a killed run left missing still
 * resolves), with the links of the folders above resolved too.
 * Why: the user named that link on the command line, so following it is their choice; a link
 * *inside* the folder was put there by someone else (or a checkout) and is never followed.
 * Renaming the link itself would replace the user's link with a folder and leave their folder stale.
 */
export function outputFolder(named: string): string {
  let dir = named;
  for (let hops = 0; hops < 40; hops++) {
    let stat: Stats;
    try {
      stat = lstatSync(dir);
    } catch {
      break;
    }
    if (!stat.isSymbolicLink()) break;
    dir = path.resolve(path.dirname(dir), readlinkSync(dir));
  }
  return path.join(realPathOf(path.dirname(dir)), path.basename(dir));
}

/** The real path of a folder, or of as much of it as exists. */
function realPathOf(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    const parent = path.dirname(dir);
    return parent === dir ? dir : path.join(realPathOf(parent), path.basename(dir));
  }
}

/** The two sibling folders of a run: the new tree being built, and the old one being retired. */
export function siblings(dir: string): { fresh: string; retired: string } {
  const parent = path.dirname(dir);
  const base = path.basename(dir);
  return { fresh: path.join(parent, `.${base}.codegen-new`), retired: path.join(parent, `.${base}.codegen-old`) };
}

/**
 * Put right what a killed run left behind: if the folder is missing but the retired tree is
 * there, the run died between its two renames and the old tree goes back; then leftovers go.
 */
export function recover(dir: string): void {
  const { fresh, retired } = siblings(dir);
  if (!existsSync(dir) && existsSync(retired)) renameSync(retired, dir);
  rmSync(fresh, { recursive: true, force: true });
  rmSync(retired, { recursive: true, force: true });
}

/**
 * What the output folder holds now (after `recover`); files are read when the plan asks for them.
 * Nothing inside the folder is followed: every part of a path is looked at with lstat, and the
 * file itself opened with O_NOFOLLOW (and O_NONBLOCK, so a FIFO cannot hang the run).
 */
export function readCurrent(dir: string): CurrentTree {
  const folders = new Map<string, Found | undefined>();
  /** What stands at a folder on the way to a file: undefined for a real folder. */
  const folder = (relative: string): Found | undefined => {
    if (!folders.has(relative)) {
      let found: Found | undefined;
      try {
        const stat = lstatSync(path.join(dir, relative));
        if (!stat.isDirectory()) found = { kind: "other", at: relative, link: stat.isSymbolicLink() };
      } catch (error) {
        found = isMissing(error) ? { kind: "none" } : { kind: "other", at: relative, link: false };
      }
      folders.set(relative, found);
    }
    return folders.get(relative);
  };
  const look = (file: string): Found => {
    const parts = file.split("/");
    for (let n = 1; n < parts.length; n++) {
      const found = folder(parts.slice(0, n).join("/"));
      if (found) return found;
    }
    return readFile(dir, file);
  };
  const manifest = look(MANIFEST);
  return { manifest: parseManifest(manifest.kind === "file" ? manifest.text : undefined), look };
}

/** A regular file's text, never through a link, a FIFO or a device. */
function readFile(dir: string, file: string): Found {
  const other: Found = { kind: "other", at: file, link: false };
  const full = path.join(dir, file);
  let fd: number;
  try {
    // O_NOFOLLOW does not exist on Windows: there the lstat decides alone.
    if (lstatSync(full).isSymbolicLink()) return { ...other, link: true };
    fd = openSync(full, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if (isMissing(error)) return { kind: "none" };
    return { ...other, link: (error as NodeJS.ErrnoException).code === "ELOOP" };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_FILE) return other;
    return { kind: "file", text: readFileSync(fd, "utf8") };
  } catch {
    return other;
  } finally {
    closeSync(fd);
  }
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";

/**
 * Apply a plan as one step: the new tree is built in a sibling folder (files that do not change,
 * and every file the generator does not own, hard-linked in so their mtimes stay), then swapped
 * in by two renames. A run that fails or is killed leaves the old tree or the new one, never a
 * mix; a kill between the renames leaves the old tree beside the folder, which `recover` restores.
 * Why synchronous calls: a run writes a few dozen small files, one after another; each
 * awaited call waited a turn of the thread pool for nothing else to do (a tenth of a run idle).
 */
export function applyPlan(dir: string, plan: WritePlan, files: readonly GeneratedFile[], input?: string, warnings: readonly StoredWarning[] = []): void {
  const { fresh, retired } = siblings(dir);
  rmSync(fresh, { recursive: true, force: true });
  mkdirSync(fresh, { recursive: true });
  const rewritten = new Set([...plan.added, ...plan.changed].map((f) => f.path));
  const dropped = new Set([...plan.removed.map((r) => r.path), MANIFEST]);

  // Everything that stays: unchanged generated files and all files codegen does not own.
  if (existsSync(dir)) linkTree(dir, fresh, "", (relative) => !rewritten.has(relative) && !dropped.has(relative));
  const made = new Set<string>();
  const buffer = Buffer.allocUnsafe(WRITE_PIECE * 3);
  for (const file of [...plan.added, ...plan.changed]) {
    folderIn(fresh, path.posix.dirname(file.path), made);
    noteBytes(file, writeNewFile(path.join(fresh, file.path), file.contents, buffer));
  }
  writeFileSync(path.join(fresh, MANIFEST), manifestText(files, input, warnings));

  if (existsSync(dir)) renameSync(dir, retired);
  renameSync(fresh, dir);
  rmSync(retired, { recursive: true, force: true });
}

/** How many UTF-16 code units of a file are encoded and written at once (writeNewFile): at most 3 bytes each. */
const WRITE_PIECE = 64 * 1024;

/**
 * Write `text` as UTF-8 into a new file (`wx`: the plan leaves nothing at a path it writes; were
 * something there, it is not overwritten) a piece at a time through `buffer`, and return `hashOf`
 * the text from the same bytes. Why pieces: encoding a whole file made a second copy of it
 * outside the heap (23 MB for document.gen.ts at 1000 resources) at the run's peak of memory.
 */
function writeNewFile(file: string, text: string, buffer: Buffer): string {
  const hash = createHash("sha256");
  const fd = openSync(file, "wx");
  try {
    for (let start = 0; start < text.length;) {
      let end = Math.min(text.length, start + WRITE_PIECE);
      // A surrogate pair stays in one piece: encoded apart, each half would be U+FFFD.
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
      const length = buffer.write(text.slice(start, end), 0, "utf8");
      hash.update(buffer.subarray(0, length));
      for (let written = 0; written < length;) written += writeSync(fd, buffer, written, length - written);
      start = end;
    }
  } finally {
    closeSync(fd);
  }
  return `sha256-${hash.digest("hex")}`;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Make the folders of a relative path under `root`, one part at a time, refusing any part that
 * is not a real folder: a link copied from the old tree is never written through, even were the
 * folder changed between the plan and this step. `made`: the folders this step has made or found
 * real already. Why: a folder of a thousand files was made, failing, and looked at a
 * thousand times, each failure a thrown error.
 */
function folderIn(root: string, relative: string, made: Set<string>): void {
  let at = root;
  for (const part of relative === "." ? [] : relative.split("/")) {
    at = path.join(at, part);
    if (made.has(at)) continue;
    try {
      mkdirSync(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    if (!lstatSync(at).isDirectory()) throw new Error(`${at} is not a folder; codegen does not write through it`);
    made.add(at);
  }
}

/**
 * Recreate `from`'s tree under `to` with hard links, keeping what `keep` accepts. A symbolic link
 * (to a file or a folder) is copied as the link it is: never followed, never descended into.
 */
function linkTree(from: string, to: string, relative: string, keep: (relative: string) => boolean): void {
  for (const entry of readdirSync(path.join(from, relative), { withFileTypes: true })) {
    const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
    const source = path.join(from, child);
    const target = path.join(to, child);
    if (entry.isDirectory()) {
      mkdirSync(target, { recursive: true });
      linkTree(from, to, child, keep);
    } else if (!keep(child)) {
      continue;
    } else if (entry.isSymbolicLink()) {
      symlinkSync(readlinkSync(source), target);
    } else {
      linkSync(source, target);
    }
  }
}
