/**
 * Limits on everything a client sends, checked in one place before any handler runs (server.ts): every string
 * (length, control characters, lone surrogates), every number (finite, within the safe-integer range), nesting
 * depth, array and object sizes, in the body and in the query, for API and control routes alike. Field-specific
 * limits (a ttl, a clock advance, a fault's stall) use the helpers below in their routes. A value beyond a limit is
 * code 3 naming the field, never a 5xx: the AIP-193 contract holds for any input.
 */
import { invalidArgument } from "./errors";
import type { FieldViolation } from "../sdk/schemas/common";

export {
  MAX_STRING_LENGTH,
  MAX_NAME_LENGTH,
  MAX_PATTERN_LENGTH,
  MAX_KEY_LENGTH,
  MAX_DEPTH,
  MAX_API_COLLECTION,
  MAX_CONTROL_COLLECTION,
  MAX_REPEATS,
  MAX_INT32,
  MAX_TIME_MS,
  stringProblem,
  boundViolations,
} from "../sdk/schemas/bounds";
import { MAX_REPEATS, stringProblem } from "../sdk/schemas/bounds";

/** Query values: strings within bounds, each parameter repeated at most MAX_REPEATS times. */
export function queryViolations(query: Record<string, unknown>): FieldViolation[] {
  const violations: FieldViolation[] = [];
  for (const [name, value] of Object.entries(query)) {
    const keyProblem = stringProblem(name, `${name} (the parameter name)`, true);
    if (keyProblem !== undefined) {
      violations.push({ field: name, description: keyProblem });
      continue;
    }
    const values = Array.isArray(value) ? value : [value];
    if (values.length > MAX_REPEATS) {
      violations.push({ field: name, description: `${name} may be given at most ${MAX_REPEATS} times` });
      continue;
    }
    for (const item of values) {
      const problem = typeof item === "string" ? stringProblem(item, name) : undefined;
      if (problem !== undefined) {
        violations.push({ field: name, description: problem });
        break;
      }
    }
  }
  return violations;
}

/** Throws code 3 naming every field that breaks a bound. */
export function throwViolations(violations: FieldViolation[]): void {
  if (violations.length > 0)
    throw invalidArgument(violations.map((v) => v.description).join("; "), violations);
}

/** An integer within [min, max], else code 3 naming `field`. */
export function boundedInteger(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    const description = `${field} must be an integer from ${min} to ${max}`;
    throw invalidArgument(description, [{ field, description }]);
  }
  return value;
}
