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
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  type Stats,
} from "node:fs";
import path from "node:path";
import type { GeneratedFile } from "../emit/render.js";
import { realPathOf } from "../host.js";
import {
  type Blocked,
  type CurrentTree,
  type Found,
  MANIFEST,
  type ManifestEntry,
  entryOf,
  judgeFile,
  knownShapeOf,
  leftBehind,
  parseManifest,
} from "./plan.js";
import type { Drift } from "./report.js";
import { type FileSink, type Written, fileSink } from "./writer.js";

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

/** The new tree a run builds beside the folder, a file at a time (writer.ts's sink, keyed by the path in the tree), and swaps in whole. */
export interface NewTree extends Pick<FileSink, "settle"> {
  /** Write a generated file into the new tree (FileSink's write). */
  write(file: GeneratedFile, shape: boolean): Promise<void> | undefined;
  /**
   * Hard-link in every entry of the folder `keep` accepts (the generated files that do not
   * change, and every file codegen does not own: their mtimes stay), write the manifest, and
   * swap the new tree in by two renames.
   */
  commit(keep: (relative: string) => boolean, manifest: string): void;
  /** Remove what was built: the folder stays as it was. */
  abandon(): void;
}

/**
 * Start a new tree for `dir` (made at its first file). A run that fails or is killed leaves the
 * old tree or the new one, never a mix; a kill between the renames leaves the old tree beside the
 * folder, which `recover` restores. Commit or abandon only once the writes have settled.
 */
export function newTree(dir: string): NewTree {
  const { fresh, retired } = siblings(dir);
  let made: Set<string> | undefined;
  const sink = fileSink(fresh);
  const start = () => {
    rmSync(fresh, { recursive: true, force: true });
    mkdirSync(fresh, { recursive: true });
    return new Set<string>();
  };
  return {
    write(file, shape) {
      made ??= start();
      folderIn(fresh, path.posix.dirname(file.path), made);
      return sink.write(file.path, file.contents, shape);
    },
    settle: () => sink.settle(),
    commit(keep, manifest) {
      made ??= start();
      // After the new files: a link of the old tree copied where the new tree has a folder fails
      // (EEXIST), so no file is ever written through one.
      if (existsSync(dir)) linkTree(dir, fresh, "", keep);
      writeFileSync(path.join(fresh, MANIFEST), manifest);
      if (existsSync(dir)) renameSync(dir, retired);
      renameSync(fresh, dir);
      rmSync(retired, { recursive: true, force: true });
    },
    abandon() {
      if (made) rmSync(fresh, { recursive: true, force: true });
    },
  };
}

/** What writing the generated files into the new tree found: what blocks it, what it changes, the manifest's entries. */
export interface FolderWrite {
  /** Entries the generator did not write where it would write (a file, a symbolic link on the way): always an error. */
  readonly foreign: readonly Blocked[];
  /** Generated files edited by hand: the run stops unless forced. */
  readonly edited: readonly { readonly path: string }[];
  readonly summary: { readonly written: number; readonly unchanged: number; readonly removed: number };
  /** The path of every generated file. */
  readonly generated: ReadonlySet<string>;
  readonly entries: readonly ManifestEntry[];
  /** Whether an entry of the old tree is linked into the new one: not a file written anew, deleted, or the manifest. */
  keep(relative: string): boolean;
  /** Without a tree (--check): the texts of every file that differs, for the diff it prints (report.ts). */
  readonly drift?: Drift;
}

/**
 * Judge each generated file against the folder as it comes (plan.ts, judgeFile) and write those
 * added or changed into `tree` at once, keeping only their paths and hashes. Why: the files of a
 * large API (tens of megabytes, openapi.yaml and document.gen.ts most of it) were all held
 * until the last was rendered and the plan made. Once something blocks the run, nothing more is
 * written (the caller abandons the tree), but every file is still judged, so all are reported.
 * Without a tree (--check) nothing is written and no entry made: the texts of what differs are
 * kept instead (`drift`).
 */
export async function writeFiles(
  current: CurrentTree,
  files: Iterable<GeneratedFile>,
  force: boolean,
  keepFormatting: boolean,
  tree?: NewTree,
): Promise<FolderWrite> {
  const manifest = current.look(MANIFEST);
  // The manifest itself is written on every run that changes anything: something not codegen's there blocks it.
  const foreign: Blocked[] = manifest.kind === "other" ? [{ path: MANIFEST, at: manifest.at, link: manifest.link }] : [];
  const edited: { path: string }[] = [];
  const drift: Drift | undefined = tree ? undefined : { added: [], changed: [], removed: [], edited: [] };
  const entries: ManifestEntry[] = [];
  const generated = new Set<string>();
  const rewritten = new Set<string>();
  // The files handed to the tree, with their shape hash where this thread has it (a data file's, or a function that gives it once every file is rendered).
  const written: { path: string; shape: string | (() => string) | undefined }[] = [];
  let unchanged = 0;
  try {
    for (const file of files) {
      generated.add(file.path);
      const { verdict, found } = judgeFile(current, file, force, keepFormatting);
      const before = found.kind === "file" ? found.text : "";
      if (verdict === "unchanged") unchanged++;
      else if (verdict === "edited") {
        edited.push({ path: file.path });
        drift?.edited.push({ path: file.path, before, after: file.contents });
      } else if (verdict === "foreign")
        foreign.push(found.kind === "other" ? { path: file.path, at: found.at, link: found.link } : { path: file.path, at: file.path, link: false });
      else {
        rewritten.add(file.path);
        drift?.[verdict].push({ path: file.path, before, after: file.contents });
      }
      if (!tree) continue;
      if (!rewritten.has(file.path) || foreign.length + edited.length > 0) {
        entries.push(entryOf(file));
        continue;
      }
      const shape = knownShapeOf(file);
      written.push({ path: file.path, shape });
      await tree.write(file, shape === undefined);
    }
  } catch (error) {
    // Nothing may still be writing into the tree its caller abandons.
    await tree?.settle().catch(() => undefined);
    throw error;
  }
  const results = (await tree?.settle()) ?? new Map<string, Written>();
  for (const { path, shape } of written) {
    const result = results.get(path)!;
    entries.push({ path, shape: typeof shape === "function" ? shape() : (shape ?? result.shape!), bytes: result.bytes });
  }
  const rest = leftBehind(current, generated, force);
  edited.push(...rest.edited);
  drift?.edited.push(...rest.edited);
  drift?.removed.push(...rest.removed);
  const dropped = new Set([...rest.removed.map((r) => r.path), MANIFEST]);
  return {
    foreign,
    edited,
    summary: { written: rewritten.size, unchanged, removed: rest.removed.length },
    generated,
    entries,
    keep: (relative) => !rewritten.has(relative) && !dropped.has(relative),
    ...(drift ? { drift } : {}),
  };
}

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
