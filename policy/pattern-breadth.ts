/**
 * Whether an RE2 pattern can match the subjects (or issuers) of more than one repository, project or host, decided
 * from the pattern as the service compiles it (re2js, the engine the provider validates patterns with), not from
 * its text: the compiled program is walked as an automaton together with the shape of the claim.
 *
 * A claim shape is `prefix`, then the UNIT (what tells one repository from another: `owner/name` in a GitHub
 * subject, the host in an issuer), made of parts (runs of allowed characters, and literals), then either the end
 * of the claim or a separator followed by anything. The pattern is too broad when two claims whose units differ
 * (ignoring case: GitHub and GitLab names are case-insensitive) both match it in full; the answer then carries the
 * two claims as witnesses, each checked against RE2JS. Otherwise the pattern matches the claims of at most one
 * unit. The search is exact for what RE2 compiles (literals, classes, `.`, repetition, alternation, `(?i)`, `^`
 * and `$`); a pattern with word-boundary assertions (`\b`, `\B`) is not analysed and reported as undecided.
 */
import { RE2JS } from "re2js";

/** One part of a unit: one or more characters of `chars`, or a literal text. */
export type UnitPart = { chars: string } | { literal: string };

export interface ClaimShape {
  /** What every claim of this shape starts with, e.g. "repo:". */
  prefix: string;
  /** The unit that tells one repository (project, host) from another. */
  unit: readonly UnitPart[];
  /** What may follow the unit: a separator character and then anything, and/or the end of the claim. */
  after: { separators: string; end: boolean };
}

export type Breadth =
  | { kind: "single" }
  | { kind: "broad"; witnesses: [string, string]; units: [string, string] }
  | { kind: "undecided"; reason: string };

// Instruction opcodes of re2js's compiled program (re2js src/Inst.js).
const ALT = 1;
const ALT_MATCH = 2;
const CAPTURE = 3;
const EMPTY_WIDTH = 4;
const MATCH = 6;
const NOP = 7;
const RUNE = 8;
const RUNE1 = 9;
const RUNE_ANY = 10;
const RUNE_ANY_NOT_NL = 11;
// EMPTY_WIDTH conditions (re2js src/Utils.js): begin/end of line and text, word boundary, non-boundary.
const EMPTY_BEGIN_LINE = 0x01;
const EMPTY_END_LINE = 0x02;
const EMPTY_BEGIN_TEXT = 0x04;
const EMPTY_END_TEXT = 0x08;
const EMPTY_WORD_BOUNDARY = 0x10;
const EMPTY_NO_WORD_BOUNDARY = 0x20;

interface Inst {
  op: number;
  out: number;
  arg: number;
  runes: ArrayLike<number>;
  matchRune(rune: number): boolean;
}
interface Program {
  start: number;
  inst: Inst[];
}

/** The compiled program of `pattern`; re2js keeps it on the instance (not in its typings). */
function programOf(pattern: string): Program {
  return (RE2JS.compile(pattern) as unknown as { re2Input: { prog: Program } }).re2Input.prog;
}

type States = ReadonlySet<number>;

class Automaton {
  constructor(private readonly prog: Program) {}

  /** The rune-consuming or matching instructions reachable from `pcs` without input, at the start or not. */
  closure(pcs: Iterable<number>, atStart: boolean): Set<number> {
    const out = new Set<number>();
    this.walk(pcs, (inst, pc) => {
      switch (inst.op) {
        case ALT:
        case ALT_MATCH:
          return [inst.out, inst.arg];
        case CAPTURE:
        case NOP:
          return [inst.out];
        case EMPTY_WIDTH:
          // Begin conditions hold only at the start; end conditions are kept and checked by `accepts`.
          if (inst.arg & (EMPTY_BEGIN_LINE | EMPTY_BEGIN_TEXT)) return atStart ? [inst.out] : [];
          out.add(pc);
          return [];
        default:
          out.add(pc);
          return [];
      }
    });
    return out;
  }

  /**
   * Visits each instruction reachable from `pcs` once, depth first, going on to the successors `next` names;
   * stops, answering true, at the first instruction for which `next` answers true.
   */
  private walk(pcs: Iterable<number>, next: (inst: Inst, pc: number) => Iterable<number> | true): boolean {
    const seen = new Set<number>();
    const stack = [...pcs];
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (seen.has(pc)) continue;
      seen.add(pc);
      const successors = next(this.prog.inst[pc]!, pc);
      if (successors === true) return true;
      stack.push(...successors);
    }
    return false;
  }

  step(pcs: States, rune: number): Set<number> {
    const next: number[] = [];
    for (const pc of pcs) {
      const inst = this.prog.inst[pc]!;
      if (inst.op >= RUNE && inst.op <= RUNE_ANY_NOT_NL && runeMatches(inst, rune)) next.push(inst.out);
    }
    return this.closure(next, false);
  }

  /** Whether the claim may end here: a match reachable through end-of-text conditions only. */
  accepts(pcs: States): boolean {
    return this.walk(pcs, (inst) => {
      if (inst.op === MATCH) return true;
      if (inst.op === EMPTY_WIDTH && (inst.arg & (EMPTY_END_LINE | EMPTY_END_TEXT)) === inst.arg) {
        return this.closure([inst.out], false);
      }
      return [];
    });
  }

  /** A shortest string that takes `pcs` to a match, or undefined when none does. */
  completion(pcs: States): string | undefined {
    const queue: Array<{ pcs: States; text: string }> = [{ pcs, text: "" }];
    const seen = new Set([key(pcs)]);
    for (let i = 0; i < queue.length; i++) {
      const { pcs: at, text } = queue[i]!;
      if (this.accepts(at)) return text;
      for (const rune of this.sampleRunes(at)) {
        const next = this.step(at, rune);
        const k = key(next);
        if (next.size === 0 || seen.has(k)) continue;
        seen.add(k);
        queue.push({ pcs: next, text: text + String.fromCodePoint(rune) });
      }
    }
    return undefined;
  }

  /** One rune each instruction of `pcs` accepts: enough to reach every instruction the set can reach. */
  private sampleRunes(pcs: States): number[] {
    const runes = new Set<number>();
    for (const pc of pcs) {
      const inst = this.prog.inst[pc]!;
      if (inst.op === RUNE || inst.op === RUNE1) runes.add(inst.runes[0]!);
      else if (inst.op === RUNE_ANY || inst.op === RUNE_ANY_NOT_NL) runes.add(0x78); // "x"
    }
    return [...runes];
  }

  usesWordBoundaries(): boolean {
    return this.prog.inst.some(
      (inst) => inst.op === EMPTY_WIDTH && (inst.arg & (EMPTY_WORD_BOUNDARY | EMPTY_NO_WORD_BOUNDARY)) !== 0,
    );
  }
}

function runeMatches(inst: Inst, rune: number): boolean {
  if (inst.op === RUNE_ANY) return true;
  if (inst.op === RUNE_ANY_NOT_NL) return rune !== 0x0a;
  return inst.matchRune(rune);
}

const key = (pcs: States): string => [...pcs].sort((a, b) => a - b).join(",");

/**
 * Both cases of a letter are one symbol: the unit `acme/x` and `ACME/x` name the same repository, so the walk
 * steps on either and the units it collects are lowercase.
 */
function symbolsOf(chars: string): string[] {
  return [...new Set([...chars.toLowerCase()])];
}

function stepSymbol(automaton: Automaton, pcs: States, symbol: string): Set<number> {
  const lower = symbol.codePointAt(0)!;
  const upper = symbol.toUpperCase().codePointAt(0)!;
  const next = automaton.step(pcs, lower);
  if (upper !== lower) for (const pc of automaton.step(pcs, upper)) next.add(pc);
  return next;
}

/**
 * The walk's position inside the unit: which part, and for a run of characters whether it has one yet. A literal
 * part is consumed whole by `advanceLiterals`.
 */
interface Position {
  pcs: States;
  part: number;
  started: boolean;
}

/**
 * How `pattern` matches claims of `shape`: a single unit (or none), two different units (with witness claims), or
 * undecided.
 */
export function breadthOf(pattern: string, shape: ClaimShape): Breadth {
  let automaton: Automaton;
  try {
    automaton = new Automaton(programOf(pattern));
  } catch (error) {
    return { kind: "undecided", reason: `not a valid RE2 pattern (${(error as Error).message})` };
  }
  if (automaton.usesWordBoundaries())
    return { kind: "undecided", reason: "it uses word-boundary assertions" };

  const prog = (automaton as unknown as { prog: Program }).prog;
  let pcs: States = automaton.closure([prog.start], true);
  for (const ch of shape.prefix) {
    pcs = automaton.step(pcs, ch.codePointAt(0)!);
    if (pcs.size === 0) return { kind: "single" };
  }
  const start = advanceLiterals(automaton, shape, { pcs, part: 0, started: false });
  if (start === undefined) return { kind: "single" };

  // Units in breadth-first order, with the claim's completion after them. The second search runs over the same
  // positions paired with how much of the first unit they still follow, so it ends on any other unit.
  const first = findUnit(automaton, shape, start, undefined);
  if (first === undefined) return { kind: "single" };
  const second = findUnit(automaton, shape, start, first.unit);
  if (second === undefined) return { kind: "single" };

  const witnesses = [first, second].map((found) => realize(automaton, shape, pcs, found.unit));
  const re = RE2JS.compile(pattern);
  const [one, other] = witnesses;
  if (one === undefined || other === undefined || !re.matches(one) || !re.matches(other))
    return { kind: "undecided", reason: "its witnesses did not match (please report this pattern)" };
  return { kind: "broad", witnesses: [one, other], units: [first.unit, second.unit] };
}

/**
 * A claim the pattern matches whose unit is `unit` in some mix of cases: the walk above steps on both cases of a
 * letter at once, so the claim is rebuilt choosing, letter by letter, a case the pattern takes.
 */
function realize(
  automaton: Automaton,
  shape: ClaimShape,
  afterPrefix: States,
  unit: string,
): string | undefined {
  const symbols = [...unit];
  const queue: Array<{ pcs: States; text: string; at: number }> = [{ pcs: afterPrefix, text: "", at: 0 }];
  const seen = new Set([`0|${key(afterPrefix)}`]);
  for (let i = 0; i < queue.length; i++) {
    const { pcs, text, at } = queue[i]!;
    if (at === symbols.length) {
      const rest = restAfterUnit(automaton, shape, pcs);
      if (rest !== undefined) return shape.prefix + text + rest;
      continue;
    }
    const symbol = symbols[at]!;
    for (const ch of new Set([symbol, symbol.toUpperCase()])) {
      const next = automaton.step(pcs, ch.codePointAt(0)!);
      const k = `${at + 1}|${key(next)}`;
      if (next.size === 0 || seen.has(k)) continue;
      seen.add(k);
      queue.push({ pcs: next, text: text + ch, at: at + 1 });
    }
  }
  return undefined;
}

/** Consumes the literal parts at the position, or undefined when the pattern cannot. */
function advanceLiterals(automaton: Automaton, shape: ClaimShape, at: Position): Position | undefined {
  let { pcs, part } = at;
  for (;;) {
    const current = shape.unit[part];
    if (current === undefined || !("literal" in current)) return { pcs, part, started: false };
    for (const ch of current.literal) {
      pcs = stepSymbol(automaton, pcs, ch);
      if (pcs.size === 0) return undefined;
    }
    part++;
  }
}

/** How the claim can go on after a complete unit at `pcs`, or undefined when it cannot match. */
function restAfterUnit(automaton: Automaton, shape: ClaimShape, pcs: States): string | undefined {
  if (shape.after.end && automaton.accepts(pcs)) return "";
  for (const separator of shape.after.separators) {
    const after = automaton.step(pcs, separator.codePointAt(0)!);
    if (after.size === 0) continue;
    const completion = automaton.completion(after);
    if (completion !== undefined) return separator + completion;
  }
  return undefined;
}

function findUnit(
  automaton: Automaton,
  shape: ClaimShape,
  start: Position,
  other: string | undefined,
): { unit: string; rest: string } | undefined {
  // `follows` is how many characters of `other` the unit so far equals, or -1 once it differs.
  type Node = { at: Position; unit: string; follows: number };
  const stateKey = (n: Node) => `${key(n.at.pcs)}|${n.at.part}|${n.at.started}|${n.follows}`;
  const queue: Node[] = [{ at: start, unit: "", follows: other === undefined ? -1 : 0 }];
  const seen = new Set([stateKey(queue[0]!)]);
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    const part = shape.unit[node.at.part];
    if (part === undefined || !("chars" in part)) continue;
    const lastPart = node.at.part === shape.unit.length - 1;
    if (node.at.started && lastPart && (other === undefined || node.follows !== other.length)) {
      const rest = restAfterUnit(automaton, shape, node.at.pcs);
      if (rest !== undefined) return { unit: node.unit, rest };
    }
    const moves: Position[] = [];
    if (node.at.started && !lastPart) {
      const after = advanceLiterals(automaton, shape, {
        pcs: node.at.pcs,
        part: node.at.part + 1,
        started: false,
      });
      if (after !== undefined) moves.push(after);
    }
    for (const position of moves) {
      const literal = unitText(shape, node.at.part + 1, position.part);
      enqueue({ at: position, unit: node.unit + literal, follows: follow(node.follows, literal) });
    }
    for (const symbol of symbolsOf(part.chars)) {
      const pcs = stepSymbol(automaton, node.at.pcs, symbol);
      if (pcs.size === 0) continue;
      enqueue({
        at: { pcs, part: node.at.part, started: true },
        unit: node.unit + symbol,
        follows: follow(node.follows, symbol),
      });
    }
  }
  return undefined;

  function follow(follows: number, text: string): number {
    if (other === undefined || follows < 0) return -1;
    return other.startsWith(text, follows) ? follows + text.length : -1;
  }
  function enqueue(node: Node): void {
    const k = stateKey(node);
    if (seen.has(k)) return;
    seen.add(k);
    queue.push(node);
  }
}

/** The literal parts' text between parts `from` (inclusive) and `to` (exclusive). */
function unitText(shape: ClaimShape, from: number, to: number): string {
  return shape.unit
    .slice(from, to)
    .map((part) => ("literal" in part ? part.literal.toLowerCase() : ""))
    .join("");
}
