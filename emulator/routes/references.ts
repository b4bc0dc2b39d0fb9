/**
 * What a request may name: the checks for a role or identity referenced by another object (bindings, invites,
 * identity providers, account associations), and how a referenced object is described to a caller. A reference
 * the caller cannot see reads exactly like a missing one.
 */
import { ancestorsOrSelf, builtinRole } from "../access";
import { badField, notFound, permissionDenied } from "../errors";
import { parentOf } from "../../sdk/uidp";
import type { RouteContext } from "./types";

/**
 * A role usable on `groupUid`: built-in, or a custom role the caller may list, defined on `groupUid` or one of its
 * ancestors (a custom role applies at its group and below). A role the caller cannot see reads exactly like a
 * missing one. Returns the role's capabilities.
 */
export function requireRole(ctx: RouteContext, roleUid: string, groupUid: string, field: string): string[] {
  const builtin = builtinRole(roleUid);
  if (builtin !== undefined) return builtin.capabilities;
  const position = parentOf(roleUid) ?? "";
  const role = ctx.svc.access.can(ctx.caller, position, "CAP_IAM_ROLES_LIST")
    ? ctx.svc.store.get("roles", roleUid)
    : undefined;
  if (role === undefined || role.parent !== position)
    throw badField(field, `${field} ${roleUid} does not name a role`);
  // A role created moments ago is not yet effective (propagation delay): what depends on it is not found yet.
  if (ctx.svc.access.pending(roleUid)) throw notFound(`role ${roleUid}`);
  if (!ancestorsOrSelf(groupUid).includes(role.parent))
    throw badField(
      field,
      `${field} ${roleUid} is a role of group ${role.parent}; it applies there and below, not on ${groupUid}`,
    );
  return (role.fields.capabilities as string[] | undefined) ?? [];
}

/** `requireRole`, and the caller must hold every capability of the role on `groupUid` (no escalation). */
export function requireGrantableRole(
  ctx: RouteContext,
  roleUid: string,
  groupUid: string,
  field: string,
): void {
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
export function seesIdentity(ctx: RouteContext, identityUid: string): boolean {
  const position = parentOf(identityUid) ?? "";
  if (position === "") return true;
  return ctx.svc.access.can(ctx.caller, position, "CAP_IAM_IDENTITY_LIST");
}

export function requireIdentity(ctx: RouteContext, identityUid: string, field: string): void {
  const identity = seesIdentity(ctx, identityUid) ? ctx.svc.store.get("identities", identityUid) : undefined;
  if (identity === undefined || identity.parent !== (parentOf(identityUid) ?? ""))
    throw badField(field, `${field} ${identityUid} does not name an identity`);
}

/** A role's fields when the caller may see the role (built-in roles: always). */
export function visibleRole(ctx: RouteContext, roleUid: string): Record<string, unknown> | undefined {
  const builtin = builtinRole(roleUid);
  if (builtin !== undefined) return { ...builtin };
  if (!ctx.svc.access.can(ctx.caller, parentOf(roleUid) ?? "", "CAP_IAM_ROLES_LIST")) return undefined;
  return ctx.svc.store.get("roles", roleUid)?.fields;
}
