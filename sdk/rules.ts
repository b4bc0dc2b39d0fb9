/**
 * The rules the product spec (spec/platform-api-v2beta1.md) adds to the OpenAPI document, written once. The SDK's
 * request schemas (./schemas), the provider's declarations (checked at preview) and the emulator (enforced on
 * every request) all take them from here, so a rule cannot differ between the three. The wire shapes themselves
 * come from the OpenAPI document (./schemas/openapi.generated.ts); the limits on every string, number and
 * collection are in ./schemas/bounds.ts.
 */
import { RE2JS } from "re2js";
import { z } from "zod";
import { MAX_PATTERN_LENGTH } from "./schemas/bounds";

// ---- names ------------------------------------------------------------------------------------

/** The group name rule of the specification (section 2, Group). */
export const GROUP_NAME_PATTERN = /^[a-z0-9 ._-]{1,}$/;

/** A group's name on create and update. */
export const GroupName = z
  .string({ error: "name is required" })
  .regex(
    GROUP_NAME_PATTERN,
    "name must match ^[a-z0-9 ._-]{1,}$ (lowercase letters, digits, space, '.', '_', '-')",
  );

/** A protobuf Duration as JSON carries it: seconds with an `s` suffix, e.g. "3600s" or "86400.5s" (an invite's ttl). */
export const PROTO_DURATION_PATTERN = /^\d+(\.\d{1,9})?s$/;

/**
 * A signed 64-bit integer as protobuf's JSON mapping writes one: a decimal string (OpenAPI format int64, e.g. a
 * GitHub App installation id).
 */
export const INT64_PATTERN = /^-?\d{1,19}$/;

/** Whether `value` (matching INT64_PATTERN) lies in the int64 range. */
export const inInt64Range = (value: string): boolean =>
  !INT64_PATTERN.test(value) || (BigInt(value) >= -(2n ** 63n) && BigInt(value) < 2n ** 63n);

/** An AWS account id: 12 digits (an identity's awsIdentity.awsAccount, an account association's amazon.account). */
export const AWS_ACCOUNT_PATTERN = /^\d{12}$/;

// ---- members a client may not set ---------------------------------------------------------------

/**
 * Members the OpenAPI document leaves writable that a client may not set: a group's `verified` only Chainguard
 * staff change (the emulator answers 7 for a different value). Create and update bodies, and the update-mask paths,
 * leave them out. (A group's `kind` is settable on an organization only; the emulator refuses it on a subgroup.)
 */
export const NOT_CLIENT_SETTABLE = {
  Group: ["verified"],
} as const;

// ---- identities ---------------------------------------------------------------------------------

/**
 * How an identity is assumed: exactly one of these (a oneof in the API, which the OpenAPI document does not show).
 * The order is the one every message names them in.
 */
export const IDENTITY_KINDS = ["claimMatch", "staticKeys", "awsIdentity", "servicePrincipal"] as const;
export type IdentityKind = (typeof IDENTITY_KINDS)[number];

/** A claimMatch needs an issuer rule and a subject rule: each an exact value or a pattern. */
export const CLAIM_MATCH_RULE_PAIRS = [
  ["issuer", "issuerPattern"],
  ["subject", "subjectPattern"],
] as const;

/** claimMatch members holding one RE2 pattern (claimPatterns holds one per claim). */
export const CLAIM_MATCH_PATTERN_MEMBERS = ["issuerPattern", "subjectPattern", "audiencePattern"] as const;

/** awsIdentity members holding an RE2 pattern. */
export const AWS_IDENTITY_PATTERN_MEMBERS = ["arnPattern", "userIdPattern"] as const;

/** Static keys accept at most this many audiences: the service supports exactly one today. */
export const STATIC_KEYS_MAX_AUDIENCES = 1;

/** Static keys expire at most this long after they are set (OpenAPI Identity.StaticKeys.expirationTime). */
export const STATIC_KEYS_MAX_LIFETIME_MS = 365 * 24 * 60 * 60 * 1000;

const compiled = new Map<string, RE2JS>();

/**
 * The compiled pattern, or why the service refuses it. The service evaluates patterns with RE2 (linear time, no
 * backreferences or lookaround), each compiled on its own before it is anchored, so an unbalanced group
 * (`only-x)|(.*`) is refused instead of escaping its anchors.
 */
export function compileRe2(pattern: string): RE2JS | string {
  const cached = compiled.get(pattern);
  if (cached !== undefined) return cached;
  if (pattern.length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters`;
  try {
    const regex = RE2JS.compile(pattern);
    if (compiled.size >= 1024) compiled.clear();
    compiled.set(pattern, regex);
    return regex;
  } catch (error) {
    return `is not a valid RE2 regular expression (${(error as Error).message})`;
  }
}

/** Why the service would refuse `pattern`, or undefined. */
export function re2Problem(pattern: string): string | undefined {
  const result = compileRe2(pattern);
  return typeof result === "string" ? result : undefined;
}

/**
 * The index of the first private key in `issuerKeys`, or undefined. The service stores static keys as given (its
 * own clients send keys that are not JSON) and checks them when a token is exchanged; the one thing refused up
 * front is a private key (a JWK with `d`) in a JWKS document, which is a credential and never stored.
 */
export function privateKeyIndex(issuerKeys: string): number | undefined {
  let keys: unknown;
  try {
    keys = (JSON.parse(issuerKeys) as { keys?: unknown } | null)?.keys;
  } catch {
    return undefined;
  }
  if (!Array.isArray(keys)) return undefined;
  const index = keys.findIndex((key) => typeof key === "object" && key !== null && "d" in key);
  return index === -1 ? undefined : index;
}

/** `${field}: keys[i] is a private key; give only the public key`, or undefined when `issuerKeys` holds none. */
export function privateKeyProblem(issuerKeys: string, field: string): string | undefined {
  const index = privateKeyIndex(issuerKeys);
  return index === undefined
    ? undefined
    : `${field}: keys[${index}] is a private key; give only the public key`;
}
