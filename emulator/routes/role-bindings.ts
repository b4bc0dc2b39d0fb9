/** Role bindings: an identity holds a role on a group; described with what the caller may see of each. */
import { ROLE_BINDING_UPDATE_FIELDS, RoleBindingCreate, RoleBindingUpdate } from "../../sdk/schemas";
import { queryParam } from "../listing";
import { withoutUndefined } from "../service";
import type { StoredObject } from "../store";
import { applyChanges, type CollectionSpec } from "./crud";
import { requireGrantableRole, requireIdentity, requireRole, seesIdentity, visibleRole } from "./references";
import type { RouteContext } from "./types";

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

export const roleBindings: CollectionSpec = {
  kind: "roleBindings",
  plural: "roleBindings",
  label: "role binding",
  prefix: "/iam/v2beta1/roleBindings",
  sortable: ["uid", "createTime", "identityUid", "roleUid"],
  toWire: hydrateBinding,
  listParams: { identity: "uid", group: "uid", role: "uid" },
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
