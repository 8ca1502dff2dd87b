/**
 * TypeScript type expressions as codegen writes them (src/model/schema-code.ts, the handler
 * types of build.ts), read back and laid out as prettier prints them (issue 14). Object type
 * literals break one member per line; unions, intersections and type arguments break as prettier
 * breaks them; tuples are laid out only flat: where prettier would break one, the layout is Unsure
 * and the file is left to it.
 */
import {
  type Doc,
  Unsure,
  align,
  assignmentDoc,
  group,
  hardline,
  ifBreak,
  indent,
  join,
  line,
  lineSuffix,
  PRINT_WIDTH,
  printDoc,
  printedString,
  softline,
} from "./layout.js";

interface Token {
  readonly kind: "punct" | "word" | "string" | "template" | "number" | "comment";
  readonly text: string;
  /** A line break before the token (prettier keeps an object type broken after its `{`). */
  readonly newline: boolean;
}

/** The punctuation of a type of one character (and `...`). */
const PUNCT = new Set(["{", "}", "[", "]", "(", ")", "<", ">", ";", ":", "?", "|", "&", ","]);
// Why sticky expressions from the token's start (issue 14): a match of the rest of the text sliced
// off at each word was a string per token of every type laid out.
const NUMBER = /-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const WORD = /[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*/y;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let newline = false;
  const push = (kind: Token["kind"], end: number) => {
    tokens.push({ kind, text: text.slice(i, end), newline });
    newline = false;
    i = end;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\n") {
      newline = true;
      i++;
    } else if (c === " ") i++;
    else if (text.startsWith("/*", i)) {
      const end = text.indexOf("*/", i + 2);
      if (end === -1) throw new Unsure("an open comment");
      push("comment", end + 2);
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      push("string", j + 1);
    } else if (c === "`") {
      let j = i + 1;
      while (j < text.length && text[j] !== "`") {
        if (text[j] === "\\") j += 2;
        else if (text.startsWith("${", j)) {
          const end = text.indexOf("}", j);
          if (end === -1) throw new Unsure("an open template");
          j = end + 1;
        } else j++;
      }
      push("template", j + 1);
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) throw new Unsure(`a number at ${i}`);
      push("number", NUMBER.lastIndex);
    } else if ((c >= "A" && c <= "Z") || (c >= "a" && c <= "z") || c === "_" || c === "$") {
      WORD.lastIndex = i;
      WORD.test(text);
      push("word", WORD.lastIndex);
    } else {
      const length = c === "." && text.startsWith("...", i) ? 3 : PUNCT.has(c) ? 1 : 0;
      if (length === 0) throw new Unsure(`the character ${JSON.stringify(c)} in a type`);
      push("punct", i + length);
    }
  }
  return tokens;
}

/** What a parsed type is, for the parentheses prettier keeps or drops around it. */
type Shape = "union" | "intersection" | "operator" | "other";
interface Parsed {
  readonly doc: Doc;
  readonly shape: Shape;
  /** For prettier's union hugging: an object type or a type reference ("object"), `null` or `void` ("void"). */
  readonly hug?: "object" | "void";
  /** An object type literal (prettier's isObjectType): how an intersection joins it. */
  readonly literal?: boolean;
  /**
   * A keyword, a literal or a reference without type arguments (prettier's isSimpleType), or an
   * object type or a hugged union: a lone type argument of these is not broken around (shouldHugType).
   */
  readonly hugsArgument?: boolean;
}

/**
 * Where a type stands, for prettier's layout of a union there (its printUnionType): the right side
 * of a type alias, a member's or index key's annotation, an operand of `[]` or `&` (in
 * parentheses), a type argument or a tuple element.
 */
type Place = "alias" | "annotation" | "parenthesized" | "argument" | "tuple";

/**
 * The pieces of a doc printed one after another, as one text where every piece is a text. Why
 * (issue 14): a member such as `readonly id: number` was five texts, each a command of printDoc
 * and a measure of its width; as one, printDoc lays it out alike (widths add up).
 */
function cat(parts: readonly Doc[]): Doc {
  let text = "";
  for (const part of parts) {
    if (typeof part !== "string") return parts;
    text += part;
  }
  return text;
}

/** A group prettier would lay out otherwise if it broke: flat or Unsure. */
const flatOnly = (contents: Doc): Doc => group(contents, { flatOnly: true });

class Parser {
  private at = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  private peek(): Token | undefined {
    return this.tokens[this.at];
  }
  private is(text: string): boolean {
    const token = this.peek();
    return token !== undefined && token.kind !== "string" && token.kind !== "template" && token.text === text;
  }
  private take(text?: string): Token {
    const token = this.tokens[this.at];
    if (!token || (text !== undefined && token.text !== text)) throw new Unsure(`expected ${text ?? "a token"} in a type`);
    this.at++;
    return token;
  }

  /** The right side of a type alias, and its leading comments (each on its own line, before the type). */
  alias(): { readonly type: Parsed; readonly comments: Doc[] } {
    const comments: Doc[] = [];
    while (this.peek()?.kind === "comment") {
      const comment = this.take();
      if (!this.peek()?.newline) throw new Unsure("a comment not on its own line");
      comments.push(blockComment(comment.text), hardline);
    }
    const type = this.type("alias", comments.length > 0);
    if (this.at !== this.tokens.length) throw new Unsure("text after a type");
    return { type, comments };
  }

  /**
   * A type at `place`; `commented`: the type has a leading comment on its own line (a type alias's).
   * A union as prettier's printUnionType lays it out: hugged (`{ ... } | null`: one object type or
   * reference, the rest `null` or `void`, no comments) its members joined by ` | `, else a group
   * broken as `| A` per line, each member aligned past its `| `, a comment before a member (on its
   * own line) printed after the member before it (prettier attaches it there: a trailing comment).
   */
  type(place: Place, commented = false): Parsed {
    const first = this.intersection();
    if (!this.is("|")) return first;
    const parts = [first];
    const trailing: Doc[] = [""];
    while (this.is("|")) {
      this.take("|");
      const comments: Doc[] = [];
      while (this.peek()?.kind === "comment") {
        const comment = this.take();
        if (!comment.newline || !this.peek()?.newline) throw new Unsure("a comment in a union not on its own line");
        comments.push(lineSuffix([hardline, blockComment(comment.text)]));
      }
      if (comments.length > 0) trailing[trailing.length - 1] = comments;
      parts.push(this.intersection());
      trailing.push("");
    }
    const docs = parts.map((p) => this.operand(p, "union"));
    const object = parts.find((p) => p.hug === "object");
    const hug = trailing.every((t) => t === "") && object !== undefined && parts.every((p) => p === object || p.hug === "void");
    if (hug) return { doc: cat(join(" | ", docs)), shape: "union", hugsArgument: true };
    // Why flat only there: prettier breaks a union in a tuple (in parentheses) otherwise; not built.
    if (place === "tuple") return { doc: flatOnly(join(" | ", docs)), shape: "union" };
    const indented = place !== "argument" && !(place === "alias" && commented);
    const members = join(
      [line, "| "],
      docs.map((doc, i) => [align(2, doc), trailing[i]!]),
    );
    // In parentheses (`(A | B)[]`): broken after `(`, the members still flat where they fit.
    if (place === "parenthesized") return { doc: group([indent([softline, group([ifBreak("| "), members])]), softline]), shape: "union" };
    // Why two groups (prettier 3's layout, checked against it): the line before the union breaks
    // first, and its members stay on the next line where they fit there.
    if (indented) return { doc: group(indent([softline, group([ifBreak("| "), members])])), shape: "union" };
    return { doc: group([ifBreak("| "), members]), shape: "union" };
  }

  private intersection(): Parsed {
    const first = this.postfix();
    // A union in parentheses that prettier would print without them (laid out as an operand).
    if (!this.is("&") && first.shape === "union") throw new Unsure("a union in needless parentheses");
    if (!this.is("&")) return first;
    const parts = [first];
    while (this.is("&")) {
      this.take("&");
      parts.push(this.postfix());
    }
    // prettier's printIntersectionType: two object types are joined by ` & `; two others by ` &`
    // and a line (indented); an object type next to another type inline, indented from the third
    // operand on (and every object type after once one was).
    let indented = false;
    const docs = parts.map((part, i): Doc => {
      const doc = this.operand(part, "intersection");
      if (i === 0) return doc;
      const before = parts[i - 1]!.literal === true;
      const literal = part.literal === true;
      if (before && literal) return [" & ", indented ? indent(doc) : doc];
      if (!before && !literal) return indent([" &", line, doc]);
      if (i > 1) indented = true;
      return [" & ", i > 1 ? indent(doc) : doc];
    });
    return { doc: group(docs), shape: "intersection" };
  }

  /** A part of a union or intersection: in parentheses where prettier keeps them. */
  private operand(part: Parsed, within: Shape): Doc {
    // Why: prettier 3 keeps an intersection in a union or in an intersection in parentheses
    // (`A | (B & C)`, `A & (B & C)`: the inner one is only ever so written), and a union in an intersection.
    const needs = part.shape === "intersection" || (within === "intersection" && part.shape === "union");
    // Why: a union inside a union keeps its parentheses in prettier; codegen writes none such.
    if (within === "union" && part.shape === "union") throw new Unsure("a union in a union");
    return needs ? ["(", part.doc, ")"] : part.doc;
  }

  private postfix(): Parsed {
    if (this.is("readonly")) {
      this.take();
      const inner = this.postfix();
      return { doc: cat(["readonly ", inner.doc]), shape: "operator" };
    }
    let type = this.primary();
    while (this.is("[") && this.tokens[this.at + 1]?.text === "]") {
      this.take("[");
      this.take("]");
      type = { doc: cat(type.shape === "other" ? [type.doc, "[]"] : ["(", type.doc, ")[]"]), shape: "other" };
    }
    return type;
  }

  private primary(): Parsed {
    const token = this.take();
    if (token.kind === "string") return { doc: printedString(token.text.slice(1, -1)), shape: "other", hugsArgument: true };
    if (token.kind === "template") return { doc: token.text, shape: "other", hugsArgument: true };
    if (token.kind === "number") return { doc: token.text.toLowerCase().replace("e+", "e"), shape: "other", hugsArgument: true };
    if (token.kind === "comment") throw new Unsure("a comment in a type");
    if (token.kind === "word") {
      if (!this.is("<"))
        return {
          doc: token.text,
          shape: "other",
          hugsArgument: true,
          ...(VOID.has(token.text) ? { hug: "void" } : KEYWORDS.has(token.text) ? {} : { hug: "object" }),
        };
      this.take("<");
      const args = [this.type("argument")];
      while (this.is(",")) {
        this.take(",");
        args.push(this.type("argument"));
      }
      this.take(">");
      // prettier's printTypeParameters: one argument it hugs stays between `<` and `>` (an object
      // type breaks inside them); other arguments break one per line, without a trailing comma.
      if (args.length === 1 && args[0]!.hugsArgument === true) return { doc: cat([token.text, "<", args[0]!.doc, ">"]), shape: "other", hug: "object" };
      const list = group([
        "<",
        indent([
          softline,
          join(
            [",", line],
            args.map((a) => a.doc),
          ),
        ]),
        softline,
        ">",
      ]);
      return { doc: [token.text, list], shape: "other", hug: "object" };
    }
    if (token.text === "(") {
      const inner = this.type("parenthesized");
      this.take(")");
      // Why: prettier keeps only the parentheses a type needs; codegen's are all around an operand.
      return inner;
    }
    if (token.text === "{") return { doc: this.objectType(token), shape: "other", hug: "object", literal: true, hugsArgument: true };
    if (token.text === "[") return { doc: this.tuple(), shape: "other" };
    throw new Unsure(`${token.text} in a type`);
  }

  private tuple(): Doc {
    const elements: Doc[] = [];
    while (!this.is("]")) {
      const rest = this.is("...") ? (this.take(), "...") : "";
      const element = this.type("tuple");
      const optional = this.is("?") ? (this.take(), "?") : "";
      elements.push([rest, element.doc, optional]);
      if (!this.is("]")) this.take(",");
    }
    this.take("]");
    return elements.length === 0 ? "[]" : flatOnly(["[", join(", ", elements), "]"]);
  }

  private objectType(open: Token): Doc {
    const members: Doc[] = [];
    const read: ObjectMember[] = [];
    let broken = false;
    let first = true;
    while (!this.is("}")) {
      const comments: Doc[] = [];
      const commentLines: string[] = [];
      while (this.peek()?.kind === "comment") {
        const comment = this.take();
        if (first && comment.newline) broken = true;
        const lines = blockCommentLines(comment.text);
        comments.push(lines.length === 1 ? lines[0]! : join(hardline, lines), hardline);
        commentLines.push(...lines);
      }
      if (first && this.peek()?.newline) broken = true;
      first = false;
      const member = this.member();
      members.push(comments.length === 0 ? member : [...comments, member]);
      read.push({ commentLines, member });
      if (this.is(";")) this.take(";");
      else if (!this.is("}")) throw new Unsure("a member without `;`");
    }
    this.take("}");
    void open;
    if (members.length === 0) return "{}";
    const doc = group(["{", indent([line, join([";", line], members)]), ifBreak(";"), line, "}"], { shouldBreak: broken });
    return Object.assign(doc as object, { objectMembers: read }) as Doc;
  }

  private member(): Doc {
    const readonly = this.is("readonly") && this.tokens[this.at + 1]?.text !== ":" && this.tokens[this.at + 1]?.text !== "?" ? (this.take(), "readonly ") : "";
    let key: Doc;
    if (this.is("[")) {
      this.take("[");
      const token = this.take();
      if (token.kind === "string") {
        this.take("]");
        key = ["[", printedString(token.text.slice(1, -1)), "]"];
      } else {
        this.take(":");
        const keyType = this.type("annotation");
        this.take("]");
        key = cat(["[", token.text, ": ", keyType.doc, "]"]);
      }
    } else {
      const token = this.take();
      if (token.kind === "word" && !token.text.includes(".")) key = token.text;
      else if (token.kind === "string") key = printedPropertyName(token.text.slice(1, -1));
      else throw new Unsure(`the key ${token.text}`);
    }
    const optional = this.is("?") ? (this.take(), "?") : "";
    this.take(":");
    return cat([readonly, key, optional, ": ", this.type("annotation").doc]);
  }
}

/** A quoted member name as prettier prints it (unquoted where it is an ASCII identifier). */
function printedPropertyName(raw: string): Doc {
  if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(raw)) return raw;
  if (/[^\x00-\x7f]/.test(raw)) throw new Unsure("a non-ASCII member name");
  return printedString(raw);
}

/** A `/** *\/` comment as prettier prints it: every line after the first re-indented to ` *`. */
function blockComment(text: string): Doc {
  const lines = blockCommentLines(text);
  return lines.length === 1 ? lines[0]! : join(hardline, lines);
}

/** The lines of a `/** *\/` comment as prettier prints them (blockComment). */
function blockCommentLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length === 1) return lines;
  if (!lines.slice(1).every((l) => l.trimStart().startsWith("*"))) throw new Unsure("a comment not in JSDoc form");
  return lines.map((l, i) => (i === 0 ? l.trimEnd() : " " + l.trim()));
}

/** Type keywords: not type references (prettier hugs a union of one reference with `null`). */
const KEYWORDS = new Set(["string", "number", "boolean", "bigint", "symbol", "object", "unknown", "any", "never", "undefined", "true", "false"]);
const VOID = new Set(["null", "void"]);

/**
 * `export type Name = type;` as prettier prints it: its printAssignment's "fluid" layout, or
 * "break-after-operator" where the type has a leading comment on its own line (a result type's
 * `/** Response *\/`).
 */
export function typeAliasStatement(name: string, type: string): string {
  const { type: parsed, comments } = new Parser(tokenize(type)).alias();
  // Why straight where it can (issue 14): the doc printer's commands for every alias of a thousand
  // resources were most of their layout; an alias of texts and object types is printed directly.
  const direct = comments.length === 0 && PRINTABLE.test(name) && PRINTABLE.test(type) ? directAlias(name, parsed.doc) : undefined;
  return direct ?? aliasByDoc(name, parsed.doc, comments);
}

/** typeAliasStatement by the doc printer alone (the oracle of the direct printing in test/type-layout.test.ts). */
export function typeAliasStatementByDoc(name: string, type: string): string {
  const { type: parsed, comments } = new Parser(tokenize(type)).alias();
  return aliasByDoc(name, parsed.doc, comments);
}

function aliasByDoc(name: string, type: Doc, comments: readonly Doc[]): string {
  const right = comments.length > 0 ? [...comments, type] : type;
  return printDoc(group(["export ", assignmentDoc(["type ", name], " =", right, comments.length > 0 ? "string" : "other"), ";"]));
}

// ---------------------------------------------------------------------------------------------
// The direct printing: what printDoc makes of an alias's doc, where that is plain to see.

/** A member of an object type as read: the lines of its comments and its doc (without them). */
interface ObjectMember {
  readonly commentLines: readonly string[];
  readonly member: Doc;
}

/**
 * The members of an object type group the parser made (held on the group: a WeakMap of every
 * group of a thousand resources' aliases kept them until a full collection, megabytes of peak).
 */
const objectMembersOf = (doc: Doc): readonly ObjectMember[] | undefined =>
  typeof doc === "object" && !Array.isArray(doc) && "objectMembers" in doc
    ? (doc as { readonly objectMembers: readonly ObjectMember[] }).objectMembers
    : undefined;

/** Printable ASCII and line breaks: each character one column wide (widthOf), none Unsure. */
const PRINTABLE = /^[\x20-\x7e\n]*$/;

/**
 * `export type name = doc;` as printDoc prints it, for an alias that fits on its line flat, or
 * whose type is an object type that breaks (`= {` on the line, one member per line); undefined
 * for any other (printDoc then lays it out). For printable ASCII only: a text's width is its length.
 */
function directAlias(name: string, doc: Doc): string | undefined {
  const head = `export type ${name} = `;
  const flat = flatOf(doc);
  // The alias's group fits flat: every group in it is flat.
  if (flat !== undefined && head.length + flat.length + 1 <= PRINT_WIDTH) return head + flat + ";";
  // Else the fluid layout keeps `= {` on the line where it fits (the object's first line break ends the measure).
  const members = objectMembersOf(doc);
  if (members === undefined || head.length + 1 > PRINT_WIDTH) return undefined;
  const text = brokenObject(members, 0);
  // A line ending in spaces is trimmed by printDoc: not built here. Why joined (issue 14): one flat
  // text, not a rope of each piece held by the view until its file is written (megabytes at 1000 resources).
  return text === undefined || /[ \t]\n/.test(text) ? undefined : [head, text, ";"].join("");
}

/** An object type broken at `indentation`: `{`, each member on its line followed by `;`, `}`. */
function brokenObject(members: readonly ObjectMember[], indentation: number): string | undefined {
  const inner = indentation + 2;
  const pad = "\n" + " ".repeat(inner);
  let text = "{";
  for (const { commentLines, member } of members) {
    const printed = memberText(member, inner);
    if (printed === undefined) return undefined;
    text += pad + (commentLines.length > 0 ? commentLines.join(pad) + pad : "") + printed + ";";
  }
  return text + "\n" + " ".repeat(indentation) + "}";
}

/**
 * A member (its comments aside) of a broken object type at `indentation`: flat where it has no
 * group or fits with its `;` (each of its groups then fits), else `key: {` and the object type
 * broken where that is all it is; undefined for any other.
 */
function memberText(member: Doc, indentation: number): string | undefined {
  const flat = flatOf(member);
  if (flat !== undefined && (!flatHadGroup || indentation + flat.length + 1 <= PRINT_WIDTH)) return flat;
  // `key: ` (texts) and an object type last.
  const parts = Array.isArray(member) ? (member as readonly Doc[]) : [member];
  const object = parts[parts.length - 1]!;
  const members = objectMembersOf(object);
  if (members === undefined) return undefined;
  let key = "";
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i]!;
    if (typeof part !== "string") return undefined;
    key += part;
  }
  const broken = brokenObject(members, indentation);
  return broken === undefined ? undefined : key + broken;
}

/** Whether the doc flatOf last printed holds a group. */
let flatHadGroup = false;
/** How many groups flatInto is in: a line outside of any is printed broken (not flat). */
let flatDepth = 0;

/**
 * A doc printed flat (printDoc's flat mode), or undefined where it holds a hard line, a broken
 * group or a line outside of any group.
 */
function flatOf(doc: Doc): string | undefined {
  flatHadGroup = false;
  flatDepth = 0;
  const parts: string[] = [];
  return flatInto(doc, parts) ? parts.join("") : undefined;
}

function flatInto(doc: Doc, parts: string[]): boolean {
  if (typeof doc === "string") {
    parts.push(doc);
    return true;
  }
  if (Array.isArray(doc)) {
    for (const item of doc as readonly Doc[]) if (!flatInto(item, parts)) return false;
    return true;
  }
  const node = doc as Exclude<Doc, string | readonly Doc[]>;
  switch (node.kind) {
    case "group": {
      flatHadGroup = true;
      if (node.break) return false;
      flatDepth++;
      const flat = flatInto(node.contents, parts);
      flatDepth--;
      return flat;
    }
    case "indent":
    case "align":
    case "indentIfBreak":
      return flatInto(node.contents, parts);
    case "ifBreak":
      return flatInto(node.flatContents, parts);
    case "line":
      if (node.hard || flatDepth === 0) return false;
      if (!node.soft) parts.push(" ");
      return true;
    default:
      // A line suffix (a comment after a member), a table, a literal: not printed here.
      return false;
  }
}
