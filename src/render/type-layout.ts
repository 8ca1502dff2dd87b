/**
 * TypeScript type expressions as codegen writes them (src/model/schema-code.ts, the handler
 * types of build.ts), read back and laid out as prettier prints them (issue 14). Object type
 * literals break one member per line; unions, intersections, tuples and type arguments are laid
 * out only flat: where prettier would break one, the layout is Unsure and the file is left to it.
 */
import { type Doc, Unsure, assignmentDoc, group, hardline, ifBreak, indent, join, line, printDoc, printedString, softline } from "./layout.js";

interface Token {
  readonly kind: "punct" | "word" | "string" | "template" | "number" | "comment";
  readonly text: string;
  /** A line break before the token (prettier keeps an object type broken after its `{`). */
  readonly newline: boolean;
}

const PUNCT = ["...", "{", "}", "[", "]", "(", ")", "<", ">", ";", ":", "?", "|", "&", ","];

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
    } else if (/[-0-9]/.test(c)) {
      const match = /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/.exec(text.slice(i));
      if (!match) throw new Unsure(`a number at ${i}`);
      push("number", i + match[0].length);
    } else if (/[A-Za-z_$]/.test(c)) {
      const match = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*/.exec(text.slice(i))!;
      push("word", i + match[0].length);
    } else {
      const punct = PUNCT.find((p) => text.startsWith(p, i));
      if (!punct) throw new Unsure(`the character ${JSON.stringify(c)} in a type`);
      push("punct", i + punct.length);
    }
  }
  return tokens;
}

/** What a parsed type is, for the parentheses prettier keeps or drops around it. */
type Shape = "union" | "intersection" | "operator" | "other";
interface Parsed {
  readonly doc: Doc;
  readonly shape: Shape;
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

  all(): Parsed {
    const type = this.type();
    if (this.at !== this.tokens.length) throw new Unsure("text after a type");
    return type;
  }

  type(): Parsed {
    const first = this.intersection();
    if (!this.is("|")) return first;
    const parts = [first];
    while (this.is("|")) {
      this.take("|");
      parts.push(this.intersection());
    }
    return {
      doc: flatOnly(
        indent([
          softline,
          join(
            [line, "| "],
            parts.map((p) => this.operand(p, "union")),
          ),
        ]),
      ),
      shape: "union",
    };
  }

  private intersection(): Parsed {
    const first = this.postfix();
    if (!this.is("&")) return first;
    const parts = [first];
    while (this.is("&")) {
      this.take("&");
      parts.push(this.postfix());
    }
    return {
      doc: flatOnly(
        join(
          " & ",
          parts.map((p) => this.operand(p, "intersection")),
        ),
      ),
      shape: "intersection",
    };
  }

  /** A part of a union or intersection: in parentheses where prettier keeps them. */
  private operand(part: Parsed, within: Shape): Doc {
    const needs = within === "intersection" ? part.shape === "union" : false;
    return needs ? ["(", part.doc, ")"] : part.doc;
  }

  private postfix(): Parsed {
    if (this.is("readonly")) {
      this.take();
      const inner = this.postfix();
      return { doc: ["readonly ", inner.doc], shape: "operator" };
    }
    let type = this.primary();
    while (this.is("[") && this.tokens[this.at + 1]?.text === "]") {
      this.take("[");
      this.take("]");
      type = { doc: [type.shape === "other" ? type.doc : ["(", type.doc, ")"], "[]"], shape: "other" };
    }
    return type;
  }

  private primary(): Parsed {
    const token = this.take();
    if (token.kind === "string") return { doc: printedString(token.text.slice(1, -1)), shape: "other" };
    if (token.kind === "template") return { doc: token.text, shape: "other" };
    if (token.kind === "number") return { doc: token.text.toLowerCase().replace("e+", "e"), shape: "other" };
    if (token.kind === "comment") throw new Unsure("a comment in a type");
    if (token.kind === "word") {
      if (!this.is("<")) return { doc: token.text, shape: "other" };
      this.take("<");
      const args = [this.type().doc];
      while (this.is(",")) {
        this.take(",");
        args.push(this.type().doc);
      }
      this.take(">");
      return { doc: flatOnly([token.text, "<", join(", ", args), ">"]), shape: "other" };
    }
    if (token.text === "(") {
      const inner = this.type();
      this.take(")");
      // Why: prettier keeps only the parentheses a type needs; codegen's are all around an operand.
      return inner;
    }
    if (token.text === "{") return { doc: this.objectType(token), shape: "other" };
    if (token.text === "[") return { doc: this.tuple(), shape: "other" };
    throw new Unsure(`${token.text} in a type`);
  }

  private tuple(): Doc {
    const elements: Doc[] = [];
    while (!this.is("]")) {
      const rest = this.is("...") ? (this.take(), "...") : "";
      const element = this.type();
      const optional = this.is("?") ? (this.take(), "?") : "";
      elements.push([rest, element.doc, optional]);
      if (!this.is("]")) this.take(",");
    }
    this.take("]");
    return elements.length === 0 ? "[]" : flatOnly(["[", join(", ", elements), "]"]);
  }

  private objectType(open: Token): Doc {
    const members: Doc[] = [];
    let broken = false;
    let first = true;
    while (!this.is("}")) {
      const comments: Doc[] = [];
      while (this.peek()?.kind === "comment") {
        const comment = this.take();
        if (first && comment.newline) broken = true;
        comments.push(blockComment(comment.text), hardline);
      }
      if (first && this.peek()?.newline) broken = true;
      first = false;
      members.push([...comments, this.member()]);
      if (this.is(";")) this.take(";");
      else if (!this.is("}")) throw new Unsure("a member without `;`");
    }
    this.take("}");
    void open;
    if (members.length === 0) return "{}";
    return group(["{", indent([line, join([";", line], members)]), ifBreak(";"), line, "}"], { shouldBreak: broken });
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
        const keyType = this.type();
        this.take("]");
        key = ["[", token.text, ": ", keyType.doc, "]"];
      }
    } else {
      const token = this.take();
      if (token.kind === "word" && !token.text.includes(".")) key = token.text;
      else if (token.kind === "string") key = printedPropertyName(token.text.slice(1, -1));
      else throw new Unsure(`the key ${token.text}`);
    }
    const optional = this.is("?") ? (this.take(), "?") : "";
    this.take(":");
    return [readonly, key, optional, ": ", this.type().doc];
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
  const lines = text.split("\n");
  if (lines.length === 1) return text;
  if (!lines.slice(1).every((l) => l.trimStart().startsWith("*"))) throw new Unsure("a comment not in JSDoc form");
  return join(
    hardline,
    lines.map((l, i) => (i === 0 ? l.trimEnd() : " " + l.trim())),
  );
}

/** The doc of a type expression codegen wrote (Unsure where it is not one this module reads). */
export function typeDoc(text: string): Doc {
  return new Parser(tokenize(text)).all().doc;
}

/** `export type Name = type;` as prettier prints it (its printAssignment's "fluid" layout). */
export function typeAliasStatement(name: string, type: string): string {
  return printDoc(group(["export ", assignmentDoc(["type ", name], " =", typeDoc(type), "other"), ";"]));
}
