/**
 * Groups (organizations and folders): the collection's rules, and the creation of an organization (a group with
 * no parent, owned by its creator).
 */
import { GROUP_UPDATE_FIELDS, GroupCreate, GroupUpdate } from "../../sdk/schemas";
import type { Capability } from "../../sdk/schemas/capabilities";
import { NOT_CLIENT_SETTABLE } from "../../sdk/rules";
import { badField, failedPrecondition, permissionDenied } from "../errors";
import { checkQuery } from "../listing";
import type { StoredObject } from "../store";
import {
  collectionSpec,
  COMMON_SORT,
  applyChanges,
  baseWire,
  NO_PARAMS,
  createBodyCheck,
  createHandler,
  type CollectionSpec,
} from "./crud";
import type { RouteContext } from "./types";
import { isRoot, rootOf } from "../../sdk/uidp";

const KIND_INHERITED = "kind is inherited from the organization (the root group); a subgroup cannot set it";

/** A group's kind (OpenAPI Group.kind): an organization's own, which its subgroups inherit; unset when never set. */
function kindOf(o: StoredObject, ctx: RouteContext): unknown {
  const root = o.parent === "" ? o : ctx.svc.store.get("groups", rootOf(o.uid));
  return root?.fields.kind;
}

export const groups: CollectionSpec = {
  ...collectionSpec("groups"),
  sortable: [...COMMON_SORT, "verified"],
  accessGroup: (o) => o.uid,
  toWire: (o, ctx) => {
    const { kind: _own, ...wire } = baseWire(o);
    const kind = kindOf(o, ctx);
    return {
      resourceLimits: {},
      verified: false,
      description: "",
      ...wire,
      ...(kind !== undefined ? { kind } : {}),
    };
  },
  create: {
    schema: GroupCreate,
    ignored: NOT_CLIENT_SETTABLE.Group,
    // Runs for subgroups only (an organization is created by createOrganization below).
    fields: (body) => {
      if (body.kind !== undefined) throw badField("kind", KIND_INHERITED);
      return { ...body, verified: false };
    },
  },
  update: {
    schema: GroupUpdate,
    fields: GROUP_UPDATE_FIELDS,
    required: ["name"],
    restricted: { verified: "verified can only be set by the service's staff" },
    apply: (o, changes, ctx) => {
      if (o.parent !== "" && "kind" in changes) {
        // A subgroup's kind is its organization's: sending that value is no change, another one is refused.
        if (changes.kind !== undefined && changes.kind !== kindOf(o, ctx))
          throw badField("kind", KIND_INHERITED);
        delete changes.kind;
      }
      applyChanges(o, changes);
    },
  },
  beforeDelete: (group, ctx) => {
    const { store } = ctx.svc;
    const isOrganization = group.parent === "";
    const blocking: [string, string, number, Capability][] = [
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

const createSubgroup = createHandler(groups);
const refuseUnknownGroupFields = createBodyCheck(groups);

/**
 * POST /iam/v2beta1/groups (no parent): a new organization, owned by its creator. Root-level users may create
 * one; so may an assumed identity holding CAP_IAM_GROUPS_CREATE through a binding (a role such as owner or
 * editor), as the Terraform provider's own tests do with a nested identity.
 */
export function createOrganization(ctx: RouteContext): unknown {
  if (ctx.uid !== "") return createSubgroup(ctx);
  checkQuery(ctx.query, NO_PARAMS, "POST /iam/v2beta1/groups");
  const rootUser = isRoot(ctx.caller.identityUid);
  if (!rootUser && ctx.svc.access.grantRoots(ctx.caller, "CAP_IAM_GROUPS_CREATE").size === 0) {
    throw permissionDenied(
      "creating an organization needs CAP_IAM_GROUPS_CREATE through a role binding (e.g. owner or editor)",
    );
  }
  refuseUnknownGroupFields(ctx.body);
  const body = ctx.svc.parseBody(GroupCreate, ctx.body);
  const organization = ctx.svc.createOrganization(ctx.caller, body);
  // The organization and its creator's owner binding propagate like any new group and binding.
  ctx.svc.access.created("groups", organization.uid);
  for (const binding of ctx.svc.store.children("roleBindings", organization.uid))
    ctx.svc.access.created("roleBindings", binding.uid);
  return groups.toWire(organization, ctx);
}
