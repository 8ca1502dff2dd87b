/**
 * The printer's layout (print.ts) for the code the templates write themselves: a line longer
 * than WIDTH columns is broken at its first list (a call's arguments, a signature's parameters,
 * an import's, object's or array's members) one member per line, indented two spaces more than
 * the line, with a trailing comma; a line that makes and is still too long is broken again. Why
 * after rendering: a template line holds names of any length (`{{property}}Collection.update(...)`,
 * a list of every resource), so only the rendered line knows its width. A comment line, and a line
 * whose only lists are inside strings, are left as they are (a long string is never split).
 */
import { WIDTH } from "./print.js";

/** A list that opens and closes on one line, outside strings: its brackets' and top-level commas' positions. */
interface List {
  readonly open: number;
  readonly close: number;
  readonly commas: readonly number[];
}

const OPENERS: Readonly<Record<string, string>> = { "(": ")", "[": "]", "{": "}" };
const CLOSERS = new Set([")", "]", "}"]);
/** Words before a `(` that opens no argument list (a trailing comma would not parse there). */
const KEYWORDS = new Set(["if", "for", "while", "switch", "catch", "return", "typeof", "await", "void", "new", "in", "of", "as"]);

/** `text` with every line of code over WIDTH columns broken as the printer breaks a construct. */
export function breakLongLines(text: string): string {
  // Why line by line through indexOf, not split: the largest files (api.gen.ts, 8 MB at 1000
  // resources) have few long lines; a string per line, made while the run holds every file, was
  // 35 MB more at its peak. The text between long lines is kept as slices of it.
  const parts: string[] = [];
  let kept = 0;
  for (let start = 0; start <= text.length;) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline;
    if (end - start > WIDTH) {
      parts.push(text.slice(kept, start), broken(text.slice(start, end)));
      kept = end;
    }
    start = end + 1;
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(kept));
  return parts.join("");
}

/** One line, broken at its first list (and the lines that gives, again where still too long). */
function broken(line: string): string {
  const trimmed = line.trimStart();
  const indent = " ".repeat(line.length - trimmed.length);
  if (trimmed.startsWith("//") || trimmed.startsWith("*") || trimmed.startsWith("/*")) return wrappedComment(indent, trimmed);
  const found = firstList(line);
  if (found === undefined) return line;
  const list = hugged(line, found);
  const bounds = [list.open, ...list.commas, list.close];
  const members: string[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const member = line.slice(bounds[i]! + 1, bounds[i + 1]!).trim();
    if (member !== "") members.push(member);
  }
  // Why no comma after a rest element: a rest parameter may not have one.
  const lines = [
    line.slice(0, list.open + 1),
    ...members.map((member, i) => `${indent}  ${member}${i === members.length - 1 && member.startsWith("...") ? "" : ","}`),
    `${indent}${line.slice(list.close)}`,
  ];
  return lines.map((part) => (part.length > WIDTH ? broken(part) : part)).join("\n");
}

/**
 * A comment line over WIDTH columns as several, its words filled in up to WIDTH (a word longer
 * than a line stands alone): a one-line doc comment becomes a block, a block's line or a `//`
 * line more lines of the same kind. A comment of another shape is left as it is.
 */
function wrappedComment(indent: string, comment: string): string {
  const oneLine = /^\/\*\*\s(.*)\s\*\/$/.exec(comment);
  const [lead, words] = oneLine
    ? [`${indent} * `, oneLine[1]!]
    : comment.startsWith("// ")
      ? [`${indent}// `, comment.slice(3)]
      : comment.startsWith("* ") && !comment.includes("*/")
        ? [`${indent}* `, comment.slice(2)]
        : [undefined, ""];
  if (lead === undefined || words.includes("*/")) return `${indent}${comment}`;
  const lines: string[] = [];
  let current = "";
  for (const word of words.split(" ").filter((w) => w !== "")) {
    if (current !== "" && lead.length + current.length + 1 + word.length > WIDTH) {
      lines.push(lead + current);
      current = word;
    } else current = current === "" ? word : `${current} ${word}`;
  }
  if (current !== "") lines.push(lead + current);
  return oneLine ? [`${indent}/**`, ...lines, `${indent} */`].join("\n") : lines.join("\n");
}

/**
 * The list a long line (read from `from`) is broken at: the first one on the line (at its outer
 * level) with more than one member, else the first argument list with one; undefined where there
 * is none, or the line cannot be read safely (a string that does not close on it, a comment or
 * `/` after code).
 */
function firstList(line: string, from = 0): List | undefined {
  const lists: List[] = [];
  const stack: { open: number; commas: number[] }[] = [];
  for (let i = from; i < line.length; i++) {
    const c = line[i]!;
    if (c === '"' || c === "'" || c === "`") {
      const end = closingQuote(line, i);
      if (end === -1) return undefined;
      i = end;
    } else if (c === "/") return undefined;
    else if (Object.hasOwn(OPENERS, c)) stack.push({ open: i, commas: [] });
    else if (CLOSERS.has(c)) {
      const opened = stack.pop();
      if (opened === undefined || OPENERS[line[opened.open]!] !== c) return undefined;
      if (stack.length === 0 && breakable(line, opened.open, i)) lists.push({ open: opened.open, close: i, commas: opened.commas });
    } else if (c === "," && stack.length > 0) stack[stack.length - 1]!.commas.push(i);
  }
  return lists.find((list) => list.commas.length > 0) ?? lists.find((list) => line[list.open] === "(");
}

/**
 * The list to break for `list`: where it is a call's one argument that is itself an object or an
 * array (`memoryStore({ ... })`), that object or array, whose members are then one per line.
 */
function hugged(line: string, list: List): List {
  if (list.commas.length > 0 || line[list.open] !== "(") return list;
  const open = list.open + 1 + (line.slice(list.open + 1).length - line.slice(list.open + 1).trimStart().length);
  const inner = line[open] === "{" || line[open] === "[" ? firstList(line.slice(0, list.close), open) : undefined;
  return inner !== undefined && inner.open === open && line.slice(inner.close + 1, list.close).trim() === "" && inner.commas.length > 0 ? inner : list;
}

/** Whether a list may be broken: not empty, and a `(` only where it opens arguments or parameters (after a name or a call). */
function breakable(line: string, open: number, close: number): boolean {
  if (line.slice(open + 1, close).trim() === "") return false;
  if (line[open] !== "(") return true;
  const word = /([\w$]+)$/.exec(line.slice(0, open))?.[1];
  if (word !== undefined) return !KEYWORDS.has(word);
  return /[)\]>]$/.test(line.slice(0, open));
}

/** The index of the quote that closes the string opened at `start`, or -1 where it does not close on the line. */
function closingQuote(line: string, start: number): number {
  const quote = line[start]!;
  for (let i = start + 1; i < line.length; i++) {
    if (line[i] === "\\") i++;
    else if (quote === "`" && line[i] === "$" && line[i + 1] === "{") return -1;
    else if (line[i] === quote) return i;
  }
  return -1;
}
