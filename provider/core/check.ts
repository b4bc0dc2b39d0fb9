/**
 * Input validation for every provider's `check`: a zod schema's issues become Pulumi CheckFailures whose
 * `property` is the input field and `reason` the rule. Runs at preview, before any API call.
 *
 * Values Pulumi does not know yet (the unknown sentinel, e.g. a uid of a resource not created yet) are
 * never reported: an issue whose path reaches an unknown value, or whose value contains one, is dropped.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { MAX_API_COLLECTION, boundViolations } from "../../sdk/schemas/bounds";
import { parseKeepingKeys } from "../../sdk/schemas/own-keys";

/** The value Pulumi puts in `news` for an input that is unknown at preview (runtime/rpc unknownValue). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** True if the value is unknown or holds an unknown anywhere inside. */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (typeof value === "object" && value !== null) return Object.values(value).some(containsUnknown);
  return false;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): { value: unknown; crossesUnknown: boolean } {
  let current: unknown = root;
  for (const key of path) {
    if (current === UNKNOWN) return { value: current, crossesUnknown: true };
    if (typeof current !== "object" || current === null) return { value: undefined, crossesUnknown: false };
    // A path's names come from the program: an own member only, never a prototype's.
    current = Object.hasOwn(current, key) ? (current as Record<PropertyKey, unknown>)[key] : undefined;
  }
  return { value: current, crossesUnknown: current === UNKNOWN };
}

/** "claimMatch.issuer", "capabilities[2]". */
export function propertyPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

/**
 * The rule an issue broke, in words a person acts on: a missing field is "required", a wrong type says what is
 * expected; the schemas' own messages (patterns, ranges, exactly-one-of) stand as written.
 */
function ruleOf(issue: z.core.$ZodIssue, value: unknown): string {
  if (issue.code !== "invalid_type") return issue.message;
  if (value === undefined || value === null) return "required";
  const got = Array.isArray(value) ? "a list" : `a ${typeof value}`;
  const expected =
    issue.expected === "array" ? "a list" : issue.expected === "object" ? "an object" : `a ${issue.expected}`;
  return `must be ${expected}, not ${got}`;
}

/**
 * The service's limits on every value (string length, control characters, lone surrogates, sizes: the same
 * functions the emulator enforces, sdk/schemas/bounds), for the fields the schema accepted: a program that the
 * service would refuse fails at preview, naming the field, instead of halfway into up.
 */
function boundFailures(news: Record<string, unknown>, failed: Set<string>): pulumi.dynamic.CheckFailure[] {
  const fields = Object.fromEntries(
    Object.entries(news).filter(([key, value]) => !key.startsWith("__") && !containsUnknown(value)),
  );
  return boundViolations(fields, MAX_API_COLLECTION, "")
    .filter((v) => !failed.has(v.field.split(/[.[]/)[0] ?? v.field))
    .map((v) => ({ property: v.field, reason: v.description }));
}

/** Validates `news` against `schema`; returns the failures (empty when valid or only unknowns failed). */
export function checkInputs(schema: z.ZodType, news: Record<string, unknown>): pulumi.dynamic.CheckFailure[] {
  // Every map key's value is checked, `__proto__` included (zod alone skips it: ../../sdk/schemas/own-keys).
  const result = parseKeepingKeys(schema, news);
  if (result.success) return boundFailures(news, new Set());
  const failures: pulumi.dynamic.CheckFailure[] = [];
  for (const issue of result.error.issues) {
    const { value, crossesUnknown } = valueAt(news, issue.path);
    if (crossesUnknown || containsUnknown(value)) continue;
    const property = propertyPath(issue.path);
    failures.push({ property, reason: ruleOf(issue, value) });
  }
  const failed = new Set(failures.map((f) => f.property.split(/[.[]/)[0] ?? f.property));
  return [...failures, ...boundFailures(news, failed)];
}
