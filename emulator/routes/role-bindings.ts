/** Role bindings: an identity holds a role on a group; described with what the caller may see of each. */
import { z } from "zod";
import {
  ROLE_BINDING_BATCH_MAX,
  ROLE_BINDING_UPDATE_FIELDS,
  RoleBindingCreate,
  RoleBindingUpdate,
} from "../../sdk/schemas";
import { RoleUid, Uidp, type FieldViolation } from "../../sdk/schemas/common";
import * as wire from "../../sdk/schemas/openapi.generated";
import { checkQuery, queryParam } from "../listing";
import { refuseUnknownMembers } from "../members";
import { withoutUndefined } from "../service";
import type { StoredObject } from "../store";
import { collectionSpec, applyChanges, loadParentGroup, NO_PARAMS, type CollectionSpec } from "./crud";
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
  ...collectionSpec("roleBindings"),
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

// ---------------------------------------------------------------------------------------------------------------
// POST /iam/v2beta1/roleBindings:batchCreate (OpenAPI BatchCreateRoleBindings; AIP-233): up to 25 creates under one
// parent group, all or none. Each sub-request meets the same rules as one create (who may bind on the parent, which
// identities and roles it may name, no escalation), and a refusal names the sub-request (`requests[3].roleBinding.
// identityUid`). Atomic because the whole handler runs in one store transaction (../server.ts): the first refusal
// throws and undoes every insert before it; an injected fault either stops the request before it runs or drops the
// answer after all of it was applied.

/** The batch's own members; the sub-requests are checked one by one (`subRequestViolations`), naming each. */
const BatchShape = z.object({
  parent: Uidp,
  // "" is proto3's unset.
  roleUid: z.union([z.literal(""), RoleUid]).optional(),
  requests: z.array(z.unknown()),
});

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** One sub-request, resolved: the identity and the role (its own or the batch's), and the field each came from. */
interface SubRequest {
  identityUid: string;
  roleUid: string;
  identityField: string;
  roleField: string;
}

/** A zod failure of a value at `field`, as one violation naming it. */
function violationOf(field: string, parsed: z.ZodSafeParseResult<unknown>): FieldViolation[] {
  if (parsed.success) return [];
  const issue = parsed.error.issues[0];
  const where = [field, ...(issue?.path ?? []).map(String)].join(".");
  return [{ field: where, description: `${where}: ${issue?.message ?? "invalid"}` }];
}

/** What is wrong with sub-request `i` (each violation named by its path in the batch), or its resolved form. */
function subRequest(
  sub: unknown,
  i: number,
  parent: string,
  batchRoleUid: string | undefined,
): { violations: FieldViolation[]; resolved?: SubRequest } {
  const at = `requests[${i}]`;
  if (!isObject(sub)) return { violations: [{ field: at, description: `${at} must be an object` }] };
  const violations: FieldViolation[] = [];
  if (sub.parent !== undefined && sub.parent !== null && sub.parent !== "" && sub.parent !== parent)
    violations.push({
      field: `${at}.parent`,
      description: `${at}.parent must be empty or the batch's parent ${parent} (AIP-233: one parent per batch)`,
    });
  const binding = sub.roleBinding;
  if (binding === undefined || binding === null)
    return {
      violations: [
        ...violations,
        { field: `${at}.roleBinding`, description: `${at}.roleBinding is required` },
      ],
    };
  const field = `${at}.roleBinding`;
  // Output-only members (uid, identity, ...) are ignored, as on one create, but must have their type.
  violations.push(...violationOf(field, wire.RoleBinding.safeParse(binding)));
  if (!isObject(binding)) return { violations };
  const identityUid = binding.identityUid;
  if (identityUid === undefined || identityUid === null || identityUid === "")
    violations.push({ field: `${field}.identityUid`, description: `${field}.identityUid is required` });
  else violations.push(...violationOf(`${field}.identityUid`, Uidp.safeParse(identityUid)));
  const own = binding.roleUid === null || binding.roleUid === undefined ? "" : binding.roleUid;
  let roleUid = batchRoleUid ?? "";
  let roleField = "roleUid";
  if (own !== "" && batchRoleUid !== undefined && batchRoleUid !== "" && own !== batchRoleUid)
    violations.push({
      field: `${field}.roleUid`,
      description: `${field}.roleUid ${String(own)} differs from the batch's roleUid ${batchRoleUid} (AIP-233: leave it empty to inherit it, or give the same)`,
    });
  else if (own !== "") {
    roleUid = own as string;
    roleField = `${field}.roleUid`;
    violations.push(...violationOf(roleField, RoleUid.safeParse(own)));
  } else if (batchRoleUid === "")
    violations.push({
      field: `${field}.roleUid`,
      description: `${field}.roleUid is required when the batch names no roleUid`,
    });
  if (violations.length > 0) return { violations };
  return {
    violations,
    resolved: {
      identityUid: identityUid as string,
      roleUid,
      identityField: `${field}.identityUid`,
      roleField,
    },
  };
}

export function batchCreateRoleBindings(ctx: RouteContext): Record<string, unknown> {
  checkQuery(ctx.query, NO_PARAMS, "POST /iam/v2beta1/roleBindings:batchCreate");
  // Who may bind on the parent is decided before the rest of the request is read, as for one create (AIP-211).
  const claimed = isObject(ctx.body) ? ctx.body.parent : undefined;
  if (Uidp.safeParse(claimed).success) loadParentGroup(roleBindings, ctx, claimed as string);
  refuseUnknownMembers(ctx.body, wire.BatchCreateRoleBindingsRequest, "batch of role bindings");
  const resolved: SubRequest[] = [];
  const check = (input: Record<string, unknown>): FieldViolation[] => {
    const requests = input.requests;
    if (!Array.isArray(requests)) return [];
    if (requests.length === 0)
      return [{ field: "requests", description: "requests must hold at least one role binding to create" }];
    if (requests.length > ROLE_BINDING_BATCH_MAX)
      return [
        {
          field: "requests",
          description: `requests holds ${requests.length} role bindings; a batch takes at most ${ROLE_BINDING_BATCH_MAX}`,
        },
      ];
    const parent = typeof input.parent === "string" ? input.parent : "";
    // A batch roleUid of the wrong type is named once, as itself, not again as each sub-request's missing role.
    const batchRoleUid =
      typeof input.roleUid === "string" ? input.roleUid : input.roleUid == null ? "" : undefined;
    return requests.flatMap((sub, i) => {
      const { violations, resolved: one } = subRequest(sub, i, parent, batchRoleUid);
      if (one !== undefined) resolved.push(one);
      return violations;
    });
  };
  const batch = ctx.svc.parseBody(BatchShape, ctx.body, check);
  const made = resolved.map((sub) => {
    requireIdentity(ctx, sub.identityUid, sub.identityField);
    requireGrantableRole(ctx, sub.roleUid, batch.parent, sub.roleField);
    const object = ctx.svc.insert(
      "roleBindings",
      batch.parent,
      { identityUid: sub.identityUid, roleUid: sub.roleUid },
      { updateTime: false },
    );
    ctx.svc.access.created("roleBindings", object.uid);
    return object;
  });
  return { roleBindings: made.map((o) => hydrateBinding(o, ctx)) };
}
