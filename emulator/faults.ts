/**
 * Fault injection for resilience tests: rules matched by method and path regex, fired with a seeded PRNG so a
 * run is repeatable. May import: nothing.
 */
export type FaultAction = "status" | "stall" | "drop" | "applyThenDrop";

export interface FaultRule {
  method?: string;
  /** A regular expression tested against the request path (without query). */
  path?: string;
  /** Probability in 0..1; default 1. */
  rate?: number;
  action: FaultAction;
  /** For "status": the HTTP status to answer (503 → code 14). */
  status?: number;
  /** For "stall": how long to wait before handling the request normally. */
  stallMs?: number;
  /** Fire at most this many times, then the rule is spent. */
  times?: number;
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

export function validateFaultRule(rule: unknown): FaultRule {
  if (rule === null || typeof rule !== "object") throw new Error("a fault rule must be an object");
  const r = rule as Record<string, unknown>;
  if (!["status", "stall", "drop", "applyThenDrop"].includes(r.action as string)) {
    throw new Error('action must be one of "status", "stall", "drop", "applyThenDrop"');
  }
  if (r.rate !== undefined && (typeof r.rate !== "number" || r.rate < 0 || r.rate > 1))
    throw new Error("rate must be in 0..1");
  if (r.path !== undefined) {
    if (typeof r.path !== "string") throw new Error("path must be a regular expression string");
    new RegExp(r.path);
  }
  if (r.action === "status" && (typeof r.status !== "number" || r.status < 400 || r.status > 599)) {
    throw new Error("a status fault needs status 400..599");
  }
  if (r.times !== undefined && (typeof r.times !== "number" || r.times < 1))
    throw new Error("times must be >= 1");
  if (r.stallMs !== undefined && (typeof r.stallMs !== "number" || r.stallMs < 0))
    throw new Error("stallMs must be >= 0");
  return r as unknown as FaultRule;
}

export class Faults {
  private rules: { rule: FaultRule; pattern?: RegExp; remaining: number }[] = [];
  private random: () => number;

  constructor(private readonly seed = 1) {
    this.random = seededRandom(seed);
  }

  add(rule: FaultRule): void {
    const checked = validateFaultRule(rule);
    this.rules.push({
      rule: checked,
      ...(checked.path !== undefined ? { pattern: new RegExp(checked.path) } : {}),
      remaining: checked.times ?? Number.POSITIVE_INFINITY,
    });
  }

  clear(): void {
    this.rules = [];
    this.random = seededRandom(this.seed);
  }

  list(): FaultRule[] {
    return this.rules.map((r) => r.rule);
  }

  /** The first rule that matches and fires for this request, if any. */
  pick(method: string, path: string): FaultRule | undefined {
    for (const entry of this.rules) {
      if (entry.remaining <= 0) continue;
      if (entry.rule.method !== undefined && entry.rule.method.toUpperCase() !== method.toUpperCase())
        continue;
      if (entry.pattern !== undefined && !entry.pattern.test(path)) continue;
      if (this.random() >= (entry.rule.rate ?? 1)) continue;
      entry.remaining--;
      return entry.rule;
    }
    return undefined;
  }
}
