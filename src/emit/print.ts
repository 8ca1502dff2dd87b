/**
 * The one printer of generated code: literals (JSON values as TypeScript), type expressions and
 * the declarations made of them, in codegen's own layout (docs/cli.md, "Code in codegen's own
 * layout"): a construct is printed flat when it fits in WIDTH columns, otherwise one member per
 * line, indented two spaces more than the line it opens on. Deterministic: the same value or type
 * prints the same text. Escaping is escape.ts's (no name or string leaves its literal, no text
 * leaves its comment); this module only lays out.
 */
import { propertyKey, stringLiteral, templateText } from "../model/escape.js";
import type { Member, TypeExpr } from "../model/type-expr.js";
import type { JsonListener } from "../model/api-model.js";

/** The width lines are kept within where the content allows (a long string is never split). */
export const WIDTH = 100;

const pad = (indent: number) => " ".repeat(indent);

/** Whether `text` fits on the current line from `column`, leaving `tail` columns for what follows it. */
const fits = (text: string, column: number, tail: number) => column + text.length + tail <= WIDTH && !text.includes("\n");

/** The column after the last line of `text`, started at `column`. */
function endColumn(text: string, column: number): number {
  const newline = text.lastIndexOf("\n");
  return newline === -1 ? column + text.length : text.length - newline - 1;
}

// ---------------------------------------------------------------------------------------------
// Literals

/**
 * A JSON value as a TypeScript literal, on a line indented `indent` whose text so far ends at
 * `column`, with `tail` columns needed after it (a `,` or `;`). Keys are bare where they are
 * identifiers (propertyKey); `__proto__` is computed, so it defines a property and not the
 * prototype; a value under a name Object.prototype has is `as const`, because TypeScript types
 * such a property by Object's member, not by the index signature it belongs to. Members that are
 * `undefined` or functions are left out, as JSON.stringify leaves them.
 */
export function printLiteral(value: unknown, indent = 0, column = indent, tail = 0): string {
  const out = new TextBuffer();
  writeLiteral(out, value, indent, column, tail);
  return out.text();
}

/**
 * The text of a literal as it is printed, in one buffer. Why: joining each member's lines into its
 * parent's text copied every line once per level of nesting; and holding every piece until the end
 * held millions of small strings. Pieces are joined a few thousand at a time into chunks, the
 * chunks concatenated at the end. Why concatenated and not joined: the file that holds a literal is one string made by its
 * template around it, so V8 copies the literal into that once anyway; a join copied it once more
 * first, at the run's peak of memory.
 */
class TextBuffer {
  /**
   * The pieces of the next chunk, `count` of them. Why an array of a fixed length written by
   * index: one grown by push and emptied at each chunk made its storage anew each time, more
   * garbage than the text itself.
   */
  private readonly pieces: string[] = [];
  private count = 0;
  private readonly chunks: string[] = [];
  /** Each indentation, made once (a large literal indents a million lines). */
  private readonly pads: string[] = [];

  add(piece: string): void {
    this.pieces[this.count++] = piece;
    if (this.count === CHUNK) this.flush();
  }

  private flush(): void {
    const chunk = (this.count === CHUNK ? this.pieces : this.pieces.slice(0, this.count)).join("");
    this.count = 0;
    this.chunks.push(chunk);
  }

  pad(indent: number): string {
    return (this.pads[indent] ??= pad(indent));
  }

  text(): string {
    this.flush();
    return this.chunks.reduce((text, chunk) => text + chunk);
  }
}

/** How many pieces a chunk of a TextBuffer joins. */
const CHUNK = 4096;

/**
 * printLiteral's work, adding the text to `out` piece by piece: on one line (`[a, b]`, `{ k: v }`)
 * where flatWidth finds it fits, and then every member too, else one member per line.
 */
function writeLiteral(out: TextBuffer, value: unknown, indent: number, column: number, tail: number, flat = false): void {
  if (typeof value !== "object" || value === null) {
    out.add(scalar(value));
    return;
  }
  flat ||= flatWidth(value, WIDTH - column - tail) !== -1;
  const inner = indent + 2;
  // Broken, each member stands after the inner indentation and before `,` and a line end.
  const innerPad = flat ? "" : out.pad(inner);
  if (Array.isArray(value)) {
    out.add(flat ? "[" : "[\n");
    for (let i = 0; i < value.length; i++) {
      if (!flat) out.add(innerPad);
      else if (i > 0) out.add(", ");
      writeLiteral(out, arrayItem(value[i]), inner, inner, 1, flat);
      if (!flat) out.add(",\n");
    }
    if (!flat) out.add(out.pad(indent));
    out.add("]");
    return;
  }
  out.add(flat ? "{" : "{\n");
  let count = 0;
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (!Object.hasOwn(value, key) || !isJson(item)) continue;
    const name = propertyKey(key);
    const suffix = asConst(key, item) ? AS_CONST : "";
    out.add(flat ? (count++ === 0 ? " " : ", ") : innerPad);
    out.add(name);
    out.add(": ");
    writeLiteral(out, item, inner, inner + name.length + 2, suffix.length + 1, flat);
    if (suffix !== "") out.add(suffix);
    if (!flat) out.add(",\n");
  }
  if (!flat) out.add(out.pad(indent));
  out.add(flat && count > 0 ? " }" : "}");
}

/**
 * A large JSON document (the served OpenAPI document, document.gen.ts) as a template literal of
 * its JSON text, laid out for size and for diffs rather than for reading (openapi.yaml is the
 * readable copy): the values of its first DOCUMENT_DEPTH levels one member per line, indented two
 * spaces a level, and each value below them (an operation, a schema) its JSON.stringify text,
 * wrapped after a comma to stay within WIDTH columns (a long string is never split), its further
 * lines indented as its first. A change to one operation or schema changes that value's lines only.
 * Why not laid out as code: that text was half indentation, printed a member at a time; this one
 * is made by JSON.stringify, and everything after the printer (escaping, tidy, the manifest's
 * hashes, writing) reads a third less of it.
 */
export function jsonDocumentLiteral(document: unknown, json: JsonListener = NO_LISTENER): string {
  const out = new TextBuffer();
  writeJsonDocument(out, json, document, 0, 0);
  json.end();
  return `\`${out.text()}\``;
}

const NO_LISTENER: JsonListener = { add: () => undefined, end: () => undefined };

/** The levels of a JSON document printed one member per line (the document, `paths`, a path item). */
const DOCUMENT_DEPTH = 3;

/**
 * jsonDocumentLiteral's work for `value` at `depth` (indented two spaces a level) from `column`;
 * `tail`: the `,` after it. `json` is told the value's compact JSON text as it goes.
 */
function writeJsonDocument(out: TextBuffer, json: JsonListener, value: unknown, depth: number, column: number, tail = 0): void {
  const indent = 2 * depth;
  if (depth >= DOCUMENT_DEPTH || typeof value !== "object" || value === null) {
    const text = JSON.stringify(value) ?? "null";
    json.add(text);
    // Escaped before it is wrapped: its columns are then the literal's own.
    wrapJson(out, templateText(text), indent, column, tail);
    return;
  }
  // JSON.stringify's members: an array's unwritable items are `null`, an object's are left out.
  const members: [string, unknown][] = Array.isArray(value)
    ? value.map((item) => ["", arrayItem(item)])
    : Object.entries(value).flatMap(([key, item]) => (isJson(item) ? [[JSON.stringify(key), item]] : []));
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  json.add(open);
  if (members.length === 0) {
    json.add(close);
    out.add(open);
    out.add(close);
    return;
  }
  const inner = `\n${pad(indent + 2)}`;
  out.add(open);
  members.forEach(([key, item], i) => {
    const head = key === "" ? "" : templateText(`${key}: `);
    if (i > 0) json.add(",");
    if (key !== "") json.add(`${key}:`);
    out.add(inner);
    out.add(head);
    const last = i === members.length - 1;
    writeJsonDocument(out, json, item, depth + 1, indent + 2 + head.length, last ? 0 : 1);
    if (!last) out.add(",");
  });
  json.add(close);
  out.add(`\n${pad(indent)}`);
  out.add(close);
}

/**
 * Escaped JSON text (templateText's) from `column` on a line indented `indent`, broken after a
 * comma outside its strings wherever the line would pass WIDTH columns (`tail` of them kept for
 * what follows its last line). Why from quote to quote and comma to comma by indexOf: a loop over
 * every character of the 16 MB document at 1000 resources was a third of printing it.
 */
function wrapJson(out: TextBuffer, text: string, indent: number, column: number, tail: number): void {
  const next = `\n${out.pad(indent)}`;
  let start = 0;
  let room = WIDTH - column;
  let breakAt = 0;
  const wrap = (end: number, width: number) => {
    if (end - start > width && breakAt > start) {
      out.add(text.slice(start, breakAt));
      out.add(next);
      start = breakAt;
      room = WIDTH - indent;
    }
  };
  let quote = text.indexOf('"');
  for (let comma = text.indexOf(","); comma !== -1;) {
    if (quote !== -1 && quote < comma) {
      const closing = closingQuote(text, quote);
      quote = text.indexOf('"', closing + 1);
      if (comma < closing) comma = text.indexOf(",", closing + 1);
      continue;
    }
    wrap(comma + 1, room);
    breakAt = comma + 1;
    comma = text.indexOf(",", breakAt);
  }
  wrap(text.length, room - tail);
  out.add(start === 0 ? text : text.slice(start));
}

/**
 * The quote that closes the string of escaped JSON text opened at `open`. A quote inside the
 * string is JSON's escape `\"`, escaped again as `\\"`: the backslashes before a quote that
 * closes are JSON's own pairs (`\\`), doubled, four of them each.
 */
function closingQuote(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); ; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 4 === 0) return at;
  }
}

const BACKSLASH = 0x5c;

/**
 * The width of a value's literal on one line, or -1 once it is longer than `budget` (so a large
 * value is not measured whole only to be dropped). Why a width and not the text: each value is
 * measured by itself and by each ancestor that tries to fit on a line, and the texts those made
 * were most of what printing api.gen.ts allocated; the text is written once, where it fits
 * (writeLiteral). Member by member, with no list of the members made first: a value of thousands of
 * members (the paths, the schemas) gives up within the budget, after a few of them.
 */
function flatWidth(value: unknown, budget: number): number {
  if (budget < 2) return -1;
  if (typeof value !== "object" || value === null) {
    const width = scalarWidth(value);
    return width <= budget ? width : -1;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return 2;
    // `[` and `]`, and a `, ` between items.
    let used = 2;
    for (let i = 0; i < value.length; i++) {
      const width = flatWidth(arrayItem(value[i]), budget - used);
      if (width === -1) return -1;
      used += width + (i > 0 ? 2 : 0);
      if (used > budget) return -1;
    }
    return used;
  }
  // `{ ` and ` }`, and a `, ` between members.
  let used = 4;
  let count = 0;
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (!Object.hasOwn(value, key) || !isJson(item)) continue;
    const head = propertyKey(key).length + 2;
    const suffix = asConst(key, item) ? AS_CONST.length : 0;
    const width = flatWidth(item, budget - used - head - suffix);
    if (width === -1) return -1;
    count++;
    used += head + width + suffix + (count > 1 ? 2 : 0);
    if (used > budget) return -1;
  }
  return count === 0 ? 2 : used;
}

const AS_CONST = " as const";

/**
 * The width of a scalar's literal. Why a look for the characters that escape or choose the
 * quotes first: most strings have none, and their literal is the string in double quotes.
 */
const scalarWidth = (value: unknown): number => (typeof value === "string" && !NOT_PLAIN.test(value) ? value.length + 2 : scalar(value).length);

/** A character that stringLiteral escapes, or that quoted() may choose single quotes for. */
const NOT_PLAIN = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;

/** A scalar of JSON as a literal (quoted by quoted()); `undefined` where JSON has no value. */
const scalar = (value: unknown): string => (typeof value === "string" ? quoted(value) : (JSON.stringify(value) ?? "undefined"));

/**
 * A string literal in the quotes that need fewer escapes (double on a tie), as prettier and most
 * formatters choose them: SQL and JSON in literals stay readable, and a formatter run over the
 * file keeps the quotes (the manifest's shape of a file, src/write/plan.ts, reads escapes
 * literally). Made from escape.ts's stringLiteral (every line terminator and control character
 * escaped): in single quotes a `'` gains a backslash and a `\"` loses its own; JSON's escaping
 * never leaves a bare `"`, so each `\"` found is a quote's escape.
 */
export function quoted(value: string): string {
  // Most strings have nothing to escape (scalarWidth): their literal is made without JSON.stringify's.
  if (!NOT_PLAIN.test(value)) return `"${value}"`;
  const literal = stringLiteral(value);
  const apostrophes = count(value, "'");
  if (count(value, '"', apostrophes + 1) <= apostrophes) return literal;
  return `'${literal.slice(1, -1).replaceAll("'", "\\'").replaceAll('\\"', '"')}'`;
}

/** How many times `character` stands in `text`, counted up to `limit`. */
function count(text: string, character: string, limit = Infinity): number {
  let found = 0;
  for (let at = text.indexOf(character); at !== -1 && found < limit; at = text.indexOf(character, at + 1)) found++;
  return found;
}

/** Whether JSON.stringify writes a member (it leaves out `undefined`, functions and symbols). */
const isJson = (item: unknown): boolean => item !== undefined && typeof item !== "function" && typeof item !== "symbol";

/** An array item JSON cannot hold is `null`, as JSON.stringify writes it. */
const arrayItem = (item: unknown): unknown => (isJson(item) ? item : null);

/** Whether the value under `key` needs `as const` (see printLiteral). */
const asConst = (key: string, value: unknown): boolean => key !== "__proto__" && Object.hasOwn(Object.prototype, key) && value !== null;

// ---------------------------------------------------------------------------------------------
// Type expressions

/**
 * A type expression, laid out from `column` on a line indented `indent`, with `tail` columns
 * needed after it. Flat (its text) where that fits and holds no comment; else a union puts each
 * member on a line of its own after `| `, an object type each member, a tuple or generic each
 * element; the rest print their parts in turn.
 */
export function printType(type: TypeExpr, indent = 0, column = indent, tail = 0): string {
  if (fits(type.text, column, tail)) return type.text;
  const inner = indent + 2;
  switch (type.kind) {
    case "union":
      return `\n${unionLines(type, inner, tail).join("\n")}`;
    case "object":
      return `{\n${type.members.map((member) => printMember(member, inner)).join("\n")}\n${pad(indent)}}`;
    case "intersection": {
      let text = "";
      let at = column;
      type.parts.forEach((part, i) => {
        const printed = (i === 0 ? "" : " & ") + printType(part, indent, at + (i === 0 ? 0 : 3), i === type.parts.length - 1 ? tail : 2);
        text += printed;
        at = endColumn(printed, at);
      });
      return text;
    }
    case "array":
      return `${printType(type.element, indent, column, tail + 2)}[]`;
    case "readonly":
      return `readonly ${printType(type.inner, indent, column + 9, tail)}`;
    case "parens":
      return `(\n${printItem(type.inner, inner, 0)}\n${pad(indent)})`;
    case "generic":
      // Why no comma after the last argument: TypeScript refuses a trailing comma in type arguments (TS1009).
      return `${type.name}<\n${type.args.map((arg, i) => printItem(arg, inner, i === type.args.length - 1 ? 0 : 1)).join(",\n")}\n${pad(indent)}>`;
    case "tuple": {
      const elements = type.elements.map((e) =>
        e.rest || e.optional
          ? `${pad(inner)}${e.rest ? "..." : ""}${printType(e.type, inner, inner + (e.rest ? 3 : 0), 2)}${e.optional ? "?" : ""},`
          : `${printItem(e.type, inner, 1)},`,
      );
      return `[\n${elements.join("\n")}\n${pad(indent)}]`;
    }
    default:
      // A word (a name, a literal of JSON, a template literal type): never broken.
      return type.text;
  }
}

/**
 * A type standing on lines of its own at `indent` (a type argument, a tuple element, what
 * parentheses hold): a union too long for the line puts its members there, each after `| `.
 */
function printItem(type: TypeExpr, indent: number, tail: number): string {
  if (type.kind !== "union" || fits(type.text, indent, tail)) return `${pad(indent)}${printType(type, indent, indent, tail)}`;
  return unionLines(type, indent, tail).join("\n");
}

/** A union's members at `indent`, each after its doc comment and `| `. */
function unionLines(type: Extract<TypeExpr, { kind: "union" }>, indent: number, tail: number): string[] {
  return type.members.flatMap((member, i) => {
    const line = `${pad(indent)}| ${printType(member, indent + 2, indent + 2, tail)}`;
    const comment = type.comments?.[i];
    return comment === undefined ? [line] : [indentLines(comment, indent), line];
  });
}

/** A member of an object type on lines of its own at `indent`: its doc comment, then `key: type;`. */
function printMember(member: Member, indent: number): string {
  const comment = member.comment === undefined ? "" : `${indentLines(member.comment, indent)}\n`;
  const head = `${pad(indent)}${member.readonly ? "readonly " : ""}${member.key}${member.optional ? "?" : ""}:`;
  const type = printType(member.type, indent, head.length + 1, 1);
  return `${comment}${head}${type.startsWith("\n") ? "" : " "}${type};`;
}

/** Each line of a (doc comment's) text indented by `indent`, continuation lines of a `/**` comment aligned under its first `*`. */
function indentLines(text: string, indent: number): string {
  return text
    .split("\n")
    .map((line) => pad(indent) + line)
    .join("\n");
}

// ---------------------------------------------------------------------------------------------
// Declarations

/** `export type name = type;`: a union too long for its line starts on the next, one member per line. */
export function typeAlias(name: string, type: TypeExpr): string {
  const head = `export type ${name} =`;
  const printed = printType(type, 0, head.length + 1, 1);
  return `${head}${printed.startsWith("\n") ? "" : " "}${printed};`;
}

/** `export const head = value;` with `value` a JSON literal, and an optional ` satisfies type` after it. */
export function constDeclaration(head: string, value: unknown, satisfies?: string): string {
  const start = `export const ${head} = `;
  const suffix = satisfies === undefined ? "" : ` satisfies ${satisfies}`;
  return `${start}${printLiteral(value, 0, start.length, suffix.length + 1)}${suffix};`;
}

/**
 * A binder's first line: `export function name(handlers: Interface): { ... } {`, its return type
 * broken when the line does not fit.
 */
export function binderSignature(binderName: string, interfaceName: string): string {
  const head = `export function ${binderName}(handlers: ${interfaceName}): {`;
  const flat = `${head} readonly [operationId: string]: OperationHandler } {`;
  return flat.length <= WIDTH ? flat : `${head}\n  readonly [operationId: string]: OperationHandler;\n} {`;
}
