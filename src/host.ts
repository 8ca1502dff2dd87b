import { promises as fs, watch as watchFolder } from "node:fs";
import path from "node:path";

/** The outside world as the CLI sees it: files and the two output streams. Tests use a memory host. */
export interface Host {
  /** The file's text; rejects with a Node error (`code` ENOENT, EISDIR, ...; ENOTTEXT for a file that is not UTF-8). */
  readFile(file: string): Promise<string>;
  /** Write a file whole: into a temporary file beside it, then renamed over it. */
  writeFile(file: string, contents: string): Promise<void>;
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

/** How long a burst of changes to a watched file is waited out before regenerating. */
const WATCH_DEBOUNCE_MS = 100;

/** The host of the real command: Node's file system and process streams. */
export function nodeHost(): Host {
  return {
    async readFile(file) {
      const bytes = await fs.readFile(file);
      try {
        // Fatal decoding: a file that is not UTF-8 is refused rather than read as replacement characters.
        return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      } catch {
        throw Object.assign(new Error(`${file} is not UTF-8 text`), { code: "ENOTTEXT" });
      }
    },
    async writeFile(file, contents) {
      await fs.mkdir(path.dirname(file), { recursive: true });
      const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
      try {
        await fs.writeFile(temporary, contents);
        await fs.rename(temporary, file);
      } catch (error) {
        await fs.rm(temporary, { force: true });
        throw error;
      }
    },
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

/** A host that keeps files in memory and collects output, for tests. */
export function memoryHost(files: Record<string, string> = {}): Host & { files: Map<string, string>; out: string; err: string } {
  const host = {
    files: new Map(Object.entries(files)),
    out: "",
    err: "",
    colour: false,
    cwd: "/work",
    untilStopped: () => Promise.resolve(),
    watch: () => () => undefined,
    async readFile(file: string) {
      const text = host.files.get(file);
      if (text === undefined) throw Object.assign(new Error(`ENOENT: ${file}`), { code: "ENOENT" });
      return text;
    },
    async writeFile(file: string, contents: string) {
      host.files.set(file, contents);
    },
    stdout(text: string) {
      host.out += text;
    },
    stderr(text: string) {
      host.err += text;
    },
  };
  return host;
}
