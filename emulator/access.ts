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
 * May import: ./store, ./errors, ./clock (types), node builtins.
 */
import { createHash } from "node:crypto";
import { notFound, permissionDenied } from "./errors";
import type { Clock } from "./clock";
import type { Kind, Store, StoredObject } from "./store";

/** The kinds whose new objects take `propagationDelayMs` to become effective for authorization. */
const PROPAGATING_KINDS: readonly Kind[] = ["groups", "roles", "roleBindings"];

export interface Caller {
  identityUid: string;
}

const IAM_KINDS = [
  "GROUPS",
  "GROUP_INVITES",
  "ROLES",
  "ROLE_BINDINGS",
  "ACCOUNT_ASSOCIATIONS",
  "IDENTITY",
  "IDENTITY_PROVIDERS",
];
const VERBS = ["CREATE", "UPDATE", "LIST", "DELETE"];
const iamCaps = (kinds: string[], verbs: string[]): string[] =>
  kinds
    .flatMap((k) => verbs.map((v) => `CAP_IAM_${k}_${v}`))
    .filter((c) => c !== "CAP_IAM_GROUP_INVITES_UPDATE");
const REGISTRY_READ = ["CAP_REPO_LIST", "CAP_TAG_LIST", "CAP_MANIFEST_LIST", "CAP_REPO_BLOBS_GET"];
const REGISTRY_ALL = [
  ...REGISTRY_READ,
  "CAP_REPO_CREATE",
  "CAP_REPO_UPDATE",
  "CAP_REPO_DELETE",
  "CAP_TAG_CREATE",
  "CAP_TAG_UPDATE",
  "CAP_TAG_DELETE",
];

export interface BuiltinRole {
  uid: string;
  name: string;
  description: string;
  capabilities: string[];
}

function builtin(name: string, description: string, capabilities: string[]): BuiltinRole {
  return {
    uid: createHash("sha1").update(name).digest("hex"),
    name,
    description,
    capabilities: [...new Set(capabilities)].sort(),
  };
}

/** Built-in roles: fixed 40-hex uids (sha1 of the name), listed alongside custom roles. */
export const BUILTIN_ROLES: readonly BuiltinRole[] = [
  builtin("owner", "Full control of the group and everything below it", [
    ...iamCaps(IAM_KINDS, VERBS),
    ...REGISTRY_ALL,
    "CAP_ADVISORIES_LIST",
  ]),
  builtin("editor", "Create, update and delete groups, identities, roles and role bindings", [
    ...iamCaps(["GROUPS", "IDENTITY", "ROLES", "ROLE_BINDINGS"], VERBS),
    ...iamCaps(["GROUP_INVITES", "ACCOUNT_ASSOCIATIONS", "IDENTITY_PROVIDERS"], ["LIST"]),
    ...REGISTRY_READ,
    "CAP_ADVISORIES_LIST",
  ]),
  builtin("viewer", "Read-only access", [
    ...iamCaps(IAM_KINDS, ["LIST"]),
    "CAP_REPO_LIST",
    "CAP_TAG_LIST",
    "CAP_MANIFEST_LIST",
    "CAP_ADVISORIES_LIST",
  ]),
  builtin("registry.pull", "Pull images from the registry", REGISTRY_READ),
];

const BUILTIN_BY_UID = new Map(BUILTIN_ROLES.map((r) => [r.uid, r]));

export function builtinRole(uid: string): BuiltinRole | undefined {
  return BUILTIN_BY_UID.get(uid);
}

export function builtinRoleByName(name: string): BuiltinRole {
  const role = BUILTIN_ROLES.find((r) => r.name === name);
  if (role === undefined) throw new Error(`no built-in role ${name}`);
  return role;
}

/** "a/b/c" → ["a", "a/b", "a/b/c"]. */
export function ancestorsOrSelf(uid: string): string[] {
  const segments = uid.split("/");
  return segments.map((_, i) => segments.slice(0, i + 1).join("/"));
}

export function rootOf(uid: string): string {
  const slash = uid.indexOf("/");
  return slash === -1 ? uid : uid.slice(0, slash);
}

export class Access {
  /** Bindings by identity, rebuilt when the store changes: access checks stay O(own bindings) at any size. */
  private byIdentity = new Map<string, StoredObject[]>();
  private indexedVersion = -1;

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

  /** The caller's effective bindings: those still propagating grant nothing yet. */
  private bindingsOf(identityUid: string): StoredObject[] {
    const all = this.indexedBindingsOf(identityUid);
    if (this.propagating.size === 0) return all;
    return all.filter((b) => !this.pending(b.uid) && !this.pendingPosition(b.parent));
  }

  private indexedBindingsOf(identityUid: string): StoredObject[] {
    if (this.indexedVersion !== this.store.version) {
      this.byIdentity.clear();
      for (const binding of this.store.all("roleBindings")) {
        const key = binding.fields.identityUid as string;
        const list = this.byIdentity.get(key);
        if (list === undefined) this.byIdentity.set(key, [binding]);
        else list.push(binding);
      }
      this.indexedVersion = this.store.version;
    }
    return this.byIdentity.get(identityUid) ?? [];
  }

  roleCapabilities(roleUid: string): string[] {
    const builtinRole = BUILTIN_BY_UID.get(roleUid);
    if (builtinRole !== undefined) return builtinRole.capabilities;
    if (this.pending(roleUid)) return [];
    const custom = this.store.get("roles", roleUid);
    return (custom?.fields.capabilities as string[] | undefined) ?? [];
  }

  capabilitiesOn(caller: Caller, groupUid: string): Set<string> {
    const caps = new Set<string>();
    if (this.pendingPosition(groupUid)) return caps;
    const ancestors = new Set(ancestorsOrSelf(groupUid));
    for (const binding of this.bindingsOf(caller.identityUid)) {
      if (!ancestors.has(binding.parent)) continue;
      for (const cap of this.roleCapabilities(binding.fields.roleUid as string)) caps.add(cap);
    }
    return caps;
  }

  /** Does the caller hold a binding on `groupUid` or above it? Only then may it learn what is there. */
  sees(caller: Caller, groupUid: string): boolean {
    if (groupUid === "" || this.pendingPosition(groupUid)) return false;
    const ancestors = new Set(ancestorsOrSelf(groupUid));
    return this.bindingsOf(caller.identityUid).some((binding) => ancestors.has(binding.parent));
  }

  /** May the caller list `capability`'s kind at `groupUid` (the position of an object)? */
  can(caller: Caller, groupUid: string, capability: string): boolean {
    return this.capabilitiesOn(caller, groupUid).has(capability);
  }

  /**
   * Throws 404 when the caller cannot see the position `groupUid` (the same answer as for a missing object: the
   * caller's `what` message, nothing else), 403 when it can but lacks `capability` there.
   */
  require(caller: Caller, groupUid: string, capability: string, what: string): void {
    if (!this.sees(caller, groupUid)) throw notFound(what);
    if (!this.capabilitiesOn(caller, groupUid).has(capability)) {
      throw permissionDenied(`${capability} is required on ${groupUid} (${what})`);
    }
  }

  /** The capabilities of `wanted` the caller does not hold on `groupUid` (empty: granting them is no escalation). */
  missing(caller: Caller, groupUid: string, wanted: Iterable<string>): string[] {
    const held = this.capabilitiesOn(caller, groupUid);
    return [...new Set(wanted)].filter((c) => !held.has(c)).sort();
  }

  /** The groups on which the caller holds `capability` directly through a binding; access flows down from them. */
  grantRoots(caller: Caller, capability: string): Set<string> {
    const roots = new Set<string>();
    for (const binding of this.bindingsOf(caller.identityUid)) {
      if (this.roleCapabilities(binding.fields.roleUid as string).includes(capability))
        roots.add(binding.parent);
    }
    return roots;
  }
}

/** Is `groupUid` at or below one of `roots`? */
export function underAny(groupUid: string, roots: Set<string>): boolean {
  if (roots.size === 0) return false;
  if (roots.has(groupUid)) return true;
  let end = groupUid.lastIndexOf("/");
  while (end > 0) {
    if (roots.has(groupUid.slice(0, end))) return true;
    end = groupUid.lastIndexOf("/", end - 1);
  }
  return false;
}
