import { randomBytes } from "node:crypto";
import { constants, promises as fs, realpathSync, type Stats, watch as watchFolder } from "node:fs";
import path from "node:path";

/** The outside world as the CLI sees it: files and the two output streams. Tests use a memory host (test/support/memory-host.ts). */
export interface Host {
  /** The file's text; rejects with a Node error (`code` ENOENT, EISDIR, ...; ENOTTEXT, with the `line` and `column` of the first bad byte, for a file that is not UTF-8). */
  readFile(file: string): Promise<string>;
  /**
   * Write a file whole: a regular file (or none) through a temporary file beside it, renamed over
   * it; a character device or a named pipe written through, never replaced. Rejects with
   * `TargetRefused` for anything else (a symbolic link to no device or pipe, a folder, a socket).
   */
  writeFile(file: string, contents: string): Promise<void>;
  /** What stands at a path, a symbolic link there not followed. */
  entryAt(file: string): Promise<EntryKind>;
  /** The path with its symbolic links resolved, as far as it exists (the rest joined as named). */
  realPath(file: string): Promise<string>;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal that takes colour. */
  readonly colour: boolean;
  /** The folder relative paths are read from. */
  readonly cwd: string;
  /** The width help text wraps at: the terminal's, or `COLUMNS`; undefined for the default (80). */
  readonly columns?: number;
  /** Resolves when the user asks the process to stop (Ctrl-C, SIGTERM). */
  untilStopped(): Promise<void>;
  /** Call `changed` (debounced) whenever `file` changes; returns a function that stops watching. */
  watch(file: string, changed: () => Promise<void>): () => void;
}

/** What stands at a path: nothing, a regular file, a folder, a symbolic link, or something else (a device, a pipe, a socket). */
export type EntryKind = "none" | "file" | "folder" | "link" | "other";

/** A write refused because what stands at the path is no regular file, device or pipe; `what` names it. */
export class TargetRefused extends Error {
  readonly code = "ETARGET";
  constructor(
    readonly file: string,
    readonly what: string,
  ) {
    super(`${file} is ${what}; codegen replaces only a regular file and writes through only a device or a named pipe`);
  }
}

/** What stands at a path as `writeFile` treats it, in words for `TargetRefused` ("a folder"), or "file", "none", "device". */
function targetOf(stat: Stats | undefined, followed: Stats | undefined): "none" | "file" | "device" | string {
  if (stat === undefined) return "none";
  if (stat.isFile()) return "file";
  const through = stat.isSymbolicLink() ? followed : stat;
  // Why: `-o /dev/null`, `-o /dev/stdout` (a link to one) and a named pipe are places to write into,
  // as a shell's `>` writes into them; renaming a file over them would replace the device node.
  if (through !== undefined && (through.isCharacterDevice() || through.isFIFO())) return "device";
  if (stat.isSymbolicLink()) return "a symbolic link (writing through it would write where it points, replacing it would replace the link)";
  return stat.isDirectory() ? "a folder" : stat.isSocket() ? "a socket" : stat.isBlockDevice() ? "a block device" : "not a regular file";
}

const lstatOrNone = (file: string) => fs.lstat(file).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? undefined : Promise.reject(error)));

/**
 * Write into a character device or a named pipe: opened (blocking until a pipe has a reader, as
 * a shell's `>`) and written, never created, truncated or renamed over. Checked again once open,
 * so a regular file put there after the look is refused rather than half overwritten.
 */
async function writeThrough(file: string, contents: string): Promise<void> {
  const handle = await fs.open(file, constants.O_WRONLY);
  try {
    const stat = await handle.stat();
    if (!stat.isCharacterDevice() && !stat.isFIFO()) throw new TargetRefused(file, "no longer the device or pipe it was when looked at");
    await handle.writeFile(contents);
  } finally {
    await handle.close();
  }
}

/** Write a regular file whole: a temporary file beside it (created new: never a link or file someone left there), renamed over it. */
async function replaceFile(file: string, contents: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomSuffix()}.tmp`);
  try {
    await fs.writeFile(temporary, contents, { flag: "wx" });
    await fs.rename(temporary, file);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
}

const randomSuffix = () => randomBytes(6).toString("hex");

/** A path with its symbolic links resolved, as far as it exists (the rest joined as named). */
export function realPathOf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    const parent = path.dirname(file);
    return parent === file ? file : path.join(realPathOf(parent), path.basename(file));
  }
}

/** How long a burst of changes to a watched file is waited out before regenerating. */
const WATCH_DEBOUNCE_MS = 100;

/**
 * Where the first byte that is not UTF-8 stands (line and column, from 1, columns in UTF-16 units as
 * every diagnostic counts them), so the error points at it. The lenient decoder turns each bad
 * sequence into U+FFFD; one the file spells out (EF BF BD) is text, and the search goes past it.
 */
function firstNotUtf8(bytes: Uint8Array): { line: number; column: number } {
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  let offset = 0;
  let from = 0;
  for (let at = text.indexOf("\uFFFD"); at >= 0; at = text.indexOf("\uFFFD", from)) {
    offset += Buffer.byteLength(text.slice(from, at));
    from = at;
    if (bytes[offset] !== 0xef || bytes[offset + 1] !== 0xbf || bytes[offset + 2] !== 0xbd) break;
    offset += 3;
    from = at + 1;
  }
  // The text read leaves a byte order mark out, and so do its columns.
  const before = text.slice(0, from).replace(/^\uFEFF/, "");
  return { line: before.split("\n").length, column: before.length - before.lastIndexOf("\n") };
}

/** The host of the real command: Node's file system and process streams. */
export function nodeHost(): Host {
  return {
    async readFile(file) {
      const bytes = await fs.readFile(file);
      try {
        // Fatal decoding: a file that is not UTF-8 is refused rather than read as replacement characters.
        return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      } catch {
        throw Object.assign(new Error(`${file} is not UTF-8 text`), { code: "ENOTTEXT", ...firstNotUtf8(bytes) });
      }
    },
    async writeFile(file, contents) {
      const stat = await lstatOrNone(file);
      const followed = stat?.isSymbolicLink() ? await fs.stat(file).catch(() => undefined) : undefined;
      const target = targetOf(stat, followed);
      if (target === "device") return writeThrough(file, contents);
      if (target !== "none" && target !== "file") throw new TargetRefused(file, target);
      return replaceFile(file, contents);
    },
    async entryAt(file) {
      const stat = await lstatOrNone(file);
      if (stat === undefined) return "none";
      return stat.isFile() ? "file" : stat.isDirectory() ? "folder" : stat.isSymbolicLink() ? "link" : "other";
    },
    realPath: async (file) => realPathOf(file),
    watch(file, changed) {
      // The folder is watched, not the file: editors save by writing a new file and renaming it
      // over the old one, which a watch on the old file would not see.
      const target = path.resolve(file);
      let timer: NodeJS.Timeout | undefined;
      let running = Promise.resolve();
      const watcher = watchFolder(path.dirname(target), (_event, name) => {
        if (name !== null && name !== path.basename(target)) return;
        clearTimeout(timer);
        timer = setTimeout(() => (running = running.then(changed)), WATCH_DEBOUNCE_MS);
      });
      return () => {
        clearTimeout(timer);
        watcher.close();
      };
    },
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    untilStopped: () =>
      new Promise<void>((resolve) => {
        process.once("SIGINT", () => resolve());
        process.once("SIGTERM", () => resolve());
      }),
    colour: Boolean(process.stderr.isTTY) && !("NO_COLOR" in process.env) && process.env.TERM !== "dumb",
    cwd: process.cwd(),
    ...widthOfTerminal(),
  };
}

/** The width of stdout's terminal, else `COLUMNS` (as shells set it), else nothing. */
function widthOfTerminal(): { columns?: number } {
  const columns = process.stdout.isTTY ? process.stdout.columns : Number(process.env.COLUMNS);
  // Why a floor: below 40 columns commander's two-column layout leaves no room for the descriptions.
  return Number.isInteger(columns) && columns > 0 ? { columns: Math.max(columns, 40) } : {};
}
