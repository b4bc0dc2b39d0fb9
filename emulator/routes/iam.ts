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
import { BUILTIN_ROLES, builtinRole, rootOf, underAny } from "../access";
import { alreadyExists, badField, failedPrecondition, permissionDenied } from "../errors";
import { queryParam } from "../listing";
import { randomHex, withoutUndefined } from "../service";
import type { StoredObject } from "../store";
import {
  applyChanges,
  baseWire,
  crudRoutes,
  createHandler,
  refuseUnknownFields,
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
    const blocking: [string, string, number][] = [
      ["subgroup", "subgroups", store.children("groups", group.uid).length],
      ["identity", "identities", store.children("identities", group.uid).length],
      ["role", "roles", store.children("roles", group.uid).length],
      // An organization's own bindings (its creator's owner binding) go with it; a folder's must be removed first.
      [
        "role binding",
        "role bindings",
        isOrganization ? 0 : store.children("roleBindings", group.uid).length,
      ],
      ["repo", "repos", store.children("repos", group.uid).length],
      ["identity provider", "identity providers", store.children("identityProviders", group.uid).length],
      ["group invite", "group invites", store.children("groupInvites", group.uid).length],
      ["advisory", "advisories", store.children("advisories", group.uid).length],
    ];
    const present = blocking
      .filter(([, , n]) => n > 0)
      .map(([one, many, n]) => `${n} ${n === 1 ? one : many}`);
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
    fields: (body, _parent, ctx) => {
      checkPatterns(body.claimMatch as Record<string, unknown> | undefined);
      checkRelationship(body, Object.keys(body), ctx);
      return { ...body, lastSeenTime: ctx.svc.now() };
    },
  },
  update: {
    schema: IdentityUpdate,
    fields: IDENTITY_UPDATE_FIELDS,
    required: ["name"],
    ignored: ["email", "emailUnverified"],
    apply: (o, changes, ctx) => {
      checkPatterns(changes.claimMatch as Record<string, unknown> | undefined);
      checkRelationship(changes, Object.keys(changes), ctx);
      applyChanges(o, changes);
    },
  },
  beforeDelete: (identity, ctx) => {
    for (const binding of [...ctx.svc.store.all("roleBindings")]) {
      if (binding.fields.identityUid === identity.uid) ctx.svc.store.delete("roleBindings", binding.uid);
    }
  },
};

function checkPatterns(claimMatch: Record<string, unknown> | undefined): void {
  for (const key of ["issuerPattern", "subjectPattern", "audiencePattern"]) {
    const pattern = claimMatch?.[key];
    if (typeof pattern !== "string") continue;
    try {
      new RegExp(`^(?:${pattern})$`);
    } catch {
      throw badField(`claimMatch.${key}`, `claimMatch.${key} is not a valid regular expression`);
    }
  }
}

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
  for (const key of ["arnPattern", "userIdPattern"]) {
    const pattern = aws?.[key];
    if (typeof pattern !== "string") continue;
    try {
      new RegExp(`^(?:${pattern})$`);
    } catch {
      throw badField(`awsIdentity.${key}`, `awsIdentity.${key} is not a valid regular expression`);
    }
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
  create: { schema: RoleCreate },
  update: { schema: RoleUpdate, fields: ROLE_UPDATE_FIELDS, required: ["name", "capabilities"] },
  beforeDelete: (role, ctx) => {
    for (const binding of [...ctx.svc.store.all("roleBindings")]) {
      if (binding.fields.roleUid === role.uid) ctx.svc.store.delete("roleBindings", binding.uid);
    }
  },
};

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

/** A role usable in `groupUid`'s organization: built-in, or a custom role in the same organization. */
function requireRole(ctx: RouteContext, roleUid: string, groupUid: string, field: string): void {
  if (builtinRole(roleUid) !== undefined) return;
  const role = ctx.svc.store.get("roles", roleUid);
  if (role === undefined || rootOf(role.uid) !== rootOf(groupUid))
    throw badField(field, `${field} ${roleUid} is not a role in this organization`);
}

function requireIdentity(ctx: RouteContext, identityUid: string, field: string): void {
  if (ctx.svc.store.get("identities", identityUid) === undefined)
    throw badField(field, `${field} ${identityUid} is not an identity`);
}

function hydrateBinding(o: StoredObject, ctx: RouteContext): Record<string, unknown> {
  const { store } = ctx.svc;
  const identityUid = o.fields.identityUid as string;
  const roleUid = o.fields.roleUid as string;
  const identity = store.get("identities", identityUid);
  const group = store.get("groups", o.parent);
  const builtin = builtinRole(roleUid);
  const role = builtin ?? store.get("roles", roleUid)?.fields;
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
      requireRole(ctx, body.roleUid as string, parent, "roleUid");
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
    },
  },
};

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
    fields: (body, parent, ctx) => {
      requireRole(ctx, body.defaultRole as string, parent, "defaultRole");
      return body;
    },
  },
  update: {
    schema: IdentityProviderUpdate,
    fields: IDENTITY_PROVIDER_UPDATE_FIELDS,
    required: ["name", "defaultRole", "oidc"],
    ignored: ["scim"],
    apply: (o, changes, ctx, paths) => {
      if (typeof changes.defaultRole === "string")
        requireRole(ctx, changes.defaultRole, o.parent, "defaultRole");
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

function parseTtlMs(ttl: string): number {
  return Math.round(Number.parseFloat(ttl.slice(0, -1)) * 1000);
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
    const role = builtinRole(roleUid) ?? ctx.svc.store.get("roles", roleUid)?.fields;
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
    fields: (body, parent, ctx) => {
      requireRole(ctx, body.roleUid as string, parent, "roleUid");
      const ttlMs = parseTtlMs(body.ttl as string);
      if (ttlMs <= 0) throw badField("ttl", "ttl must be positive");
      const { ttl: _ttl, ...rest } = body;
      return {
        ...rest,
        singleUse: body.singleUse ?? false,
        keyId: randomHex(8),
        expirationTime: new Date(ctx.svc.clock.now().getTime() + ttlMs).toISOString(),
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
  toWire: (o) => ({ description: "", ...baseWire(o) }),
  create: {
    schema: AccountAssociationCreate,
    uid: (parentUid, ctx) => {
      if (ctx.svc.store.get("accountAssociations", parentUid) !== undefined) {
        throw alreadyExists(`group ${parentUid} already has an account association`);
      }
      return parentUid;
    },
  },
  update: { schema: AccountAssociationUpdate, fields: ACCOUNT_ASSOCIATION_UPDATE_FIELDS, required: ["name"] },
};

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
  return { method: "POST", url: "/iam/v2beta1/groups", handler };
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
