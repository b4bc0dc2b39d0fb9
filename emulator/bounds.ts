/**
 * Limits on everything a client sends, checked in one place before any handler runs (server.ts): every string
 * (length, control characters, lone surrogates), every number (finite, within the safe-integer range), nesting
 * depth, array and object sizes, in the body and in the query, for API and control routes alike. Field-specific
 * limits (a ttl, a clock advance, a fault's stall) use the helpers below in their routes. A value beyond a limit is
 * code 3 naming the field, never a 5xx: the AIP-193 contract holds for any input.
 *
 * May import: ./errors only.
 */
import { invalidArgument } from "./errors";
import type { FieldViolation } from "../sdk/schemas/common";

/** Longest string member (descriptions, URLs, uids, claims...). */
export const MAX_STRING_LENGTH = 4096;
/** Longest `name` (resource names, user names). */
export const MAX_NAME_LENGTH = 256;
/** Longest claimMatch pattern. */
export const MAX_PATTERN_LENGTH = 1024;
/** Longest object key (claim names, service names). */
export const MAX_KEY_LENGTH = 256;
export const MAX_DEPTH = 16;
/** Elements per array and members per object in an API body. */
export const MAX_API_COLLECTION = 1000;
/** Seeds load benchmarks (50,000 groups) through the control path in one request. */
export const MAX_CONTROL_COLLECTION = 1_000_000;
/** A query parameter may repeat at most this often. */
export const MAX_REPEATS = 100;
/** Largest integer query parameter (page_size, skip): a protobuf int32, as on the real service. */
export const MAX_INT32 = 2_147_483_647;
/** The emulator clock and every timestamp it writes stay before this (RFC 3339 needs a 4-digit year). */
export const MAX_TIME_MS = Date.parse("9999-12-31T23:59:59.999Z");

// C0 controls except TAB, LF, CR; DEL; C1 controls.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const LINE_CONTROL = /[\t\n\r]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a string is refused, or undefined. `name`s (and object keys) may not hold TAB, LF or CR either. */
export function stringProblem(value: string, field: string, isKey = false): string | undefined {
  const last = field.split(".").pop() ?? field;
  const isName = isKey || last === "name";
  const max = isKey ? MAX_KEY_LENGTH : isName ? MAX_NAME_LENGTH : MAX_STRING_LENGTH;
  if (value.length > max) return `${field} must be at most ${max} characters`;
  if (LONE_SURROGATE.test(value)) return `${field} must be valid Unicode (it holds a lone surrogate)`;
  if (CONTROL.test(value) || (isName && LINE_CONTROL.test(value)))
    return `${field} must not contain control characters`;
  return undefined;
}

function join(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return path === "" ? key : `${path}.${key}`;
}

/** Every bound a JSON value breaks, one violation per field. */
export function boundViolations(value: unknown, maxCollection: number, root = "body"): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const add = (field: string, description: string): void => {
    if (!violations.some((v) => v.field === field)) violations.push({ field, description });
  };
  const walk = (node: unknown, path: string, depth: number): void => {
    const field = path === "" ? root : path;
    if (violations.length >= 20) return;
    if (typeof node === "string") {
      const problem = stringProblem(node, field);
      if (problem !== undefined) add(field, problem);
    } else if (typeof node === "number") {
      if (!Number.isFinite(node) || Math.abs(node) > Number.MAX_SAFE_INTEGER)
        add(field, `${field} must be a finite number of magnitude at most ${Number.MAX_SAFE_INTEGER}`);
    } else if (node !== null && typeof node === "object") {
      if (depth >= MAX_DEPTH) return add(field, `${field} is nested deeper than ${MAX_DEPTH} levels`);
      if (Array.isArray(node)) {
        if (node.length > maxCollection)
          return add(field, `${field} must have at most ${maxCollection} elements`);
        node.forEach((item, i) => walk(item, join(path, i), depth + 1));
      } else {
        const entries = Object.entries(node as Record<string, unknown>);
        if (entries.length > maxCollection)
          return add(field, `${field} must have at most ${maxCollection} members`);
        for (const [key, item] of entries) {
          const child = join(path, key);
          const problem = stringProblem(key, `${child} (the member name)`, true);
          if (problem !== undefined) add(child, problem);
          else walk(item, child, depth + 1);
        }
      }
    }
  };
  walk(value, "", 0);
  return violations;
}

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
