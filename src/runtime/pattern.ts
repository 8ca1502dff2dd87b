// A copy of templates/runtime/pattern.gen.ts (the generator checks patterns with the runtime's
// own parser; tsc's rootDir keeps templates/ out of dist). test/runtime/pattern.test.ts keeps the
// two equal, and npm run test:update rewrites this copy.
// The `pattern` keyword, matched in time linear in the text's length: a pattern is compiled into
// an automaton (Thompson's construction) and the text is read once, every possible way at once
// (a Pike VM, its steps kept as the transitions of a DFA built as texts need it, as RE2 does), so
// no text can make it backtrack. V8's own engine backtracks: `^(a+)+$` takes seconds on 30
// characters and twice as long with each one more. The DFA reads classes of code points, not code
// points (see Alphabet), so its table depends on the pattern and never on a text's alphabet;
// lookarounds are one pass each with a DFA of their own; long counted repetitions of one class
// are matched by a plainer automaton (see Scanner). The generator refuses a pattern whose DFA
// could outgrow its table when reading it without one costs too much (see linearPatternProblem).

/**
 * A pattern's automaton, as parallel arrays: instruction `pc` is `op[pc]` with the operands
 * `to[pc]` and `or[pc]`. An ATOM reads one code point of the atom `to[pc]` (its code points are
 * the Alphabet's); a SPLIT goes on at `to` and at `or`; a JUMP at `to`; an ASSERT (`^`, `$`, `\b`,
 * `\B`, ASSERTIONS[to]) goes on when it holds; MATCH ends it. A COUNT reads `counts[or]` code
 * points of the atom `to` (a counter, not that many ATOMs); a LOOK goes on when the lookaround
 * `looks[to]` holds. Its size is bounded (PATTERN_LIMIT), and so is the work per code point.
 */
type Program = {
  readonly op: Uint8Array;
  readonly to: Int32Array;
  readonly or: Int32Array;
  readonly counts: readonly Count[];
  /** Every lookaround of the pattern, an inner one before the one that holds it. */
  readonly looks: readonly Look[];
};
const ATOM = 0;
const SPLIT = 1;
const JUMP = 2;
const ASSERT = 3;
const MATCH = 4;
const COUNT = 5;
const LOOK = 6;

/** The bounds of a counted repetition of one atom (`max` may be Infinity). */
type Count = { readonly min: number; readonly max: number };

/**
 * A lookaround: `program` matches its body read forwards (a lookbehind) or its body reversed read
 * backwards (a lookahead), so that one pass over a text tells for every position whether it holds.
 */
type Look = { readonly program: Program; readonly behind: boolean; readonly negate: boolean };
const ASSERTIONS = ["^", "$", "\\b", "\\B"] as const;

/** A pattern parsed: what the instructions are made from. */
type Node =
  | { readonly kind: "atom"; readonly source: string }
  | { readonly kind: "assert"; readonly at: "^" | "$" | "\\b" | "\\B" }
  | { readonly kind: "sequence"; readonly items: readonly Node[] }
  | { readonly kind: "choice"; readonly options: readonly Node[] }
  | { readonly kind: "repeat"; readonly body: Node; readonly min: number; readonly max: number }
  | { readonly kind: "look"; readonly body: Node; readonly behind: boolean; readonly negate: boolean };

/**
 * The most instructions a pattern may compile to (its lookarounds' included). Why: counted
 * repetitions are spelled out (`[a-z]{1,64}` is 128 instructions), and the generator explores a
 * pattern's whole DFA (see linearPatternProblem), at a cost that grows with its size; image-charts'
 * lists of 1,000 font names (24,000 instructions) stay refused.
 */
export const PATTERN_LIMIT = 1000;

/**
 * The most copies a repetition is spelled out to. Why: a longer repetition of one atom
 * (`.{0,4096}`, `[a-z]{2048}`) becomes one COUNT whatever its bounds, and other bodies
 * (`(ab){2000}`) would take PATTERN_LIMIT in a few repetitions.
 */
export const REPEAT_LIMIT = 1000;

/** Repetitions of one atom past this many copies are counted (COUNT) instead of spelled out (a DFA is faster than a Scanner). */
const COUNT_FROM = 100;

/**
 * Where a DFA outgrows its table, repetitions of one atom past this many copies are counted: the
 * DFA of `.*a.{30}` has 2^31 states, a Scanner of it 6 instructions (see Matcher).
 */
const COUNT_FROM_OUTGROWN = 1;

/** The deepest nesting of groups a pattern may have (parsing and compiling recurse once per group). */
const GROUP_LIMIT = 100;

/** The most lookarounds a pattern may hold: each is a pass over the text and a bit per position (a Uint16Array). */
export const LOOK_LIMIT = 16;

/**
 * The most instructions a code point may cost where a DFA cannot be kept: in the programs that
 * count (Scanner) and in those whose DFA outgrows its table even once counted, together (a code
 * point visits each instruction of a program at most once). Why this many: a visit costs about
 * 4-7 ns, so a 1 MiB text costs at most about 100 ms on top of reading it (bench/patterns.mjs,
 * `a[ab]...c`); `a[ab]{12}c` written out (a DFA of 2^13 states, 15 instructions, nothing to
 * count) is taken, `(?:a|b)*a(?:a|b){30}` (128 instructions once its groups are spelled out) not.
 */
export const SLOW_STEPS_LIMIT = 16;

/**
 * Why a pattern cannot be matched in time linear in the text with a small constant, or undefined
 * when it can (ECMA-262 syntax, `u` flag). Beyond what compilePattern refuses, this explores the
 * DFA of each program (the main one and its lookarounds') over every class of code points and
 * every context: one that fits its table costs a lookup per code point whatever the text, so only
 * the others (and the programs with counters) count towards SLOW_STEPS_LIMIT.
 */
export function linearPatternProblem(source: string): string | undefined {
  try {
    // What runs once a DFA outgrows its table is the pattern with its repetitions counted (Matcher).
    const first = slowSteps(compileProgram(source));
    const { slow } = first.fits ? first : slowSteps(compileProgram(source, COUNT_FROM_OUTGROWN));
    if (slow > SLOW_STEPS_LIMIT) {
      return `an automaton too large to keep (as \`(a|b)*a(a|b){30}\`'s millions of states, or one reading more than about 12 lookarounds at one place), read without one at ${slow} steps per character (at most ${SLOW_STEPS_LIMIT})`;
    }
    return undefined;
  } catch (error) {
    if (error instanceof PatternError) return error.message;
    throw error;
  }
}

/** Whether every DFA of a compiled pattern fits its table, and the instructions a code point costs in the programs read without one. */
function slowSteps({ program, alphabet }: Compiled): { fits: boolean; slow: number } {
  let fits = true;
  let slow = 0;
  for (const [each, backwards] of [[program, false], ...program.looks.map((look) => [look.program, !look.behind])] as [Program, boolean][]) {
    if (counts(each)) slow += each.op.length;
    else if (!new Automaton(each, alphabet, backwards, false).explore()) {
      fits = false;
      slow += each.op.length;
    }
  }
  return { fits, slow };
}

/** A construct the linear matcher does not take: backreferences, too many instructions. */
class PatternError extends Error {}

/** A pattern compiled for matching; `test` answers as RegExp's test() with the `u` flag. */
export type LinearPattern = { test(text: string): boolean };

/** Compiles a valid pattern (the generator checks them) for matching in linear time; throws when it cannot be. */
export function compilePattern(source: string): LinearPattern {
  return new Matcher(compileProgram(source), () => new Matcher(compileProgram(source, COUNT_FROM_OUTGROWN)));
}

/** A pattern's program and the classes of code points it tells apart. */
type Compiled = { readonly program: Program; readonly alphabet: Alphabet };

function compileProgram(source: string, countFrom = COUNT_FROM): Compiled {
  const parser = new Parser(source);
  const tree = parser.choice();
  if (parser.at < source.length) throw new PatternError(`an unexpected ${source[parser.at]} at ${parser.at}`);
  const shared: Shared = { atoms: [], atomIndex: new Map(), counts: [], looks: [], size: 0, countFrom };
  const program = new ProgramBuilder(shared).build(tree);
  return { program, alphabet: new Alphabet(shared.atoms.map(rangesOf)) };
}

/** Reads ECMA-262 pattern syntax (with the `u` flag) into Nodes. */
class Parser {
  at = 0;
  private readonly source: string;
  /** How many groups hold the current position (parsing recurses once per group). */
  private depth = 0;

  constructor(source: string) {
    this.source = source;
  }

  choice(): Node {
    const options = [this.sequence()];
    while (this.source[this.at] === "|") {
      this.at++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { kind: "choice", options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.at < this.source.length && this.source[this.at] !== "|" && this.source[this.at] !== ")") {
      items.push(this.quantified(this.term()));
    }
    return items.length === 1 ? items[0]! : { kind: "sequence", items };
  }

  private term(): Node {
    const source = this.source;
    const start = this.at;
    const c = source[this.at]!;
    if (c === "^" || c === "$") {
      this.at++;
      return { kind: "assert", at: c };
    }
    if (c === "(") {
      const behind = source.startsWith("(?<=", start) || source.startsWith("(?<!", start);
      const ahead = source.startsWith("(?=", start) || source.startsWith("(?!", start);
      // A group: what it captures does not matter to test().
      if (ahead || behind) this.at += ahead ? 3 : 4;
      else if (source.startsWith("(?:", start)) this.at += 3;
      else if (source.startsWith("(?<", start)) this.at = source.indexOf(">", start) + 1;
      else if (source[start + 1] === "?") throw new PatternError(`the group ${source.slice(start, start + 3)}`);
      else this.at++;
      if (++this.depth > GROUP_LIMIT) throw new PatternError(`groups nested more than ${GROUP_LIMIT} deep`);
      const body = this.choice();
      if (source[this.at] !== ")") throw new PatternError(`an unclosed group at ${start}`);
      this.at++;
      this.depth--;
      // Without backreferences, whether a lookaround holds does not depend on how the rest matches.
      if (ahead || behind) return { kind: "look", body, behind, negate: source[start + (behind ? 3 : 2)] === "!" };
      return body;
    }
    if (c === "[") {
      // With the `u` flag a class holds no class; `\` escapes the next character.
      this.at++;
      while (this.at < source.length && source[this.at] !== "]") this.at += source[this.at] === "\\" ? 2 : 1;
      this.at++;
      return { kind: "atom", source: source.slice(start, this.at) };
    }
    if (c === "\\") return this.escape();
    // A literal or `.`: one code point (a surrogate pair is one).
    this.at += (source.codePointAt(start) ?? 0) > 0xffff ? 2 : 1;
    return { kind: "atom", source: source.slice(start, this.at) };
  }

  private escape(): Node {
    const source = this.source;
    const start = this.at;
    const c = source[start + 1] ?? "";
    if (c === "b" || c === "B") {
      this.at += 2;
      return { kind: "assert", at: c === "b" ? "\\b" : "\\B" };
    }
    if (/[1-9]/.test(c) || c === "k") throw new PatternError(`a backreference (${source.slice(start, start + 2)})`);
    let end = start + 2;
    if ((c === "u" || c === "p" || c === "P") && source[end] === "{") end = source.indexOf("}", end) + 1;
    else if (c === "u") {
      end += 4;
      // With the `u` flag, a lead surrogate escape and a trail surrogate escape are one code point.
      if (/^[dD][89abAB]/.test(source.slice(start + 2)) && /^\\u[dD][c-fC-F]/.test(source.slice(end))) end += 6;
    } else if (c === "x") end += 2;
    else if (c === "c") end += 1;
    this.at = end;
    return { kind: "atom", source: source.slice(start, end) };
  }

  private quantified(body: Node): Node {
    const source = this.source;
    let min: number;
    let max: number;
    const c = source[this.at];
    const counted = c === "{" ? /^\{(\d+)(,(\d*))?\}/.exec(source.slice(this.at)) : null;
    if (c === "*" || c === "+" || c === "?") {
      [min, max] = c === "*" ? [0, Infinity] : c === "+" ? [1, Infinity] : [0, 1];
      this.at++;
    } else if (counted) {
      min = Number(counted[1]);
      max = counted[2] === undefined ? min : counted[3] === "" ? Infinity : Number(counted[3]);
      this.at += counted[0].length;
    } else return body;
    // A lazy quantifier matches the same texts as a greedy one.
    if (source[this.at] === "?") this.at++;
    const spelled = body.kind !== "atom" && (min > REPEAT_LIMIT || (max !== Infinity && max > REPEAT_LIMIT));
    if (spelled) throw new PatternError(`a repetition of more than ${REPEAT_LIMIT} of more than one character`);
    return { kind: "repeat", body, min, max };
  }
}

/** What the programs of one pattern (its own and its lookarounds') share. */
type Shared = { atoms: string[]; atomIndex: Map<string, number>; counts: Count[]; looks: Look[]; size: number; readonly countFrom: number };

/** Builds a Program from Nodes (Thompson's construction). */
class ProgramBuilder {
  private readonly op: number[] = [];
  private readonly to: number[] = [];
  private readonly or: number[] = [];
  private readonly shared: Shared;

  constructor(shared: Shared) {
    this.shared = shared;
  }

  /** The program matching `node`, then MATCH. */
  build(node: Node): Program {
    this.emit(node);
    this.add(MATCH);
    const { counts, looks } = this.shared;
    return { op: Uint8Array.from(this.op), to: Int32Array.from(this.to), or: Int32Array.from(this.or), counts, looks };
  }

  /** Appends an instruction; answers its index. */
  private add(op: number, to = 0, or = 0): number {
    if (++this.shared.size > PATTERN_LIMIT) throw new PatternError(`more than ${PATTERN_LIMIT} steps once its repetitions are spelled out`);
    this.op.push(op);
    this.to.push(to);
    this.or.push(or);
    return this.op.length - 1;
  }

  private set(pc: number, op: number, to: number, or = 0): void {
    this.op[pc] = op;
    this.to[pc] = to;
    this.or[pc] = or;
  }

  private atom(source: string): number {
    const { atoms, atomIndex } = this.shared;
    let index = atomIndex.get(source);
    if (index === undefined) {
      index = atoms.push(source) - 1;
      atomIndex.set(source, index);
    }
    return index;
  }

  private emit(node: Node): void {
    switch (node.kind) {
      case "atom":
        this.add(ATOM, this.atom(node.source));
        return;
      case "assert":
        this.add(ASSERT, ASSERTIONS.indexOf(node.at));
        return;
      case "look": {
        if (this.shared.looks.length >= LOOK_LIMIT) throw new PatternError(`more than ${LOOK_LIMIT} lookarounds`);
        // A lookahead's body reversed, to be read backwards from every position (see Matcher).
        const program = new ProgramBuilder(this.shared).build(node.behind ? node.body : reversed(node.body));
        this.add(LOOK, this.shared.looks.push({ program, behind: node.behind, negate: node.negate }) - 1);
        return;
      }
      case "sequence":
        for (const item of node.items) this.emit(item);
        return;
      case "choice": {
        // split L1, L2; L1: first; jump end; L2: split L2', L3; ... last; end:
        const jumps: number[] = [];
        node.options.forEach((option, i) => {
          const last = i === node.options.length - 1;
          const split = last ? -1 : this.add(SPLIT);
          this.emit(option);
          if (last) return;
          jumps.push(this.add(JUMP));
          this.set(split, SPLIT, split + 1, this.op.length);
        });
        for (const jump of jumps) this.set(jump, JUMP, this.op.length);
        return;
      }
      case "repeat": {
        const { body, min, max } = node;
        if (body.kind === "atom" && (max === Infinity ? min : max) > this.shared.countFrom) {
          this.add(COUNT, this.atom(body.source), this.shared.counts.push({ min, max }) - 1);
          return;
        }
        for (let i = 0; i < min; i++) this.emit(body);
        if (max === Infinity) {
          // loop: split body, end; body; jump loop; end:
          const split = this.add(SPLIT);
          this.emit(body);
          this.add(JUMP, split);
          this.set(split, SPLIT, split + 1, this.op.length);
          return;
        }
        // Each optional copy may be skipped to the end: split body, end; body; split body, end; ...
        const splits: number[] = [];
        for (let i = min; i < max; i++) {
          splits.push(this.add(SPLIT));
          this.emit(body);
        }
        for (const split of splits) this.set(split, SPLIT, split + 1, this.op.length);
        return;
      }
    }
  }
}

/** The node matching the reversed texts of `node` (a lookahead read backwards); lookarounds inside hold at the same positions either way. */
function reversed(node: Node): Node {
  switch (node.kind) {
    case "sequence":
      return { kind: "sequence", items: node.items.map(reversed).reverse() };
    case "choice":
      return { kind: "choice", options: node.options.map(reversed) };
    case "repeat":
      return { ...node, body: reversed(node.body) };
    default:
      return node;
  }
}

/** The last code point. */
const TOP = 0x10ffff;

/** Ranges of code points, as sorted [first, last] pairs, none touching the next. */
type Ranges = readonly number[];

/** `ranges` (pairs in any order, overlapping or not) sorted and merged. */
function normalized(ranges: readonly number[]): number[] {
  const pairs: [number, number][] = [];
  for (let i = 0; i < ranges.length; i += 2) pairs.push([ranges[i]!, ranges[i + 1]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [first, last] of pairs) {
    if (out.length > 0 && first <= out[out.length - 1]! + 1) out[out.length - 1] = Math.max(out[out.length - 1]!, last);
    else out.push(first, last);
  }
  return out;
}

/** The code points `ranges` (normalized) leaves out. */
function complement(ranges: Ranges): number[] {
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < ranges.length; i += 2) {
    if (ranges[i]! > next) out.push(next, ranges[i]! - 1);
    next = ranges[i + 1]! + 1;
  }
  if (next <= TOP) out.push(next, TOP);
  return out;
}

const DIGITS: Ranges = [0x30, 0x39];
const WORDS: Ranges = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];
/** WhiteSpace and LineTerminator (ECMA-262 `\s`). */
const SPACES: Ranges = normalized([9, 13, 0x20, 0x20, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff]);
/** What `.` leaves out: the LineTerminators. */
const LINE_ENDS: Ranges = [10, 10, 13, 13, 0x2028, 0x2029];
const SINGLE_ESCAPES: Readonly<Record<string, number>> = { t: 9, n: 10, v: 11, f: 12, r: 13, 0: 0 };
const SET_ESCAPES: Readonly<Record<string, Ranges>> = {
  d: DIGITS,
  D: complement(DIGITS),
  w: WORDS,
  W: complement(WORDS),
  s: SPACES,
  S: complement(SPACES),
};

/** The code points of atoms met so far (a pattern's atoms recur: `.`, `\d`, `\p{L}`). */
const RANGES = new Map<string, Ranges>();

/**
 * The code points one atom (a literal, `.`, an escape or a class) admits, read from its syntax;
 * a property escape (`\p{L}`), which needs Unicode's tables, is asked of V8 (scanned).
 */
function rangesOf(source: string): Ranges {
  let ranges = RANGES.get(source);
  if (ranges) return ranges;
  if (source === ".") ranges = complement(LINE_ENDS);
  else if (source[0] === "[") ranges = classRanges(source);
  else if (source[0] === "\\") {
    const escape = escapeAt(source, 0, false);
    ranges = escape.end === source.length ? escape.ranges : undefined;
  } else ranges = [source.codePointAt(0)!, source.codePointAt(0)!];
  // What the syntax above does not cover is asked of V8 as it stands.
  ranges = ranges ? normalized(ranges) : scanned(source);
  RANGES.set(source, ranges);
  return ranges;
}

/** An escape at `at`: its code points, where it ends, and its code point when it is one (a class range's end). */
type Escape = { readonly ranges: Ranges; readonly end: number; readonly single?: number };

function escapeAt(source: string, at: number, inClass: boolean): Escape {
  const c = source[at + 1]!;
  const one = (codePoint: number, end: number): Escape => ({ ranges: [codePoint, codePoint], end, single: codePoint });
  const set = SET_ESCAPES[c];
  if (set) return { ranges: set, end: at + 2 };
  if (c === "p" || c === "P") {
    const end = source.indexOf("}", at) + 1;
    const property = source.slice(at, end);
    let ranges = RANGES.get(property);
    if (!ranges) RANGES.set(property, (ranges = scanned(property)));
    return { ranges, end };
  }
  if (c in SINGLE_ESCAPES) return one(SINGLE_ESCAPES[c]!, at + 2);
  if (c === "b" && inClass) return one(8, at + 2);
  if (c === "c") return one(source.charCodeAt(at + 2) % 32, at + 3);
  if (c === "x") return one(parseInt(source.slice(at + 2, at + 4), 16), at + 4);
  if (c === "u" && source[at + 2] === "{") {
    const end = source.indexOf("}", at) + 1;
    return one(parseInt(source.slice(at + 3, end - 1), 16), end);
  }
  if (c === "u") {
    const lead = parseInt(source.slice(at + 2, at + 6), 16);
    // With the `u` flag, a lead surrogate escape and a trail surrogate escape are one code point.
    const trail = source.startsWith("\\u", at + 6) ? parseInt(source.slice(at + 8, at + 12), 16) : NaN;
    if (lead >= 0xd800 && lead <= 0xdbff && trail >= 0xdc00 && trail <= 0xdfff) return one((lead - 0xd800) * 0x400 + trail - 0xdc00 + 0x10000, at + 12);
    return one(lead, at + 6);
  }
  // An identity escape (`\.`, `\-`, `\/`): the code point itself.
  const codePoint = source.codePointAt(at + 1)!;
  return one(codePoint, at + 1 + (codePoint > 0xffff ? 2 : 1));
}

/** A class's code points (`[a-z\d]`, `[^<>]`); undefined where its syntax is not one read here. */
function classRanges(source: string): number[] | undefined {
  const negate = source[1] === "^";
  const end = source.length - 1;
  const out: number[] = [];
  const member = (at: number): Escape => {
    if (source[at] === "\\") return escapeAt(source, at, true);
    const codePoint = source.codePointAt(at)!;
    return { ranges: [codePoint, codePoint], end: at + (codePoint > 0xffff ? 2 : 1), single: codePoint };
  };
  for (let at = negate ? 2 : 1; at < end; ) {
    const first = member(at);
    at = first.end;
    if (source[at] === "-" && at + 1 < end) {
      const last = member(at + 1);
      // With the `u` flag, a range between a class escape and anything is a syntax error.
      if (first.single === undefined || last.single === undefined) return undefined;
      out.push(first.single, last.single);
      at = last.end;
    } else out.push(...first.ranges);
  }
  return negate ? complement(normalized(out)) : out;
}

/**
 * Every code point V8 takes for the atom `source`, found by matching runs of it in texts of every
 * code point (about 70 ms for `\p{L}`, once per atom and process): Unicode's property tables are
 * V8's, so they are asked rather than copied.
 */
function scanned(source: string): Ranges {
  const out: number[] = [];
  const runs = new RegExp(`(?:${source})+`, "gu");
  // Texts of the code points from `first` to `last`, surrogates aside, 4,096 at a time.
  const chunk = new Uint16Array(8192);
  for (let first = 0; first <= TOP; first += 4096) {
    const last = Math.min(first + 4095, TOP);
    if (first === 0xd000) {
      // The surrogates alone (lone ones are code points of their own with the `u` flag).
      const one = new RegExp(`^(?:${source})$`, "u");
      for (let codePoint = first; codePoint <= last; codePoint++) if (one.test(String.fromCharCode(codePoint))) out.push(codePoint, codePoint);
      continue;
    }
    let length = 0;
    for (let codePoint = first; codePoint <= last; codePoint++) {
      if (codePoint > 0xffff) {
        chunk[length++] = 0xd800 + ((codePoint - 0x10000) >> 10);
        chunk[length++] = 0xdc00 + ((codePoint - 0x10000) & 0x3ff);
      } else chunk[length++] = codePoint;
    }
    const text = String.fromCharCode.apply(null, chunk.subarray(0, length) as unknown as number[]);
    const width = first > 0xffff ? 2 : 1;
    runs.lastIndex = 0;
    for (let found = runs.exec(text); found !== null; found = runs.exec(text)) {
      out.push(first + found.index / width, first + (found.index + found[0].length) / width - 1);
    }
  }
  return normalized(out);
}

/**
 * The classes of code points a pattern tells apart: two code points are of one class when every
 * atom of the pattern (and `\b`'s word characters) admits both or neither. Why: the DFA's table is
 * keyed by class, so its size depends on the pattern alone; a text of 250,000 distinct code points
 * costs what a text of one does. A code point's class is a lookup for ASCII and a binary search
 * over the boundaries of the atoms' ranges above it.
 */
class Alphabet {
  /** How many classes. */
  readonly count: number;
  /** Whether atom `a` admits class `c`: `member[a * count + c]`. */
  readonly member: Uint8Array;
  /** Whether a class is of word characters (`\b`, `\B`). */
  readonly word: Uint8Array;
  /** The class of each ASCII code point. */
  readonly ascii: Int32Array;
  /** Per class, its kind as the code point after a position: WORD or OTHER. */
  readonly kinds: Uint8Array;
  /** From 128 on: where each run of one class starts, and its class. */
  private readonly starts: Int32Array;
  private readonly classes: Int32Array;

  constructor(atoms: readonly Ranges[]) {
    const sets = [...atoms, WORDS];
    const points = new Set<number>([0, 128, TOP + 1]);
    for (const ranges of sets) for (let i = 0; i < ranges.length; i += 2) points.add(ranges[i]!).add(ranges[i + 1]! + 1);
    const bounds = Int32Array.from(points).sort();
    const runs = bounds.length - 1;
    // Each run's atoms (a run lies inside or outside each range, as ranges start and end on bounds).
    const members: number[][] = Array.from({ length: runs }, () => []);
    sets.forEach((ranges, set) => {
      for (let i = 0; i < ranges.length; i += 2) for (let run = searchRun(bounds, ranges[i]!); bounds[run]! <= ranges[i + 1]!; run++) members[run]!.push(set);
    });
    const classOfKey = new Map<string, number>();
    const runClass = new Int32Array(runs);
    const classMembers: number[][] = [];
    members.forEach((list, run) => {
      const key = list.join(",");
      let found = classOfKey.get(key);
      if (found === undefined) classOfKey.set(key, (found = classMembers.push(list) - 1));
      runClass[run] = found;
    });
    this.count = classMembers.length;
    this.member = new Uint8Array(atoms.length * this.count);
    this.word = new Uint8Array(this.count);
    this.kinds = new Uint8Array(this.count).fill(OTHER);
    classMembers.forEach((list, c) => {
      for (const set of list) {
        if (set === atoms.length) {
          this.word[c] = 1;
          this.kinds[c] = WORD;
        }
        else this.member[set * this.count + c] = 1;
      }
    });
    this.ascii = new Int32Array(128);
    for (let codePoint = 0; codePoint < 128; codePoint++) this.ascii[codePoint] = runClass[searchRun(bounds, codePoint)]!;
    const high = searchRun(bounds, 128);
    this.starts = bounds.slice(high, runs);
    this.classes = runClass.slice(high);
  }

  classOf(codePoint: number): number {
    return codePoint < 128 ? this.ascii[codePoint]! : this.classes[searchRun(this.starts, codePoint)]!;
  }
}

/** The run of `bounds` holding `codePoint`: the last bound at or below it. */
function searchRun(bounds: Int32Array, codePoint: number): number {
  let low = 0;
  let high = bounds.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (bounds[middle]! <= codePoint) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Whether a code point is a word character (`\b`, `\B`; without the `i` flag, ASCII alone). */
const isWord = (codePoint: number): boolean => (codePoint >= 48 && codePoint <= 57) || (codePoint >= 65 && codePoint <= 90) || (codePoint >= 97 && codePoint <= 122) || codePoint === 95;

/** The code point at `at` (a surrogate pair is one; a lone surrogate is one of its own). */
function codePointAfter(text: string, at: number): number {
  const high = text.charCodeAt(at);
  if (high < 0xd800 || high > 0xdbff || at + 1 >= text.length) return high;
  const low = text.charCodeAt(at + 1);
  return low >= 0xdc00 && low <= 0xdfff ? (high - 0xd800) * 0x400 + low - 0xdc00 + 0x10000 : high;
}

/** The code point before `at` (a surrogate pair is one; a lone surrogate is one of its own). */
function codePointBefore(text: string, at: number): number {
  const low = text.charCodeAt(at - 1);
  if (low < 0xdc00 || low > 0xdfff || at < 2) return low;
  const high = text.charCodeAt(at - 2);
  return high >= 0xd800 && high <= 0xdbff ? (high - 0xd800) * 0x400 + low - 0xdc00 + 0x10000 : low;
}

/**
 * One pass of a program over a text, in the program's direction, a match starting at every
 * position (but with `^`). With `record` 0 it answers whether a match is found (test()); otherwise
 * it reads the whole text and sets `record` in `bits` at every position where a match ends (a
 * lookaround's pass). `bits` holds at each position the lookarounds found so far (bit i: looks[i]).
 */
interface Engine {
  /** The steps taken since the engine was made: code points read and instructions visited. */
  readonly work: number;
  run(text: string, bits: Uint16Array, record: number): boolean;
}

/** The code point next in reading order (and so the position's context for `^`, `$`, `\b`, `\B`): none, a word character, another. */
const END = 0;
const WORD = 1;
const OTHER = 2;

/** A state where the match is reached; one where nothing is alive and nothing starts again (after `^`). */
const ACCEPTING = 1;
const DEAD = 2;

/**
 * The memory one program's DFA may take: its states, their atoms, its table (a cell per state,
 * class and context). Why: `[ab]*a[ab]{20}` has millions of states. The generator explores every
 * DFA (explore()); one that fits is never emptied, and one that does not is read without a table
 * past these bounds, at a cost the generator bounds (SLOW_STEPS_LIMIT).
 */
const STATE_LIMIT = 4096;
const STATE_ATOMS_LIMIT = 1 << 17;
const TABLE_LIMIT = 1 << 20;
/** The most instructions the generator visits exploring one DFA (about a second). */
const EXPLORE_LIMIT = 1 << 25;

/**
 * A program run as a DFA built as texts need it (as RE2 does): a state is the set of atoms reached
 * after reading part of a text (and whether the match is), a transition is keyed by the class of
 * the code point read (Alphabet) and the context of the position reached (the next code point's
 * kind, for `$` and `\b`, and the lookarounds of the program that hold there). A code point costs
 * a lookup in the table once a transition is known, and at most the program's size before.
 */
class Automaton implements Engine {
  work = 0;
  /** Whether the table was outgrown where it is given up (`abandon`): the text's answer is not known. */
  outgrown = false;
  /** Whether to give up where the table is outgrown (the Matcher then counts instead), or read on without one (slow()). */
  private readonly abandon: boolean;
  private readonly op: Uint8Array;
  private readonly to: Int32Array;
  private readonly or: Int32Array;
  private readonly looks: readonly Look[];
  private readonly alphabet: Alphabet;
  private readonly backwards: boolean;
  /** Whether the program starts with `^` and is read forwards, and so starts nowhere else. */
  private readonly anchored: boolean;
  /** The lookarounds the program reads, and each one's bit in a context (-1: not read). */
  private readonly lookIds: Int32Array;
  private readonly lookBit: Int32Array;
  private readonly contexts: number;
  /** The cells of one state in the table. */
  private readonly width: number;
  /** Per state, class and context: 1 + the state reached (0: not known yet). */
  private table: Int32Array;
  /** Per context: 1 + the state a text starts in (0: not known yet). */
  private readonly starts: Int32Array;
  private states: Int32Array[] = [];
  /** Per state: ACCEPTING, DEAD. */
  private flags: number[] = [];
  private index = new Map<string, number>();
  private stored = 0;
  /** Whether the table was outgrown during the last text (it is emptied before the next). */
  private overflowed = false;
  // Working sets (run() goes to its end without yielding, so no two calls share them): the atoms a
  // closure reaches, the mark of the closure each instruction was last reached in, what is pending.
  private list: Int32Array;
  private current: Int32Array;
  private readonly reached: Int32Array;
  private readonly pending: Int32Array;
  private mark = 0;
  /** Whether the last closure reached MATCH, and how many atoms it reached (slow() goes on from them). */
  private matched = false;
  private size = 0;
  // The code point next in reading order: its class and its length in UTF-16 units (0: none).
  private nextClass = 0;
  private nextLength = 0;

  constructor(program: Program, alphabet: Alphabet, backwards: boolean, abandon: boolean) {
    this.abandon = abandon;
    ({ op: this.op, to: this.to, or: this.or, looks: this.looks } = program);
    this.alphabet = alphabet;
    this.backwards = backwards;
    this.anchored = !backwards && this.op[0] === ASSERT && this.to[0] === 0;
    const ids: number[] = [];
    this.op.forEach((op, pc) => {
      if (op === LOOK && !ids.includes(this.to[pc]!)) ids.push(this.to[pc]!);
    });
    this.lookIds = Int32Array.from(ids);
    this.lookBit = new Int32Array(this.looks.length).fill(-1);
    ids.forEach((id, bit) => (this.lookBit[id] = bit));
    this.contexts = 3 << ids.length;
    this.width = alphabet.count * this.contexts;
    this.table = new Int32Array(Math.min(this.width * 16, TABLE_LIMIT));
    this.starts = new Int32Array(this.contexts);
    const size = this.op.length;
    this.list = new Int32Array(size);
    this.current = new Int32Array(size);
    this.reached = new Int32Array(size);
    this.pending = new Int32Array(size);
  }

  run(text: string, bits: Uint16Array, record: number): boolean {
    if (this.overflowed) this.flush();
    const { backwards, flags } = this;
    const alphabet = this.alphabet;
    const last = backwards ? 0 : text.length;
    let at = backwards ? text.length : 0;
    // The code point next in reading order (-1: none) and its class.
    let next = at === last ? -1 : backwards ? codePointBefore(text, at) : codePointAfter(text, at);
    let nextClass = next < 0 ? 0 : alphabet.classOf(next);
    let state = this.begin(next < 0 ? END : alphabet.kinds[nextClass]!, bits, at);
    let steps = 0;
    while (state >= 0) {
      const flag = flags[state]!;
      if ((flag & ACCEPTING) !== 0) {
        if (record === 0) break;
        bits[at] = bits[at]! | record;
      }
      if (next < 0 || (flag & DEAD) !== 0) break;
      steps++;
      const read = nextClass;
      at += backwards ? (next > 0xffff ? -2 : -1) : next > 0xffff ? 2 : 1;
      next = at === last ? -1 : backwards ? codePointBefore(text, at) : codePointAfter(text, at);
      nextClass = next < 0 ? 0 : alphabet.classOf(next);
      state = this.step(state, read, next < 0 ? END : alphabet.kinds[nextClass]!, bits, at);
    }
    this.work += steps;
    if (state >= 0) return (flags[state]! & ACCEPTING) !== 0;
    if (this.giveUp()) return false;
    this.nextClass = nextClass;
    this.nextLength = next < 0 ? 0 : next > 0xffff ? 2 : 1;
    return this.slow(text, bits, record, at);
  }

  /** The state a text starts in at `at`, `kind` next; -1 where the table is outgrown. */
  begin(kind: number, bits: Uint16Array, at: number): number {
    return this.start(this.lookIds.length > 0 ? this.context(bits, at, kind) : kind);
  }

  /** The state after reading a code point of class `read` in `state`, reaching `at` with `kind` next; -1 where the table is outgrown. */
  step(state: number, read: number, kind: number, bits: Uint16Array, at: number): number {
    const context = this.lookIds.length > 0 ? this.context(bits, at, kind) : kind;
    const cell = state * this.width + read * this.contexts + context;
    const known = this.table[cell]! - 1;
    return known >= 0 ? known : this.transition(state, read, context, cell);
  }

  /** Where the table is outgrown: whether to give the text up (and remember it) rather than read on without one. */
  giveUp(): boolean {
    if (this.abandon) this.outgrown = true;
    return this.abandon;
  }

  /** ACCEPTING and DEAD, as they hold for `state`. */
  flagsOf(state: number): number {
    return this.flags[state]!;
  }

  /**
   * Whether the whole DFA fits its table: every state reached from every start by every class in
   * every context that a text can bring (the class read next is of the kind the context said).
   * Then no text can make it outgrow the table, as a text reaches some of them.
   */
  explore(): boolean {
    const { count, kinds } = this.alphabet;
    // Pairs of a state and the kind of the code point promised next, each once.
    const seen = new Set<number>();
    const pending: number[] = [];
    const reach = (state: number, context: number): boolean => {
      if (state < 0) return false;
      const pair = state * 3 + (context % 3);
      if (!seen.has(pair)) pending.push(pair);
      seen.add(pair);
      return true;
    };
    for (let context = 0; context < this.contexts; context++) if (!reach(this.start(context), context)) return false;
    while (pending.length > 0) {
      const pair = pending.pop()!;
      const state = Math.floor(pair / 3);
      for (let read = 0; read < count; read++) {
        if (kinds[read] !== pair % 3) continue;
        for (let context = 0; context < this.contexts; context++) {
          const cell = state * this.width + read * this.contexts + context;
          if (!reach(this.table[cell] !== 0 ? this.table[cell]! - 1 : this.transition(state, read, context, cell), context)) return false;
        }
      }
      if (this.work > EXPLORE_LIMIT) return false;
    }
    return true;
  }

  /** The rest of a text once the table is outgrown: each code point costs a closure (at most the program's size). */
  private slow(text: string, bits: Uint16Array, record: number, at: number): boolean {
    this.overflowed = true;
    let size = this.size;
    // The atoms alive and the list a closure fills swap places at every code point.
    let current = this.list;
    this.list = this.current;
    this.current = current;
    for (;;) {
      this.work++;
      if (this.matched) {
        if (record === 0) return true;
        bits[at] = bits[at]! | record;
      }
      const length = this.nextLength;
      if (length === 0 || (this.anchored && size === 0)) return false;
      const read = this.nextClass;
      at += this.backwards ? -length : length;
      size = this.closure(current, size, read, this.context(bits, at, this.peek(text, at)));
      current = this.list;
      this.list = this.current;
      this.current = current;
    }
  }

  private flush(): void {
    this.states = [];
    this.flags = [];
    this.index = new Map();
    this.stored = 0;
    this.table.fill(0);
    this.starts.fill(0);
    this.overflowed = false;
  }

  /** The code point at `at` in reading order becomes the next one; answers its kind. */
  private peek(text: string, at: number): number {
    if (this.backwards ? at === 0 : at === text.length) {
      this.nextLength = 0;
      return END;
    }
    const codePoint = this.backwards ? codePointBefore(text, at) : text.codePointAt(at)!;
    const read = this.alphabet.classOf(codePoint);
    this.nextClass = read;
    this.nextLength = codePoint > 0xffff ? 2 : 1;
    return this.alphabet.word[read] === 1 ? WORD : OTHER;
  }

  /** The context at `at`: the next code point's kind and the lookarounds of the program that hold there. */
  private context(bits: Uint16Array, at: number, kind: number): number {
    const ids = this.lookIds;
    const found = bits[at]!;
    let context = kind;
    for (let bit = 0; bit < ids.length; bit++) context += ((found >> ids[bit]!) & 1) * (3 << bit);
    return context;
  }

  /** The state a text starts in, in `context`; -1 where the table is outgrown. */
  private start(context: number): number {
    const known = this.starts[context]! - 1;
    if (known >= 0) return known;
    const state = this.intern(this.closure(undefined, 0, 0, context));
    if (state >= 0) this.starts[context] = state + 1;
    return state;
  }

  /** The state after reading a code point of class `read` in `state`, kept in the table at `cell`; -1 where the table is outgrown. */
  private transition(state: number, read: number, context: number, cell: number): number {
    const atoms = this.states[state]!;
    const next = this.intern(this.closure(atoms, atoms.length, read, context));
    if (next >= 0) this.table[cell] = next + 1;
    return next;
  }

  /** The state of the last closure's atoms: a known one, a new one, or -1 past the bounds. */
  private intern(size: number): number {
    this.size = size;
    const atoms = this.list.slice(0, size).sort();
    const key = `${this.matched ? 1 : 0}:${atoms.join(",")}`;
    const known = this.index.get(key);
    if (known !== undefined) return known;
    const state = this.states.length;
    if (state >= STATE_LIMIT || this.stored + size > STATE_ATOMS_LIMIT || (state + 1) * this.width > TABLE_LIMIT) return -1;
    if ((state + 1) * this.width > this.table.length) {
      const table = new Int32Array(Math.min(Math.max(this.table.length * 2, (state + 1) * this.width), TABLE_LIMIT));
      table.set(this.table);
      this.table = table;
    }
    this.states.push(atoms);
    this.flags.push((this.matched ? ACCEPTING : 0) | (this.anchored && size === 0 ? DEAD : 0));
    this.index.set(key, state);
    this.stored += size;
    return state;
  }

  private nextMark(): number {
    if (this.mark === 0x7fffffff) {
      this.reached.fill(0);
      this.mark = 0;
    }
    return ++this.mark;
  }

  /**
   * Into `list`, the atoms reached from the first `length` of `atoms` by reading a code point of
   * class `read` (from the start where `atoms` is undefined), then without reading one (through
   * jumps, splits and the assertions and lookarounds that hold in `context`), and a new start but
   * with `^`; answers how many, and sets `matched`.
   */
  private closure(atoms: Int32Array | undefined, length: number, read: number, context: number): number {
    const { op, to, or, reached, pending, list } = this;
    const mark = this.nextMark();
    const kind = context % 3;
    const looks = (context / 3) | 0;
    const initial = atoms === undefined;
    // Reading order is text order forwards and the reverse backwards: what comes next is after or before.
    const hereWord = !initial && this.alphabet.word[read] === 1;
    const atStart = this.backwards ? kind === END : initial;
    const atEnd = this.backwards ? initial : kind === END;
    const beforeWord = this.backwards ? kind === WORD : hereWord;
    const afterWord = this.backwards ? hereWord : kind === WORD;
    const { member, count } = this.alphabet;
    // Every instruction is pending at most once (marked when it is), so `pending` holds them all.
    let top = 0;
    for (let i = 0; i < length; i++) {
      const pc = atoms![i]! + 1;
      if (member[to[pc - 1]! * count + read] === 1 && reached[pc] !== mark) {
        reached[pc] = mark;
        pending[top++] = pc;
      }
    }
    if ((initial || !this.anchored) && reached[0] !== mark) {
      reached[0] = mark;
      pending[top++] = 0;
    }
    let matched = false;
    let size = 0;
    let visited = 0;
    while (top > 0) {
      const pc = pending[--top]!;
      visited++;
      let first = -1;
      let second = -1;
      switch (op[pc]) {
        case MATCH:
          matched = true;
          break;
        case ATOM:
          list[size++] = pc;
          break;
        case JUMP:
          first = to[pc]!;
          break;
        case SPLIT:
          first = to[pc]!;
          second = or[pc]!;
          break;
        case ASSERT: {
          const which = to[pc]!;
          if (which === 0 ? atStart : which === 1 ? atEnd : which === 2 ? beforeWord !== afterWord : beforeWord === afterWord) first = pc + 1;
          break;
        }
        case LOOK:
          if ((((looks >> this.lookBit[to[pc]!]!) & 1) === 1) !== this.looks[to[pc]!]!.negate) first = pc + 1;
          break;
      }
      if (first >= 0 && reached[first] !== mark) {
        reached[first] = mark;
        pending[top++] = first;
      }
      if (second >= 0 && reached[second] !== mark) {
        reached[second] = mark;
        pending[top++] = second;
      }
    }
    this.work += visited;
    this.matched = matched;
    return size;
  }
}

/**
 * A program with counters, run without a DFA (a counter's state is a queue, not a set of atoms):
 * the threads alive advance one code point at a time (a Pike VM), each instruction taken at most
 * once per code point, so a text costs at most the program's size per code point. The threads in a COUNT
 * share a queue of the steps at which each entered it (oldest first): reading a code point the atom
 * admits ages them all at once, those past `max` leave from the front, and the front alone says
 * whether one has read `min` (the counting sets of Turoňová et al., 2020), so a counter costs O(1)
 * a code point, however large its bounds.
 */
class Scanner implements Engine {
  private readonly program: Program;
  private readonly alphabet: Alphabet;
  private readonly backwards: boolean;
  /** Whether the program starts with `^`, and so starts nowhere else. */
  private readonly anchored: boolean;
  private readonly list: Int32Array;
  private readonly next: Int32Array;
  private readonly reached: Int32Array;
  private readonly listed: Int32Array;
  private readonly pending: Int32Array;
  /** Per COUNT instruction, the steps at which its threads entered it, from `heads[pc]` on. */
  private readonly queues: number[][];
  private readonly heads: Int32Array;
  private mark = 0;
  /** The instructions visited since the matcher was made (tests assert bounded work with it). */
  work = 0;
  // The text being read: how many code points so far, the lookarounds found, what a scan records.
  private text = "";
  private steps = 0;
  private bits: Uint16Array = new Uint16Array(0);
  private record = 0;

  constructor(program: Program, alphabet: Alphabet, backwards: boolean) {
    this.program = program;
    this.alphabet = alphabet;
    this.backwards = backwards;
    const size = program.op.length;
    this.anchored = program.op[0] === ASSERT && program.to[0] === 0;
    this.list = new Int32Array(size);
    this.next = new Int32Array(size);
    this.reached = new Int32Array(size);
    this.listed = new Int32Array(size);
    this.pending = new Int32Array(size);
    this.queues = Array.from({ length: size }, () => []);
    this.heads = new Int32Array(size);
  }

  run(text: string, bits: Uint16Array, record: number): boolean {
    const { op, to, or, counts } = this.program;
    const { member, count } = this.alphabet;
    const backwards = this.backwards;
    this.text = text;
    this.bits = bits;
    this.record = record;
    this.steps = 0;
    for (let pc = 0; pc < op.length; pc++) if (op[pc] === COUNT) this.clear(pc);
    let at = backwards ? text.length : 0;
    let mark = this.nextMark();
    let size = this.follow(0, at, mark, this.list, 0);
    let list = this.list;
    let next = this.next;
    while (size >= 0 && (backwards ? at > 0 : at < text.length)) {
      if (size === 0 && this.anchored && !backwards) return false;
      const here = backwards ? codePointBefore(text, at) : text.codePointAt(at)!;
      at += (backwards ? -1 : 1) * (here > 0xffff ? 2 : 1);
      const hereClass = this.alphabet.classOf(here);
      this.steps++;
      mark = this.nextMark();
      // The counters first: a thread entering one at this position must not be aged with the others.
      for (let i = 0; i < size; i++) {
        const pc = list[i]!;
        if (op[pc] !== COUNT) continue;
        if (member[to[pc]! * count + hereClass] !== 1) this.clear(pc);
        else {
          const queue = this.queues[pc]!;
          const max = counts[or[pc]!]!.max;
          let head = this.heads[pc]!;
          while (head < queue.length && this.steps - queue[head]! > max) head++;
          this.heads[pc] = head;
          if (head === queue.length) this.clear(pc);
        }
      }
      let nextSize = 0;
      for (let i = 0; i < size && nextSize >= 0; i++) {
        const pc = list[i]!;
        if (op[pc] === ATOM) {
          if (member[to[pc]! * count + hereClass] === 1) nextSize = this.follow(pc + 1, at, mark, next, nextSize);
          continue;
        }
        const queue = this.queues[pc]!;
        const head = this.heads[pc]!;
        if (head === queue.length) continue;
        if (this.listed[pc] !== mark) {
          this.listed[pc] = mark;
          next[nextSize++] = pc;
        }
        if (this.steps - queue[head]! >= counts[or[pc]!]!.min) nextSize = this.follow(pc + 1, at, mark, next, nextSize);
      }
      if (nextSize >= 0 && !(this.anchored && !backwards)) nextSize = this.follow(0, at, mark, next, nextSize);
      size = nextSize;
      const read = list;
      list = next;
      next = read;
    }
    return size < 0;
  }

  private clear(pc: number): void {
    this.queues[pc]!.length = 0;
    this.heads[pc] = 0;
  }

  private nextMark(): number {
    if (this.mark === 0x7fffffff) {
      this.reached.fill(0);
      this.listed.fill(0);
      this.mark = 0;
    }
    return ++this.mark;
  }

  /**
   * Adds to `list` the threads reachable from `start` at position `at` without reading a code
   * point; answers the list's new size, or -1 when the match is reached and test() may stop.
   */
  private follow(start: number, at: number, mark: number, list: Int32Array, size: number): number {
    const { op, to, or, counts, looks } = this.program;
    const { reached, pending, text } = this;
    if (reached[start] === mark) return size;
    reached[start] = mark;
    let top = 0;
    pending[top++] = start;
    while (top > 0) {
      const pc = pending[--top]!;
      this.work++;
      let first = -1;
      let second = -1;
      switch (op[pc]) {
        case MATCH:
          if (this.record === 0) return -1;
          this.bits[at] = this.bits[at]! | this.record;
          break;
        case ATOM:
          list[size++] = pc;
          break;
        case JUMP:
          first = to[pc]!;
          break;
        case SPLIT:
          first = to[pc]!;
          second = or[pc]!;
          break;
        case ASSERT: {
          const which = to[pc]!;
          const before = at > 0 && isWord(text.charCodeAt(at - 1));
          const after = at < text.length && isWord(text.charCodeAt(at));
          if (which === 0 ? at === 0 : which === 1 ? at === text.length : which === 2 ? before !== after : before === after) first = pc + 1;
          break;
        }
        case LOOK:
          if ((((this.bits[at]! >> to[pc]!) & 1) === 1) !== looks[to[pc]!]!.negate) first = pc + 1;
          break;
        case COUNT: {
          // A thread enters: it has read none yet (one entry per step; with no maximum, the oldest
          // entry can do whatever a newer one can).
          const queue = this.queues[pc]!;
          const count = counts[or[pc]!]!;
          const empty = this.heads[pc] === queue.length;
          if (empty || (count.max !== Infinity && queue[queue.length - 1] !== this.steps)) {
            if (empty) this.clear(pc);
            else if (this.heads[pc]! > 1024 && this.heads[pc]! * 2 > queue.length) {
              queue.splice(0, this.heads[pc]);
              this.heads[pc] = 0;
            }
            queue.push(this.steps);
          }
          if (this.listed[pc] !== mark) {
            this.listed[pc] = mark;
            list[size++] = pc;
          }
          if (count.min === 0) first = pc + 1;
          break;
        }
      }
      if (first >= 0 && reached[first] !== mark) {
        reached[first] = mark;
        pending[top++] = first;
      }
      if (second >= 0 && reached[second] !== mark) {
        reached[second] = mark;
        pending[top++] = second;
      }
    }
    return size;
  }
}

/**
 * A pattern with counters or lookarounds. Each lookaround is first evaluated at every position of
 * the text in one pass (a lookahead's body reversed, read backwards with a start at every position:
 * it holds at i when a match ends there; a lookbehind's body forwards), inner ones first, into a
 * table the later passes read: O(text length x instructions) in all.
 */

/**
 * Lookarounds read in one direction in one pass, none reading another's bits (as the password
 * rule's `(?=.*[a-z])(?=.*[A-Z])(?=.*\d)`): each code point is decoded and classed once and every
 * DFA takes its step. Why: a pass per lookaround would read a text once per lookaround. A DFA
 * that outgrows its table leaves the pass and reads the text again on its own (slow()).
 */
class Lockstep implements Engine {
  private readonly automata: readonly Automaton[];
  private readonly records: readonly number[];
  private readonly alphabet: Alphabet;
  private readonly backwards: boolean;
  private readonly states: Int32Array;
  /** The steps its DFAs took in it. */
  private steps = 0;

  constructor(automata: readonly Automaton[], records: readonly number[], alphabet: Alphabet, backwards: boolean) {
    this.automata = automata;
    this.records = records;
    this.alphabet = alphabet;
    this.backwards = backwards;
    this.states = new Int32Array(automata.length);
  }

  get work(): number {
    return this.automata.reduce((sum, automaton) => sum + automaton.work, this.steps);
  }

  /** The bit DFA `i` sets in `state` (0: none); DONE where nothing more can match. */
  private settle(i: number, state: number): number {
    const flags = this.automata[i]!.flagsOf(state);
    if ((flags & DEAD) !== 0) this.states[i] = DONE;
    return (flags & ACCEPTING) !== 0 ? this.records[i]! : 0;
  }

  /** Sets each lookaround's bit where it holds (a scan: each has its own `record`). */
  run(text: string, bits: Uint16Array): boolean {
    const { automata, records, alphabet, backwards, states } = this;
    const last = backwards ? 0 : text.length;
    let at = backwards ? text.length : 0;
    let next = at === last ? -1 : backwards ? codePointBefore(text, at) : codePointAfter(text, at);
    let nextClass = next < 0 ? 0 : alphabet.classOf(next);
    let kind = next < 0 ? END : alphabet.kinds[nextClass]!;
    // Per DFA its state; DONE once nothing more can match (after `^`); OUTGROWN once its table is.
    let alive = automata.length;
    let found = 0;
    for (let i = 0; i < automata.length; i++) {
      const state = (states[i] = automata[i]!.begin(kind, bits, at));
      if (state >= 0) found |= this.settle(i, state);
      if (states[i]! < 0) alive--;
    }
    for (;;) {
      if (found !== 0) bits[at] = bits[at]! | found;
      if (next < 0 || alive === 0) break;
      const read = nextClass;
      at += backwards ? (next > 0xffff ? -2 : -1) : next > 0xffff ? 2 : 1;
      next = at === last ? -1 : backwards ? codePointBefore(text, at) : codePointAfter(text, at);
      nextClass = next < 0 ? 0 : alphabet.classOf(next);
      kind = next < 0 ? END : alphabet.kinds[nextClass]!;
      this.steps += alive;
      found = 0;
      for (let i = 0; i < automata.length; i++) {
        if (states[i]! < 0) continue;
        const state = (states[i] = automata[i]!.step(states[i]!, read, kind, bits, at));
        if (state >= 0) found |= this.settle(i, state);
        else states[i] = OUTGROWN;
        if (states[i]! < 0) alive--;
      }
    }
    automata.forEach((automaton, i) => {
      if (states[i] === OUTGROWN && !automaton.giveUp()) automaton.run(text, bits, records[i]!);
    });
    return false;
  }
}
const DONE = -2;
const OUTGROWN = -1;

/** No lookarounds: bits no pass reads or sets. */
const NO_BITS = new Uint16Array(0);

/** Whether a program counts (COUNT), which a DFA's states cannot hold. */
const counts = (program: Program): boolean => program.op.includes(COUNT);

/**
 * A pattern compiled. Each lookaround is first evaluated at every position of the text in one pass
 * (a lookahead's body reversed, read backwards with a start at every position: it holds at i when
 * a match ends there; a lookbehind's body forwards), inner ones first, into a bit per position
 * that later passes read; then the pattern is read forwards: LOOK_LIMIT + 1 passes at most, each
 * a DFA (Automaton) but for programs that count (Scanner).
 */
class Matcher implements LinearPattern {
  private readonly main: Engine;
  /** The lookarounds' passes, in order, each with the bit it sets (0: a Lockstep sets its own). */
  private readonly looks: readonly { readonly engine: Engine; readonly record: number }[] = [];
  private readonly automata: Automaton[] = [];
  /**
   * The pattern with its repetitions counted, made when a DFA here outgrows its table, and from
   * then on asked instead. Why: a DFA such as `.*a.{30}`'s, read without a table, costs every
   * instruction at every code point; its counters cost one step each (Scanner).
   */
  private readonly recount: (() => Matcher) | undefined;
  private counted: Matcher | undefined;
  /** The passes over texts since the matcher was made, its counted form's included (tests assert bounded work with it and `work`). */
  get passes(): number {
    return this.read + (this.counted?.passes ?? 0);
  }
  private read = 0;

  constructor({ program, alphabet }: Compiled, recount?: () => Matcher) {
    this.recount = recount;
    const automaton = (each: Program, backwards: boolean): Automaton => {
      const made = new Automaton(each, alphabet, backwards, recount !== undefined);
      this.automata.push(made);
      return made;
    };
    this.main = counts(program) ? new Scanner(program, alphabet, false) : automaton(program, false);
    const looks: { engine: Engine; record: number }[] = [];
    // Lookarounds of one direction go in one pass while none reads the bit of another in it.
    let group: { automata: Automaton[]; records: number[]; backwards: boolean; first: number } | undefined;
    const close = (): void => {
      if (!group) return;
      const { automata, records, backwards } = group;
      looks.push(automata.length === 1 ? { engine: automata[0]!, record: records[0]! } : { engine: new Lockstep(automata, records, alphabet, backwards), record: 0 });
      group = undefined;
    };
    program.looks.forEach((look, id) => {
      const backwards = !look.behind;
      if (counts(look.program)) {
        close();
        looks.push({ engine: new Scanner(look.program, alphabet, backwards), record: 1 << id });
        return;
      }
      const first = group?.first ?? id;
      const reads = look.program.op.some((op, pc) => op === LOOK && look.program.to[pc]! >= first);
      if (group?.backwards !== backwards || reads) close();
      group ??= { automata: [], records: [], backwards, first: id };
      group.automata.push(automaton(look.program, backwards));
      group.records.push(1 << id);
    });
    close();
    this.looks = looks;
  }

  /** The steps taken since the matcher was made, its lookarounds' and its counted form's included. */
  get work(): number {
    return this.looks.reduce((sum, look) => sum + look.engine.work, this.main.work + (this.counted?.work ?? 0));
  }

  test(text: string): boolean {
    if (this.counted) return this.counted.test(text);
    const bits = this.looks.length === 0 ? NO_BITS : new Uint16Array(text.length + 1);
    for (const { engine, record } of this.looks) {
      this.read++;
      engine.run(text, bits, record);
      if (this.outgrown()) return this.test(text);
    }
    this.read++;
    const found = this.main.run(text, bits, 0);
    return this.outgrown() ? this.test(text) : found;
  }

  /** Whether a DFA has outgrown its table (then the counted form is made, for this text and the next). */
  private outgrown(): boolean {
    if (!this.automata.some((automaton) => automaton.outgrown)) return false;
    this.counted = this.recount!();
    return true;
  }
}
