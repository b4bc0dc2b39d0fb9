/** The IAM collections: groups, identities, roles, role bindings, identity providers, group invites, account associations. */
import { createHash, createPublicKey, type JsonWebKey } from "node:crypto";
import {
  ACCOUNT_ASSOCIATION_UPDATE_FIELDS,
  AccountAssociationCreate,
  AccountAssociationUpdate,
  GROUP_UPDATE_FIELDS,
  GroupCreate,
  GroupInviteCreate,
  GroupUpdate,
  IDENTITY_PROVIDER_UPDATE_FIELDS,
  IDENTITY_UPDATE_FIELDS,
  IdentityCreate,
  IdentityProviderCreate,
  IdentityProviderUpdate,
  IdentityUpdate,
  IDENTITY_RELATIONSHIPS,
  ROLE_BINDING_UPDATE_FIELDS,
  ROLE_UPDATE_FIELDS,
  RoleBindingCreate,
  RoleBindingUpdate,
  RoleCreate,
  RoleUpdate,
} from "../../sdk/schemas";
import { BUILTIN_ROLES, ancestorsOrSelf, builtinRole, underAny } from "../access";
import { MAX_TIME_MS } from "../bounds";
import { CAPABILITY_SET } from "../../sdk/schemas/capabilities";
import { claimMatchViolations, compilePattern, validateClaimMatch } from "../claim-match";
import { alreadyExists, badField, failedPrecondition, permissionDenied, type ApiFailure } from "../errors";
import type { FieldViolation } from "../../sdk/schemas/common";
import { queryParam } from "../listing";
import { randomHex, withoutUndefined } from "../service";
import type { StoredObject } from "../store";
import {
  applyChanges,
  baseWire,
  crudRoutes,
  createHandler,
  refuseUnknownFields,
  parentOfUid,
  type ResourceSpec,
} from "./crud";
import type { Route, RouteContext } from "./types";

const COMMON_SORT = ["uid", "name", "description", "createTime", "updateTime"] as const;

export const groups: ResourceSpec = {
  kind: "groups",
  plural: "groups",
  label: "group",
  prefix: "/iam/v2beta1/groups",
  capability: "CAP_IAM_GROUPS",
  sortable: [...COMMON_SORT, "verified"],
  accessGroup: (o) => o.uid,
  accessGroupOfUid: (uid) => uid,
  toWire: (o) => ({ resourceLimits: {}, verified: false, description: "", ...baseWire(o) }),
  create: {
    schema: GroupCreate,
    ignored: ["verified", "resourceLimits", "status"],
    fields: (body) => ({ ...body, verified: false }),
  },
  update: {
    schema: GroupUpdate,
    fields: GROUP_UPDATE_FIELDS,
    required: ["name"],
    ignored: ["status"],
    restricted: { verified: "verified can only be set by the service's staff" },
  },
  beforeDelete: (group, ctx) => {
    const { store } = ctx.svc;
    const isOrganization = group.parent === "";
    const blocking: [string, string, number, string][] = [
      ["subgroup", "subgroups", store.children("groups", group.uid).length, "CAP_IAM_GROUPS_LIST"],
      ["identity", "identities", store.children("identities", group.uid).length, "CAP_IAM_IDENTITY_LIST"],
      ["role", "roles", store.children("roles", group.uid).length, "CAP_IAM_ROLES_LIST"],
      // An organization's own bindings (its creator's owner binding) go with it; a folder's must be removed first.
      [
        "role binding",
        "role bindings",
        isOrganization ? 0 : store.children("roleBindings", group.uid).length,
        "CAP_IAM_ROLE_BINDINGS_LIST",
      ],
      ["repo", "repos", store.children("repos", group.uid).length, "CAP_REPO_LIST"],
      [
        "identity provider",
        "identity providers",
        store.children("identityProviders", group.uid).length,
        "CAP_IAM_IDENTITY_PROVIDERS_LIST",
      ],
      [
        "group invite",
        "group invites",
        store.children("groupInvites", group.uid).length,
        "CAP_IAM_GROUP_INVITES_LIST",
      ],
      ["advisory", "advisories", store.children("advisories", group.uid).length, "CAP_ADVISORIES_LIST"],
    ];
    // Counted only where the caller may list; what it may not is said to exist, never counted (no count leaks).
    const visible = blocking.filter(
      ([, , n, list]) => n > 0 && ctx.svc.access.can(ctx.caller, group.uid, list),
    );
    const hidden = blocking.some(
      ([, , n, list]) => n > 0 && !ctx.svc.access.can(ctx.caller, group.uid, list),
    );
    const present = [
      ...visible.map(([one, many, n]) => `${n} ${n === 1 ? one : many}`),
      ...(hidden ? ["objects you cannot list"] : []),
    ];
    if (present.length > 0) {
      const description = `group ${group.uid} still contains ${present.join(", ")}`;
      throw failedPrecondition(description, [
        { type: "RESOURCE_NOT_EMPTY", subject: group.uid, description },
      ]);
    }
    for (const binding of store.children("roleBindings", group.uid))
      store.delete("roleBindings", binding.uid);
    store.delete("accountAssociations", group.uid);
  },
};

export const identities: ResourceSpec = {
  kind: "identities",
  plural: "identities",
  label: "identity",
  prefix: "/iam/v2beta1/identities",
  capability: "CAP_IAM_IDENTITY",
  sortable: [...COMMON_SORT, "lastSeenTime"],
  toWire: (o) => ({ description: "", ...baseWire(o), lastSeenTime: o.fields.lastSeenTime ?? o.createTime }),
  create: {
    schema: IdentityCreate,
    ignored: ["lastSeenTime", "email", "emailUnverified"],
    check: (input) => claimMatchViolations(input.claimMatch, input),
    fields: (body, _parent, ctx) => {
      checkRelationship(body, Object.keys(body), ctx);
      return { ...body, lastSeenTime: ctx.svc.now() };
    },
  },
  update: {
    schema: IdentityUpdate,
    // On the values after the update; apply checks the stored identity again once the oneof is resolved.
    check: (input) => (input.claimMatch === undefined ? [] : claimMatchViolations(input.claimMatch, input)),
    fields: IDENTITY_UPDATE_FIELDS,
    required: ["name"],
    ignored: ["email", "emailUnverified"],
    apply: (o, changes, ctx) => {
      checkRelationship(changes, Object.keys(changes), ctx);
      applyChanges(o, changes);
      // Checked on the identity as it will be stored: an update cannot leave it without issuer or subject rule.
      validateClaimMatch(o.fields.claimMatch as Record<string, unknown> | undefined, o.fields);
    },
  },
  beforeDelete: (identity, ctx) => {
    for (const binding of [...ctx.svc.store.all("roleBindings")]) {
      if (binding.fields.identityUid === identity.uid) ctx.svc.store.delete("roleBindings", binding.uid);
    }
  },
};

/** Static keys expire at most this long after they are set (OpenAPI Identity.StaticKeys.expirationTime). */
export const STATIC_KEYS_MAX_LIFETIME_MS = 365 * 24 * 60 * 60 * 1000;

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
  if (fields.servicePrincipal !== undefined) {
    throw badField(
      "servicePrincipal",
      "service principals are the service's own workloads; the emulator cannot honour one, so it refuses it",
    );
  }
  const staticKeys = fields.staticKeys as Record<string, unknown> | undefined;
  if (staticKeys !== undefined)
    fields.staticKeys = checkStaticKeys(staticKeys, ctx.svc.clock.now().getTime());
  const aws = fields.awsIdentity as Record<string, unknown> | undefined;
  // Patterns are RE2, compiled on their own, like claimMatch patterns (../claim-match.ts).
  for (const key of ["arnPattern", "userIdPattern"]) {
    const pattern = aws?.[key];
    if (typeof pattern !== "string") continue;
    const compiled = compilePattern(pattern);
    if (typeof compiled === "string") throw badField(`awsIdentity.${key}`, `awsIdentity.${key} ${compiled}`);
  }
}

/** Public keys only, at least one, usable for verification; the expiration within 365 days (default: 365 days). */
function checkStaticKeys(staticKeys: Record<string, unknown>, now: number): Record<string, unknown> {
  const field = "staticKeys.issuerKeys";
  let jwks: unknown;
  try {
    jwks = JSON.parse(String(staticKeys.issuerKeys));
  } catch {
    throw badField(field, `${field} must be a JWKS document (JSON with a "keys" array)`);
  }
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0)
    throw badField(field, `${field} must be a JWKS document with at least one key in "keys"`);
  for (const [i, key] of keys.entries()) {
    if (typeof key !== "object" || key === null || "d" in key)
      throw badField(field, `${field}: keys[${i}] must be a public key (a private key is never stored)`);
    try {
      createPublicKey({ key: key as JsonWebKey, format: "jwk" });
    } catch {
      throw badField(field, `${field}: keys[${i}] is not a usable public key`);
    }
  }
  const audiences = (staticKeys.audiences as string[] | undefined) ?? [];
  if (audiences.length > 1)
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

const builtinObjects: StoredObject[] = BUILTIN_ROLES.map((r) => ({
  uid: r.uid,
  parent: "",
  fields: { name: r.name, description: r.description, capabilities: r.capabilities },
  createTime: "2024-01-01T00:00:00.000Z",
  updateTime: "2024-01-01T00:00:00.000Z",
}));

export const roles: ResourceSpec = {
  kind: "roles",
  plural: "roles",
  label: "role",
  prefix: "/iam/v2beta1/roles",
  capability: "CAP_IAM_ROLES",
  sortable: COMMON_SORT,
  toWire: (o) => ({ description: "", ...baseWire(o) }),
  // Built-in roles are usable anywhere, so they are listed unless the query asks for one group's direct children.
  globalObjects: (params) => (params.childrenOf === undefined ? builtinObjects : []),
  create: {
    schema: RoleCreate,
    check: (input) => capabilityViolations(input.capabilities),
    fields: (body, parent, ctx) => {
      requireGrantable(ctx, body.capabilities as string[], parent, "capabilities");
      return body;
    },
  },
  update: {
    schema: RoleUpdate,
    fields: ROLE_UPDATE_FIELDS,
    required: ["name", "capabilities"],
    check: (input) => capabilityViolations(input.capabilities),
    apply: (o, changes, ctx) => {
      if (Array.isArray(changes.capabilities)) {
        // Only what the update adds is granted by it; capabilities the role already holds stay as they are.
        const held = new Set((o.fields.capabilities as string[] | undefined) ?? []);
        const added = (changes.capabilities as string[]).filter((c) => !held.has(c));
        requireGrantable(ctx, added, o.parent, "capabilities");
      }
      applyChanges(o, changes);
    },
  },
  beforeDelete: (role, ctx) => {
    refuseIfReferenced(role, ctx);
    // Bindings are the role's grants: deleting the role revokes them (see emulator/README.md, "Deleting a role").
    for (const binding of [...ctx.svc.store.all("roleBindings")]) {
      if (binding.fields.roleUid === role.uid) ctx.svc.store.delete("roleBindings", binding.uid);
    }
  },
};

/** Capabilities are known names (the OpenAPI enum): code 3 naming `capabilities[i]` otherwise. */
function capabilityViolations(capabilities: unknown): FieldViolation[] {
  if (!Array.isArray(capabilities)) return [];
  return capabilities.flatMap((c, i) =>
    typeof c === "string" && !CAPABILITY_SET.has(c)
      ? [{ field: `capabilities[${i}]`, description: `capabilities[${i}]: ${c} is not a known capability` }]
      : [],
  );
}

/** The caller must hold each capability it adds on `groupUid` (no escalation): code 7 naming them otherwise. */
function requireGrantable(ctx: RouteContext, added: string[], groupUid: string, field: string): void {
  const missing = ctx.svc.access.missing(ctx.caller, groupUid, added);
  if (missing.length > 0) {
    throw permissionDenied(
      `${field}: a caller may only grant capabilities it holds on ${groupUid}; it lacks ${missing.join(", ")}`,
    );
  }
}

/**
 * Invites and identity providers that still name a role keep it from being deleted (code 9, one violation per
 * referrer). Referrers the caller may not list are not named, only said to exist: the delete must still fail.
 */
function refuseIfReferenced(role: StoredObject, ctx: RouteContext): void {
  const { store, access } = ctx.svc;
  const violations: { type: string; subject: string; description: string }[] = [];
  let hidden = false;
  for (const [kind, field, label, capability] of [
    ["groupInvites", "roleUid", "group invite", "CAP_IAM_GROUP_INVITES_LIST"],
    ["identityProviders", "defaultRole", "identity provider", "CAP_IAM_IDENTITY_PROVIDERS_LIST"],
  ] as const) {
    for (const referrer of store.all(kind)) {
      if (referrer.fields[field] !== role.uid) continue;
      if (!access.can(ctx.caller, referrer.parent, capability)) hidden = true;
      else
        violations.push({
          type: "RESOURCE_IN_USE",
          subject: referrer.uid,
          description: `${label} ${referrer.uid} uses role ${role.uid} as its ${field}`,
        });
    }
  }
  if (violations.length === 0 && !hidden) return;
  const named = violations.map((v) => v.subject);
  const description = `role ${role.uid} is still used by ${[
    ...(named.length > 0 ? [named.join(", ")] : []),
    ...(hidden ? ["objects you cannot list"] : []),
  ].join(" and ")}; delete or change them first`;
  throw failedPrecondition(
    description,
    violations.length > 0 ? violations : [{ type: "RESOURCE_IN_USE", subject: role.uid, description }],
  );
}

function builtinRoleRoutes(): Route[] {
  const guard = (ctx: RouteContext): void => {
    if (builtinRole(ctx.uid) !== undefined)
      throw permissionDenied(`built-in role ${ctx.uid} cannot be changed`);
  };
  return [
    {
      method: "GET",
      url: "/iam/v2beta1/roles/*",
      handler: (ctx) => {
        const role = builtinObjects.find((r) => r.uid === ctx.uid);
        return role !== undefined ? roles.toWire(role, ctx) : crudGet(roles, ctx);
      },
    },
    {
      method: "PATCH",
      url: "/iam/v2beta1/roles/*",
      handler: (ctx) => (guard(ctx), crudRoute(roles, "PATCH")(ctx)),
      parsesBody: true,
    },
    {
      method: "DELETE",
      url: "/iam/v2beta1/roles/*",
      handler: (ctx) => (guard(ctx), crudRoute(roles, "DELETE")(ctx)),
    },
  ];
}

function crudRoute(spec: ResourceSpec, method: Route["method"]): Route["handler"] {
  return crudRoutes(spec).find((r) => r.method === method && r.url.endsWith("/*"))!.handler;
}
const crudGet = (spec: ResourceSpec, ctx: RouteContext): unknown => crudRoute(spec, "GET")(ctx);

/**
 * A role usable on `groupUid`: built-in, or a custom role the caller may list, defined on `groupUid` or one of its
 * ancestors (a custom role applies at its group and below). A role the caller cannot see reads exactly like a
 * missing one. Returns the role's capabilities.
 */
function requireRole(ctx: RouteContext, roleUid: string, groupUid: string, field: string): string[] {
  const builtin = builtinRole(roleUid);
  if (builtin !== undefined) return builtin.capabilities;
  const position = parentOfUid(roleUid);
  const role = ctx.svc.access.can(ctx.caller, position, "CAP_IAM_ROLES_LIST")
    ? ctx.svc.store.get("roles", roleUid)
    : undefined;
  if (role === undefined || role.parent !== position)
    throw badField(field, `${field} ${roleUid} does not name a role`);
  if (!ancestorsOrSelf(groupUid).includes(role.parent))
    throw badField(
      field,
      `${field} ${roleUid} is a role of group ${role.parent}; it applies there and below, not on ${groupUid}`,
    );
  return (role.fields.capabilities as string[] | undefined) ?? [];
}

/** `requireRole`, and the caller must hold every capability of the role on `groupUid` (no escalation). */
function requireGrantableRole(ctx: RouteContext, roleUid: string, groupUid: string, field: string): void {
  const capabilities = requireRole(ctx, roleUid, groupUid, field);
  const missing = ctx.svc.access.missing(ctx.caller, groupUid, capabilities);
  if (missing.length > 0) {
    throw permissionDenied(
      `${field}: granting role ${roleUid} on ${groupUid} needs capabilities the caller lacks there: ${missing.join(", ")}`,
    );
  }
}

/**
 * Can the caller see this identity? Workload identities: when it may list identities where they live. Root-level
 * users (no parent) are principals, not objects of an organization: their uid is the handle by which a person is
 * granted access, so any caller may name one (README, "Access").
 */
function seesIdentity(ctx: RouteContext, identityUid: string): boolean {
  const position = parentOfUid(identityUid);
  if (position === "") return true;
  return ctx.svc.access.can(ctx.caller, position, "CAP_IAM_IDENTITY_LIST");
}

function requireIdentity(ctx: RouteContext, identityUid: string, field: string): void {
  const identity = seesIdentity(ctx, identityUid) ? ctx.svc.store.get("identities", identityUid) : undefined;
  if (identity === undefined || identity.parent !== parentOfUid(identityUid))
    throw badField(field, `${field} ${identityUid} does not name an identity`);
}

/** A role's fields when the caller may see the role (built-in roles: always). */
function visibleRole(ctx: RouteContext, roleUid: string): Record<string, unknown> | undefined {
  const builtin = builtinRole(roleUid);
  if (builtin !== undefined) return { ...builtin };
  if (!ctx.svc.access.can(ctx.caller, parentOfUid(roleUid), "CAP_IAM_ROLES_LIST")) return undefined;
  return ctx.svc.store.get("roles", roleUid)?.fields;
}

function hydrateBinding(o: StoredObject, ctx: RouteContext): Record<string, unknown> {
  const { store } = ctx.svc;
  const identityUid = o.fields.identityUid as string;
  const roleUid = o.fields.roleUid as string;
  // Referenced objects are described only to a caller who may see them; otherwise the uid alone.
  const identity = seesIdentity(ctx, identityUid) ? store.get("identities", identityUid) : undefined;
  const group = store.get("groups", o.parent);
  const role = visibleRole(ctx, roleUid);
  const claim = (identity?.fields.claimMatch as Record<string, unknown> | undefined) ?? {};
  return {
    uid: o.uid,
    identity: withoutUndefined({
      uid: identityUid,
      name: identity?.fields.name,
      description: identity?.fields.description ?? "",
      issuer: claim.issuer ?? "",
      subject: claim.subject ?? "",
    }),
    group: withoutUndefined({
      uid: o.parent,
      name: group?.fields.name,
      description: group?.fields.description ?? "",
    }),
    role: withoutUndefined({ uid: roleUid, name: role?.name, description: role?.description ?? "" }),
    createTime: o.createTime,
  };
}

export const roleBindings: ResourceSpec = {
  kind: "roleBindings",
  plural: "roleBindings",
  label: "role binding",
  prefix: "/iam/v2beta1/roleBindings",
  capability: "CAP_IAM_ROLE_BINDINGS",
  sortable: ["uid", "createTime", "identityUid", "roleUid"],
  toWire: hydrateBinding,
  filters: (query) => {
    const identity = queryParam(query, "identity");
    const group = queryParam(query, "group");
    const role = queryParam(query, "role");
    if (identity === undefined && group === undefined && role === undefined) return undefined;
    return {
      key: JSON.stringify([identity, group, role]),
      test: (o) =>
        (identity === undefined || o.fields.identityUid === identity) &&
        (group === undefined || o.parent === group) &&
        (role === undefined || o.fields.roleUid === role),
    };
  },
  create: {
    schema: RoleBindingCreate,
    ignored: ["identity", "group", "role"],
    updateTime: false,
    fields: (body, parent, ctx) => {
      requireIdentity(ctx, body.identityUid as string, "identityUid");
      requireGrantableRole(ctx, body.roleUid as string, parent, "roleUid");
      return body;
    },
  },
  update: {
    schema: RoleBindingUpdate,
    fields: ROLE_BINDING_UPDATE_FIELDS,
    required: ROLE_BINDING_UPDATE_FIELDS,
    updateTime: false,
    apply: (o, changes, ctx) => {
      if (typeof changes.identityUid === "string") requireIdentity(ctx, changes.identityUid, "identityUid");
      if (typeof changes.roleUid === "string") requireRole(ctx, changes.roleUid, o.parent, "roleUid");
      applyChanges(o, changes);
      // The binding after the update grants its role to its identity: that grant must be no escalation.
      requireGrantableRole(ctx, o.fields.roleUid as string, o.parent, "roleUid");
    },
  },
};

/** Loopback hosts, where the emulator's own issuer (http) lives. */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** An OIDC issuer is an https URL (OpenID Connect Discovery); plain http only on a loopback host. */
function issuerViolations(oidc: unknown): FieldViolation[] {
  if (oidc === null || typeof oidc !== "object" || typeof (oidc as { issuer?: unknown }).issuer !== "string")
    return [];
  let url: URL | undefined;
  try {
    url = new URL((oidc as { issuer: string }).issuer);
  } catch {
    url = undefined;
  }
  const ok =
    url !== undefined &&
    (url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname))) &&
    url.username === "" &&
    url.password === "";
  if (ok) return [];
  const description = "oidc.issuer must be an https URL (http only on a loopback host), without credentials";
  return [{ field: "oidc.issuer", description }];
}

function identityProviderWire(o: StoredObject): Record<string, unknown> {
  const { clientSecret: _secret, ...oidc } = (o.fields.oidc as Record<string, unknown> | undefined) ?? {};
  return { description: "", ...baseWire(o), oidc };
}

export const identityProviders: ResourceSpec = {
  kind: "identityProviders",
  plural: "identityProviders",
  label: "identity provider",
  prefix: "/iam/v2beta1/identityProviders",
  capability: "CAP_IAM_IDENTITY_PROVIDERS",
  sortable: [...COMMON_SORT, "defaultRole"],
  toWire: identityProviderWire,
  checkParent: (parentUid) => {
    if (parentUid.includes("/")) {
      const description = `identity providers can only be created on an organization (a root group); ${parentUid} is a folder`;
      throw failedPrecondition(description, [
        { type: "NOT_AN_ORGANIZATION", subject: parentUid, description },
      ]);
    }
  },
  create: {
    schema: IdentityProviderCreate,
    ignored: ["scim"],
    check: (input) => issuerViolations(input.oidc),
    fields: (body, parent, ctx) => {
      requireGrantableRole(ctx, body.defaultRole as string, parent, "defaultRole");
      return body;
    },
  },
  update: {
    schema: IdentityProviderUpdate,
    fields: IDENTITY_PROVIDER_UPDATE_FIELDS,
    required: ["name", "defaultRole", "oidc"],
    ignored: ["scim"],
    check: (input) => issuerViolations(input.oidc),
    apply: (o, changes, ctx, paths) => {
      if (typeof changes.defaultRole === "string")
        requireGrantableRole(ctx, changes.defaultRole, o.parent, "defaultRole");
      const oidc = changes.oidc as Record<string, unknown> | undefined;
      const previousSecret = (o.fields.oidc as Record<string, unknown> | undefined)?.clientSecret;
      // The secret is write-only: an update that does not send it keeps the stored one, unless the mask names
      // oidc.clientSecret itself (OpenAPI IdentityProvider.OIDC.clientSecret: then the empty value clears it).
      const named = paths.includes("oidc.clientSecret");
      if (oidc !== undefined && oidc.clientSecret === undefined && previousSecret !== undefined && !named) {
        changes.oidc = { ...oidc, clientSecret: previousSecret };
      }
      applyChanges(o, changes);
    },
  },
};

/** Longest invite ttl: ten years. */
export const MAX_INVITE_TTL_SECONDS = 10 * 365 * 24 * 60 * 60;

/** A protobuf Duration "N[.frac]s" in ms, bounded to 1 ms .. MAX_INVITE_TTL_SECONDS; code 3 naming ttl otherwise. */
function parseTtlMs(ttl: string): number {
  const seconds = Number.parseFloat(ttl.slice(0, -1));
  const ms = Math.round(seconds * 1000);
  if (!Number.isFinite(ms) || ms < 1 || seconds > MAX_INVITE_TTL_SECONDS)
    throw badField("ttl", `ttl must be from 0.001s to ${MAX_INVITE_TTL_SECONDS}s (ten years)`);
  return ms;
}

export const groupInvites: ResourceSpec = {
  kind: "groupInvites",
  plural: "groupInvites",
  label: "group invite",
  prefix: "/iam/v2beta1/groupInvites",
  capability: "CAP_IAM_GROUP_INVITES",
  sortable: ["uid", "createTime", "expirationTime", "email", "roleUid", "keyId"],
  filters: (query) => {
    const keyId = queryParam(query, "keyId", "key_id");
    return keyId === undefined ? undefined : { key: keyId, test: (o) => o.fields.keyId === keyId };
  },
  toWire: (o, ctx) => {
    const roleUid = o.fields.roleUid as string;
    const role = visibleRole(ctx, roleUid);
    return {
      ...baseWire(o, false),
      ...(role !== undefined
        ? {
            role: withoutUndefined({
              uid: roleUid,
              name: role.name,
              description: role.description ?? "",
              capabilities: role.capabilities,
            }),
          }
        : {}),
    };
  },
  create: {
    schema: GroupInviteCreate,
    ignored: ["role", "code", "keyId", "expirationTime"],
    updateTime: false,
    check: (input) => {
      if (typeof input.ttl !== "string" || !/^\d+(\.\d{1,9})?s$/.test(input.ttl)) return [];
      try {
        parseTtlMs(input.ttl);
        return [];
      } catch (error) {
        return (error as ApiFailure).fieldViolations;
      }
    },
    fields: (body, parent, ctx) => {
      const ttlMs = parseTtlMs(body.ttl as string);
      requireGrantableRole(ctx, body.roleUid as string, parent, "roleUid");
      const expiresAt = ctx.svc.clock.now().getTime() + ttlMs;
      if (expiresAt > MAX_TIME_MS) throw badField("ttl", "ttl would expire the invite after the year 9999");
      const { ttl: _ttl, ...rest } = body;
      return {
        ...rest,
        singleUse: body.singleUse ?? false,
        keyId: randomHex(8),
        expirationTime: new Date(expiresAt).toISOString(),
      };
    },
    // The code is shown once, on create; it is not stored.
    respond: (wire) => ({ ...wire, code: `invite_${randomHex(16)}` }),
  },
};

export const accountAssociations: ResourceSpec = {
  kind: "accountAssociations",
  plural: "accountAssociations",
  label: "account association",
  prefix: "/iam/v2beta1/accountAssociations",
  capability: "CAP_IAM_ACCOUNT_ASSOCIATIONS",
  sortable: COMMON_SORT,
  accessGroup: (o) => o.uid,
  accessGroupOfUid: (uid) => uid,
  toWire: (o) => ({ description: "", ...baseWire(o) }),
  create: {
    schema: AccountAssociationCreate,
    fields: (body, _parent, ctx) => (requireServiceBindings(ctx, body), body),
    uid: (parentUid, ctx) => {
      if (ctx.svc.store.get("accountAssociations", parentUid) !== undefined) {
        throw alreadyExists(`group ${parentUid} already has an account association`);
      }
      return parentUid;
    },
  },
  update: {
    schema: AccountAssociationUpdate,
    fields: ACCOUNT_ASSOCIATION_UPDATE_FIELDS,
    required: ["name"],
    apply: (o, changes, ctx) => {
      requireServiceBindings(ctx, changes);
      applyChanges(o, changes);
    },
  },
};

/** chainguard.serviceBindings map service names to identity uids: each must name an identity the caller sees. */
function requireServiceBindings(ctx: RouteContext, body: Record<string, unknown>): void {
  const bindings = (body.chainguard as { serviceBindings?: Record<string, string> } | undefined)
    ?.serviceBindings;
  for (const [service, identityUid] of Object.entries(bindings ?? {}))
    requireIdentity(ctx, identityUid, `chainguard.serviceBindings.${service}`);
}

/**
 * POST /iam/v2beta1/groups (no parent): a new organization, owned by its creator. Root-level users may create
 * one; so may an assumed identity holding CAP_IAM_GROUPS_CREATE through a binding (a role such as owner or
 * editor), as the Terraform provider's own tests do with a nested identity.
 */
function createOrganizationRoute(): Route {
  const handler = (ctx: RouteContext): unknown => {
    if (ctx.uid !== "") return createHandler(groups)(ctx);
    const rootUser = !ctx.caller.identityUid.includes("/");
    if (!rootUser && ctx.svc.access.grantRoots(ctx.caller, "CAP_IAM_GROUPS_CREATE").size === 0) {
      throw permissionDenied(
        "creating an organization needs CAP_IAM_GROUPS_CREATE through a role binding (e.g. owner or editor)",
      );
    }
    refuseUnknownFields(ctx.body, GroupCreate, "group", groups.create?.ignored);
    const body = ctx.svc.parseBody(GroupCreate, ctx.body);
    return groups.toWire(ctx.svc.createOrganization(ctx.caller, body), ctx);
  };
  return { method: "POST", url: "/iam/v2beta1/groups", handler, parsesBody: true };
}

/**
 * The identity an issuer and subject name: an identity whose claimMatch has exactly that issuer and subject, among
 * the root-level ones and those the caller may list (the lookup is unscoped, so it never reveals an identity the
 * caller cannot see); the oldest if several. Undefined if none.
 */
export function lookupIdentity(ctx: RouteContext): { issuer: string; subject: string; found?: StoredObject } {
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
function lookupIdentityRoute(): Route {
  return {
    method: "GET",
    // "::" is fastify's escape for a literal ":" (a single one starts a path parameter).
    url: "/iam/v2beta1/identities::lookupIdentity",
    handler: (ctx) => {
      const { issuer, subject, found } = lookupIdentity(ctx);
      const uid = found?.uid ?? createHash("sha1").update(`${issuer}\n${subject}`).digest("hex");
      return { uid };
    },
  };
}

export function iamRoutes(): Route[] {
  const routes: Route[] = [createOrganizationRoute(), lookupIdentityRoute()];
  // Built-in role routes come first so they win over the generic ones for the same method and path.
  const roleOverrides = builtinRoleRoutes();
  routes.push(...roleOverrides);
  for (const spec of [
    groups,
    identities,
    roles,
    roleBindings,
    identityProviders,
    groupInvites,
    accountAssociations,
  ]) {
    for (const route of crudRoutes(spec)) {
      if (roleOverrides.some((r) => r.method === route.method && r.url === route.url)) continue;
      routes.push(route);
    }
  }
  return routes;
}
