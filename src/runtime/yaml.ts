// A copy of templates/runtime/yaml.gen.ts (codegen checks that the generated server's YAML writer
// gives openapi.yaml byte for byte; tsc's rootDir keeps templates/ out of dist).
// test/document-yaml.test.ts keeps the two equal; npm run test:update rewrites this copy.
// The served document's YAML text made from its JSON text, at the first request for it
// (`GET /openapi.yaml`), so that document.gen.ts holds the document once (issue 16 item 7).
// Byte for byte the openapi.yaml codegen writes (the `yaml` package's layout, src/write/yaml.ts):
// codegen checks that it is for each document it generates, and where it is not (a text this
// writer does not lay out as `yaml` does) keeps the YAML text in document.gen.ts instead.

/** Thrown for a value this writer does not lay out as `yaml` does (the YAML text is then kept). */
export class YamlUnsupported extends Error {}

/** The YAML text of a JSON text (codegen's openapi.yaml), or YamlUnsupported. */
export function yamlOfJson(json: string): string {
  return yamlOfData(JSON.parse(json));
}

/**
 * The YAML text of data, as yamlOfJson gives it of the data's JSON text: what JSON would not keep
 * (`undefined`, -0, NaN, a class's instance) is YamlUnsupported. Why (issue 16 item 7): codegen
 * checks the writer on the document it holds, not on a second copy parsed from its JSON text.
 */
export function yamlOfData(value: unknown): string {
  if (!isMap(value) || Object.keys(value).length === 0) throw new YamlUnsupported("not a map");
  return block(value, "");
}

/** A non-empty collection whose lines are indented by `indent`, the first line without it. */
function block(value: readonly unknown[] | { readonly [key: string]: unknown }, indent: string): string {
  let out = "";
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      out += `${i === 0 ? "" : indent}-${after(item, indent, (b) => ` ${b}`)}`;
    });
    return out;
  }
  let first = true;
  for (const [key, item] of Object.entries(value)) {
    out += `${first ? "" : indent}${keyText(key)}:${after(item, indent, (b) => `\n${indent}  ${b}`)}`;
    first = false;
  }
  return out;
}

/** What follows `key:` or `-` for a value whose collection's lines are indented by `indent`. */
function after(value: unknown, indent: string, nested: (block: string) => string): string {
  if (Array.isArray(value)) return value.length === 0 ? " []\n" : nested(block(value, `${indent}  `));
  if (isMap(value)) return Object.keys(value).length === 0 ? " {}\n" : nested(block(value, `${indent}  `));
  if (value === null || typeof value === "boolean") return ` ${String(value)}\n`;
  if (typeof value === "number" && Number.isFinite(value) && !Object.is(value, -0)) return ` ${JSON.stringify(value)}\n`;
  if (typeof value === "string") return ` ${stringText(value, `${indent}  `)}\n`;
  throw new YamlUnsupported(typeof value);
}

function isMap(value: unknown): value is { readonly [key: string]: unknown } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) throw new YamlUnsupported("not plain data");
  return true;
}

/** Texts `yaml` reads as null, a boolean or a number (its core schema): quoted when strings. */
const TYPED = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
  /^0o[0-7]+$/,
  /^[-+]?[0-9]+$/,
  /^0x[0-9a-fA-F]+$/,
];
/** What a plain scalar may not hold (`yaml`'s plainString). */
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;
const DOCUMENT_MARKER = /^(%|---|\.\.\.)/m;

/** A key as `yaml` writes it before `:` (an implicit key: never a block scalar). */
function keyText(key: string): string {
  // Why: `yaml` writes a longer key as an explicit `? key`: not laid out here.
  if (key.length > 1000) throw new YamlUnsupported("a long key");
  if (CONTROL.test(key) || key.includes("\n")) return doubleQuoted(key, "", true);
  if (NOT_PLAIN.test(key) || TYPED.some((t) => t.test(key))) return quoted(key, "", true);
  // Why: a plain key starting with `---` or `...` `yaml` writes quoted or not by its depth: not laid out here.
  if (DOCUMENT_MARKER.test(key)) throw new YamlUnsupported("a key starting as a document marker");
  return key;
}

/** A string value as `yaml` writes it after `key: ` or `- `; `indent`: its block lines' indentation. */
function stringText(value: string, indent: string): string {
  if (CONTROL.test(value)) return doubleQuoted(value, indent, false);
  if (value.includes("\n")) return blockText(value, indent);
  if (NOT_PLAIN.test(value) || TYPED.some((t) => t.test(value))) return quoted(value, indent, false);
  return value;
}

/** `yaml`'s choice of quotes: single where the text holds `"` and no `'`, else double. */
function quoted(value: string, indent: string, implicitKey: boolean): string {
  if (value.includes('"') && !value.includes("'") && !(implicitKey && value.includes("\n")) && !/[ \t]\n|\n[ \t]/.test(value)) {
    return `'${value.replace(/\n+/g, `$&\n${indent}`)}'`;
  }
  return doubleQuoted(value, indent, implicitKey);
}

/** Escapes `yaml` writes its own way in a double-quoted string (JSON's `\u00XX` otherwise). */
const ESCAPES: { readonly [code: string]: string } = {
  "0000": "\\0",
  "0007": "\\a",
  "000b": "\\v",
  "001b": "\\e",
  "0085": "\\N",
  "00a0": "\\_",
  "2028": "\\L",
  "2029": "\\P",
};

/** A double-quoted string as `yaml` writes it: JSON's escapes, a long value's `\n` as line breaks. */
function doubleQuoted(value: string, indent: string, implicitKey: boolean): string {
  const json = JSON.stringify(value);
  let out = "";
  let start = 0;
  for (let i = 0; i < json.length; i++) {
    let ch = json[i];
    if (ch === " " && json[i + 1] === "\\" && json[i + 2] === "n") {
      out += `${json.slice(start, i)}\\ `;
      i += 1;
      start = i;
      ch = "\\";
    }
    if (ch !== "\\") continue;
    const next = json[i + 1];
    if (next === "u") {
      out += json.slice(start, i);
      const code = json.slice(i + 2, i + 6);
      out += ESCAPES[code] ?? (code.startsWith("00") ? `\\x${code.slice(2)}` : json.slice(i, i + 6));
      i += 5;
      start = i + 1;
    } else if (next === "n" && !(implicitKey || json[i + 2] === '"' || json.length < 40)) {
      out += `${json.slice(start, i)}\n\n`;
      while (json[i + 2] === "\\" && json[i + 3] === "n" && json[i + 4] !== '"') {
        out += "\n";
        i += 2;
      }
      out += indent;
      if (json[i + 2] === " ") out += "\\";
      i += 1;
      start = i + 1;
    } else i += 1;
  }
  return start > 0 ? out + json.slice(start) : json;
}

/** A value of several lines as a literal block scalar (`|`, `|-`, `|+`), as `yaml` writes it. */
function blockText(value: string, indent: string): string {
  // Why the second: `yaml`'s block of blank lines, one of them with a space or a tab, does not read
  // back as the value; codegen's writer then quotes it (src/write/yaml.ts, `faithfully`).
  if (/\n[\t ]+$/.test(value) || (/^[\n\t ]*$/.test(value) && /[\t ]/.test(value))) return quoted(value, indent, false);
  let endStart = value.length;
  while (endStart > 0 && "\n\t ".includes(value[endStart - 1]!)) endStart--;
  let end = value.slice(endStart);
  const endNewline = end.indexOf("\n");
  // Why: strip (`-`) without a final line break, keep (`+`) with more than one or nothing else, else clip.
  const chomp = endNewline === -1 ? "-" : value === end || endNewline !== end.length - 1 ? "+" : "";
  let body = value;
  if (end !== "") {
    body = value.slice(0, -end.length);
    if (end.endsWith("\n")) end = end.slice(0, -1);
    end = end.replace(/(^|(?<!\n))\n+(?!\n|$)/g, `$&${indent}`);
  }
  // Leading blank lines, kept apart; a first line starting with a space needs the indentation told (`|2`).
  let startEnd = 0;
  let startNewline = -1;
  let startsWithSpace = false;
  for (; startEnd < body.length; startEnd++) {
    if (body[startEnd] === " ") startsWithSpace = true;
    else if (body[startEnd] === "\n") startNewline = startEnd;
    else break;
  }
  const start = body.slice(0, startNewline + 1);
  body = body.slice(start.length);
  return `|${startsWithSpace ? "2" : ""}${chomp}\n${indent}${start.replace(/\n+/g, `$&${indent}`)}${body.replace(/\n+/g, `$&${indent}`)}${end}`;
}
