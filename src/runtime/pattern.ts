// A copy of templates/runtime/pattern.gen.ts (the generator checks patterns with the runtime's
// own parser; tsc's rootDir keeps templates/ out of dist). test/runtime/pattern.test.ts keeps the
// two equal, and npm run test:update rewrites this copy.
// The `pattern` keyword, matched in time linear in the text's length: a pattern is compiled into
// an automaton (Thompson's construction) and the text is read once, every possible way at once
// (a Pike VM, its steps kept as the transitions of a DFA built as texts need it, as RE2 does), so
// no text can make it backtrack. V8's own engine backtracks: `^(a+)+$` takes seconds on 30
// characters and twice as long with each one more.

/**
 * A pattern's automaton, as parallel arrays: instruction `pc` is `op[pc]` with the operands
 * `to[pc]` and `or[pc]`. An ATOM reads one code point that `atoms[to[pc]]` admits; a SPLIT goes on
 * at `to` and at `or`; a JUMP at `to`; an ASSERT (`^`, `$`, `\b`, `\B`, ASSERTIONS[to]) goes on
 * when it holds; MATCH ends it. Its size is bounded (PATTERN_LIMIT), and so is the work per
 * code point of a text.
 */
type Program = {
  readonly op: Uint8Array;
  readonly to: Int32Array;
  readonly or: Int32Array;
  readonly atoms: readonly Atom[];
};
const ATOM = 0;
const SPLIT = 1;
const JUMP = 2;
const ASSERT = 3;
const MATCH = 4;
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
  | { readonly kind: "repeat"; readonly body: Node; readonly min: number; readonly max: number };

/**
 * The most instructions a pattern may compile to. Why: a text costs at most this many steps per
 * character; counted repetitions are spelled out (`[a-z]{1,64}` is 128 instructions), so the
 * limit is what bounds them.
 */
export const PATTERN_LIMIT = 1000;

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

/** A construct the linear matcher does not take: backreferences, lookarounds, too many instructions. */
class PatternError extends Error {}

/** A pattern compiled for matching; `test` answers as RegExp's test() with the `u` flag. */
export type LinearPattern = { test(text: string): boolean };

/** Compiles a valid pattern (the generator checks them) for matching in linear time; throws when it cannot be. */
export function compilePattern(source: string): LinearPattern {
  return new Matcher(compileProgram(source));
}

function compileProgram(source: string): Program {
  const parser = new Parser(source);
  const tree = parser.choice();
  if (parser.at < source.length) throw new PatternError(`an unexpected ${source[parser.at]} at ${parser.at}`);
  const builder = new ProgramBuilder();
  builder.emit(tree);
  builder.add(MATCH);
  return builder.program();
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
      if (source.startsWith("(?=", start) || source.startsWith("(?!", start)) throw new PatternError("a lookahead");
      if (source.startsWith("(?<=", start) || source.startsWith("(?<!", start)) throw new PatternError("a lookbehind");
      // A group: what it captures does not matter to test().
      if (source.startsWith("(?:", start)) this.at += 3;
      else if (source.startsWith("(?<", start)) this.at = source.indexOf(">", start) + 1;
      else if (source[start + 1] === "?") throw new PatternError(`the group ${source.slice(start, start + 3)}`);
      else this.at++;
      if (++this.depth > GROUP_LIMIT) throw new PatternError(`groups nested more than ${GROUP_LIMIT} deep`);
      const body = this.choice();
      if (source[this.at] !== ")") throw new PatternError(`an unclosed group at ${start}`);
      this.at++;
      this.depth--;
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
    if (min > PATTERN_LIMIT || (max !== Infinity && max > PATTERN_LIMIT)) throw new PatternError(`a repetition of more than ${PATTERN_LIMIT}`);
    return { kind: "repeat", body, min, max };
  }
}

/** Builds a Program from Nodes (Thompson's construction). */
class ProgramBuilder {
  private readonly op: number[] = [];
  private readonly to: number[] = [];
  private readonly or: number[] = [];
  private readonly atoms: Atom[] = [];
  private readonly atomIndex = new Map<string, number>();

  /** Appends an instruction; answers its index. */
  add(op: number, to = 0, or = 0): number {
    if (this.op.length >= PATTERN_LIMIT) throw new PatternError(`more than ${PATTERN_LIMIT} steps once its repetitions are spelled out`);
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

  emit(node: Node): void {
    switch (node.kind) {
      case "atom": {
        let index = this.atomIndex.get(node.source);
        if (index === undefined) {
          index = this.atoms.push(atomOf(node.source)) - 1;
          this.atomIndex.set(node.source, index);
        }
        this.add(ATOM, index);
        return;
      }
      case "assert":
        this.add(ASSERT, ASSERTIONS.indexOf(node.at));
        return;
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
        for (let i = 0; i < node.min; i++) this.emit(node.body);
        if (node.max === Infinity) {
          // loop: split body, end; body; jump loop; end:
          const split = this.add(SPLIT);
          this.emit(node.body);
          this.add(JUMP, split);
          this.set(split, SPLIT, split + 1, this.op.length);
          return;
        }
        // Each optional copy may be skipped to the end: split body, end; body; split body, end; ...
        const splits: number[] = [];
        for (let i = node.min; i < node.max; i++) {
          splits.push(this.add(SPLIT));
          this.emit(node.body);
        }
        for (const split of splits) this.set(split, SPLIT, split + 1, this.op.length);
        return;
      }
    }
  }

  program(): Program {
    return { op: Uint8Array.from(this.op), to: Int32Array.from(this.to), or: Int32Array.from(this.or), atoms: this.atoms };
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
