/**
 * Generated code in its final layout without prettier (issue 14): the documents prettier builds
 * for the few constructs codegen lays out itself (object and array literals of data, the
 * statements that hold them, type literals), printed by a port of prettier's own printer
 * (printDocToString and fits, prettier 3, the version pinned in package.json). Prettier stays the
 * oracle: test/layout.test.ts checks every laid-out text against prettier.format byte for byte.
 *
 * Where this module is not sure of prettier's layout (a construct it does not build, a character
 * whose width it does not know) it throws `Unsure`; the caller then leaves the file to prettier.
 */

/** Thrown where the layout of a text is not known to be prettier's: that file is left to prettier. */
export class Unsure extends Error {}

/** A document of prettier's printer (the subset codegen builds). */
export type Doc = string | readonly Doc[] | Group | Indent | Align | Line | IfBreak | IndentIfBreak | LineSuffix | Table | Literal;
interface Group {
  readonly kind: "group";
  readonly contents: Doc;
  break: boolean;
  readonly id?: symbol;
  /** A group whose broken layout prettier makes otherwise than this module: breaking it is Unsure. */
  readonly flatOnly?: boolean;
}
interface Indent {
  readonly kind: "indent";
  readonly contents: Doc;
}
/** Contents `width` columns deeper after each line break (prettier's align with a number). */
interface Align {
  readonly kind: "align";
  readonly width: number;
  readonly contents: Doc;
}
/** Contents printed just before the next line break (prettier's lineSuffix: a trailing comment). */
interface LineSuffix {
  readonly kind: "lineSuffix";
  readonly contents: Doc;
}
interface Line {
  readonly kind: "line";
  readonly soft: boolean;
  readonly hard: boolean;
}
interface IfBreak {
  readonly kind: "ifBreak";
  readonly breakContents: Doc;
  readonly flatContents: Doc;
}
interface IndentIfBreak {
  readonly kind: "indentIfBreak";
  readonly contents: Doc;
  readonly groupId: symbol;
}
/**
 * A broken object or array literal (`open`, one member per line each followed by `,`, `close`),
 * prettier's group of `open`, `indent([softline-or-line, join([",", line], members.map(group))])`,
 * `ifBreak(",")`, a line and `close`, with `shouldBreak`. Why its own kind (issue 14): in a broken
 * literal each member starts a line and is followed by `,` and a line break, so its layout depends
 * on nothing around it; each member's doc is made from its item, printed and let go in turn, not
 * the whole tree of a table of a thousand resources held at once (hundreds of megabytes).
 */
interface Table {
  readonly kind: "table";
  readonly open: string;
  readonly close: string;
  readonly items: readonly unknown[];
  readonly member: (item: unknown) => Doc;
  /**
   * Where given, each member's text (before its `,`) at its indentation, printed straight from
   * its item as its doc would print (memberText, itemText): no doc, no measuring of one.
   */
  readonly text?: (item: unknown, indentation: number) => string;
}

/**
 * A non-empty object or array literal of JSON data (literalDoc): prettier's group for it, printed
 * from the value (flatText, brokenText) without the group's doc. Why its own kind (issue 14): the
 * flat text and width of a literal follow from its value, and so does its broken layout; building,
 * propagating and walking a group per member and nesting level of a thousand routes was most of a
 * large generate's time and garbage. `break`: the value holds a table, so the group always breaks.
 */
interface Literal {
  readonly kind: "literal";
  readonly value: object;
  readonly break: boolean;
}

/** prettier's `printWidth` and `tabWidth` (src/format/format.ts PRETTIER_OPTIONS). */
export const PRINT_WIDTH = 100;
const TAB_WIDTH = 2;

/** A group: flat if it fits in the rest of the line, else broken. */
export const group = (contents: Doc, options: { shouldBreak?: boolean; id?: symbol; flatOnly?: boolean } = {}): Doc => ({
  kind: "group",
  contents,
  break: options.shouldBreak === true,
  ...(options.id ? { id: options.id } : {}),
  ...(options.flatOnly ? { flatOnly: true } : {}),
});
/** Contents one indentation level deeper after each line break. */
export const indent = (contents: Doc): Doc => ({ kind: "indent", contents });
/** Contents `width` columns deeper after each line break. */
export const align = (width: number, contents: Doc): Doc => ({ kind: "align", width, contents });
/** Contents held back to just before the next line break. */
export const lineSuffix = (contents: Doc): Doc => ({ kind: "lineSuffix", contents });
/** A space, or a line break. */
export const line: Doc = { kind: "line", soft: false, hard: false };
/** Nothing, or a line break. */
export const softline: Doc = { kind: "line", soft: true, hard: false };
/** Always a line break (and every group around it breaks). */
export const hardline: Doc = { kind: "line", soft: false, hard: true };
/** `breakContents` when the enclosing group is broken, else `flatContents`. */
export const ifBreak = (breakContents: Doc, flatContents: Doc = ""): Doc => ({ kind: "ifBreak", breakContents, flatContents });
const indentIfBreak = (contents: Doc, groupId: symbol): Doc => ({ kind: "indentIfBreak", contents, groupId });
/** A broken literal of `items` between `open` and `close`, each member's doc made by `member` when printed (see Table). */
export const table = <T>(open: "{" | "[", items: readonly T[], member: (item: T) => Doc): Doc =>
  items.length === 0
    ? `${open}${open === "{" ? "}" : "]"}`
    : { kind: "table", open, close: open === "{" ? "}" : "]", items, member: member as (item: unknown) => Doc };

/** `items` with `separator` between each two. */
export function join(separator: Doc, items: readonly Doc[]): Doc[] {
  // Why a loop (issue 14): flatMap made an array per item of every type literal laid out.
  const joined: Doc[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i > 0) joined.push(separator);
    joined.push(items[i]!);
  }
  return joined;
}

const NARROW_ABOVE_ASCII = /^[\u00a0-\u00a8\u00aa-\u00ad\u00af-\u10ff\u2000-\u203b\u203d-\u2048\u204a-\u20cf]$/u;
const ZERO_WIDTH = /^[\p{Nonspacing_Mark}\p{Enclosing_Mark}]$/u;

/**
 * The width prettier gives a text (its getStringWidth), counted only up to `limit` (a text past the
 * line's end need not be measured to its end: the megabytes of document.gen.ts). ASCII is one
 * column each; of the rest, only characters whose width is known without Unicode's tables (below
 * U+1100, general punctuation, currency signs, none of them emoji) are measured, else Unsure.
 */
export function widthOf(text: string, limit = Infinity): number {
  // Why a probe of `limit + 1` characters (issue 14): testing the whole of a megabyte literal for
  // non-ASCII characters to learn that it is over a line long was a scan per measure.
  const end = text.length > limit + 1 ? limit + 1 : text.length;
  // Why a loop for short texts (issue 14): most pieces of a layout are a few characters long, where
  // a regular expression's call cost more than looking at each.
  if (end <= 32) {
    let i = 0;
    while (i < end && isPrintableAscii(text.charCodeAt(i))) i++;
    if (i === end) return end;
  } else if (!/[^\x20-\x7f]/.test(end === text.length ? text : text.slice(0, end))) return end;
  let width = 0;
  for (const character of text) {
    if (width > limit) return width;
    const code = character.codePointAt(0)!;
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f) || ZERO_WIDTH.test(character)) continue;
    if (code < 0x7f) width += 1;
    else if (NARROW_ABOVE_ASCII.test(character)) width += 1;
    else throw new Unsure(`the width of U+${code.toString(16)}`);
  }
  return width;
}

/** A character of one column that needs no closer look (widthOf's ASCII, `\x7f` as it was). */
const isPrintableAscii = (code: number) => code >= 0x20 && code <= 0x7f;

type Mode = "break" | "flat";
interface Command {
  readonly indentation: number;
  readonly mode: Mode;
  readonly doc: Doc;
}

/**
 * printDoc's commands to do, last first: three stacks of one entry each (its indentation, mode and
 * doc). Why not one object per command (issue 14): a command per doc printed, for every type and
 * literal laid out, was most of the layout's garbage and much of its time.
 */
interface Commands {
  readonly indentations: number[];
  readonly modes: Mode[];
  readonly docs: Doc[];
}

/** Marks every group that holds a hard line or a broken group as broken (prettier's propagateBreaks). */
function propagateBreaks(doc: Doc): boolean {
  if (typeof doc === "string") return false;
  if (Array.isArray(doc)) {
    // Every item is visited (each group in it is marked), not only up to the first that breaks.
    let breaks = false;
    for (const item of doc as readonly Doc[]) if (propagateBreaks(item)) breaks = true;
    return breaks;
  }
  const node = doc as Exclude<Doc, string | readonly Doc[]>;
  switch (node.kind) {
    case "line":
      return node.hard;
    case "table":
      // Its members are marked when each is printed; the table itself is broken.
      return true;
    case "literal":
      // Its group is made (and marked) only when it is printed broken.
      return node.break;
    case "group":
      if (propagateBreaks(node.contents)) node.break = true;
      return node.break;
    case "ifBreak": {
      const breaks = propagateBreaks(node.breakContents);
      return propagateBreaks(node.flatContents) || breaks;
    }
    default:
      return propagateBreaks(node.contents);
  }
}

/** Whether `next` in `nextMode` fits in `width` columns, followed by `rest` up to its first line break (prettier's fits). */
function fits(nextMode: Mode, next: Doc, rest: Commands, width: number): boolean {
  let restIndex = rest.docs.length;
  // Why two stacks of modes and docs, not one of objects (issue 14): an object per doc measured,
  // for every group of every type and literal laid out, was much of the layout's garbage.
  const modes: Mode[] = [nextMode];
  const docs: Doc[] = [next];
  while (width >= 0) {
    if (docs.length === 0) {
      if (restIndex === 0) return true;
      restIndex--;
      modes.push(rest.modes[restIndex]!);
      docs.push(rest.docs[restIndex]!);
      continue;
    }
    const mode = modes.pop()!;
    const doc = docs.pop()!;
    if (typeof doc === "string") {
      width -= widthOf(doc, width);
      continue;
    }
    if (Array.isArray(doc)) {
      for (let i = doc.length - 1; i >= 0; i--) {
        modes.push(mode);
        docs.push((doc as readonly Doc[])[i]!);
      }
      continue;
    }
    const node = doc as Exclude<Doc, string | readonly Doc[]>;
    switch (node.kind) {
      case "indent":
      case "align":
      case "indentIfBreak":
        modes.push(mode);
        docs.push(node.contents);
        break;
      case "lineSuffix":
        // Printed after the line's end: not measured (prettier's fits).
        break;
      case "group":
        modes.push(node.break ? "break" : mode);
        docs.push(node.contents);
        break;
      case "ifBreak":
        modes.push(mode);
        docs.push(mode === "break" ? node.breakContents : node.flatContents);
        break;
      case "line":
        if (mode === "break" || node.hard) return true;
        if (!node.soft) width -= 1;
        break;
      case "table":
        // Broken: its first line ends after `open`.
        return width - node.open.length >= 0;
      case "literal":
        // Broken, its group's first line ends after `{` or `[`; flat, it is its flat text.
        if (node.break || mode === "break") return width - 1 >= 0;
        width -= flatWidth(node.value, width);
        break;
    }
  }
  return false;
}

/**
 * The text of `doc` as prettier prints it, its first line starting at column `column` (the
 * text before it on that line is the caller's) and every line break indented by `indentation`
 * plus the doc's own indents. What follows the doc on its last line is taken to end there (a line
 * break, or nothing that can stay on the line: the caller puts `,` or `;` inside the doc).
 */
export function printDoc(doc: Doc, { indentation = 0, column = indentation }: { indentation?: number; column?: number } = {}): string {
  propagateBreaks(doc);
  const modes = new Map<symbol, Mode>();
  const out: string[] = [];
  let position = column;
  const commands: Commands = { indentations: [indentation], modes: ["break"], docs: [doc] };
  const { indentations, modes: commandModes, docs } = commands;
  const push = (ind: number, mode: Mode, next: Doc) => {
    indentations.push(ind);
    commandModes.push(mode);
    docs.push(next);
  };
  // Line suffixes waiting for the next line break (or the end), as prettier's printDocToString holds them.
  const suffixes: Command[] = [];
  const flushSuffixes = () => {
    for (const suffix of suffixes.splice(0).reverse()) push(suffix.indentation, suffix.mode, suffix.doc);
  };
  while (docs.length > 0 || suffixes.length > 0) {
    if (docs.length === 0) flushSuffixes();
    const ind = indentations.pop()!;
    const mode = commandModes.pop()!;
    const current = docs.pop()!;
    if (typeof current === "string") {
      out.push(current);
      // Past the line's end the exact column no longer matters (nothing more fits on the line).
      position += widthOf(current, PRINT_WIDTH - position + 1);
      continue;
    }
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) push(ind, mode, (current as readonly Doc[])[i]!);
      continue;
    }
    const node = current as Exclude<Doc, string | readonly Doc[]>;
    switch (node.kind) {
      case "indent":
        push(ind + TAB_WIDTH, mode, node.contents);
        break;
      case "align":
        push(ind + node.width, mode, node.contents);
        break;
      case "lineSuffix":
        suffixes.push({ indentation: ind, mode, doc: node.contents });
        break;
      case "group": {
        const chosen: Mode =
          mode === "flat" ? (node.break ? "break" : "flat") : !node.break && fits("flat", node.contents, commands, PRINT_WIDTH - position) ? "flat" : "break";
        if (chosen === "break" && node.flatOnly) throw new Unsure("a group laid out only flat does not fit");
        push(ind, chosen, node.contents);
        if (node.id) modes.set(node.id, chosen);
        break;
      }
      case "ifBreak":
        push(ind, mode, mode === "break" ? node.breakContents : node.flatContents);
        break;
      case "indentIfBreak":
        push(modes.get(node.groupId) === "break" ? ind + TAB_WIDTH : ind, mode, node.contents);
        break;
      case "line":
        if (mode === "flat" && !node.hard) {
          if (!node.soft) {
            out.push(" ");
            position += 1;
          }
          break;
        }
        if (suffixes.length > 0) {
          push(ind, mode, node);
          flushSuffixes();
          break;
        }
        // Why: prettier trims the spaces a line ends with (`key: ` before a broken union).
        trimEnd(out);
        out.push("\n" + " ".repeat(ind));
        position = ind;
        break;
      case "literal": {
        if (!node.break && (mode === "flat" || fits("flat", node, commands, PRINT_WIDTH - position))) {
          const text = flatText(node.value);
          out.push(text);
          position += widthOf(text, PRINT_WIDTH - position + 1);
          break;
        }
        out.push(brokenText(node.value, ind));
        position = ind + 1;
        break;
      }
      case "table": {
        out.push(node.open);
        const inner = ind + TAB_WIDTH;
        const pad = "\n" + " ".repeat(inner);
        for (const item of node.items)
          // Why joined with its `,` (issue 14): one flat text per member, not a rope of its every
          // piece held until the whole statement is joined (promoted garbage: the peak of a large run).
          out.push(pad, node.text ? [node.text(item, inner), ","].join("") : printDoc([group(node.member(item)), ","], { indentation: inner }));
        out.push("\n" + " ".repeat(ind), node.close);
        position = ind + node.close.length;
        break;
      }
    }
  }
  return out.join("");
}

/**
 * Drops the spaces at the end of the text printed so far (prettier's trim before a line break).
 * Why a look at the last character first (issue 14): most lines end without one, and a regular
 * expression's replace per line break was a string per line of every text laid out.
 */
function trimEnd(out: string[]): void {
  while (out.length > 0) {
    const last = out[out.length - 1]!;
    let end = last.length;
    while (end > 0 && isSpaceOrTab(last.charCodeAt(end - 1))) end--;
    if (end === last.length && end > 0) return;
    if (end > 0) {
      out[out.length - 1] = last.slice(0, end);
      return;
    }
    out.pop();
  }
}

const isSpaceOrTab = (code: number) => code === 0x20 || code === 0x09;

// ---------------------------------------------------------------------------------------------
// Literals of data (escape.ts `literal`), as prettier prints them.

/**
 * A string literal as prettier prints it: double quotes unless the text holds more `"` than `'`
 * (its getPreferredQuote), re-escaped as its makeString does. `raw` is the text between the quotes
 * of a JSON string literal (JSON.stringify's escaping, `\u2028` and `\u2029` escaped too): its
 * escapes are all ones makeString keeps, so in double quotes it is unchanged, and in single quotes
 * only `\"` loses its backslash and `'` gains one (a `\\` pair is skipped whole).
 */
export function printedString(raw: string): string {
  let doubles = 0;
  let singles = 0;
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code === 0x22) doubles++;
    else if (code === 0x27) singles++;
  }
  if (doubles <= singles) return `"${raw}"`;
  // Why two plain replaces, not one with a function per match (issue 14): document.gen.ts's JSON
  // holds a million `\"`, and a string per match was hundreds of megabytes of garbage. In JSON's
  // escaping a `'` is never escaped and a `"` always is (the last of an odd run of backslashes), so
  // `\'` then `\"` -> `"` leaves every `\\` pair whole.
  return `'${raw.replace(/'/g, "\\'").replace(/\\"/g, '"')}'`;
}

/**
 * A string value's literal as prettier prints it. Why the scan first (issue 14): most strings of
 * generated code are printable ASCII without quotes or backslashes, written as they are in double
 * quotes; only the others are escaped and re-quoted (printedString).
 */
function stringText(value: string): string {
  return plainStringText(value) ?? printedString(jsonString(value).slice(1, -1));
}

/** A string value's literal if the string is printable ASCII without `"` or `\` (written as it is, in double quotes), else undefined. */
function plainStringText(value: string): string | undefined {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) return undefined;
  }
  return `"${value}"`;
}

/** A string value as a literal in the text (JSON's escaping plus the two line separators, as escape.ts). */
const jsonString = (value: string) =>
  JSON.stringify(value)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");

/** An ES5 identifier prettier writes a key as, unquoted (ASCII only: others are Unsure). */
const UNQUOTED_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * An object key as prettier prints it with quoteProps "as-needed" and the TypeScript parser: an
 * identifier bare, anything else (numbers too) quoted; `__proto__` computed, as escape.ts writes it.
 */
export function printedKey(key: string): string {
  if (key === "__proto__") return '["__proto__"]';
  if (UNQUOTED_KEY.test(key)) return key;
  const raw = jsonString(key).slice(1, -1);
  // Why: prettier unquotes some non-ASCII names (ES5 identifiers) and not others; not guessed here.
  if (/[^\x00-\x7f]/.test(key) && raw === key) throw new Unsure("a non-ASCII key");
  return printedString(raw);
}

/** The doc of a JSON value as prettier prints escape.ts's `literal(value)`. */
export function literalDoc(value: unknown): Doc {
  if (value === null || typeof value !== "object") return scalarText(value);
  if (Array.isArray(value)) return arrayDoc(itemsOf(value));
  return hasMembers(value) ? { kind: "literal", value, break: breaksLiteral(value) } : "{}";
}

/** The text of a JSON scalar as prettier prints escape.ts's `literal(value)`. */
function scalarText(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return "null";
    // prettier's printNumber: lower case, no `+` in an exponent (JSON writes `1e+21`).
    return JSON.stringify(value).replace("e+", "e");
  }
  if (typeof value === "string") return stringText(value);
  throw new Unsure(`a ${typeof value} value`);
}

/** Whether a member of an object is written in its literal (JSON.stringify's rule: no undefined, function or symbol values). */
const isWritten = (item: unknown) => item !== undefined && typeof item !== "function" && typeof item !== "symbol";

/** The members of an object that its literal writes. */
function membersOf(value: object): [string, unknown][] {
  // Why a loop over the keys (issue 14): an entries array filtered into another was garbage per object of api.gen.ts.
  const members: [string, unknown][] = [];
  for (const key of Object.keys(value)) {
    const item: unknown = (value as Record<string, unknown>)[key];
    if (isWritten(item)) members.push([key, item]);
  }
  return members;
}

/** Whether an object's literal has a member (is not `{}`). */
function hasMembers(value: object): boolean {
  for (const key in value) if (Object.hasOwn(value, key) && isWritten((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** How many members an object's literal writes. */
function memberCount(value: object): number {
  let count = 0;
  for (const key in value) if (Object.hasOwn(value, key) && isWritten((value as Record<string, unknown>)[key])) count++;
  return count;
}

/** An array's items as a literal writes them (undefined and functions as null); the array itself when that changes none (no copy). */
function itemsOf(value: readonly unknown[]): readonly unknown[] {
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (item === undefined || typeof item === "function") return value.map((each: unknown) => (each === undefined || typeof each === "function" ? null : each));
  }
  return value;
}

/** Whether the value under `key` of an object literal is written `as const` (see escape.ts's literal). */
const isAsConst = (key: string, value: unknown) => key !== "__proto__" && Object.hasOwn(Object.prototype, key) && value !== null;

/** Whether prettier breaks an array literal: two or more objects (or arrays) of two or more members each. */
function breaksArray(items: readonly unknown[]): boolean {
  return (
    items.length > 1 &&
    items.every((item, i) => {
      if (item === null || typeof item !== "object") return false;
      const next = items[i + 1];
      if (next !== undefined && (next === null || typeof next !== "object" || Array.isArray(next) !== Array.isArray(item))) return false;
      return (Array.isArray(item) ? item.length : memberCount(item as object)) > 1;
    })
  );
}

/**
 * Whether a value's literal holds a table (an array prettier always breaks), so that its group and
 * every group around it break. Asked of a whole value once where it is laid out (literalDoc), and
 * within a broken literal only of members that would fit flat (short by then: no walk of a subtree twice).
 */
function hasTable(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return breaksArray(itemsOf(value)) || value.some(hasTable);
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item: unknown = (value as Record<string, unknown>)[key];
    if (isWritten(item) && hasTable(item)) return true;
  }
  return false;
}

/**
 * Whether a literal's group is marked broken: it holds a table. Why asked only of a literal that is
 * no wider than a line flat (issue 14): one wider is never printed flat and every group around it
 * breaks with or without the mark (fits measures it flat, past the line's end), so the answer
 * changes nothing there; the walk of every route of api.gen.ts for tables was most of its layout.
 */
const breaksLiteral = (value: object): boolean => flatWidth(value, PRINT_WIDTH) <= PRINT_WIDTH && hasTable(value);

/**
 * The width of a value's literal printed flat, counted only until it is over `budget` (a literal
 * wider than the rest of the line is not measured to its end).
 */
function flatWidth(value: unknown, budget: number): number {
  if (value === null || typeof value !== "object") return widthOf(scalarText(value), budget);
  if (Array.isArray(value)) {
    let width = 2;
    for (let i = 0; i < value.length && width <= budget; i++) {
      const item: unknown = value[i];
      width += (i === 0 ? 0 : 2) + (item === undefined || typeof item === "function" ? 4 : flatWidth(item, budget - width));
    }
    return width;
  }
  if (!hasMembers(value)) return 2;
  // `{ ` and ` }`, `key: value` and `, ` between.
  let width = 4;
  let first = true;
  for (const key of Object.keys(value)) {
    if (width > budget) break;
    const item: unknown = (value as Record<string, unknown>)[key];
    if (!isWritten(item)) continue;
    width += (first ? 0 : 2) + widthOf(printedKey(key), budget - width) + 2 + (isAsConst(key, item) ? 9 : 0);
    first = false;
    if (width <= budget) width += flatWidth(item, budget - width);
  }
  return width;
}

/** A value's literal printed flat (`{ a: [1, "b"] }`), as prettier prints a group that fits. */
function flatText(value: unknown): string {
  if (value === null || typeof value !== "object") return scalarText(value);
  if (Array.isArray(value)) {
    const items = itemsOf(value);
    if (items.length === 0) return "[]";
    if (items.every((item) => typeof item === "number")) throw new Unsure("an array of numbers");
    return `[${items.map(flatText).join(", ")}]`;
  }
  const members = membersOf(value);
  if (members.length === 0) return "{}";
  return `{ ${members.map(([key, item]) => `${printedKey(key)}: ${flatText(item)}${isAsConst(key, item) ? " as const" : ""}`).join(", ")} }`;
}

/**
 * A value's literal (a non-empty object or array) printed broken, its `{` or `[` where the line
 * stands and its members each on a line `indentation + 2` deep: what printDoc makes of the group
 * literalDoc stands for once it does not fit (or holds a table). Why printed directly, not from a
 * doc (issue 14): a broken member is followed by `,` and a line break, so its layout is known
 * from its own width and kind alone (see lay); the docs of api.gen.ts's routes were most of a
 * large generate's time and garbage.
 */
function brokenText(value: object, indentation: number): string {
  fitCount = 0;
  // No room: no flat text is made, and each member is laid as on a line of its own.
  lay(value, indentation, -1);
  return laidOther;
}

/** An item of a broken array at `indentation` (before its `,`): flat where it fits with the `,`, else broken. */
function itemText(item: unknown, indentation: number): string {
  fitCount = 0;
  return lay(item, indentation, PRINT_WIDTH - indentation - 1) ?? laidOther;
}

/** A member `key: value` of a broken object at `indentation` (before its `,`): see layMember. */
function memberText(key: string, item: unknown, indentation: number, plain = false): string {
  fitCount = 0;
  return layMember(key, item, indentation, plain) ?? laidOther;
}

/** The width of the flat text lay or layMember last returned (a second result without an object per call). */
let laidWidth = 0;
/** The text lay or layMember last made where the flat one did not fit: a group broken, a scalar as it is, a member's lines. */
let laidOther = "";
/** How many members or items the group lay last laid has (0: `{}` or `[]`). */
let laidCount = 0;

/**
 * The flat texts of the members laid so far of each group being laid whose flat text may still
 * fit, one stack for all (each group's above the mark it took): its broken text is made from them
 * only once the flat one is given up. Why (issue 14): most groups fit flat, and the broken text
 * made beside each of them was thrown away; an array per group would be as much garbage. Emptied
 * where a layout starts (brokenText, itemText, memberText): Unsure may leave it as it was.
 */
const fitMembers: string[] = new Array<string>(64).fill("");
/**
 * How many entries of fitMembers are in use. Why a count, not the array's length, and the array
 * made with room (issue 14): setting its length changed its map, and storing past its end was out
 * of bounds; each threw lay's optimized code away.
 */
let fitCount = 0;

/**
 * A value's literal where it starts on a line of a broken literal (after its `key: `, or as an
 * item) whose lines are `indentation` deep, with `room` columns left for it (its `,` and any
 * `as const` taken off): its flat text (flatText) if it fits (its width in laidWidth), else
 * undefined, and then in laidOther the group broken (`{` or `[` where the line stands, each member
 * on a line `indentation + 2` deep) or the scalar's text. A group holding a table never fits.
 *
 * Why one walk, members first (issue 14): a group's flat text is its members' flat texts joined,
 * and its broken text their lines; a group that fits its line has members that fit theirs (each
 * has at least as much room there), so each member is laid once, where it would break to, and
 * serves both. Measuring each group flat from the top, then each of its members again where it
 * broke, went over the start of every route of api.gen.ts once per level of nesting.
 *
 * A scalar is measured only as far as a decision needs (a character of unknown width past that is
 * not Unsure): as a member, up to its room; as an item, only while its array may still be flat.
 */
function lay(value: unknown, indentation: number, room: number): string | undefined {
  if (value === null || typeof value !== "object") return fittingScalar(value, room);
  // Why a function for each (issue 14): arrays and objects meet other shapes; one function for both
  // was thrown out of its optimized code each time either met a new one.
  return Array.isArray(value) ? layArray(value, indentation, room) : layObject(value, indentation, room);
}

/** lay of an array. */
function layArray(value: readonly unknown[], indentation: number, room: number): string | undefined {
  const inner = indentation + TAB_WIDTH;
  const mark = fitCount;
  // While the flat text may fit: its width so far (with `[]`), its items on fitMembers; once it
  // cannot, the broken text so far (brokenSoFar).
  let width = 2;
  let fits = room >= width;
  let broken: string | undefined;
  const itemRoom = PRINT_WIDTH - inner - 1;
  let numbers = true;
  // prettier's breaksArray: two or more objects (or arrays), of two or more members each.
  let table = value.length > 1;
  let firstIsArray = false;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    const separator = i === 0 ? 0 : 2;
    let itemFlat: string | undefined;
    let line: string;
    if (item !== null && typeof item === "object") {
      numbers = false;
      itemFlat = lay(item, inner, itemRoom);
      line = itemFlat ?? laidOther;
      if (i === 0) firstIsArray = Array.isArray(item);
      if (laidCount < 2 || Array.isArray(item) !== firstIsArray) table = false;
    } else {
      if (typeof item !== "number") numbers = false;
      table = false;
      // As JSON writes it (itemsOf): undefined and functions as null.
      const json = item === undefined || typeof item === "function" ? null : item;
      itemFlat = fits ? fittingScalar(json, room - width - separator) : undefined;
      line = itemFlat ?? (fits ? laidOther : scalarText(json));
    }
    if (fits && itemFlat !== undefined && width + separator + laidWidth <= room) {
      width += separator + laidWidth;
      fitMembers[fitCount++] = itemFlat;
      continue;
    }
    broken = broken === undefined ? brokenSoFar("[", inner, mark, line) : broken + (commaPadOf(inner) + line);
    fits = false;
  }
  const count = value.length;
  if (numbers && count > 0) throw new Unsure("an array of numbers");
  if (table && broken === undefined) broken = brokenSoFar("[", inner, mark);
  laidCount = count;
  if (broken !== undefined) {
    laidOther = broken + commaPadOf(indentation) + "]";
    return undefined;
  }
  if (count === 0) return fitting("[]", room);
  let flat = "[";
  for (let i = mark; i < fitCount; i++) flat += i === mark ? fitMembers[i]! : ", " + fitMembers[i]!;
  fitCount = mark;
  laidWidth = width;
  return flat + "]";
}

/** lay of an object. */
function layObject(value: object, indentation: number, room: number): string | undefined {
  const inner = indentation + TAB_WIDTH;
  const mark = fitCount;
  // As layArray's, with `{  }`.
  let width = 4;
  let fits = room >= width;
  let broken: string | undefined;
  let count = 0;
  // Why the keys' array, not `for in` (issue 14): `for in` asks each key whether it is the object's own.
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item: unknown = (value as Record<string, unknown>)[key];
    if (!isWritten(item)) continue;
    const separator = count === 0 ? 0 : 2;
    count++;
    const memberFlat = layMember(key, item, inner);
    if (fits && memberFlat !== undefined && width + separator + laidWidth <= room) {
      width += separator + laidWidth;
      fitMembers[fitCount++] = memberFlat;
      continue;
    }
    const line = memberFlat ?? laidOther;
    broken = broken === undefined ? brokenSoFar("{", inner, mark, line) : broken + (commaPadOf(inner) + line);
    fits = false;
  }
  laidCount = count;
  if (broken !== undefined) {
    laidOther = broken + commaPadOf(indentation) + "}";
    return undefined;
  }
  if (count === 0) return fitting("{}", room);
  let flat = "{ ";
  for (let i = mark; i < fitCount; i++) flat += i === mark ? fitMembers[i]! : ", " + fitMembers[i]!;
  fitCount = mark;
  laidWidth = width;
  return flat + " }";
}

/**
 * The broken text of a group so far: its `{` or `[`, then the members whose flat texts are on
 * fitMembers above `mark` (taken off) and `line`, each on a line `inner` deep, `,` between them
 * (its last `,` comes with its end).
 */
function brokenSoFar(open: string, inner: number, mark: number, line?: string): string {
  const between = commaPadOf(inner);
  let broken = open + padOf(inner);
  for (let i = mark; i < fitCount; i++) broken += i === mark ? fitMembers[i]! : between + fitMembers[i]!;
  if (line !== undefined) broken += fitCount === mark ? line : between + line;
  fitCount = mark;
  return broken;
}

/** A scalar's literal (scalarText) if it fits in `room`, as `fitting`. */
function fittingScalar(value: unknown, room: number): string | undefined {
  const plain = typeof value === "string" ? plainStringText(value) : undefined;
  if (plain === undefined && typeof value === "string") return fitting(scalarText(value), room);
  // Why not measured (issue 14): a plain string's literal, a number's, `null`, `true` and `false`
  // are printable ASCII, a column each; measuring each scalar again was much of api.gen.ts's layout.
  const text = plain ?? scalarText(value);
  laidOther = text;
  if (text.length > room) return undefined;
  laidWidth = text.length;
  return text;
}

/** `text` if its width is within `room` (the width in laidWidth; measured only so far), else undefined and `text` in laidOther. */
function fitting(text: string, room: number): string | undefined {
  laidOther = text;
  const width = widthOf(text, room);
  if (width > room) return undefined;
  laidWidth = width;
  return text;
}

/** A line break and `indentation` spaces, made once for each indentation. */
const pads: string[] = [];
const padOf = (indentation: number): string => (pads[indentation] ??= "\n" + " ".repeat(indentation));
/** `,`, a line break and `indentation` spaces: between the lines of a broken group, and after its last. */
const commaPads: string[] = [];
const commaPadOf = (indentation: number): string => (commaPads[indentation] ??= "," + padOf(indentation));

/** A key as printed (printedKey) and followed by `: `, its width, and whether a value under it is written `as const` (isAsConst). */
interface KeyLayout {
  readonly printed: string;
  readonly prefix: string;
  readonly width: number;
  readonly asConst: boolean;
}
/** The keys met, laid out once each (api.gen.ts's routes have the same few keys each). */
const keyLayouts = new Map<string, KeyLayout>();
function keyLayout(key: string): KeyLayout {
  let known = keyLayouts.get(key);
  if (known === undefined) {
    const printed = printedKey(key);
    known = { printed, prefix: `${printed}: `, width: widthOf(printed, PRINT_WIDTH), asConst: isAsConst(key, true) };
    // Why a bound: a long-lived process lays out many documents' keys.
    if (keyLayouts.size >= 10_000) keyLayouts.clear();
    keyLayouts.set(key, known);
  }
  return known;
}

/**
 * `key: value` of a broken object at `indentation` (before its `,`), as printDoc prints
 * `[group(propertyDoc(key, value)), ","]` there, by lay's convention: its flat text where it fits,
 * else undefined and its lines in laidOther, by propertyDoc's kind of right side (assignmentDoc).
 * What does not fit flat as a whole does not fit after its key either (the same widths), so each
 * kind has one broken layout but "other" with a long key.
 */
function layMember(key: string, item: unknown, indentation: number, plain = false): string | undefined {
  // `plain`: no `as const` (propertyDoc's option).
  if (plain && key === "__proto__") throw new Unsure("a plain __proto__ key");
  const { printed, prefix, width: keyWidth, asConst } = keyLayout(key);
  const suffix = !plain && asConst && item !== null ? " as const" : "";
  const budget = PRINT_WIDTH - indentation;
  const flat = lay(item, indentation, budget - keyWidth - 2 - suffix.length - 1);
  if (flat !== undefined) {
    laidWidth += keyWidth + 2 + suffix.length;
    return suffix === "" ? prefix + flat : prefix + flat + suffix;
  }
  // The value broken at this indentation, or a scalar's text (`{}` and `[]` too).
  const right = laidOther;
  const group = item !== null && typeof item === "object" && laidCount > 0;
  const never = keyWidth < TAB_WIDTH + 3 || (!suffix && ((typeof item === "number" && !Object.is(Math.sign(item), -1)) || typeof item === "boolean"));
  const inner = indentation + TAB_WIDTH;
  if (never || (group && keyWidth + 3 <= budget)) laidOther = prefix + right + suffix;
  // "string" and "other" with a text: the value on its own line, one level deeper.
  else if (!group) laidOther = `${printed}:\n${" ".repeat(inner)}${right}${suffix}`;
  else {
    // "other" with a group and a key too long for `key: {` (rare: the group laid again, one level deeper):
    // the group on its own line, flat if it fits there.
    const alone = lay(item, inner, budget - TAB_WIDTH - suffix.length - 1) ?? laidOther;
    laidOther = `${printed}:\n${" ".repeat(inner)}${alone}${suffix}`;
  }
  return undefined;
}

/**
 * An object literal: `{ a, b }` flat, else one member per line with a trailing comma. `broken`:
 * written with a line break after its `{`, which prettier keeps (a template's table).
 */
export function objectDoc(members: readonly Doc[], broken = false): Doc {
  if (members.length === 0) return "{}";
  if (broken) return table("{", members, (member) => member);
  return group(
    [
      "{",
      indent([
        line,
        ...join(
          [",", line],
          members.map((member) => group(member)),
        ),
      ]),
      ifBreak(","),
      line,
      "}",
    ],
    { shouldBreak: broken },
  );
}

/** An array literal; prettier breaks one of two or more objects (or arrays) of two or more members each. */
export function arrayDoc(items: readonly unknown[]): Doc {
  if (items.length === 0) return "[]";
  // Why: prettier fills an array of numbers (several per line); that layout is not built here.
  if (items.every((item) => typeof item === "number")) throw new Unsure("an array of numbers");
  // Why each item's text straight from its value (issue 14): the docs of api.gen.ts's routes, made,
  // measured and printed one by one, were most of its layout.
  if (breaksArray(items)) return { ...(table("[", items, literalDoc) as Table), text: itemText };
  return { kind: "literal", value: items, break: breaksLiteral(items) };
}

/**
 * A broken object literal of `key: value` members of JSON data, each as propertyDoc lays it out,
 * printed straight from the values (memberText: no doc per member).
 */
export const propertyTable = (entries: readonly (readonly [key: string, value: unknown])[], { plain = false }: { plain?: boolean } = {}): Doc =>
  entries.length === 0
    ? "{}"
    : {
        kind: "table",
        open: "{",
        close: "}",
        items: entries,
        member: (entry) => propertyDoc(...(entry as readonly [string, unknown]), { plain }),
        text: (entry, indentation) => memberText(...(entry as readonly [string, unknown]), indentation, plain),
      };

/**
 * `key: "..."` of an object literal whose value is a string literal already written (JSON's
 * escaping: `stringLiteral` of escape.ts): re-quoted as prettier does, the text not decoded
 * (document.gen.ts's literals are megabytes).
 */
export function stringPropertyDoc(key: string, literalText: string): Doc {
  const printed = printedKey(key);
  const value = printedString(literalText.slice(1, -1));
  return assignmentDoc(printed, ":", value, widthOf(printed) < TAB_WIDTH + 3 ? "never" : "string");
}

/** How the right side of an assignment may break after its `:` or `=` (see assignmentDoc). */
type RightKind = "string" | "never" | "other";

/** `key: value` of an object literal (escape.ts `literalAt`), with prettier's layout after the colon (its printAssignment). */
export function propertyDoc(key: string, value: unknown, { plain = false }: { plain?: boolean } = {}): Doc {
  // `plain`: the key written as a string literal and no `as const` (a template's `{{collectionLiteral}}: {{spec}}`).
  if (plain && key === "__proto__") throw new Unsure("a plain __proto__ key");
  const printed = printedKey(key);
  const asConst = !plain && key !== "__proto__" && Object.hasOwn(Object.prototype, key) && value !== null;
  const doc = literalDoc(value);
  // Why: prettier does not move the value of a key narrower than tabWidth + 3 to its own line,
  // nor a number (a negative one is `-` applied to it: not a number literal) or a boolean; a string (not `"x" as const`) goes to its own line first.
  const never =
    widthOf(printed) < TAB_WIDTH + 3 || (!asConst && ((typeof value === "number" && !Object.is(Math.sign(value), -1)) || typeof value === "boolean"));
  const kind = never ? "never" : !asConst && typeof value === "string" ? "string" : "other";
  return assignmentDoc(printed, ":", asConst ? [doc, " as const"] : doc, kind);
}

/**
 * prettier's printAssignment for the layouts codegen meets: "break-after-operator" (a string
 * value), "never-break-after-operator" (short keys, numbers, booleans) and "fluid" (the rest).
 */
export function assignmentDoc(left: Doc, operator: string, right: Doc, kind: RightKind): Doc {
  if (kind === "string") return group([group(left), operator, group(indent([line, right]))]);
  if (kind === "never") return group([group(left), operator, " ", right]);
  const id = Symbol("assignment");
  return group([group(left), operator, group(indent(line), { id }), indentIfBreak(right, id)]);
}

/** A type literal of one-line members (`{ readonly [name: string]: T }`), as prettier prints it. */
export function typeLiteralDoc(members: readonly string[]): Doc {
  if (members.length === 0) return "{}";
  return group(["{", indent([line, ...join([";", line], members)]), ifBreak(";"), line, "}"]);
}

/**
 * `export const name: type = value;` (or `... = value satisfies type;`), as prettier prints the
 * declaration: `left` is the name with its annotation, `value` the initializer's doc.
 */
export function constStatement(left: Doc, value: Doc, kind: RightKind = "other"): string {
  // Why the left side's own group: prettier's printAssignment groups it (a type literal in its annotation breaks on its own).
  return printDoc(group(["export const ", assignmentDoc(left, " =", value, kind), ";"]));
}

/**
 * A statement in its final layout, or, where the layout is not sure (`Unsure`), the text
 * `fallback` gives (prettier then lays it out) and `sure` false: its file is left to prettier.
 */
export function laidOut(make: () => string, fallback: () => string): { readonly text: string; readonly sure: boolean } {
  try {
    return { text: make(), sure: true };
  } catch (error) {
    if (!(error instanceof Unsure)) throw error;
    return { text: fallback(), sure: false };
  }
}

/**
 * Whether every line of a text fits in the line width (prettier's measure; a character of unknown
 * width does not fit). A template written in prettier's own layout (every group flat but those
 * prettier always breaks: objects broken after their `{`, bodies, lists too long whatever the
 * names) renders prettier's layout exactly when every line of code fits: names change only the widths.
 */
export function linesFit(text: string): boolean {
  try {
    // Why comment lines may be longer: prettier prints a comment as written, and a comment line
    // (`//`, `/*`, ` * ` of a block: no string literal spans lines) holds no code.
    return text.split("\n").every((line) => /^\s*(\/\/|\/\*|\*)/.test(line) || widthOf(line, PRINT_WIDTH) <= PRINT_WIDTH);
  } catch (error) {
    if (error instanceof Unsure) return false;
    throw error;
  }
}

/** A JSON value as prettier prints it on one line (its flat layout: `["a", "b"]`, `{ a: 1 }`). */
export function flatLiteral(value: unknown): string {
  return printDoc(literalDoc(value), { column: -Infinity });
}

const ARROW_PROPERTY = /^( +)([A-Za-z_$][\w$]*): (\([^()]*\)) => ([^{[(].*),$/;
const NEW_COLLECTION = /^( +)const ([A-Za-z_$][\w$]*) = new ([A-Za-z_$][\w$]*)\(([^()]*)\);$/;
const SIMPLE_ARGUMENT = /^[A-Za-z_$][\w$]*(\["[^"\\]*"\]!?)?$/;
const IMPORT_LIST = /^import (type )?\{ ([A-Za-z_$][\w$]*(?:, [A-Za-z_$][\w$]*)*) \} from ("[^"\\]*");$/;
const CALL_OF_ONE_NAME = /^([A-Za-z_$][\w$.]*)\(([A-Za-z_$][\w$.]*(?: as [A-Za-z_$][\w$.]*)?)\)$/;
const METHOD_SIGNATURE = /^( +)([A-Za-z_$][\w$]*)\(([A-Za-z_$][\w$]*: [A-Za-z_$][\w$.]*)\): ([A-Za-z_$][\w$.]*(?:<[A-Za-z_$][\w$.]*>)?);$/;

/**
 * The long lines of the stores' and the operations' templates, broken as prettier breaks them when they do not fit
 * (a line still too long after fails linesFit, and its file goes to prettier):
 * - `key: (params) => body,` breaks after the arrow, the body one indentation deeper, and a body
 *   `f(name as Type)` still too long there then puts its argument on its own line;
 * - `const x = new C(a, b["k"], c["k"]!);` puts one argument per line;
 * - `import type { A, B } from "./x.js";` puts one name per line;
 * - `name(input: Input): Awaitable<Result>;` (a method of an interface) puts its parameter on its own line.
 */
export function breakLongLines(text: string): string {
  /** A line's width (past the line width: not measured further), NaN where a character's width is not known. */
  const knownWidth = (line: string): number => {
    try {
      return widthOf(line, PRINT_WIDTH);
    } catch (error) {
      if (error instanceof Unsure) return NaN;
      throw error;
    }
  };
  return text
    .split("\n")
    .map((line) => {
      // Why: a line of a character of unknown width (an emoji in a comment) is left as it is, and
      // linesFit then judges it (a comment may be long; code of unknown width sends the file to prettier).
      if (!(knownWidth(line) > PRINT_WIDTH)) return line;
      const imported = IMPORT_LIST.exec(line);
      if (imported)
        return `import ${imported[1] ?? ""}{\n${imported[2]!
          .split(", ")
          .map((name) => `  ${name},\n`)
          .join("")}} from ${imported[3]};`;
      // Why: prettier's one parameter (not an object type) breaks out of its parentheses, with a
      // trailing comma; a return type of names only cannot break.
      const method = METHOD_SIGNATURE.exec(line);
      if (method) return `${method[1]}${method[2]}(\n${method[1]}  ${method[3]},\n${method[1]}): ${method[4]};`;
      const arrow = ARROW_PROPERTY.exec(line);
      if (arrow) {
        const [, pad, key, params, body] = arrow;
        const call = CALL_OF_ONE_NAME.exec(body!);
        // Why: prettier's printCallArguments breaks a lone argument that is not an object, array or function out of its parentheses.
        if (call && knownWidth(`${pad}  ${body},`) > PRINT_WIDTH) return `${pad}${key}: ${params} =>\n${pad}  ${call[1]}(\n${pad}    ${call[2]},\n${pad}  ),`;
        return `${pad}${key}: ${params} =>\n${pad}  ${body},`;
      }
      const created = NEW_COLLECTION.exec(line);
      const args = created?.[4]!.split(", ");
      if (created && args!.every((arg) => SIMPLE_ARGUMENT.test(arg)))
        return `${created[1]}const ${created[2]} = new ${created[3]}(\n${args!.map((arg) => `${created[1]}  ${arg},\n`).join("")}${created[1]});`;
      return line;
    })
    .join("\n");
}
