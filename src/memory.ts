import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Texts longer than this (the served document's JSON or YAML) make a generation "large": between
 * its stages codegen then collects garbage itself (collectGarbageOf). Why 4 MB: the blog fixture
 * and every document of ordinary size stay far below and pay nothing; 1000 resources (16 MB of
 * YAML) and GitHub Enterprise (5 MB of JSON in, megabytes of literals out) are above.
 */
export const LARGE_TEXT = 4 * 1024 * 1024;

let gc: (() => void) | undefined;

/** How many collections collectGarbageOf has made in this process (the tests count them). */
export const collections = { count: 0 };

/**
 * A full garbage collection, when `text` (a stage's largest text) is longer than LARGE_TEXT.
 * Why (issue 14, 16): a large generation's peak memory was garbage, not live data: the big
 * strings each stage makes and drops (the document's texts, their escaping and layout) piled up
 * to 750 MB at 1000 resources while 190 MB was live, because V8 lets its heap grow to several
 * times the live size before collecting. A collection at the stage boundaries where that garbage
 * is dropped keeps the heap near the live size; it costs a few hundred milliseconds of a
 * ten-second run, so it is done only for large inputs. `--expose-gc` set at run time exposes `gc`
 * to a new context only: the process's own global is untouched.
 */
export function collectGarbageOf(text: string | undefined): void {
  if (text === undefined || text.length <= LARGE_TEXT) return;
  if (gc === undefined) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as () => void;
  }
  gc();
  collections.count++;
}
