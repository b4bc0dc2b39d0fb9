/**
 * The v1 endpoints the Terraform provider still calls, over the same data as v2beta1: groups (list, get, update),
 * repos, the identity lookup, and the lists its delete checks read (identities, roles, role bindings, group
 * invites, account associations, identity providers). Each answer is its published v1 message (chainguard-dev/sdk
 * proto/platform/{iam,registry}/v1, ../grpc/proto) in the proto3 JSON grpc-gateway renders, plus the members the
 * spec keeps on v1 that a message has no field for: ../grpc/rest-only.ts lists those, and
 * test/emulator/v1-wire.test.ts holds every answer to its message.
 */
import { z } from "zod";
import { GROUP_NAME_PATTERN } from "../../sdk/rules";
import { underAny } from "../access";
import { UIDP_PATTERN } from "../../sdk/schemas/common";
import { V1Group } from "../../sdk/schemas/v1";
import { badField, notFound } from "../errors";
import {
  UIDP_PARAMS,
  checkQuery,
  parseListParams,
  queryList,
  queryParam,
  type ParamRule,
  type Query,
} from "../listing";
import type { StoredObject } from "../store";
import { NO_PARAMS, cap, loadVisible, type CollectionSpec } from "./crud";
import { refuseUnknownFields } from "./crud-bodies";
import { inListScope, matchesListFilters, withBothSpellings } from "./crud-list";
import { accountAssociations } from "./account-associations";
import { groupInvites } from "./group-invites";
import { groups } from "./groups";
import { identities, lookupIdentity } from "./identities";
import { identityProviders } from "./identity-providers";
import { repos } from "./repos";
import { roleBindings } from "./role-bindings";
import { roles } from "./roles";
import type { RouteContext } from "./types";
import { isRoot } from "../../sdk/uidp";

export function v1Group(o: StoredObject): Record<string, unknown> {
  return {
    id: o.uid,
    name: o.fields.name,
    description: (o.fields.description as string | undefined) ?? "",
    resourceLimits: { clusters: 0, idps: 0, repositories: 0 },
    verified: o.fields.verified ?? false,
    createdAt: o.createTime,
    updatedAt: o.updateTime ?? o.createTime,
  };
}

/**
 * The filter fields of one v1 list: those of the request message the official Go SDK sends it (chainguard.dev/sdk
 * v0.1.141, which the Terraform provider pins), as grpc-gateway reads them from the query string (a nested field by
 * its dotted path, e.g. `uidp.ancestorsOf`, in the JSON or the proto spelling; a repeated field repeated). The v1
 * API is not in the OpenAPI: these messages are its documentation. A parameter they do not have is refused.
 */
export interface V1ListFilters {
  path: string;
  /** The request message, and the SDK file that defines it. */
  message: string;
  source: string;
  params: Readonly<Record<string, ParamRule>>;
}

const IAM_V1 = "proto/platform/iam/v1";
/** UIDPFilter (proto/platform/common/v1/uidp.platform.proto): the v2 lists' uidp scopes, with their meaning. */
const UIDP_FILTER = UIDP_PARAMS;
/** `id`: taken repeated (exactly these objects), with the rule of the repeated `uidp.ids`. */
const ID = UIDP_PARAMS["uidp.ids"]!;
/**
 * `id`: one exact uid in the messages; also taken repeated (exactly those objects), as the SDK's v1 client sends
 * it. `parent` (roles): a group's uid, or `/` for the root, checked by the handler.
 */
export const V1_LISTS: readonly V1ListFilters[] = [
  {
    path: "/iam/v1/groups",
    message: "GroupFilter",
    source: `${IAM_V1}/group.platform.proto`,
    params: { id: ID, name: "text", ...UIDP_FILTER },
  },
  {
    path: "/iam/v1/identities",
    message: "IdentityFilter",
    source: `${IAM_V1}/identity.platform.proto`,
    params: { id: ID, ...UIDP_FILTER },
  },
  {
    path: "/iam/v1/roles",
    message: "RoleFilter",
    source: `${IAM_V1}/role.platform.proto`,
    params: { id: ID, name: "text", parent: "text", ...UIDP_FILTER },
  },
  {
    path: "/iam/v1/rolebindings",
    message: "RoleBindingFilter",
    source: `${IAM_V1}/role_binding.platform.proto`,
    params: { id: ID, ...UIDP_FILTER },
  },
  {
    path: "/iam/v1/identityProviders",
    message: "IdentityProviderFilter",
    source: `${IAM_V1}/identity_providers.platform.proto`,
    params: { id: ID, name: "text", ...UIDP_FILTER },
  },
  {
    path: "/iam/v1/group_invites",
    message: "GroupInviteFilter",
    source: `${IAM_V1}/group_invites.platform.proto`,
    params: { group: "uid", id: ID, keyId: "text" },
  },
  {
    path: "/iam/v1/account_associations",
    message: "AccountAssociationsFilter",
    source: `${IAM_V1}/account_associations.platform.proto`,
    params: { group: "uid", name: "text" },
  },
  {
    path: "/registry/v1/repos",
    message: "RepoFilter",
    source: "proto/platform/registry/v1/registry.platform.proto",
    params: { id: ID, name: "text", ...UIDP_FILTER },
  },
];

function filtersOf(path: string): V1ListFilters {
  const filters = V1_LISTS.find((l) => l.path === path);
  if (filters === undefined) throw new Error(`no v1 filters for ${path}`);
  return filters;
}

/** RoleFilter.parent: "the exact UIDP of the parent, or / for root"; empty is unset (proto3). */
function parentFilter(query: Query): ((o: StoredObject) => boolean) | undefined {
  const parent = queryParam(query, "parent");
  if (parent === undefined || parent === "") return undefined;
  if (parent === "/") return (o) => isRoot(o.uid);
  if (!UIDP_PATTERN.test(parent))
    throw badField("parent", `parent must be a group's uid, or / for the root, got "${parent.slice(0, 40)}"`);
  return (o) => o.parent === parent;
}

/**
 * v1 lists: everything the caller may list (and, as on v2, the built-in roles), filtered, in uid order, under
 * `items`. Each filter means what it means on the v2 list of the same objects.
 */
export function v1List(
  spec: CollectionSpec,
  path: string,
  map: (o: StoredObject, ctx: RouteContext) => Record<string, unknown> = v1Item(spec),
) {
  const filters = filtersOf(path);
  const has = (name: string) => Object.hasOwn(filters.params, name);
  return (ctx: RouteContext): Record<string, unknown> => {
    checkQuery(ctx.query, filters.params, `GET ${path}`);
    const query = withBothSpellings(ctx.query);
    // name and the uidp scopes, as the v2 lists read them (no paging: checkQuery refused it).
    const params = parseListParams(query, []);
    // `id` (repeatable): exactly these objects.
    const ids = queryList(query, "id");
    // `group` (invites, account associations): the group's own objects (an association is its group's).
    const group = has("group") ? queryParam(query, "group") : undefined;
    const keyId = has("keyId") ? queryParam(query, "keyId") : undefined;
    const parent = has("parent") ? parentFilter(query) : undefined;
    const accessGroup = spec.accessGroup ?? ((o: StoredObject) => o.parent);
    const matches = (o: StoredObject): boolean =>
      matchesListFilters(params, o) &&
      (ids.length === 0 || ids.includes(o.uid)) &&
      (group === undefined || group === "" || accessGroup(o) === group) &&
      (keyId === undefined || keyId === "" || o.fields.keyId === keyId) &&
      (parent === undefined || parent(o));
    const roots = ctx.svc.access.grantRoots(ctx.caller, cap(spec, "LIST"));
    const listed = [...ctx.svc.store.all(spec.kind)].filter(
      (o) => inListScope(params, o) && underAny(accessGroup(o), roots),
    );
    const items = [...(spec.globalObjects?.(params) ?? []), ...listed]
      .filter(matches)
      .sort((a, b) => (a.uid < b.uid ? -1 : 1))
      .map((o) => map(o, ctx));
    return { items };
  };
}

/**
 * The v1 form of a v2 object: `id` for uid, createdAt / updatedAt for createTime / updateTime (the spec's v1
 * members, spec/README.md). An object v2 gives no updateTime (invites, role bindings) has no updatedAt. Every
 * other member is the v2 one: where v1 names it otherwise (the published v1 messages), the kind's own form
 * below renames it, and test/emulator/v1-wire.test.ts fails on any member the v1 message does not have.
 */
export function v1Item(spec: CollectionSpec) {
  return (o: StoredObject, ctx: RouteContext): Record<string, unknown> => v1Form(spec.toWire(o, ctx));
}

function v1Form(wire: Record<string, unknown>): Record<string, unknown> {
  const { uid, createTime, updateTime, ...rest } = wire;
  return {
    id: uid,
    ...rest,
    createdAt: createTime,
    ...(updateTime !== undefined ? { updatedAt: updateTime } : {}),
  };
}

/** A nested v2 reference ({uid, name, ...}) in the v1 form: `id` for uid (v1 Group and Role messages). */
function v1Reference(reference: unknown): Record<string, unknown> {
  const { uid, ...rest } = reference as Record<string, unknown>;
  return { id: uid, ...rest };
}

/**
 * A v2 enum value by its v1 name: v2 prefixes the enum's name (`SERVICE_PRINCIPAL_COSIGNED`, `CATALOG_TIER_BASE`),
 * v1 does not (`COSIGNED`, `BASE`); v2's zero value is v1's `UNKNOWN`, the proto3 default, so it is not sent.
 */
function v1Enum(value: unknown, prefix: string): string | undefined {
  if (typeof value !== "string" || value === `${prefix}UNSPECIFIED`) return undefined;
  return value.startsWith(prefix) ? value.slice(prefix.length) : value;
}

/**
 * A v1 identity (chainguard.platform.iam.Identity): `lastSeen` for lastSeenTime, `static` for staticKeys with
 * `expiration` for its expirationTime, servicePrincipal by its v1 name; createdAt / updatedAt are fields of this
 * message too.
 */
function v1Identity(o: StoredObject, ctx: RouteContext): Record<string, unknown> {
  const { lastSeenTime, staticKeys, servicePrincipal, ...rest } = v1Form(identities.toWire(o, ctx));
  const form: Record<string, unknown> = { ...rest };
  const principal = v1Enum(servicePrincipal, "SERVICE_PRINCIPAL_");
  if (principal !== undefined) form.servicePrincipal = principal;
  if (staticKeys !== undefined) {
    const { expirationTime, ...keys } = staticKeys as Record<string, unknown>;
    form.static = { ...keys, ...(expirationTime !== undefined ? { expiration: expirationTime } : {}) };
  }
  if (lastSeenTime !== undefined) form.lastSeen = lastSeenTime;
  return form;
}

/**
 * A v1 role binding (RoleBindingList.Binding): the identity by uid, the group and the role as v1 Group and Role
 * objects with what the caller may see of them (the Terraform provider reads `group.id` and `role.id`), the
 * identity's claim-match issuer and subject as `claimMatchIssuer` / `claimMatchSubject` when the caller sees them.
 */
function v1RoleBinding(o: StoredObject, ctx: RouteContext): Record<string, unknown> {
  const { identity, group, role, ...rest } = v1Form(roleBindings.toWire(o, ctx));
  const { uid: identityUid, issuer, subject } = identity as Record<string, unknown>;
  return {
    ...rest,
    identity: identityUid,
    group: v1Reference(group),
    role: v1Reference(role),
    ...(typeof issuer === "string" && issuer !== "" ? { claimMatchIssuer: issuer } : {}),
    ...(typeof subject === "string" && subject !== "" ? { claimMatchSubject: subject } : {}),
  };
}

/**
 * A v1 group invite (StoredGroupInvite): `expiration` for expirationTime, the role as a v1 Role object (`id`;
 * the uid alone when the caller may not see the role), no `roleUid` (the message has none; the role's id is it).
 */
function v1GroupInvite(o: StoredObject, ctx: RouteContext): Record<string, unknown> {
  const { roleUid, role, expirationTime, ...rest } = v1Form(groupInvites.toWire(o, ctx));
  return {
    ...rest,
    role: role !== undefined ? v1Reference(role) : { id: roleUid },
    ...(expirationTime !== undefined ? { expiration: expirationTime } : {}),
  };
}

/**
 * A v1 repo (chainguard.platform.registry.Repo): the v2 repo's members, with `createTime` (a field of the v1
 * message) besides the spec's createdAt / updatedAt, `sync_config.expiration` for its expirationTime, and
 * catalogTier by its v1 name.
 */
function v1Repo(o: StoredObject, ctx: RouteContext): Record<string, unknown> {
  const wire = repos.toWire(o, ctx);
  const { sync_config: syncConfig, catalogTier, ...rest } = v1Form(wire);
  const form: Record<string, unknown> = {
    description: "",
    ...rest,
    createTime: wire.createTime,
    updatedAt: wire.updateTime ?? wire.createTime,
  };
  const tier = v1Enum(catalogTier, "CATALOG_TIER_");
  if (tier !== undefined) form.catalogTier = tier;
  if (syncConfig !== undefined) {
    const { expirationTime, ...config } = syncConfig as Record<string, unknown>;
    form.sync_config = { ...config, ...(expirationTime !== undefined ? { expiration: expirationTime } : {}) };
  }
  return form;
}

const V1GroupPut = z.object({
  name: z
    .string({ error: "name is required" })
    .regex(GROUP_NAME_PATTERN, "name must match ^[a-z0-9 ._-]{1,}$"),
  description: z.string().optional(),
});

/**
 * GET /iam/v1/identities/lookup?issuer=&subject= (the Terraform identity data source): the v1 form of the identity
 * v2's lookupIdentity finds, with `id` for uid; 5 when there is none the caller may see.
 */
export function v1LookupIdentity(ctx: RouteContext): Record<string, unknown> {
  const { issuer, subject, found } = lookupIdentity(ctx);
  if (found === undefined) throw notFound(`identity with issuer ${issuer} and subject ${subject}`);
  return v1Identity(found, ctx);
}

/**
 * Members of a v1 group a read-modify-write client may echo in an update: output-only, ignored, but of their type
 * in the v1 wire form. They are the wire form's members an update does not take.
 */
const V1_GROUP_OUTPUT_ONLY = Object.keys(V1Group.shape).filter(
  (member) => !Object.hasOwn(V1GroupPut.shape, member),
);

/**
 * v1 update: omitted fields are reset to their zero values (description → ""). A member that is no field of a
 * v1 group is refused naming it, as on v2: an update never silently drops what it was sent. Neither it nor the
 * v1 get takes a query parameter: one is refused, as on v2.
 */
export function v1Update(ctx: RouteContext): Record<string, unknown> {
  checkQuery(ctx.query, NO_PARAMS, `${ctx.method} /iam/v1/groups/{id}`);
  const object = loadVisible(groups, ctx, ctx.uid, "UPDATE");
  refuseUnknownFields(ctx.body, V1GroupPut, "group", V1_GROUP_OUTPUT_ONLY, V1Group);
  const body = ctx.svc.parseBody(V1GroupPut, ctx.body);
  const next: StoredObject = {
    ...object,
    fields: { ...object.fields, name: body.name, description: body.description ?? "" },
    updateTime: ctx.svc.now(),
  };
  ctx.svc.store.put("groups", next);
  return v1Group(next);
}

/** GET /iam/v1/groups. */
export const v1ListGroups = v1List(groups, "/iam/v1/groups", v1Group);

/** GET /iam/v1/groups/{uid}. */
export function v1GetGroup(ctx: RouteContext): Record<string, unknown> {
  checkQuery(ctx.query, NO_PARAMS, "GET /iam/v1/groups/{id}");
  return v1Group(loadVisible(groups, ctx, ctx.uid, "LIST"));
}

/** GET /registry/v1/repos. */
export const v1ListRepos = v1List(repos, "/registry/v1/repos", v1Repo);

/** GET /iam/v1/identities. */
export const v1ListIdentities = v1List(identities, "/iam/v1/identities", v1Identity);

/** GET /iam/v1/roles: the roles the caller may list and the built-in ones (RoleFilter.parent "/" selects these). */
export const v1ListRoles = v1List(roles, "/iam/v1/roles");

/** GET /iam/v1/rolebindings. */
export const v1ListRoleBindings = v1List(roleBindings, "/iam/v1/rolebindings", v1RoleBinding);

/** GET /iam/v1/group_invites. */
export const v1ListGroupInvites = v1List(groupInvites, "/iam/v1/group_invites", v1GroupInvite);

/** GET /iam/v1/account_associations: one per group, whose uid it carries as `id` and `group`. */
export const v1ListAccountAssociations = v1List(
  accountAssociations,
  "/iam/v1/account_associations",
  (o, ctx) => ({
    ...v1Item(accountAssociations)(o, ctx),
    group: o.uid,
  }),
);

/** GET /iam/v1/identityProviders. */
export const v1ListIdentityProviders = v1List(identityProviders, "/iam/v1/identityProviders");
