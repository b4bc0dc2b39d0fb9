/**
 * Roles: custom roles (the collection's rules: known capabilities, no escalation, no delete while referenced) and
 * the built-in roles, readable everywhere and never changed.
 */
import { ROLE_UPDATE_FIELDS, RoleCreate, RoleUpdate } from "../../sdk/schemas";
import { CAPABILITY_SET } from "../../sdk/schemas/capabilities";
import type { FieldViolation } from "../../sdk/schemas/common";
import { BUILTIN_ROLES, builtinRole } from "../access";
import { failedPrecondition, permissionDenied } from "../errors";
import type { StoredObject } from "../store";
import {
  collectionSpec,
  COMMON_SORT,
  NO_PARAMS,
  applyChanges,
  baseWire,
  deleteHandler,
  getHandler,
  updateHandler,
  type CollectionSpec,
} from "./crud";
import { checkQuery } from "../listing";
import type { RouteContext } from "./types";

const builtinObjects: StoredObject[] = BUILTIN_ROLES.map((r) => ({
  uid: r.uid,
  parent: "",
  fields: { name: r.name, description: r.description, capabilities: r.capabilities },
  createTime: "2024-01-01T00:00:00.000Z",
  updateTime: "2024-01-01T00:00:00.000Z",
}));

export const roles: CollectionSpec = {
  ...collectionSpec("roles"),
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
    for (const binding of ctx.svc.store.byField("roleBindings", "roleUid", role.uid))
      ctx.svc.store.delete("roleBindings", binding.uid);
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

/** Built-in roles are never changed: code 7 naming the role. */
function refuseBuiltin(ctx: RouteContext): void {
  if (builtinRole(ctx.uid) !== undefined)
    throw permissionDenied(`built-in role ${ctx.uid} cannot be changed`);
}

/** GET /iam/v2beta1/roles/{uid}: a built-in role by its uid, else a custom role. */
export function getRole(ctx: RouteContext): unknown {
  checkQuery(ctx.query, NO_PARAMS, "GET /iam/v2beta1/roles/{uid}");
  const role = builtinObjects.find((r) => r.uid === ctx.uid);
  return role !== undefined ? roles.toWire(role, ctx) : getCustomRole(ctx);
}
const getCustomRole = getHandler(roles);

const updateCustomRole = updateHandler(roles);
/** PATCH /iam/v2beta1/roles/{uid}: custom roles only. */
export function updateRole(ctx: RouteContext): unknown {
  refuseBuiltin(ctx);
  return updateCustomRole(ctx);
}

const deleteCustomRole = deleteHandler(roles);
/** DELETE /iam/v2beta1/roles/{uid}: custom roles only. */
export function deleteRole(ctx: RouteContext): unknown {
  refuseBuiltin(ctx);
  return deleteCustomRole(ctx);
}
