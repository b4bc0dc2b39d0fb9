/**
 * Update masks as AIP-134 defines them, for every v2 collection:
 *
 * - `updateMask=*` replaces every updatable field: what the body leaves out is cleared (required ones refused).
 * - A nested path (`claimMatch.issuer`) changes only that member of the message; the others keep their values.
 * - Without a mask, the mask is implied by the body: a partial nested object changes only the members it carries.
 * - With a mask, body fields outside it are ignored (spec, Partial update rule 2).
 * - Output-only fields (the OpenAPI's readOnly members, which the service sets) may be sent, whatever their value,
 *   and named in a mask, at any depth: AIP-203 has the service ignore them, never refuse them, so a read-modify-write
 *   client that echoes what it read (a `lastSeenTime` a token exchange has moved since) is not refused; they are
 *   never applied either. Fields only the service's staff may change (a group's `verified`) are the exception: sent
 *   or named with their current value they are no change, another value is the resource's own code (7).
 * - Unknown paths and unknown body fields are code 3 naming them: nothing a client sends is dropped silently.
 */
import { z } from "zod";
import { ApiFailure, badField, invalidArgument } from "./errors";
import { queryParam, type Query } from "./listing";
import { defineOwn } from "../sdk/schemas/own-keys";

export interface UpdateRules {
  /** The update body's schema: its object members are messages, whose members a nested path may name. */
  schema: z.ZodTypeAny;
  /** Top-level fields a client may change. */
  fields: readonly string[];
  /** Fields that cannot be cleared. */
  required?: readonly string[];
  /** Output-only fields: accepted in the body and the mask, whatever their value, and ignored (AIP-203). */
  ignored?: readonly string[];
  /** Output-only fields that only the service's staff may change: a different value is code 7 with this text. */
  restricted?: Readonly<Record<string, string>>;
}

export interface ResolvedUpdate {
  /** Top-level field → its value after the update (undefined: cleared), for every field the update touches. */
  changes: Record<string, unknown>;
  /** The effective paths (`*` expanded), e.g. ["name", "claimMatch.issuer"]. */
  paths: string[];
}

const camel = (segment: string): string => segment.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The member `name` of `object` if it is its own (a name from a request is never looked up on a prototype). */
const own = (object: Readonly<Record<string, unknown>>, name: string): unknown =>
  Object.hasOwn(object, name) ? object[name] : undefined;

/** The members of a message field, or undefined when the field is not a message (a scalar, list or map). */
function messageMembers(schema: z.ZodTypeAny, field: string): string[] | undefined {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  let inner: unknown = shape !== undefined && Object.hasOwn(shape, field) ? shape[field] : undefined;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable || inner instanceof z.ZodDefault)
    inner = (inner as z.ZodOptional<z.ZodTypeAny>).unwrap();
  return inner instanceof z.ZodObject ? Object.keys(inner.shape) : undefined;
}

function canonical(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : isPlainObject(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort(v[k])]),
          )
        : v;
  return JSON.stringify(sort(value ?? null));
}

/**
 * A field only the service's staff may change, sent by the client: its current value is no change, another is the
 * resource's own refusal (code 7). Output-only fields never come here: they are ignored.
 */
function checkRestricted(
  field: string,
  sent: unknown,
  wire: Record<string, unknown>,
  rules: UpdateRules,
): void {
  const restricted = rules.restricted === undefined ? undefined : own(rules.restricted, field);
  if (restricted === undefined || sent === undefined || canonical(sent) === canonical(own(wire, field)))
    return;
  throw new ApiFailure(7, `${field}: ${restricted}`);
}

/**
 * What a PATCH changes, from its query (`updateMask` / `update_mask`) and body, given the resource's current
 * stored fields and wire form. Throws the AIP-193 failure for a bad mask or body; changes nothing itself.
 */
export function resolveUpdate(
  query: Query,
  rawBody: unknown,
  current: Record<string, unknown>,
  wire: Record<string, unknown>,
  rules: UpdateRules,
): ResolvedUpdate {
  const body = rawBody === undefined || rawBody === null || rawBody === "" ? {} : rawBody;
  if (!isPlainObject(body))
    throw invalidArgument("the request body must be a JSON object", [
      { field: "body", description: "must be a JSON object" },
    ]);
  const updatable = (field: string) => rules.fields.includes(field);
  const outputOnly = (field: string) => !updatable(field) && (rules.ignored ?? []).includes(field);
  const restricted = (field: string) =>
    !updatable(field) && rules.restricted !== undefined && Object.hasOwn(rules.restricted, field);
  const paths: string[] = [];
  const addPath = (path: string) => {
    if (!paths.includes(path)) paths.push(path);
  };

  const rawMask = queryParam(query, "updateMask", "update_mask");
  if (rawMask === undefined) {
    // Implied mask: the populated fields; a nested object stands for the members it carries.
    for (const [field, value] of Object.entries(body)) {
      if (value === undefined) continue;
      if (updatable(field)) {
        const members = messageMembers(rules.schema, field);
        if (members !== undefined && isPlainObject(value) && Object.keys(value).length > 0) {
          for (const member of Object.keys(value)) {
            if (!members.includes(member))
              throw badField(`${field}.${member}`, `${field}.${member} is not a field of ${field}`);
            if (own(value, member) !== undefined) addPath(`${field}.${member}`);
          }
        } else addPath(field);
      } else if (restricted(field)) checkRestricted(field, value, wire, rules);
      else if (!outputOnly(field)) throw badField(field, `${field} is not a field of this resource`);
    }
  } else {
    const listed = rawMask
      .split(",")
      .map((p) => p.trim())
      .filter((p) => p.length > 0);
    for (const path of listed) {
      if (path === "*") {
        rules.fields.forEach(addPath);
        for (const [field, value] of Object.entries(body))
          if (restricted(field)) checkRestricted(field, value, wire, rules);
        continue;
      }
      const segments = path.split(".").map(camel);
      const [field, member, ...deeper] = segments as [string, ...string[]];
      const invalid = (why: string) => badField("updateMask", `updateMask path "${path}" ${why}`);
      if (updatable(field)) {
        if (member === undefined) addPath(field);
        else {
          const members = messageMembers(rules.schema, field);
          if (members === undefined) throw invalid(`names a member of ${field}, which has none`);
          if (!members.includes(member) || deeper.length > 0)
            throw invalid(`is not a field; ${field} has ${members.join(", ")}`);
          addPath(`${field}.${member}`);
        }
      } else if (restricted(field) && member === undefined) {
        checkRestricted(field, own(body, field), wire, rules);
      } else if (outputOnly(field)) {
        // AIP-203: an output-only path in a mask is ignored, as the field is in the body.
        continue;
      } else {
        throw invalid(`is not an updatable field; use ${rules.fields.join(", ")} or *`);
      }
    }
  }

  // Apply the paths to the current values: whole fields, or one member of a message.
  const next: Record<string, unknown> = {};
  for (const path of paths) {
    const [field, member] = path.split(".") as [string, string | undefined];
    if (member === undefined) {
      defineOwn(next, field, own(body, field));
      continue;
    }
    const base = Object.hasOwn(next, field) ? next[field] : own(current, field);
    const merged: Record<string, unknown> = { ...(isPlainObject(base) ? base : {}) };
    const sentField = own(body, field);
    const sent = isPlainObject(sentField) ? own(sentField, member) : undefined;
    if (sent === undefined) delete merged[member];
    else defineOwn(merged, member, sent);
    defineOwn(next, field, Object.keys(merged).length > 0 ? merged : undefined);
  }
  for (const field of Object.keys(next)) {
    if (next[field] === undefined && rules.required?.includes(field)) {
      const why =
        rawMask === undefined
          ? `${field} cannot be cleared`
          : `${field} is required (the update mask replaces it, and the body has none)`;
      throw badField(field, why);
    }
  }
  return { changes: next, paths };
}
