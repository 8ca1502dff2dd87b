/**
 * A path template of `paths` read into what the router matches (RFC 6570 level 1 as OpenAPI 3.1
 * section 4.8.8.1 lets a segment be written): literal segments, whole-parameter segments, and
 * segments that mix literal text with parameters (`{id}.json`, `{sha}.{diffType}`, `{name}:cancel`).
 */

/**
 * A segment as the router reads it: literal text (compared with the decoded request segment),
 * `null` for a whole parameter `{name}`, or a template: the literal texts around its parameters,
 * percent-encoded as a client sends them (`{id}.json` is `["", ".json"]`, `{a}.{b}` is `["", ".", ""]`).
 */
export type Segment = string | null | readonly string[];

/**
 * What tells apart operations of one URL and method whose paths differ after a `#`, as AWS writes
 * them: `#name=value` a request whose header or query parameter `name` is `value`
 * (`/#X-Amz-Target=Service.Action`), `#name` one that carries the query parameter `name` (`#tagKeys`).
 */
export interface Discriminator {
  readonly name: string;
  readonly value?: string;
}

/** A path template read: its segments, its parameters' names in order, and why it cannot be served, if so. */
export interface PathTemplate {
  /** The path a request carries: the template without what follows a `#` (a fragment never reaches a server). */
  readonly wirePath: string;
  /** What follows a `#`, read as which requests of the URL the path's operations answer (see `Discriminator`). */
  readonly discriminator?: Discriminator;
  readonly segments: readonly Segment[];
  /** The names of its parameters, in the order they appear (a name used twice is listed twice). */
  readonly names: readonly string[];
  readonly problem?: string;
}

/** Reads a path template; a template the router cannot serve soundly carries a `problem`. */
export function pathTemplate(path: string): PathTemplate {
  // Why: `#` starts a fragment, which clients never send (RFC 3986 section 3.5); AWS documents use
  // it to tell apart operations of one URL (`/tags/{arn}#tagKeys`), so the text after it is dropped.
  const hash = path.indexOf("#");
  const wirePath = hash === -1 ? path : path.slice(0, hash) || "/";
  const names: string[] = [];
  const fragment = hash === -1 ? "" : path.slice(hash + 1);
  const equals = fragment.indexOf("=");
  const discriminator =
    fragment === "" ? undefined : equals === -1 ? { name: fragment } : { name: fragment.slice(0, equals), value: fragment.slice(equals + 1) };
  if (wirePath === "/") return { wirePath, segments: [], names, ...(discriminator ? { discriminator } : {}) };
  const segments: Segment[] = [];
  let problem: string | undefined;
  for (const text of wirePath.slice(1).split("/")) {
    const read = segmentOf(text, names);
    if (read !== null && typeof read === "object" && "problem" in read) {
      problem ??= read.problem;
      segments.push(text);
    } else segments.push(read);
  }
  return { wirePath, segments, names, ...(discriminator ? { discriminator } : {}), ...(problem === undefined ? {} : { problem }) };
}

/** One segment read; its parameters' names are appended to `names`. */
function segmentOf(text: string, names: string[]): Segment | { problem: string } {
  if (!text.includes("{") && !text.includes("}")) return decoded(text);
  const texts: string[] = [];
  let rest = text;
  for (;;) {
    const open = rest.indexOf("{");
    const close = rest.indexOf("}");
    if (open === -1 && close === -1) break;
    const name = open === -1 || close === -1 ? "" : rest.slice(open + 1, close);
    if (close === -1 || name.includes("{")) return { problem: `the path segment ${JSON.stringify(text)} has a \`{\` without its \`}\`` };
    if (open === -1 || close < open) return { problem: `the path segment ${JSON.stringify(text)} has a \`}\` without its \`{\`` };
    if (name === "") return { problem: `the path segment ${JSON.stringify(text)} has a parameter without a name` };
    const before = rest.slice(0, open);
    // Why: two parameters with no text between them (`{a}{b}`) could be split anywhere.
    if (texts.length > 0 && before === "")
      return { problem: `the path segment ${JSON.stringify(text)} has two parameters with no text between them, which no request can tell apart` };
    texts.push(before);
    names.push(name);
    rest = rest.slice(close + 1);
  }
  texts.push(rest);
  if (texts.length === 2 && texts[0] === "" && texts[1] === "") return null;
  const encoded = texts.map((part) => wireText(decoded(part)));
  if (encoded.some((t) => t === undefined)) return { problem: `the path segment ${JSON.stringify(text)} is not well-formed Unicode` };
  return encoded as string[];
}

/**
 * Literal text as written, its percent-encoding decoded (`t%C3%B6ken` is `töken`). Why: a path is a
 * URI reference (RFC 3986 section 2.1), so `%C3%B6` in it stands for the character, as it does in
 * the request the router decodes; text that is not valid percent-encoding (`100%`) is taken as it is.
 */
function decoded(text: string): string {
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Literal text of a template as a client sends it: every character outside RFC 3986's `pchar`
 * (unreserved, sub-delims, `:`, `@`) percent-encoded as UTF-8, upper-case hex; undefined for a lone surrogate.
 */
function wireText(text: string): string | undefined {
  try {
    return encodeURIComponent(text).replace(/%(24|26|2B|2C|3B|3D|3A|40)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  } catch {
    return undefined;
  }
}

/** How much literal text a segment has: a literal segment the most, a whole parameter none. */
export function literalWeight(segment: Segment): number {
  if (segment === null) return 0;
  if (typeof segment === "string") return Number.POSITIVE_INFINITY;
  return segment.reduce((sum, text) => sum + text.length, 0);
}

/** A path of the document as the router sees it: where it is written, its segments and its operations' methods (operation.ts's PathModel). */
export interface RoutePath {
  readonly path: string;
  readonly discriminator?: Discriminator | undefined;
  readonly segments: readonly Segment[];
  readonly operations: readonly { readonly method: string }[];
}

/**
 * Why each path cannot share the router with an earlier one, by its index: it answers a method of
 * an earlier path whose requests it may match with neither preferred (routes are preferred by
 * their literal text, leftmost first; see the runtime's matchRoute). That is the case of paths that
 * differ only after a `#`, and of templates that tie segment by segment in literal text and could
 * match one segment alike (`/a/{x}` beside `/a/{y}`, `{a}.{b}` beside `{a}-{b}`); paths of one
 * URL told apart after `#` (Discriminator) are not.
 */
export function ambiguousPaths(paths: readonly RoutePath[]): Map<number, string> {
  const problems = new Map<number, string>();
  // Why paths grouped by what tied() needs alike: the same literal segments, parameters
  // and templates' literal weights at the same places; only paths of one group can tie, and every
  // path beside every earlier one of its length was quadratic (a thousand resources' paths).
  const byShape = new Map<string, number[]>();
  paths.forEach((route, i) => {
    const shape = JSON.stringify(route.segments.map((segment) => (typeof segment === "string" || segment === null ? segment : literalWeight(segment))));
    let earlier = byShape.get(shape);
    if (earlier === undefined) byShape.set(shape, (earlier = []));
    for (const j of earlier) {
      const other = paths[j]!;
      const method = route.operations.find((o) => other.operations.some((p) => p.method === o.method))?.method;
      if (method === undefined || !tied(route.segments, other.segments)) continue;
      // Paths of one URL told apart after `#`: the router tries them in the document's order.
      if (JSON.stringify(route.segments) === JSON.stringify(other.segments) && distinct(route.discriminator, other.discriminator)) continue;
      problems.set(
        i,
        `${method.toUpperCase()} ${JSON.stringify(route.path)} may match the same requests as ${method.toUpperCase()} ${JSON.stringify(other.path)}, and neither has more literal text where they differ (a \`#\` and what follows it never reach the server); give one of them a different path`,
      );
      break;
    }
    earlier.push(i);
  });
  return problems;
}

/**
 * Whether two paths of one URL answer different requests of it: one has no `#` (it answers what
 * the others do not), or they name different values of one header or query parameter.
 */
function distinct(a: Discriminator | undefined, b: Discriminator | undefined): boolean {
  if (a === undefined || b === undefined) return a !== b;
  return a.name === b.name && a.value !== undefined && b.value !== undefined && a.value !== b.value;
}

/** Whether two templates of as many segments tie in literal text at every segment and could each match one same segment. */
function tied(a: readonly Segment[], b: readonly Segment[]): boolean {
  return a.every((x, i) => {
    const y = b[i]!;
    if (literalWeight(x) !== literalWeight(y)) return false;
    if (typeof x === "string" || x === null || typeof y === "string" || y === null) return x === y || (x === null && y === null);
    // Two templates with as much literal text: a text both could hold starts with the longer leading text and ends with the longer trailing one.
    const [headX, headY, tailX, tailY] = [x[0]!, y[0]!, x[x.length - 1]!, y[y.length - 1]!];
    return (headX.startsWith(headY) || headY.startsWith(headX)) && (tailX.endsWith(tailY) || tailY.endsWith(tailX));
  });
}
