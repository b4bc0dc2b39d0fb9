/**
 * The v1 endpoints the Terraform provider still calls, over the same data as v2beta1: groups (list, get, update),
 * repos, the identity lookup, and the lists its delete checks read (identities, roles, role bindings, group
 * invites, account associations, identity providers).
 */
import { z } from "zod";
import { GROUP_NAME_PATTERN } from "../../sdk/rules";
import { underAny } from "../access";
import { notFound } from "../errors";
import { checkQuery, queryList, queryParam, type ParamRule } from "../listing";
import type { StoredObject } from "../store";
import {
  NO_PARAMS,
  cap,
  loadVisible,
  refuseUnknownFields,
  withBothSpellings,
  type CollectionSpec,
} from "./crud";
import { accountAssociations } from "./account-associations";
import { groupInvites } from "./group-invites";
import { groups } from "./groups";
import { identities, lookupIdentity } from "./identities";
import { identityProviders } from "./identity-providers";
import { repos } from "./repos";
import { roleBindings } from "./role-bindings";
import { roles } from "./roles";
import type { RouteContext } from "./types";

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

/** What a v1 list filters by (as the real clients send them); anything else is refused, never ignored. */
export const V1_LIST_PARAMS: Readonly<Record<string, ParamRule>> = {
  id: { each: "uid" },
  group: "uid",
  name: "text",
  "uidp.descendantsOf": "uid",
  "uidp.childrenOf": "uid",
};

/** v1 lists: everything the caller may list, filtered, in uid order, under `items`. */
export function v1List(
  spec: CollectionSpec,
  map: (o: StoredObject, ctx: RouteContext) => Record<string, unknown> = v1Item(spec),
) {
  return (ctx: RouteContext): Record<string, unknown> => {
    checkQuery(ctx.query, V1_LIST_PARAMS, `GET ${ctx.path}`);
    const roots = ctx.svc.access.grantRoots(ctx.caller, cap(spec, "LIST"));
    const query = withBothSpellings(ctx.query);
    const descendantsOf = queryParam(query, "uidp.descendants_of");
    const childrenOf = queryParam(query, "uidp.children_of");
    const name = queryParam(query, "name");
    // `id` (repeatable): exactly these objects, as the v1 clients filter (the Terraform provider's data sources).
    const ids = queryList(query, "id");
    // `group`: the objects of that group (its direct children; an account association is the group's own).
    const group = queryParam(query, "group");
    const accessGroup = spec.accessGroup ?? ((o: StoredObject) => o.parent);
    const items = [...ctx.svc.store.all(spec.kind)]
      .filter((o) => underAny(accessGroup(o), roots))
      .filter((o) => descendantsOf === undefined || o.uid.startsWith(`${descendantsOf}/`))
      .filter((o) => childrenOf === undefined || o.parent === childrenOf)
      .filter((o) => name === undefined || o.fields.name === name)
      .filter((o) => ids.length === 0 || ids.includes(o.uid))
      .filter((o) => group === undefined || accessGroup(o) === group)
      .sort((a, b) => (a.uid < b.uid ? -1 : 1))
      .map((o) => map(o, ctx));
    return { items };
  };
}

/** The v1 form of a v2 object: `id` for uid, createdAt / updatedAt for createTime / updateTime. */
export function v1Item(spec: CollectionSpec) {
  return (o: StoredObject, ctx: RouteContext): Record<string, unknown> => {
    const { uid, createTime, updateTime, ...rest } = spec.toWire(o, ctx);
    return { id: uid, ...rest, createdAt: createTime, updatedAt: updateTime ?? createTime };
  };
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
  const { uid, ...wire } = identities.toWire(found, ctx);
  const { createTime, updateTime, ...rest } = wire;
  return { id: uid, ...rest, createdAt: createTime, updatedAt: updateTime ?? createTime };
}

/** Members of a v1 group a read-modify-write client may echo in an update: output-only, ignored. */
const V1_GROUP_OUTPUT_ONLY = ["id", "resourceLimits", "verified", "createdAt", "updatedAt"];

/**
 * v1 update: omitted fields are reset to their zero values (description → ""). A member that is no field of a
 * v1 group is refused naming it, as on v2: an update never silently drops what it was sent. Neither it nor the
 * v1 get takes a query parameter: one is refused, as on v2.
 */
export function v1Update(ctx: RouteContext): Record<string, unknown> {
  checkQuery(ctx.query, NO_PARAMS, `${ctx.method} /iam/v1/groups/{id}`);
  const object = loadVisible(groups, ctx, ctx.uid, "UPDATE");
  refuseUnknownFields(ctx.body, V1GroupPut, "group", V1_GROUP_OUTPUT_ONLY);
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
export const v1ListGroups = v1List(groups, v1Group);

/** GET /iam/v1/groups/{uid}. */
export function v1GetGroup(ctx: RouteContext): Record<string, unknown> {
  checkQuery(ctx.query, NO_PARAMS, "GET /iam/v1/groups/{id}");
  return v1Group(loadVisible(groups, ctx, ctx.uid, "LIST"));
}

/** GET /registry/v1/repos. */
export const v1ListRepos = v1List(repos, (o) => ({
  id: o.uid,
  name: o.fields.name,
  description: (o.fields.description as string | undefined) ?? "",
  createdAt: o.createTime,
  updatedAt: o.updateTime ?? o.createTime,
}));

/** GET /iam/v1/identities. */
export const v1ListIdentities = v1List(identities);

/** GET /iam/v1/roles: custom roles the caller may list (built-in ones are v2's). */
export const v1ListRoles = v1List(roles);

/** GET /iam/v1/rolebindings: v1 names the identity, group and role by uid. */
export const v1ListRoleBindings = v1List(roleBindings, (o) => ({
  id: o.uid,
  identity: o.fields.identityUid,
  group: o.parent,
  role: o.fields.roleUid,
  createdAt: o.createTime,
  updatedAt: o.updateTime ?? o.createTime,
}));

/** GET /iam/v1/group_invites. */
export const v1ListGroupInvites = v1List(groupInvites);

/** GET /iam/v1/account_associations: one per group, whose uid it carries as `id` and `group`. */
export const v1ListAccountAssociations = v1List(accountAssociations, (o, ctx) => ({
  ...v1Item(accountAssociations)(o, ctx),
  group: o.uid,
}));

/** GET /iam/v1/identityProviders. */
export const v1ListIdentityProviders = v1List(identityProviders);
