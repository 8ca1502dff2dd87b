/**
 * Everything from the input that ends up inside generated code passes through here, so that no
 * name, description or value can leave the string or comment it is put in.
 */

/** Line terminators of ECMAScript (a `//` comment ends at any of them). */
const LINE_TERMINATORS = /\r\n|[\n\r\u2028\u2029]/g;

/** A string literal for TypeScript source: JSON's escaping, plus the two line separators. */
export function stringLiteral(value: string): string {
  return JSON.stringify(value)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/**
 * The text between the backticks of a template literal for TypeScript source holding `value` as
 * it is, its lines (`\n`) as lines: a backslash, a backtick and the `$` of `${` escaped, and every
 * other line terminator as its escape (a template literal reads a bare `\r` as a line feed, and
 * no other line end may stand in generated code: render.ts's tidy trims spaces before each).
 */
export function templateText(value: string): string {
  return value.replace(/[\\`\r\u2028\u2029]|\$(?=\{)/g, (c) => TEMPLATE_ESCAPES[c] ?? `\\${c}`);
}
const TEMPLATE_ESCAPES: Readonly<Record<string, string>> = { "\r": "\\r", "\u2028": "\\u2028", "\u2029": "\\u2029" };

/**
 * A value as a TypeScript type literal (JSON data only), as JSON writes it. A `__proto__` key is
 * written computed (`["__proto__"]`), as in literal(); never `as const`, which no type may carry.
 */
export function typeLiteral(value: unknown): string {
  return (JSON.stringify(value) ?? "undefined")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029")
    .replace(/([{,])"__proto__":/g, '$1["__proto__"]:');
}

/** The lines of a `/** ... *\/` doc comment for free text: `*\/` cannot close it, no line can escape it. */
export function docLines(text: string | undefined): string[] {
  if (text === undefined || text.trim() === "") return [];
  return text
    .replace(/\*\//g, "*\\/")
    .split(LINE_TERMINATORS)
    .map((line) => line.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, " ").trimEnd());
}

/** Text safe on one line of a `/* ... *\/` comment: one line, and `*\/` cannot close it. */
export function inlineComment(text: string): string {
  return lineComment(text).replace(/\*\//g, "*\\/");
}

/** Text safe inside a single `//` comment line. */
export function lineComment(text: string): string {
  return text.replace(LINE_TERMINATORS, " ").replace(/[\u0000-\u001f\u007f]/g, " ");
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * A property key: the bare name when it is an identifier, else a string literal; `__proto__` is
 * computed (`["__proto__"]`), which in an object literal defines a property instead of the prototype.
 */
export function propertyKey(name: string): string {
  if (name === "__proto__") return '["__proto__"]';
  return IDENTIFIER.test(name) ? name : stringLiteral(name);
}

/** Whether a name can stand as an identifier in generated code. */
export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name) && !RESERVED_WORDS.has(name);
}

/** ECMAScript reserved words and TypeScript's strict-mode ones: never bare identifiers. */
export const RESERVED_WORDS = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in " +
    "instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package " +
    "private protected public await arguments eval"
  ).split(" "),
);
