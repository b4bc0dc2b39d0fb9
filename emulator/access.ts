/**
 * Identity-based access, like the real service: a token maps to an identity; a role binding on group G grants
 * its role's capabilities on G and everything below it.
 *
 * Rules (emulator/README.md, "Access"), decided from the caller's bindings and the uid alone, never from whether
 * the object exists, so the answer cannot reveal existence (AIP-211):
 *   - a position (group uid) is visible when the caller holds a binding on it or on one of its ancestors;
 *   - on an invisible position every request is 404 Not found, word for word the answer for a missing uid;
 *   - on a visible one a missing capability is 403 (checked before existence), a missing object 404;
 *   - a reference in a body resolves only to objects the caller may list; others read as "does not exist";
 *   - no escalation: a caller grants (binds, invites, defaults, or puts into a custom role) only capabilities it
 *     holds itself on that group.
 *
 * Propagation delay (off by default; `propagationDelayMs`, emulator/README.md): like the real service, a group, role
 * or role binding created through the API is not yet effective for authorization for a while. Until then a
 * binding grants nothing, a custom role's capabilities count for nothing, and a new group (and everything under it)
 * is a position nobody sees, so requests that depend on it get 404 or 403, as the real service's users meet.
 *
 * Every decision (what a caller holds where, what it sees, what it lacks, where its grants start) is the shared
 * access model's, ../sdk/access-model.ts, asked over the store: the class below only supplies the facts (the caller's
 * bindings in effect, a role's capabilities) and the propagation delay, so what the tools say is what the emulator
 * enforces. The built-in roles are defined in ./builtin-roles.ts, as the service defines them; the model reads them through the API
 * (`GET /iam/v2beta1/roles` lists them with their capabilities).
 */
import {
  ancestorsOrSelf,
  capabilitiesOn,
  grantRoots,
  missingOn,
  sees,
  underAny,
  type AccessFacts,
  type BindingFacts,
} from "../sdk/access-model";
import type { Capability } from "../sdk/schemas/capabilities";
import { PROPAGATING } from "../sdk/collections";
import { builtinRole } from "./builtin-roles";
import { notFound, permissionDenied } from "./errors";
import type { Clock } from "./clock";
import type { Kind, Store } from "./store";
import { rootOf } from "../sdk/uidp";

export { ancestorsOrSelf, underAny };
export { BUILTIN_ROLES, builtinRole, builtinRoleByName, type BuiltinRole } from "./builtin-roles";

/** The kinds whose new objects take `propagationDelayMs` to become effective for authorization (../sdk/collections). */
const PROPAGATING_KINDS: readonly Kind[] = PROPAGATING;

export interface Caller {
  identityUid: string;
}

/** The root uid an object lives under (sdk/uidp.ts). */
export { rootOf };

/** The store's access facts (../sdk/access-model.ts `AccessFacts`), with the propagation delay applied. */
export class Access implements AccessFacts {
  /** New groups, roles and bindings not yet effective: uid → when they become so (emulator clock, ms). */
  private readonly propagating = new Map<string, number>();

  /** How long a new group, role or role binding takes to become effective; 0 (the default): at once. */
  propagationDelayMs = 0;

  constructor(
    private readonly store: Store,
    private readonly clock?: Clock,
  ) {}

  /** Called when the API creates an object: of a propagating kind, it is not effective until the delay passes. */
  created(kind: Kind, uid: string): void {
    if (this.propagationDelayMs <= 0 || this.clock === undefined || !PROPAGATING_KINDS.includes(kind)) return;
    this.propagating.set(uid, this.clock.now().getTime() + this.propagationDelayMs);
  }

  /** Is this object (a group, role or binding) still propagating? */
  pending(uid: string): boolean {
    if (this.propagating.size === 0) return false;
    const effectiveAt = this.propagating.get(uid);
    if (effectiveAt === undefined) return false;
    if (this.clock!.now().getTime() < effectiveAt) return true;
    this.propagating.delete(uid);
    return false;
  }

  /** Is the group `groupUid`, or one above it, still propagating? Then nobody sees that position yet. */
  private pendingPosition(groupUid: string): boolean {
    if (this.propagating.size === 0 || groupUid === "") return false;
    return ancestorsOrSelf(groupUid).some((uid) => this.pending(uid));
  }

  /** AccessFacts: the identity's bindings in effect (those still propagating, or on a new group, grant nothing yet). */
  bindingsOf(identityUid: string): readonly BindingFacts[] {
    const all = this.indexedBindingsOf(identityUid);
    if (this.propagating.size === 0) return all;
    return all.filter((b) => !this.pending(b.uid) && !this.pendingPosition(b.group));
  }

  /**
   * All the identity's bindings, from the store's index by identity (kept current by every write, undo, reset and
   * load): an access check costs the caller's own bindings, whatever the organization's size and however often it
   * changes.
   */
  private indexedBindingsOf(identityUid: string): BindingFacts[] {
    return this.store.byField("roleBindings", "identityUid", identityUid).map((binding) => ({
      uid: binding.uid,
      group: binding.parent,
      identity: identityUid,
      role: binding.fields.roleUid as string,
    }));
  }

  /** AccessFacts: a built-in role's capabilities, or a custom role's once it is effective. */
  roleCapabilities(roleUid: string): readonly string[] {
    const builtin = builtinRole(roleUid);
    if (builtin !== undefined) return builtin.capabilities;
    if (this.pending(roleUid)) return [];
    const custom = this.store.get("roles", roleUid);
    return (custom?.fields.capabilities as string[] | undefined) ?? [];
  }

  /** The model's rules 1 and 2; a position still propagating grants nothing. */
  capabilitiesOn(caller: Caller, groupUid: string): Set<string> {
    if (this.pendingPosition(groupUid)) return new Set();
    return capabilitiesOn(this, caller.identityUid, groupUid);
  }

  /** The model's rule 3: only a caller bound on `groupUid` or above may learn what is there. */
  sees(caller: Caller, groupUid: string): boolean {
    if (this.pendingPosition(groupUid)) return false;
    return sees(this, caller.identityUid, groupUid);
  }

  /** Does the caller hold `capability` on `groupUid` (the position of an object)? */
  can(caller: Caller, groupUid: string, capability: Capability): boolean {
    return this.capabilitiesOn(caller, groupUid).has(capability);
  }

  /**
   * Throws 404 when the caller cannot see the position `groupUid` (the same answer as for a missing object: the
   * caller's `what` message, nothing else), 403 when it can but lacks `capability` there.
   */
  require(caller: Caller, groupUid: string, capability: Capability, what: string): void {
    if (!this.sees(caller, groupUid)) throw notFound(what);
    if (!this.capabilitiesOn(caller, groupUid).has(capability)) {
      throw permissionDenied(`${capability} is required on ${groupUid} (${what})`);
    }
  }

  /** The model's rule 5: the capabilities of `wanted` the caller lacks on `groupUid` (empty: no escalation). */
  missing(caller: Caller, groupUid: string, wanted: Iterable<string>): string[] {
    if (this.pendingPosition(groupUid)) return [...new Set(wanted)].sort();
    return missingOn(this, caller.identityUid, groupUid, wanted);
  }

  /** The groups on which the caller holds `capability` directly through a binding; access flows down from them. */
  grantRoots(caller: Caller, capability: Capability): Set<string> {
    return grantRoots(this, caller.identityUid, capability);
  }
}
