/**
 * Identities: the collection's rules, the oneof of how an identity is assumed (claimMatch, staticKeys,
 * awsIdentity, servicePrincipal), and the unscoped lookup by issuer and subject.
 */
import { createHash } from "node:crypto";
import {
  IDENTITY_RELATIONSHIPS,
  IDENTITY_UPDATE_FIELDS,
  IdentityCreate,
  IdentityUpdate,
} from "../../sdk/schemas";
import {
  AWS_IDENTITY_PATTERN_MEMBERS,
  STATIC_KEYS_MAX_AUDIENCES,
  STATIC_KEYS_MAX_LIFETIME_MS,
  privateKeyProblem,
  re2Problem,
} from "../../sdk/rules";
import { underAny } from "../access";
import { claimMatchViolations, validateClaimMatch } from "../claim-match";
import { badField } from "../errors";
import { checkQuery, queryParam } from "../listing";
import type { StoredObject } from "../store";
import { collectionSpec, COMMON_SORT, applyChanges, baseWire, type CollectionSpec } from "./crud";
import type { RouteContext } from "./types";

/**
 * The list's relationshipType (OpenAPI enum) → the member that says how such an identity is assumed;
 * UNSPECIFIED matches all.
 */
const RELATIONSHIP_TYPES: Readonly<Record<string, string | undefined>> = {
  RELATIONSHIP_TYPE_UNSPECIFIED: undefined,
  RELATIONSHIP_TYPE_CLAIM_MATCH: "claimMatch",
  RELATIONSHIP_TYPE_STATIC: "staticKeys",
  RELATIONSHIP_TYPE_AWS_IDENTITY: "awsIdentity",
  RELATIONSHIP_TYPE_SERVICE_PRINCIPAL: "servicePrincipal",
};

export const identities: CollectionSpec = {
  ...collectionSpec("identities"),
  sortable: [...COMMON_SORT, "lastSeenTime"],
  listParams: { name: "text", relationshipType: Object.keys(RELATIONSHIP_TYPES) },
  filters: (query) => {
    const type = queryParam(query, "relationshipType", "relationship_type");
    const member =
      type === undefined || !Object.hasOwn(RELATIONSHIP_TYPES, type) ? undefined : RELATIONSHIP_TYPES[type];
    if (member === undefined) return undefined;
    return { key: member, test: (o) => o.fields[member] !== undefined };
  },
  // lastSeenTime is stored with every identity (../model.ts withLastSeenTime); the spec's Identity table, which wins
  // over the OpenAPI's "when the identity was last federated", returns it on create and on reads.
  toWire: (o) => ({ description: "", ...baseWire(o) }),
  create: {
    schema: IdentityCreate,
    check: (input) => claimMatchViolations(input.claimMatch, input),
    fields: (body, _parent, ctx) => {
      checkRelationship(body, Object.keys(body), ctx);
      return body;
    },
  },
  update: {
    schema: IdentityUpdate,
    // On the values after the update; apply checks the stored identity again once the oneof is resolved.
    check: (input) => (input.claimMatch === undefined ? [] : claimMatchViolations(input.claimMatch, input)),
    fields: IDENTITY_UPDATE_FIELDS,
    required: ["name"],
    apply: (o, changes, ctx) => {
      checkRelationship(changes, Object.keys(changes), ctx);
      applyChanges(o, changes);
      // Checked on the identity as it will be stored: an update cannot leave it without issuer or subject rule.
      validateClaimMatch(o.fields.claimMatch as Record<string, unknown> | undefined, o.fields);
    },
  },
  beforeDelete: (identity, ctx) => {
    for (const binding of ctx.svc.store.byField("roleBindings", "identityUid", identity.uid))
      ctx.svc.store.delete("roleBindings", binding.uid);
  },
};

/**
 * The oneof of how an identity is assumed: at most one of claimMatch, staticKeys, awsIdentity, servicePrincipal.
 * Setting one (create, or an update that touches it) clears the others, as a protobuf oneof does; setting two at
 * once is code 3. Validates what the emulator stores, and refuses with 3 what it cannot honour. Mutates
 * `fields` (defaults, cleared siblings).
 */
function checkRelationship(fields: Record<string, unknown>, touched: string[], ctx: RouteContext): void {
  const set = IDENTITY_RELATIONSHIPS.filter((k) => touched.includes(k) && fields[k] !== undefined);
  if (set.length > 1) {
    throw badField(
      set[1]!,
      `only one of ${IDENTITY_RELATIONSHIPS.join(", ")} may be set; this request sets ${set.join(" and ")}`,
    );
  }
  if (set.length === 1)
    for (const other of IDENTITY_RELATIONSHIPS) if (other !== set[0]) fields[other] = undefined;
  const staticKeys = fields.staticKeys as Record<string, unknown> | undefined;
  if (staticKeys !== undefined)
    fields.staticKeys = checkStaticKeys(staticKeys, ctx.svc.clock.now().getTime());
  const aws = fields.awsIdentity as Record<string, unknown> | undefined;
  // Patterns are RE2, compiled on their own, like claimMatch patterns (../claim-match.ts).
  for (const key of AWS_IDENTITY_PATTERN_MEMBERS) {
    const pattern = aws?.[key];
    if (typeof pattern !== "string") continue;
    const problem = re2Problem(pattern);
    if (problem !== undefined) throw badField(`awsIdentity.${key}`, `awsIdentity.${key} ${problem}`);
  }
}

/**
 * issuerKeys is stored as given, as the real service does (its clients send keys that are not JSON): the keys are
 * checked when a token is exchanged (./sts.ts). The one exception is a JWKS holding a private key, which is never
 * stored. The expiration must lie within 365 days (default: 365 days).
 */
function checkStaticKeys(staticKeys: Record<string, unknown>, now: number): Record<string, unknown> {
  const field = "staticKeys.issuerKeys";
  const privateKey = privateKeyProblem(String(staticKeys.issuerKeys), field);
  if (privateKey !== undefined) throw badField(field, `${privateKey} (it is never stored)`);
  const audiences = (staticKeys.audiences as string[] | undefined) ?? [];
  if (audiences.length > STATIC_KEYS_MAX_AUDIENCES)
    throw badField("staticKeys.audiences", "staticKeys.audiences supports exactly one value today");
  const latest = now + STATIC_KEYS_MAX_LIFETIME_MS;
  if (staticKeys.expirationTime === undefined)
    return { ...staticKeys, expirationTime: new Date(latest).toISOString() };
  const expiration = Date.parse(String(staticKeys.expirationTime));
  const where = "staticKeys.expirationTime";
  if (!Number.isFinite(expiration)) throw badField(where, `${where} must be an RFC 3339 timestamp`);
  if (expiration <= now) throw badField(where, `${where} must be in the future`);
  if (expiration > latest) throw badField(where, `${where} may be at most 365 days from now`);
  // Returned as sent: a client compares what it reads back with what it wrote.
  return staticKeys;
}

/**
 * The identity an issuer and subject name: an identity whose claimMatch has exactly that issuer and subject, among
 * the root-level ones and those the caller may list (the lookup is unscoped, so it never reveals an identity the
 * caller cannot see); the oldest if several. Undefined if none.
 */
export function lookupIdentity(ctx: RouteContext): { issuer: string; subject: string; found?: StoredObject } {
  checkQuery(ctx.query, { issuer: "text", subject: "text" }, `GET ${ctx.path}`);
  const issuer = queryParam(ctx.query, "issuer") ?? "";
  const subject = queryParam(ctx.query, "subject") ?? "";
  if (issuer === "") throw badField("issuer", "issuer (the OIDC issuer URL) is required");
  if (subject === "") throw badField("subject", "subject (the OIDC subject) is required");
  const roots = ctx.svc.access.grantRoots(ctx.caller, "CAP_IAM_IDENTITY_LIST");
  let found: StoredObject | undefined;
  for (const identity of ctx.svc.store.all("identities")) {
    const claimMatch = identity.fields.claimMatch as Record<string, unknown> | undefined;
    if (claimMatch?.issuer !== issuer || claimMatch.subject !== subject) continue;
    if (identity.parent !== "" && !underAny(identity.parent, roots)) continue;
    const older =
      found === undefined ||
      identity.createTime < found.createTime ||
      (identity.createTime === found.createTime && identity.uid < found.uid);
    if (older) found = identity;
  }
  return { issuer, subject, ...(found !== undefined ? { found } : {}) };
}

/**
 * GET /iam/v2beta1/identities:lookupIdentity (OpenAPI: unscoped, returns `uid`): the identity found, else the
 * deterministic uid a user with this issuer and subject would get on registration (40 hex, like every root).
 */
export function lookupIdentityUid(ctx: RouteContext): Record<string, unknown> {
  const { issuer, subject, found } = lookupIdentity(ctx);
  const uid = found?.uid ?? createHash("sha1").update(`${issuer}\n${subject}`).digest("hex");
  return { uid };
}
