import type { Diagnostic, SourceLocation } from "./diagnostic.js";

/** Options for printing diagnostics. */
export interface FormatOptions {
  /** The text of each file by its name, for the excerpt under each message. */
  readonly sources: ReadonlyMap<string, string>;
  /** ANSI colour; only on a terminal and never with NO_COLOR (the caller decides). */
  readonly colour: boolean;
}

const style = (colour: boolean, code: string, text: string) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text);

/**
 * Print diagnostics as compilers do: `FILE:LINE:COLUMN: error: MESSAGE [code]` (or `warning:`), then the line
 * with a caret under the place.
 */
export function formatDiagnostics(diagnostics: readonly Diagnostic[], options: FormatOptions): string {
  // Why: each file is split into lines once, not once per diagnostic (a 5 MB document
  // with hundreds of warnings spent a second splitting it again and again).
  const lines = new Map<string, readonly string[] | undefined>();
  const lineAt = ({ file, line }: SourceLocation): string | undefined => {
    if (!lines.has(file)) lines.set(file, options.sources.get(file)?.split(/\r?\n/));
    return lines.get(file)?.[line - 1];
  };
  const { colour } = options;
  return diagnostics
    .map((d) => {
      const where = d.location ? `${d.location.file}:${d.location.line}:${d.location.column}: ` : "codegen: ";
      let out = `${style(colour, "1", where)}${d.severity === "warning" ? style(colour, "1;33", "warning:") : style(colour, "1;31", "error:")} ${printableMessage(d.message)} ${style(colour, "2", `[${d.code}]`)}\n`;
      if (d.location) out += excerpt(d.location, lineAt(d.location), colour);
      for (const r of d.related ?? []) {
        out += `${r.location.file}:${r.location.line}:${r.location.column}: note: ${printableMessage(r.message)}\n`;
        out += excerpt(r.location, lineAt(r.location), colour);
      }
      return out;
    })
    .join("");
}

/** Characters of a long line shown on each side of the place. */
const WINDOW = 100;

/** The offending line and a caret line under it; nothing when the text is not at hand. */
function excerpt(location: SourceLocation, line: string | undefined, colour: boolean): string {
  if (line === undefined) return "";
  // A long line is shown as a window around the place, so the caret always has text above it.
  const from = location.column > WINDOW ? location.column - 1 - Math.floor(WINDOW / 2) : 0;
  const cut = line.slice(from, from + WINDOW * 2);
  // Tabs become single spaces so the caret lines up whatever the terminal's tab width.
  const shown = (from > 0 ? "…" : "") + printable(cut) + (from + WINDOW * 2 < line.length ? "…" : "");
  const gutter = String(location.line);
  const pad = " ".repeat(gutter.length);
  const start = Math.min(location.column - 1 - from + (from > 0 ? 1 : 0), shown.length);
  const width = Math.max(1, Math.min(location.length, shown.length - start));
  const caret = " ".repeat(start) + "^".repeat(width);
  return `  ${gutter} | ${shown}\n  ${pad} | ${style(colour, "1;31", caret)}\n`;
}

/**
 * Show control characters in a message as `\uXXXX`: messages quote names from the declaration,
 * and a hostile name must not move the cursor, clear the terminal or fake a line of the report.
 */
function printableMessage(message: string): string {
  return message.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Replace control characters so an excerpt cannot move the cursor or ring the bell. */
function printable(line: string): string {
  return line.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => (c === "\t" ? " " : "\uFFFD"));
}
