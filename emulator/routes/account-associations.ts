/** Account associations: one per group, under the group's own uid; service bindings name visible identities. */
import {
  ACCOUNT_ASSOCIATION_UPDATE_FIELDS,
  AccountAssociationCreate,
  AccountAssociationUpdate,
} from "../../sdk/schemas";
import { alreadyExists } from "../errors";
import { collectionSpec, COMMON_SORT, applyChanges, baseWire, type CollectionSpec } from "./crud";
import { requireIdentity } from "./references";
import type { RouteContext } from "./types";

export const accountAssociations: CollectionSpec = {
  ...collectionSpec("accountAssociations"),
  sortable: COMMON_SORT,
  accessGroup: (o) => o.uid,
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
