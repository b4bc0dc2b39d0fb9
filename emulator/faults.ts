/**
 * Fault injection for resilience tests: rules matched by method and path regex, and by RPC name for a gRPC call,
 * fired with a seeded PRNG so a run is repeatable. Paths and RPC names are RE2 patterns (re2js: linear time, so a rule cannot stall the emulator), searched
 * anywhere in the path as before (anchor with ^ and $).
 */
import { RE2JS } from "re2js";
export type FaultAction = "status" | "stall" | "drop" | "applyThenDrop" | "advanceClock";

export interface FaultRule {
  method?: string;
  /** A regular expression tested against the request path (without query). */
  path?: string;
  /**
   * A regular expression tested against a gRPC call's RPC ("chainguard.platform.iam.v2beta1.GroupsService/GetGroup"):
   * a rule with one never fires for a REST request. A gRPC call is matched by its route's method and path too.
   */
  rpc?: string;
  /** Probability in 0..1; default 1. */
  rate?: number;
  action: FaultAction;
  /** For "status": the HTTP status to answer (503 → code 14). */
  status?: number;
  /** For "stall": how long to wait before handling the request normally. */
  stallMs?: number;
  /**
   * For "advanceClock": how far the emulator clock jumps just before the request is handled (normally), as if
   * that long had passed between the client's previous request and this one (a token expiring mid-run).
   */
  advanceMs?: number;
  /** Fire at most this many times, then the rule is spent. */
  times?: number;
}

/** A rule as listed: the rule as added, how often it has fired, and whether it is spent (fired all its `times`). */
export interface ListedFault extends FaultRule {
  fired: number;
  spent: boolean;
}

/** mulberry32: small, fast, good enough to make fault runs repeatable. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A fault rule that breaks a rule; `field` names the member (control.ts turns it into code 3). */
export class FaultRuleError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

const RULE_MEMBERS = new Set([
  "method",
  "path",
  "rpc",
  "rate",
  "action",
  "status",
  "stallMs",
  "advanceMs",
  "times",
]);
const ACTIONS = ["status", "stall", "drop", "applyThenDrop", "advanceClock"];
/** Longest stall: a minute (clients time out long before). */
export const MAX_STALL_MS = 60_000;
export const MAX_TIMES = 1_000_000;
/** Longest clock jump of one advanceClock fault: ten years. */
export const MAX_FAULT_ADVANCE_MS = 10 * 365 * 24 * 3600 * 1000;

function integerIn(r: Record<string, unknown>, field: string, min: number, max: number): void {
  const value = r[field];
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max)
    throw new FaultRuleError(field, `${field} must be an integer from ${min} to ${max}`);
}

export function validateFaultRule(rule: unknown): FaultRule {
  if (rule === null || typeof rule !== "object" || Array.isArray(rule))
    throw new FaultRuleError("", "a fault rule must be an object");
  const r = rule as Record<string, unknown>;
  for (const key of Object.keys(r))
    if (!RULE_MEMBERS.has(key)) throw new FaultRuleError(key, `${key} is not a member of a fault rule`);
  if (!ACTIONS.includes(r.action as string)) {
    throw new FaultRuleError("action", `action must be one of ${ACTIONS.map((a) => `"${a}"`).join(", ")}`);
  }
  if (r.rate !== undefined && (typeof r.rate !== "number" || !(r.rate >= 0 && r.rate <= 1)))
    throw new FaultRuleError("rate", "rate must be a number in 0..1");
  if (r.method !== undefined && (typeof r.method !== "string" || !/^[A-Za-z]{1,16}$/.test(r.method)))
    throw new FaultRuleError("method", "method must be an HTTP method name");
  for (const field of ["path", "rpc"] as const) {
    const pattern = r[field];
    if (pattern === undefined) continue;
    if (typeof pattern !== "string")
      throw new FaultRuleError(field, `${field} must be a regular expression string`);
    try {
      RE2JS.compile(pattern);
    } catch (error) {
      throw new FaultRuleError(
        field,
        `${field} is not a valid RE2 regular expression (${(error as Error).message})`,
      );
    }
  }
  if (r.action === "status") {
    if (r.status === undefined) throw new FaultRuleError("status", "a status fault needs status 400..599");
    integerIn(r, "status", 400, 599);
  } else integerIn(r, "status", 400, 599);
  integerIn(r, "times", 1, MAX_TIMES);
  integerIn(r, "stallMs", 0, MAX_STALL_MS);
  if (r.action === "advanceClock" && r.advanceMs === undefined)
    throw new FaultRuleError("advanceMs", `an advanceClock fault needs advanceMs 1..${MAX_FAULT_ADVANCE_MS}`);
  integerIn(r, "advanceMs", 1, MAX_FAULT_ADVANCE_MS);
  return r as unknown as FaultRule;
}

export class Faults {
  private rules: {
    rule: FaultRule;
    pattern?: RE2JS;
    rpcPattern?: RE2JS;
    remaining: number;
    fired: number;
  }[] = [];
  private random: () => number;

  constructor(private readonly seed = 1) {
    this.random = seededRandom(seed);
  }

  add(rule: FaultRule): void {
    const checked = validateFaultRule(rule);
    this.rules.push({
      rule: checked,
      ...(checked.path !== undefined ? { pattern: RE2JS.compile(checked.path) } : {}),
      ...(checked.rpc !== undefined ? { rpcPattern: RE2JS.compile(checked.rpc) } : {}),
      remaining: checked.times ?? Number.POSITIVE_INFINITY,
      fired: 0,
    });
  }

  clear(): void {
    this.rules = [];
    this.random = seededRandom(this.seed);
  }

  /** Every rule added since the last clear, in order, spent ones included (shown as spent, never as live). */
  list(): ListedFault[] {
    return this.rules.map((r) => ({ ...r.rule, fired: r.fired, spent: r.remaining <= 0 }));
  }

  /** The first rule that matches and fires for this request (`rpc`: a gRPC call's), if any. */
  pick(method: string, path: string, rpc?: string): FaultRule | undefined {
    for (const entry of this.rules) {
      if (entry.remaining <= 0) continue;
      if (entry.rule.method !== undefined && entry.rule.method.toUpperCase() !== method.toUpperCase())
        continue;
      if (entry.pattern !== undefined && !entry.pattern.matcher(path).find()) continue;
      if (entry.rpcPattern !== undefined && (rpc === undefined || !entry.rpcPattern.matcher(rpc).find()))
        continue;
      if (this.random() >= (entry.rule.rate ?? 1)) continue;
      entry.remaining--;
      entry.fired++;
      return entry.rule;
    }
    return undefined;
  }
}
