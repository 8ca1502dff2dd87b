/**
 * TypeScript type expressions as codegen writes them (src/model/schema-code.ts, the handler
 * types of build.ts), laid out as prettier prints them (issue 14): from their syntax as the model
 * built it (src/model/type-expr.ts), or from text read into that syntax here. Object type
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
import { type Member, type MemberKey, type TupleElement, type TypeExpr, typeText } from "../model/type-expr.js";

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

/**
 * Reads a type's text into its syntax (src/model/type-expr.ts), for types given as text; what
 * only the text shows (where its comments stand) is checked here, the rest by the layout. Its
 * nodes of more than one token are without their text (`""`): the layout reads none.
 */
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
  alias(): { readonly type: TypeExpr; readonly comments: string[] } {
    const comments: string[] = [];
    while (this.peek()?.kind === "comment") {
      const comment = this.take();
      if (!this.peek()?.newline) throw new Unsure("a comment not on its own line");
      comments.push(comment.text);
    }
    const type = this.type();
    if (this.at !== this.tokens.length) throw new Unsure("text after a type");
    return { type, comments };
  }

  /** A type; a comment before a member of a union must stand on its own line. */
  private type(): TypeExpr {
    const first = this.intersection();
    if (!this.is("|")) return first;
    const members = [first];
    const comments: string[][] = [[]];
    while (this.is("|")) {
      this.take("|");
      const before: string[] = [];
      while (this.peek()?.kind === "comment") {
        const comment = this.take();
        if (!comment.newline || !this.peek()?.newline) throw new Unsure("a comment in a union not on its own line");
        before.push(comment.text);
      }
      comments.push(before);
      members.push(this.intersection());
    }
    return { kind: "union", text: "", members, comments };
  }

  private intersection(): TypeExpr {
    const first = this.postfix();
    if (!this.is("&")) return first;
    const parts = [first];
    while (this.is("&")) {
      this.take("&");
      parts.push(this.postfix());
    }
    return { kind: "intersection", text: "", parts };
  }

  private postfix(): TypeExpr {
    if (this.is("readonly")) {
      this.take();
      return { kind: "readonly", text: "", inner: this.postfix() };
    }
    let type = this.primary();
    while (this.is("[") && this.tokens[this.at + 1]?.text === "]") {
      this.take("[");
      this.take("]");
      type = { kind: "array", text: "", element: type };
    }
    return type;
  }

  private primary(): TypeExpr {
    const token = this.take();
    if (token.kind === "comment") throw new Unsure("a comment in a type");
    if (token.kind !== "word" && token.kind !== "punct") return { kind: token.kind, text: token.text };
    if (token.kind === "word") {
      if (!this.is("<")) return { kind: "word", text: token.text };
      this.take("<");
      const args = [this.type()];
      while (this.is(",")) {
        this.take(",");
        args.push(this.type());
      }
      this.take(">");
      return { kind: "generic", text: "", name: token.text, args };
    }
    if (token.text === "(") {
      const inner = this.type();
      this.take(")");
      return { kind: "parens", text: "", inner };
    }
    if (token.text === "{") return this.objectType();
    if (token.text === "[") return this.tuple();
    throw new Unsure(`${token.text} in a type`);
  }

  private tuple(): TypeExpr {
    const elements: TupleElement[] = [];
    while (!this.is("]")) {
      const rest = this.is("...") ? (this.take(), true) : false;
      const type = this.type();
      const optional = this.is("?") ? (this.take(), true) : false;
      elements.push({ rest, type, optional });
      if (!this.is("]")) this.take(",");
    }
    this.take("]");
    return { kind: "tuple", text: "", elements };
  }

  private objectType(): TypeExpr {
    const members: Member[] = [];
    let broken = false;
    while (!this.is("}")) {
      const comments: string[] = [];
      while (this.peek()?.kind === "comment") {
        const comment = this.take();
        if (members.length === 0 && comment.newline) broken = true;
        comments.push(comment.text);
      }
      if (members.length === 0 && this.peek()?.newline) broken = true;
      members.push(this.member(comments));
      if (this.is(";")) this.take(";");
      else if (!this.is("}")) throw new Unsure("a member without `;`");
    }
    this.take("}");
    return { kind: "object", text: "", members, broken };
  }

  private member(comments: readonly string[]): Member {
    const readonly = this.is("readonly") && this.tokens[this.at + 1]?.text !== ":" && this.tokens[this.at + 1]?.text !== "?" ? (this.take(), true) : false;
    let key: MemberKey;
    if (this.is("[")) {
      this.take("[");
      const token = this.take();
      if (token.kind === "string") {
        this.take("]");
        key = { kind: "computed", text: `[${token.text}]` };
      } else {
        this.take(":");
        const type = this.type();
        this.take("]");
        key = { kind: "index", text: "", parameter: token.text, type };
      }
    } else {
      const token = this.take();
      if (token.kind === "word" && !token.text.includes(".")) key = { kind: "name", text: token.text };
      else if (token.kind === "string") key = { kind: "string", text: token.text };
      else throw new Unsure(`the key ${token.text}`);
    }
    const optional = this.is("?") ? (this.take(), true) : false;
    this.take(":");
    return { comments, readonly, key, optional, type: this.type() };
  }
}

/** A type given as text, read (Parser). */
function parsedAlias(text: string): { readonly type: TypeExpr; readonly comments: readonly string[] } {
  return new Parser(tokenize(text)).alias();
}

/**
 * A type at `place` as prettier lays it out; `commented`: the type has a leading comment on its
 * own line (a type alias's).
 */
function layout(type: TypeExpr, place: Place, commented = false): Parsed {
  switch (type.kind) {
    case "union":
      return unionLayout(type.members, type.comments, place, commented);
    case "intersection":
      return intersectionLayout(type.parts);
    case "parens": {
      // A union in parentheses that prettier would print without them (an operand of `&` or `[]` keeps them).
      const inner = operandLayout(type);
      if (inner.shape === "union") throw new Unsure("a union in needless parentheses");
      return inner;
    }
    case "readonly":
      return { doc: cat(["readonly ", operandLayout(type.inner).doc]), shape: "operator" };
    case "array": {
      const element = operandLayout(type.element);
      if (type.element.kind === "union" || type.element.kind === "intersection") throw new Unsure("an operator type without parentheses before []");
      return { doc: cat(element.shape === "other" ? [element.doc, "[]"] : ["(", element.doc, ")[]"]), shape: "other" };
    }
    case "string":
      return { doc: printedString(type.text.slice(1, -1)), shape: "other", hugsArgument: true };
    case "template":
      return { doc: type.text, shape: "other", hugsArgument: true };
    case "number":
      return { doc: type.text.toLowerCase().replace("e+", "e"), shape: "other", hugsArgument: true };
    case "word":
      return {
        doc: type.text,
        shape: "other",
        hugsArgument: true,
        ...(VOID.has(type.text) ? { hug: "void" } : KEYWORDS.has(type.text) ? {} : { hug: "object" }),
      };
    case "generic":
      return genericLayout(type.name, type.args);
    case "object":
      return { doc: objectLayout(type.members, type.broken), shape: "other", hug: "object", literal: true, hugsArgument: true };
    case "tuple":
      return { doc: tupleLayout(type.elements), shape: "other" };
    case "source": {
      const read = parsedAlias(type.text);
      if (read.comments.length > 0) throw new Unsure("a comment in a type");
      return layout(read.type, place);
    }
  }
}

/** An operand of `&`, `[]` or `readonly`: in parentheses it may be a union (prettier keeps those). */
function operandLayout(type: TypeExpr): Parsed {
  return type.kind === "parens" ? layout(type.inner, "parenthesized") : layout(type, "parenthesized");
}

/**
 * A union as prettier's printUnionType lays it out: hugged (`{ ... } | null`: one object type or
 * reference, the rest `null` or `void`, no comments) its members joined by ` | `, else a group
 * broken as `| A` per line, each member aligned past its `| `, a comment before a member (on its
 * own line) printed after the member before it (prettier attaches it there: a trailing comment).
 */
function unionLayout(members: readonly TypeExpr[], comments: readonly (readonly string[])[] | undefined, place: Place, commented: boolean): Parsed {
  const parts = members.map((member) => layout(member, "parenthesized"));
  const trailing: Doc[] = members.map((_, i) => {
    const before = comments?.[i + 1] ?? [];
    return before.length === 0 ? "" : before.map((comment) => lineSuffix([hardline, blockComment(comment)]));
  });
  const docs = parts.map((p) => operand(p, "union"));
  const object = parts.find((p) => p.hug === "object");
  const hug = trailing.every((t) => t === "") && object !== undefined && parts.every((p) => p === object || p.hug === "void");
  if (hug) return { doc: cat(join(" | ", docs)), shape: "union", hugsArgument: true };
  // Why flat only there: prettier breaks a union in a tuple (in parentheses) otherwise; not built.
  if (place === "tuple") return { doc: flatOnly(join(" | ", docs)), shape: "union" };
  const indented = place !== "argument" && !(place === "alias" && commented);
  const joined = join(
    [line, "| "],
    docs.map((doc, i) => [align(2, doc), trailing[i]!]),
  );
  // In parentheses (`(A | B)[]`): broken after `(`, the members still flat where they fit.
  if (place === "parenthesized") return { doc: group([indent([softline, group([ifBreak("| "), joined])]), softline]), shape: "union" };
  // Why two groups (prettier 3's layout, checked against it): the line before the union breaks
  // first, and its members stay on the next line where they fit there.
  if (indented) return { doc: group(indent([softline, group([ifBreak("| "), joined])])), shape: "union" };
  return { doc: group([ifBreak("| "), joined]), shape: "union" };
}

/**
 * prettier's printIntersectionType: two object types are joined by ` & `; two others by ` &` and a
 * line (indented); an object type next to another type inline, indented from the third operand on
 * (and every object type after once one was).
 */
function intersectionLayout(types: readonly TypeExpr[]): Parsed {
  if (types.some((type) => type.kind === "union")) throw new Unsure("a union in an intersection without parentheses");
  const parts = types.map(operandLayout);
  let indented = false;
  const docs = parts.map((part, i): Doc => {
    const doc = operand(part, "intersection");
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
function operand(part: Parsed, within: Shape): Doc {
  // Why: prettier 3 keeps an intersection in a union or in an intersection in parentheses
  // (`A | (B & C)`, `A & (B & C)`: the inner one is only ever so written), and a union in an intersection.
  const needs = part.shape === "intersection" || (within === "intersection" && part.shape === "union");
  // Why: a union inside a union keeps its parentheses in prettier; codegen writes none such.
  if (within === "union" && part.shape === "union") throw new Unsure("a union in a union");
  return needs ? ["(", part.doc, ")"] : part.doc;
}

/**
 * prettier's printTypeParameters: one argument it hugs stays between `<` and `>` (an object type
 * breaks inside them); other arguments break one per line, without a trailing comma.
 */
function genericLayout(name: string, types: readonly TypeExpr[]): Parsed {
  const args = types.map((type) => layout(type, "argument"));
  if (args.length === 1 && args[0]!.hugsArgument === true) return { doc: cat([name, "<", args[0]!.doc, ">"]), shape: "other", hug: "object" };
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
  return { doc: [name, list], shape: "other", hug: "object" };
}

function tupleLayout(elements: readonly TupleElement[]): Doc {
  if (elements.length === 0) return "[]";
  const docs = elements.map(({ rest, type, optional }) => [rest ? "..." : "", layout(type, "tuple").doc, optional ? "?" : ""]);
  return flatOnly(["[", join(", ", docs), "]"]);
}

function objectLayout(members: readonly Member[], broken: boolean): Doc {
  if (members.length === 0) return "{}";
  const docs = members.map((member) => {
    const comments = member.comments.flatMap((comment) => [blockComment(comment), hardline]);
    const doc = memberLayout(member);
    return comments.length === 0 ? doc : [...comments, doc];
  });
  return group(["{", indent([line, join([";", line], docs)]), ifBreak(";"), line, "}"], { shouldBreak: broken });
}

function memberLayout({ readonly, key, optional, type }: Member): Doc {
  let keyDoc: Doc;
  if (key.kind === "index") keyDoc = cat(["[", key.parameter, ": ", layout(key.type, "annotation").doc, "]"]);
  else if (key.kind === "computed") keyDoc = ["[", printedString(key.text.slice(2, -2)), "]"];
  else if (key.kind === "string") keyDoc = printedPropertyName(key.text.slice(1, -1));
  else keyDoc = key.text;
  return cat([readonly ? "readonly " : "", keyDoc, optional ? "?" : "", ": ", layout(type, "annotation").doc]);
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
export function typeAliasStatement(name: string, type: string | TypeExpr): string {
  const { type: syntax, comments } = typeof type === "string" ? parsedAlias(type) : { type, comments: [] };
  // Why straight where it can (issue 14): the doc printer's commands for every alias of a thousand
  // resources were most of their layout; an alias of texts and object types is printed directly.
  const text = typeText(type);
  const direct = comments.length === 0 && PRINTABLE.test(name) && PRINTABLE.test(text) ? directAlias(name, syntax) : undefined;
  return (
    direct ??
    aliasByDoc(
      name,
      layout(syntax, "alias", comments.length > 0).doc,
      comments.map(blockComment).flatMap((comment) => [comment, hardline]),
    )
  );
}

/** typeAliasStatement by the doc printer alone (the oracle of the direct printing in test/type-layout.test.ts). */
export function typeAliasStatementByDoc(name: string, type: string | TypeExpr): string {
  const { type: syntax, comments } = typeof type === "string" ? parsedAlias(type) : { type, comments: [] };
  return aliasByDoc(
    name,
    layout(syntax, "alias", comments.length > 0).doc,
    comments.map(blockComment).flatMap((comment) => [comment, hardline]),
  );
}

function aliasByDoc(name: string, type: Doc, comments: readonly Doc[]): string {
  const right = comments.length > 0 ? [...comments, type] : type;
  return printDoc(group(["export ", assignmentDoc(["type ", name], " =", right, comments.length > 0 ? "string" : "other"), ";"]));
}

// ---------------------------------------------------------------------------------------------
// The direct printing: what printDoc makes of an alias's layout, where that is plain to see.

/** Printable ASCII and line breaks: each character one column wide (widthOf), none Unsure. */
const PRINTABLE = /^[\x20-\x7e\n]*$/;

/**
 * `export type name = type;` as printDoc prints its layout, for an alias that fits on its line
 * flat, or whose type is an object type that breaks (`= {` on the line, one member per line);
 * undefined for any other (printDoc then lays it out). For printable ASCII only: a text's width
 * is its length. Why from the syntax (issue 14): the layout's doc of every alias of a thousand
 * resources was made only to be read back here.
 */
function directAlias(name: string, type: TypeExpr): string | undefined {
  const head = `export type ${name} = `;
  const flat = flatText(type);
  // The alias's group fits flat: every group in it is flat.
  if (flat !== undefined && head.length + flat.length + 1 <= PRINT_WIDTH) return head + flat + ";";
  // Else the fluid layout keeps `= {` on the line where it fits (the object's first line break ends the measure).
  if (type.kind !== "object" || type.members.length === 0 || head.length + 1 > PRINT_WIDTH) return undefined;
  const text = brokenObject(type.members, 0);
  // A line ending in spaces is trimmed by printDoc: not built here.
  return text === undefined || /[ \t]\n/.test(text) ? undefined : head + text + ";";
}

/** An object type broken at `indentation`: `{`, each member on its line followed by `;`, `}`. */
function brokenObject(members: readonly Member[], indentation: number): string | undefined {
  const inner = indentation + 2;
  const pad = "\n" + " ".repeat(inner);
  let text = "{";
  for (const member of members) {
    const printed = memberText(member, inner);
    if (printed === undefined) return undefined;
    const comments = member.comments.length > 0 ? member.comments.flatMap(blockCommentLines).join(pad) + pad : "";
    text += pad + comments + printed + ";";
  }
  return text + "\n" + " ".repeat(indentation) + "}";
}

/**
 * A member (its comments aside) of a broken object type at `indentation`: flat where it fits with
 * its `;`, else `key: {` and its object type broken; undefined for any other.
 */
function memberText(member: Member, indentation: number): string | undefined {
  const flat = flatMember(member);
  if (flat !== undefined && indentation + flat.length + 1 <= PRINT_WIDTH) return flat;
  const { type, key } = member;
  // Why a computed key or an index key of more than one token is not printed here: its layout holds
  // more than texts (the doc's key was not read through either).
  const plainKey = key.kind !== "computed" && (key.kind !== "index" || TOKENS.has(key.type.kind));
  if (type.kind !== "object" || type.members.length === 0 || !plainKey) return undefined;
  const keyText = key.kind === "index" ? flatKey(key) : key.kind === "string" ? (printedPropertyName(key.text.slice(1, -1)) as string) : key.text;
  const broken = brokenObject(type.members, indentation);
  return keyText === undefined || broken === undefined ? undefined : `${member.readonly ? "readonly " : ""}${keyText}${member.optional ? "?" : ""}: ${broken}`;
}

/**
 * A type as printDoc prints its layout flat, or undefined where that is not flat (a comment, an
 * object type kept broken) or where the layout may be Unsure (it then decides).
 */
function flatText(type: TypeExpr): string | undefined {
  switch (type.kind) {
    case "word":
    case "template":
      return type.text;
    case "number":
      return type.text.toLowerCase().replace("e+", "e");
    case "string":
      return printedString(type.text.slice(1, -1));
    case "union": {
      if (type.comments?.some((comments) => comments.length > 0)) return undefined;
      const members: string[] = [];
      for (const member of type.members) {
        const shape = shapeOf(member);
        const flat = shape === "union" || shape === undefined ? undefined : flatText(member);
        if (flat === undefined) return undefined;
        members.push(shape === "intersection" ? `(${flat})` : flat);
      }
      return members.join(" | ");
    }
    case "intersection": {
      const parts: string[] = [];
      for (const part of type.parts) {
        const shape = part.kind === "union" ? undefined : shapeOf(operandOf(part));
        const flat = shape === undefined ? undefined : flatText(operandOf(part));
        if (flat === undefined) return undefined;
        parts.push(shape === "union" || shape === "intersection" ? `(${flat})` : flat);
      }
      return parts.join(" & ");
    }
    case "parens":
      // A union in parentheses where prettier would drop them: Unsure (the layout's).
      return shapeOf(type.inner) === "union" ? undefined : flatText(type.inner);
    case "readonly": {
      const inner = flatText(operandOf(type.inner));
      return inner === undefined ? undefined : `readonly ${inner}`;
    }
    case "array": {
      if (type.element.kind === "union" || type.element.kind === "intersection") return undefined;
      const element = operandOf(type.element);
      const flat = flatText(element);
      return flat === undefined ? undefined : shapeOf(element) === "other" ? `${flat}[]` : `(${flat})[]`;
    }
    case "generic": {
      const args = type.args.map(flatText);
      return args.every((arg) => arg !== undefined) ? `${type.name}<${args.join(", ")}>` : undefined;
    }
    case "object": {
      if (type.members.length === 0) return "{}";
      if (type.broken) return undefined;
      const members: string[] = [];
      for (const member of type.members) {
        const flat = member.comments.length > 0 ? undefined : flatMember(member);
        if (flat === undefined) return undefined;
        members.push(flat);
      }
      return `{ ${members.join("; ")} }`;
    }
    case "tuple": {
      const elements: string[] = [];
      for (const { rest, type: element, optional } of type.elements) {
        const flat = flatText(element);
        if (flat === undefined) return undefined;
        elements.push(`${rest ? "..." : ""}${flat}${optional ? "?" : ""}`);
      }
      return `[${elements.join(", ")}]`;
    }
    case "source":
      return undefined;
  }
}

/** A member printed flat (its comments aside), as flatText. */
function flatMember({ readonly, key, optional, type }: Member): string | undefined {
  const keyText =
    key.kind === "index"
      ? flatKey(key)
      : key.kind === "computed"
        ? `[${printedString(key.text.slice(2, -2))}]`
        : key.kind === "string"
          ? (printedPropertyName(key.text.slice(1, -1)) as string)
          : key.text;
  const value = flatText(type);
  return keyText === undefined || value === undefined ? undefined : `${readonly ? "readonly " : ""}${keyText}${optional ? "?" : ""}: ${value}`;
}

/** An index signature's key printed flat. */
function flatKey(key: Extract<MemberKey, { kind: "index" }>): string | undefined {
  const type = flatText(key.type);
  return type === undefined ? undefined : `[${key.parameter}: ${type}]`;
}

/** The kinds of a type of one token. */
const TOKENS: ReadonlySet<TypeExpr["kind"]> = new Set(["word", "string", "number", "template"]);

/** What an operand of `&`, `[]` or `readonly` is laid out as (operandLayout): in parentheses, what they hold. */
const operandOf = (type: TypeExpr): TypeExpr => (type.kind === "parens" ? type.inner : type);

/** The shape of a type's layout (Parsed's), or undefined where its text is read by the layout. */
function shapeOf(type: TypeExpr): Shape | undefined {
  switch (type.kind) {
    case "union":
    case "intersection":
      return type.kind;
    case "readonly":
      return "operator";
    case "parens":
      return shapeOf(type.inner);
    case "source":
      return undefined;
    default:
      return "other";
  }
}
