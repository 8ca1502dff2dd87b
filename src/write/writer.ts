/**
 * Writing the new tree's files, with the hash of their bytes and, for code, their shape hash
 * (plan.ts, shapeHashOf). Why the thread pool makes the small files: making a file costs the
 * kernel a new inode, about half a millisecond each on the virtual disks CI runs on, so a large
 * API's thousand handler files were a second of its run on the rendering thread while the pool's
 * threads were idle. The pool makes a file while the next is rendered; its text is written when
 * this thread next turns the event loop.
 */
import { createHash } from "node:crypto";
import { closeSync, open, openSync, writeSync } from "node:fs";
import path from "node:path";
import { codeShapeHash } from "./code-shape.js";

/** What writing a file gave: `hashOf` its text, from the bytes written, and its shape hash if asked. */
export interface Written {
  readonly bytes: string;
  readonly shape?: string;
}

/** Where the files of a run go: a folder. */
export interface FileSink {
  /**
   * Write `text` into a new file at `file` (relative to the folder; `wx`: nothing is overwritten), with its code
   * shape hash when `shape`. A promise: wait for it before writing more (texts wait for the pool).
   */
  write(file: string, text: string, shape: boolean): Promise<void> | undefined;
  /** Wait for every write to end: what each wrote, by `file`; the first write that failed rejects it. */
  settle(): Promise<Map<string, Written>>;
}

/** How many UTF-16 code units of a file are encoded and written at once: at most 3 bytes each. */
const WRITE_PIECE = 64 * 1024;

/** How many code units of text may wait for their files from the pool: a larger file is made and written at once. */
const WAITING_UNITS = 1024 * 1024;

/**
 * Write `text` as UTF-8 into the new file `fd`, WRITE_PIECE units at a time through `buffer`,
 * hashing the bytes as they are written, and close it. Why pieces: encoding a whole file made a
 * second copy of it outside the heap (16 MB for document.gen.ts at 1000 resources).
 */
function writeFile(fd: number, text: string, shape: boolean, buffer: Buffer): Written {
  const hash = createHash("sha256");
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
  return { bytes: `sha256-${hash.digest("hex")}`, ...(shape ? { shape: codeShapeHash(text) } : {}) };
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** The sink of a run, writing into the folder `root`. */
export function fileSink(root: string): FileSink {
  const buffer = Buffer.allocUnsafe(WRITE_PIECE * 3);
  const results = new Map<string, Written>();
  const opening = new Set<Promise<void>>();
  let waiting = 0;
  let failure: { error: unknown } | undefined;
  return {
    write(file, text, shape) {
      if (failure !== undefined || waiting + text.length > WAITING_UNITS) {
        results.set(file, writeFile(openSync(path.join(root, file), "wx"), text, shape, buffer));
        return undefined;
      }
      waiting += text.length;
      const written = new Promise<number>((resolve, reject) => open(path.join(root, file), "wx", (error, fd) => (error ? reject(error) : resolve(fd))))
        .then((fd) => void results.set(file, writeFile(fd, text, shape, buffer)))
        .catch((error: unknown) => void (failure ??= { error }))
        .finally(() => {
          waiting -= text.length;
          opening.delete(written);
        });
      opening.add(written);
      // A turn of the event loop writes the texts whose files the pool has made.
      return waiting > WAITING_UNITS / 2 ? new Promise<void>((resolve) => setImmediate(resolve)) : undefined;
    },
    async settle() {
      while (opening.size > 0) await Promise.all(opening);
      if (failure !== undefined) throw failure.error;
      return results;
    },
  };
}
