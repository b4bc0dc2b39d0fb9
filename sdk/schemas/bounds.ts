/**
 * The limits the service puts on every string, number and collection a client sends, as pure functions shared by
 * the emulator (which enforces them on every request, emulator/bounds.ts) and the provider (which checks a
 * program's arguments against them at preview, provider/core/check.ts), so both sides apply one rule.
 */
import type { FieldViolation } from "./common";

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
