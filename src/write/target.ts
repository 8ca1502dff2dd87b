/**
 * What a command says when a file or folder it was told to write cannot be written: the place
 * named as the user wrote it, and why, on one line (never a stack).
 */
import { statSync } from "node:fs";
import { type Diagnostic, diagnostic } from "../diagnostics/index.js";
import { TargetRefused } from "../host.js";

/** The diagnostic of a failed write of `shown` (the path as the user wrote it). */
export function writeDiagnostic(shown: string, error: unknown): Diagnostic {
  if (error instanceof TargetRefused) return diagnostic("output/special-target", { path: shown, what: error.what });
  return diagnostic("output/cannot-write", { path: shown, reason: oneLine(error instanceof Error ? error.message : String(error)) });
}

/** A message on one line, at most 300 characters: a library's message may carry its source or a dump. */
export function oneLine(message: string): string {
  const line = message.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/**
 * What stands at a folder's place when it is not a folder (words for `output/not-a-folder`), or
 * undefined for a folder or nothing. A link there is followed: the user named it (the output
 * folder of `generate`, which `outputFolder` resolved already; the PGlite folder of `--db`).
 */
export function notAFolder(dir: string): string | undefined {
  let stat;
  try {
    stat = statSync(dir);
  } catch {
    return undefined;
  }
  if (stat.isDirectory()) return undefined;
  return stat.isFile()
    ? "a regular file"
    : stat.isFIFO()
      ? "a named pipe"
      : stat.isCharacterDevice() || stat.isBlockDevice()
        ? "a device"
        : stat.isSocket()
          ? "a socket"
          : "not a folder";
}
