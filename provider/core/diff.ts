/**
 * The diff every resource provider uses: compare the old state with the new (resolved) inputs, field by
 * field, after normalizing what the API does not distinguish (absent description == "", capabilities as a
 * set, empty objects == absent). Immutable fields go into `replaces`; `changes` is always set; the fields
 * that changed are exactly the update mask.
 *
 * `profile` is state-only: changing it is a change (so the new profile is recorded) but never an API field.
 * `adopt` only matters at create and is ignored afterwards.
 */
import type * as pulumi from "@pulumi/pulumi";
import { containsUnknown } from "./check";

/** How a field's values compare. */
export type FieldKind = "string" | "stringSet" | "object";

export interface FieldSpec<K extends string = string> {
  key: K;
  kind: FieldKind;
  /** A change replaces the resource (parents, binding references). */
  replaces?: boolean;
}

/** A member the API does not tell from an absent one: undefined, null, "" or an empty object. */
function isEmptyMember(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    value === "" ||
    (typeof value === "object" && !Array.isArray(value) && Object.keys(value as object).length === 0)
  );
}

/**
 * A property a program would not write: absent, "", [] or {} (each compares equal to absent). An import's inputs
 * leave them out.
 */
export function isEmptyValue(value: unknown): boolean {
  return isEmptyMember(value) || (Array.isArray(value) && value.length === 0);
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === "object" && value !== null) {
    // Built with fromEntries (own members), never by assignment: a map key `__proto__` would set the prototype.
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])] as const)
        .filter(([, inner]) => !isEmptyMember(inner)),
    );
  }
  return value;
}

/** The form two values are compared in. */
export function normalize(kind: FieldKind, value: unknown): string {
  switch (kind) {
    case "string":
      return JSON.stringify(value ?? "");
    case "stringSet":
      return JSON.stringify(
        [...new Set(Array.isArray(value) ? (value as unknown[]).map(String) : [])].sort(),
      );
    case "object":
      return JSON.stringify(canonical(value ?? {}));
  }
}

export interface FieldDiff extends pulumi.dynamic.DiffResult {
  changes: boolean;
  replaces: string[];
  /** API fields whose value changed: the update mask. */
  changedFields: string[];
}

/** Compares old state with new inputs over the given API fields. */
export function diffFields(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  fields: readonly FieldSpec[],
): FieldDiff {
  const changedFields: string[] = [];
  const replaces: string[] = [];
  for (const field of fields) {
    const next = news[field.key];
    const differs =
      containsUnknown(next) || normalize(field.kind, olds[field.key]) !== normalize(field.kind, next);
    if (!differs) continue;
    if (field.replaces) replaces.push(field.key);
    else changedFields.push(field.key);
  }
  const profileChanged = (olds.profile ?? "") !== (news.profile ?? "");
  const apiChanges = changedFields.length > 0 || replaces.length > 0;
  return {
    changes: apiChanges || profileChanged,
    replaces,
    changedFields,
    // Only parents and references replace, so the replacement never collides with the old object's name.
    deleteBeforeReplace: false,
  };
}

/** How one property changes: set where it was empty, emptied, or changed; and whether that replaces the object. */
export interface PropertyChange {
  kind: "add" | "delete" | "update";
  replaces: boolean;
}

/**
 * Each property a diff changes, and how (the engine's detailed diff: the preview shows one line per property),
 * from the diff already computed: `replaces` is what the resource decided (it may go beyond the fields'), the
 * changed fields change in place, and a new profile is a change of its own.
 */
export function propertyChanges(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  fields: readonly FieldSpec[],
  diff: { changes: boolean; replaces: readonly string[]; changedFields: readonly string[] },
): Map<string, PropertyChange> {
  const out = new Map<string, PropertyChange>();
  if (!diff.changes) return out;
  const replaces = new Set(diff.replaces);
  const changed = new Set([...replaces, ...diff.changedFields]);
  if ((olds.profile ?? "") !== (news.profile ?? "")) changed.add("profile");
  for (const key of changed) {
    const field = fields.find((f) => f.key === key);
    const kind = field?.kind ?? "string";
    const empty = normalize(kind, undefined);
    const oldEmpty = normalize(kind, olds[key]) === empty;
    const newEmpty = !containsUnknown(news[key]) && normalize(kind, news[key]) === empty;
    out.set(key, {
      kind: oldEmpty && !newEmpty ? "add" : !oldEmpty && newEmpty ? "delete" : "update",
      replaces: replaces.has(key),
    });
  }
  return out;
}
