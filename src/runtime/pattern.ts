// A copy of templates/runtime/pattern.gen.ts (the generator checks patterns with the runtime's
// own parser; tsc's rootDir keeps templates/ out of dist). test/runtime/pattern.test.ts keeps the
// two equal, and npm run test:update rewrites this copy.
// The `pattern` keyword, matched in time linear in the text's length: a pattern is compiled into
// an automaton (Thompson's construction) and the text is read once, every possible way at once
// (a Pike VM, its steps kept as the transitions of a DFA built as texts need it, as RE2 does), so
// no text can make it backtrack. V8's own engine backtracks: `^(a+)+$` takes seconds on 30
// characters and twice as long with each one more. Lookarounds and long counted repetitions of
// one character class are matched linearly too, by a plainer automaton (see Scanner).

/**
 * A pattern's automaton, as parallel arrays: instruction `pc` is `op[pc]` with the operands
 * `to[pc]` and `or[pc]`. An ATOM reads one code point that `atoms[to[pc]]` admits; a SPLIT goes on
 * at `to` and at `or`; a JUMP at `to`; an ASSERT (`^`, `$`, `\b`, `\B`, ASSERTIONS[to]) goes on
 * when it holds; MATCH ends it. A COUNT reads `counts[or]` code points that `atoms[to]` admits
 * (a counter, not that many ATOMs); a LOOK goes on when the lookaround `looks[to]` holds. Its size
 * is bounded (PATTERN_LIMIT), and so is the work per code point of a text.
 */
type Program = {
  readonly op: Uint8Array;
  readonly to: Int32Array;
  readonly or: Int32Array;
  readonly atoms: readonly Atom[];
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

/**
 * An atom (a literal, `.`, an escape or a class): the atom alone as a RegExp, which reads one
 * code point and so cannot backtrack, and its answers for ASCII code points once asked (-1: not yet).
 */
type Atom = { readonly single: RegExp; readonly ascii: Int8Array };

/** A pattern parsed: what the instructions are made from. */
type Node =
  | { readonly kind: "atom"; readonly source: string }
  | { readonly kind: "assert"; readonly at: "^" | "$" | "\\b" | "\\B" }
  | { readonly kind: "sequence"; readonly items: readonly Node[] }
  | { readonly kind: "choice"; readonly options: readonly Node[] }
  | { readonly kind: "repeat"; readonly body: Node; readonly min: number; readonly max: number }
  | { readonly kind: "look"; readonly body: Node; readonly behind: boolean; readonly negate: boolean };

/**
 * The most instructions a pattern may compile to (its lookarounds' included). Why: a text costs at
 * most this many steps per character; counted repetitions are spelled out (`[a-z]{1,64}` is 128
 * instructions), so the limit is what bounds them. Why not more: where the DFA's table overflows,
 * a pattern this size already costs about 10 ms per KiB of text (bench/patterns.mjs); image-charts'
 * lists of 1,000 font names (24,000 instructions) would cost 24 times that, so they stay refused.
 */
export const PATTERN_LIMIT = 1000;

/**
 * The most copies a repetition is spelled out to. Why: a longer repetition of one atom
 * (`.{0,4096}`, `[a-z]{2048}`) becomes one COUNT whatever its bounds, and other bodies
 * (`(ab){2000}`) would take PATTERN_LIMIT in a few repetitions.
 */
export const REPEAT_LIMIT = 1000;

/** Repetitions of one atom past this many copies are counted (COUNT) instead of spelled out (the DFA of Matcher is faster). */
const COUNT_FROM = 100;

/** The deepest nesting of groups a pattern may have (parsing and compiling recurse once per group). */
const GROUP_LIMIT = 100;

/** Why a pattern cannot be matched in linear time, or undefined when it can (ECMA-262 syntax, `u` flag). */
export function linearPatternProblem(source: string): string | undefined {
  try {
    compileProgram(source);
    return undefined;
  } catch (error) {
    if (error instanceof PatternError) return error.message;
    throw error;
  }
}

/** A construct the linear matcher does not take: backreferences, too many instructions. */
class PatternError extends Error {}

/** A pattern compiled for matching; `test` answers as RegExp's test() with the `u` flag. */
export type LinearPattern = { test(text: string): boolean };

/** Compiles a valid pattern (the generator checks them) for matching in linear time; throws when it cannot be. */
export function compilePattern(source: string): LinearPattern {
  const program = compileProgram(source);
  // Why two matchers: the DFA's transitions depend on the code points read alone, which a counter
  // or a lookaround (that depends on the whole text) breaks.
  return program.looks.length === 0 && program.counts.length === 0 ? new Matcher(program) : new LookMatcher(program);
}

function compileProgram(source: string): Program {
  const parser = new Parser(source);
  const tree = parser.choice();
  if (parser.at < source.length) throw new PatternError(`an unexpected ${source[parser.at]} at ${parser.at}`);
  return new ProgramBuilder({ atoms: [], atomIndex: new Map(), counts: [], looks: [], size: 0 }).build(tree);
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
type Shared = { atoms: Atom[]; atomIndex: Map<string, number>; counts: Count[]; looks: Look[]; size: number };

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
    const { atoms, counts, looks } = this.shared;
    return { op: Uint8Array.from(this.op), to: Int32Array.from(this.to), or: Int32Array.from(this.or), atoms, counts, looks };
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
      index = atoms.push(atomOf(source)) - 1;
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
        // A lookahead's body reversed, to be read backwards from every position (see Scanner).
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
        if (body.kind === "atom" && (max === Infinity ? min : max) > COUNT_FROM) {
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

function atomOf(source: string): Atom {
  return { single: new RegExp(`^(?:${source})$`, "u"), ascii: new Int8Array(128).fill(-1) };
}

function admits(atom: Atom, codePoint: number): boolean {
  if (codePoint >= 128) return atom.single.test(String.fromCodePoint(codePoint));
  let known = atom.ascii[codePoint]!;
  if (known < 0) known = atom.ascii[codePoint] = atom.single.test(String.fromCharCode(codePoint)) ? 1 : 0;
  return known === 1;
}

const isWord = (codePoint: number): boolean => (codePoint >= 48 && codePoint <= 57) || (codePoint >= 65 && codePoint <= 90) || (codePoint >= 97 && codePoint <= 122) || codePoint === 95;

/**
 * A state of the automaton the matcher builds as texts need it (a DFA, as RE2 does): the set of
 * atoms reached after reading part of a text, numbered for the table of transitions.
 */
type State = { readonly id: number; readonly atoms: Int32Array };

/** Where a transition reaches the match. */
const MATCHED: State = { id: -1, atoms: new Int32Array(0) };

/** The code point after a position, as far as `$`, `\b` and `\B` care: none, a word character, another. */
const END = 0;
const WORD = 1;
const OTHER = 2;
const classOf = (codePoint: number): number => (isWord(codePoint) ? WORD : OTHER);

/** The keys of one state's transitions: a code point and the class of the one after it. */
const KEYS = 0x110000 * 3;

/**
 * The memory the states and transitions of one pattern may take. Why: a pattern such as
 * `[ab]*a[ab]{20}` has millions of states; past these bounds the table is emptied, and the rest
 * of the text is read without one, each code point costing a step of the automaton.
 */
const STATE_ATOMS_LIMIT = 1 << 18;
const TRANSITION_LIMIT = 1 << 14;

/**
 * A program run on texts: the set of atoms reached so far advances one code point at a time,
 * each instruction taken at most once per step, so a code point costs at most `PATTERN_LIMIT`
 * steps; and each step, once taken, is kept as a transition, so a text that visits few states
 * (most texts, whatever their length) costs a lookup per code point.
 */
class Matcher implements LinearPattern {
  private readonly op: Uint8Array;
  private readonly to: Int32Array;
  private readonly or: Int32Array;
  private readonly atoms: readonly Atom[];
  /** Whether the pattern starts with `^`, and so starts nowhere else. */
  private readonly anchored: boolean;
  // Working sets (test() runs to its end without yielding, so no two calls share them): the atoms
  // a step reaches, the mark of the step each instruction was last reached in, what is pending.
  private readonly list: Int32Array;
  private readonly reached: Int32Array;
  private readonly pending: Int32Array;
  private mark = 0;
  private states = new Map<string, State>();
  private transitions = new Map<number, State>();
  private starts: (State | undefined)[] = [];
  private stateAtoms = 0;
  private nextId = 0;
  /** Whether the table was emptied during this text: the rest is read without one. */
  private overflowed = false;

  constructor(program: Program) {
    ({ op: this.op, to: this.to, or: this.or, atoms: this.atoms } = program);
    this.anchored = this.op[0] === ASSERT && this.to[0] === 0;
    this.list = new Int32Array(this.op.length);
    this.reached = new Int32Array(this.op.length);
    this.pending = new Int32Array(this.op.length);
  }

  test(text: string): boolean {
    this.overflowed = false;
    let following = text.length === 0 ? -1 : text.codePointAt(0)!;
    let state = this.start(following === -1 ? END : classOf(following));
    for (let at = 0; state !== MATCHED; ) {
      // test() finds a match that starts anywhere; with `^`, nothing alive is nothing left.
      if (following === -1 || (this.anchored && state.atoms.length === 0)) return false;
      const here = following;
      at += here > 0xffff ? 2 : 1;
      following = at < text.length ? text.codePointAt(at)! : -1;
      const key = state.id * KEYS + here * 3 + (following === -1 ? END : classOf(following));
      state = (state.id >= 0 ? this.transitions.get(key) : undefined) ?? this.step(state, here, following, key);
    }
    return true;
  }

  /** The state at the start of a text whose first code point is of class `after`. */
  private start(after: number): State {
    const known = this.starts[after];
    if (known) return known;
    const size = this.follow(0, this.nextMark(), true, after === END, false, after === WORD, 0);
    const state = size < 0 ? MATCHED : this.intern(size);
    if (!this.overflowed) this.starts[after] = state;
    return state;
  }

  /** The state after reading `here` in `state`, `following` next (-1: the end); kept under `key`. */
  private step(state: State, here: number, following: number, key: number): State {
    const mark = this.nextMark();
    const atEnd = following === -1;
    const hereWord = isWord(here);
    const nextWord = !atEnd && isWord(following);
    let size = 0;
    for (const pc of state.atoms) {
      if (!admits(this.atoms[this.to[pc]!]!, here)) continue;
      size = this.follow(pc + 1, mark, false, atEnd, hereWord, nextWord, size);
      if (size < 0) break;
    }
    // A new start at every position, but with `^`.
    if (size >= 0 && !this.anchored) size = this.follow(0, mark, false, atEnd, hereWord, nextWord, size);
    const next = size < 0 ? MATCHED : this.intern(size);
    if (state.id >= 0 && !this.overflowed) this.transitions.set(key, next);
    return next;
  }

  /** The state holding the first `size` atoms of the list: a known one, a new one, or (past the bounds) one kept nowhere. */
  private intern(size: number): State {
    const atoms = this.list.slice(0, size);
    if (this.overflowed) return { id: -2, atoms };
    atoms.sort();
    const name = atoms.join(",");
    const known = this.states.get(name);
    if (known) return known;
    if (this.stateAtoms + size > STATE_ATOMS_LIMIT || this.transitions.size >= TRANSITION_LIMIT) {
      this.states = new Map();
      this.transitions = new Map();
      this.starts = [];
      this.stateAtoms = 0;
      this.overflowed = true;
      return { id: -2, atoms };
    }
    const state = { id: this.nextId++, atoms };
    this.states.set(name, state);
    this.stateAtoms += size;
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
   * Adds to the list the atoms reachable from `start` without reading a code point (through
   * jumps, splits and the assertions that hold at this position: at the start, at the end,
   * between a word character or not and another); answers the list's new size, or -1 when the
   * match is reachable.
   */
  private follow(start: number, mark: number, atStart: boolean, atEnd: boolean, beforeWord: boolean, hereWord: boolean, size: number): number {
    const { op, to, or, reached, pending, list } = this;
    if (reached[start] === mark) return size;
    reached[start] = mark;
    let top = 0;
    pending[top++] = start;
    while (top > 0) {
      const pc = pending[--top]!;
      let first = -1;
      let second = -1;
      switch (op[pc]) {
        case MATCH:
          return -1;
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
          if (which === 0 ? atStart : which === 1 ? atEnd : which === 2 ? beforeWord !== hereWord : beforeWord === hereWord) first = pc + 1;
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
 * A program run on texts without a DFA, for patterns with counters or lookarounds: the threads
 * alive advance one code point at a time (a Pike VM), each instruction taken at most once per
 * code point, so a text costs at most `PATTERN_LIMIT` steps per code point. The threads in a COUNT
 * share a queue of the steps at which each entered it (oldest first): reading a code point the atom
 * admits ages them all at once, those past `max` leave from the front, and the front alone says
 * whether one has read `min` (the counting sets of Turoňová et al., 2020), so a counter costs O(1)
 * a code point, however large its bounds.
 */
class Scanner {
  private readonly program: Program;
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
  // The text being read: where, how many code points so far, the tables of the lookarounds.
  private text = "";
  private steps = 0;
  private tables: readonly Uint8Array[] = [];
  /** Where a scan records the positions the match is reached at; undefined: test() stops at the first. */
  private found: Uint8Array | undefined;

  constructor(program: Program) {
    this.program = program;
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

  /**
   * Reads `text` forwards (or backwards), a match starting at every position; answers whether one
   * is found. With `found`, reads to the end and marks there each position where a match ends.
   */
  run(text: string, tables: readonly Uint8Array[], backwards: boolean, found?: Uint8Array): boolean {
    const { op, to, or, atoms, counts } = this.program;
    this.text = text;
    this.tables = tables;
    this.found = found;
    this.steps = 0;
    for (let pc = 0; pc < op.length; pc++) if (op[pc] === COUNT) this.clear(pc);
    let at = backwards ? text.length : 0;
    let mark = this.nextMark();
    let size = this.follow(0, at, mark, this.list, 0);
    let list = this.list;
    let next = this.next;
    while (size >= 0 && (backwards ? at > 0 : at < text.length)) {
      if (size === 0 && this.anchored && !backwards) return false;
      let here: number;
      if (backwards) {
        const low = text.charCodeAt(at - 1);
        const high = at >= 2 ? text.charCodeAt(at - 2) : 0;
        here = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? text.codePointAt(at - 2)! : low;
        at -= here > 0xffff ? 2 : 1;
      } else {
        here = text.codePointAt(at)!;
        at += here > 0xffff ? 2 : 1;
      }
      this.steps++;
      mark = this.nextMark();
      // The counters first: a thread entering one at this position must not be aged with the others.
      for (let i = 0; i < size; i++) {
        const pc = list[i]!;
        if (op[pc] !== COUNT) continue;
        if (!admits(atoms[to[pc]!]!, here)) this.clear(pc);
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
          if (admits(atoms[to[pc]!]!, here)) nextSize = this.follow(pc + 1, at, mark, next, nextSize);
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
          if (this.found === undefined) return -1;
          this.found[at] = 1;
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
          if ((this.tables[to[pc]!]![at] === 1) !== looks[to[pc]!]!.negate) first = pc + 1;
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
class LookMatcher implements LinearPattern {
  private readonly main: Scanner;
  private readonly looks: readonly { readonly scanner: Scanner; readonly behind: boolean }[];

  constructor(program: Program) {
    this.main = new Scanner(program);
    this.looks = program.looks.map((look) => ({ scanner: new Scanner(look.program), behind: look.behind }));
  }

  /** The instructions visited since the matcher was made, its lookarounds' included. */
  get work(): number {
    return this.looks.reduce((sum, look) => sum + look.scanner.work, this.main.work);
  }

  test(text: string): boolean {
    const tables: Uint8Array[] = [];
    for (const { scanner, behind } of this.looks) {
      const table = new Uint8Array(text.length + 1);
      scanner.run(text, tables, !behind, table);
      tables.push(table);
    }
    return this.main.run(text, tables, false);
  }
}
