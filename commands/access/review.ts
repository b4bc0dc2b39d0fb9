/**
 * Who can do what, where, and why: the review of a group's subtree, and the two questions it answers (who holds a
 * capability on a group; what an identity holds). Every answer comes from the access model (sdk/access-model.ts: a
 * binding grants its role's capabilities on its group and every group below; what an identity holds is the union
 * over its bindings there and above); nothing here computes access on its own.
 *
 * A review says each grant once, where it is bound: its role bindings (each with the group it is on and how many
 * groups of the review are below it), its roles with their capabilities (each once), and its identities with their
 * marks. Expanding the bindings over the tree gives every (identity, capability, group) held; that expansion
 * (`grants`) is made only when asked (`expand`): at 10,000 folders it is 760,000 grants, the owner's capabilities
 * repeated under every folder.
 *
 * The review as data (`--json`) says what it is and in which version of its shape (`format`, `formatVersion`: see
 * ./changes), when it was read and as whom, names beside every uid, and enough to rebuild the access model from it
 * (bindings, roles with their capabilities, groups, identities), so that a later review can say what changed since.
 */
import {
  AccessModel,
  ancestorsOrSelf,
  grantsOn,
  isAtOrBelow,
  isPrivileged,
  type BindingFacts,
} from "../../sdk/access-model";
import { Managers, type Manager, type StateContents } from "../states";
import { bindingFacts, type AccessData } from "./read";
import {
  changesBetween,
  REVIEW_FORMAT,
  REVIEW_FORMAT_VERSION,
  type ReviewChanges,
  type ReviewFacts,
} from "./changes";
import { ancestorsOf, depthOf, isRoot, parentOf } from "../../sdk/uidp";
import { identityKind, type IdentityKind, type Names } from "../../sdk/words";
import { namesFrom } from "./names";

/** A binding through which a capability is held (in an expanded grant). */
export interface Through {
  binding: string;
  role: string;
  roleName: string;
  /** The group the binding is on, and its name (the uid when the caller may not see it). */
  boundOn: string;
  boundOnName: string;
  /** Bound on an ancestor of the group the grant is on (held there by inheritance). */
  inherited: boolean;
}

/** One capability an identity holds on one group: the expansion of the bindings (`--expand`, who-can). */
export interface Grant {
  group: string;
  groupName: string;
  identity: string;
  identityName: string;
  capability: string;
  privileged: boolean;
  through: Through[];
}

export interface ReviewedIdentity {
  uid: string;
  /** Its name; empty where no name is known (format version 3; version 2 held the uid there). */
  name: string;
  /** Root-level users (no parent) are people; identities under a group are workloads. */
  kind: IdentityKind;
  /** The last token exchange that assumed it; absent when none ever has. */
  lastSeenTime?: string;
  /** No token exchange since the threshold (or ever); null when not known (a person's last login is not listed). */
  unused: boolean | null;
  /** No state declares it or any of its bindings; null when no state was given. */
  unmanaged: boolean | null;
  /** The resources declaring the identity (its bindings' are on each binding); null when no state was given. */
  managedBy: Manager[] | null;
  /** Holds a privileged capability (sdk/access-model PRIVILEGED_CAPABILITIES) somewhere in the subtree. */
  privileged: boolean;
}

export interface ReviewedGroup {
  uid: string;
  name: string;
  /** The parent's uid and name; undefined for the group reviewed. */
  parent?: string;
  parentName?: string;
  depth: number;
}

export interface ReviewedRole {
  uid: string;
  name: string;
  builtin: boolean;
  capabilities: string[];
}

/**
 * A role binding in effect in the subtree, said once where it is bound: on a group of it, on one above it (then every
 * group of the subtree inherits it), or on one below it the caller may not list. It grants its role's capabilities
 * (`roles`) on its group and on the `below` groups of the review under it.
 */
export interface ReviewedBinding {
  uid: string;
  group: string;
  /** The group's name ("" when the caller may not see it). */
  groupName: string;
  identity: string;
  identityName: string;
  role: string;
  roleName: string;
  /** How many groups of the review are below the group it is bound on: for a binding above the group reviewed, all. */
  below: number;
  /** Bound above the group reviewed: every group of the review inherits it. */
  above: boolean;
  /**
   * What manages it: the RoleBinding that holds it by uid, and every GroupAccess or IdentityAccess whose scope holds
   * it (empty: no stack does); null when no state was given.
   */
  managedBy: Manager[] | null;
}

export interface Review {
  /** What this is, and the version of its shape (./changes REVIEW_FORMAT, REVIEW_FORMAT_VERSION). */
  format: typeof REVIEW_FORMAT;
  formatVersion: typeof REVIEW_FORMAT_VERSION;
  group: { uid: string; name: string };
  /** The identity whose credentials read it (uid and name), when known. */
  caller?: string;
  callerName?: string;
  /** API calls made to read it. */
  calls: number;
  /** What the caller may not list (empty: complete). */
  partial: string[];
  /** The state files read; empty when none (then `unmanaged` is null). */
  states: string[];
  unusedAfterDays: number;
  /** When it was made (the threshold of `unused` is counted back from it). */
  at: string;
  groups: ReviewedGroup[];
  /** Identities holding access in the subtree. */
  identities: ReviewedIdentity[];
  /** Workload identities under the group that hold no access there. */
  withoutAccess: ReviewedIdentity[];
  /** Roles the bindings name, with their capabilities (a role the caller may not read is missing). */
  roles: ReviewedRole[];
  /** The role bindings on the subtree, above it and below it, in uid order: each grant said once. */
  bindings: ReviewedBinding[];
  /**
   * Only when expanded (`expand`): every capability held by every identity on every group of the subtree, sorted by
   * group, identity, capability; what the bindings say, repeated on each group they reach.
   */
  grants?: Grant[];
  /** What changed since an earlier review (--since). */
  changes?: ReviewChanges;
}

export interface ReviewOptions {
  states?: { file: string; contents: StateContents }[];
  unusedAfterDays?: number;
  now?: Date;
  /** An earlier review of the same group: the review then says what changed since (./changes). */
  since?: ReviewFacts;
  /** Add `grants`, the bindings expanded over the tree (large: see `Review.grants`). */
  expand?: boolean;
}

export const DEFAULT_UNUSED_AFTER_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The access model over what was read. */
export function modelOf(data: AccessData): AccessModel {
  return new AccessModel({
    roles: data.roles.map((r) => ({ uid: r.uid, name: r.name, capabilities: r.capabilities ?? [] })),
    bindings: data.bindings.map(bindingFacts),
  });
}

/** Each capability `identity` holds on `group`, with the bindings that grant it (sdk/access-model grantsOn). */
function grantsHere(model: AccessModel, names: Names, identity: string, group: string) {
  const out: Grant[] = [];
  for (const [capability, through] of grantsOn(model, identity, group)) {
    out.push({
      group,
      groupName: names.nameOf("group", group) ?? "",
      identity,
      identityName: names.nameOf("identity", identity) ?? "",
      capability,
      privileged: isPrivileged(capability),
      through: through.map((b: BindingFacts) => ({
        binding: b.uid,
        role: b.role,
        roleName: names.nameOf("role", b.role) ?? b.role,
        boundOn: b.group,
        boundOnName: names.nameOf("group", b.group) ?? b.group,
        inherited: b.group !== group,
      })),
    });
  }
  return out.sort((a, b) => compare(a.capability, b.capability));
}

/** Names of roles, groups and identities: from the lists first, then from the bindings (which name what they refer to). */
function namesOf(data: AccessData): Names {
  return namesFrom(data, {
    roles: data.bindings.flatMap((b) => b.role ?? []),
    groups: data.bindings.flatMap((b) => b.group ?? []),
    identities: data.bindings.flatMap((b) => b.identity ?? []),
  });
}

/** Identities that hold a binding on each group of the subtree or above it: those to ask the model about. */
function boundAbove(data: AccessData): Map<string, Set<string>> {
  const byGroup = new Map<string, Set<string>>();
  for (const b of data.bindings.map(bindingFacts)) {
    const set = byGroup.get(b.group) ?? new Set<string>();
    set.add(b.identity);
    byGroup.set(b.group, set);
  }
  const result = new Map<string, Set<string>>();
  for (const g of data.groups) {
    const ids = new Set<string>();
    for (const a of ancestorsOrSelf(g.uid)) for (const i of byGroup.get(a) ?? []) ids.add(i);
    result.set(g.uid, ids);
  }
  return result;
}

/**
 * Every grant in the subtree, expanded: per group, per identity bound there or above, what the model says it holds
 * (`only`: of that identity alone). The review's bindings say the same once each; this repeats them on every group.
 */
export function allGrants(data: AccessData, only?: string): Grant[] {
  const model = modelOf(data);
  const names = namesOf(data);
  const grants: Grant[] = [];
  const bound = boundAbove(data);
  for (const g of data.groups) {
    const here = bound.get(g.uid) ?? new Set<string>();
    // Of one identity: only it, and only where it is bound (no other identity's list sorted for nothing).
    const identities = only === undefined ? [...here].sort(compare) : here.has(only) ? [only] : [];
    for (const identity of identities) grants.push(...grantsHere(model, names, identity, g.uid));
  }
  return grants;
}

/** Who holds `capability` on `group`, and why (sdk/access-model AccessModel.holders): one grant per holder. */
export function whoCan(data: AccessData, capability: string, group: string): Grant[] {
  const model = modelOf(data);
  const names = namesOf(data);
  const grants: Grant[] = [];
  for (const identity of model.holders(capability, group).keys())
    grants.push(...grantsHere(model, names, identity, group).filter((g) => g.capability === capability));
  return grants;
}

/**
 * What `identity` holds in the review's subtree, each grant said once where it is bound: its bindings there (each
 * grants its role, `r.roles`, on its group and the groups below it).
 */
export function whatCan(r: Review, identity: string): ReviewedBinding[] {
  return r.bindings.filter((b) => b.identity === identity);
}

/** What manages each identity and each binding: the states' resources, by uid. */
function managersOf(data: AccessData, states: { contents: StateContents }[]) {
  const managers = new Managers(states);
  const ofBinding = new Map<string, Manager[]>();
  const bindingsOf = new Map<string, string[]>();
  for (const b of data.bindings.map(bindingFacts)) {
    ofBinding.set(
      b.uid,
      managers.managersOf("roleBinding", b.uid, {
        groupUid: b.group,
        identityUid: b.identity,
        roleUid: b.role,
      }),
    );
    const list = bindingsOf.get(b.identity);
    if (list === undefined) bindingsOf.set(b.identity, [b.uid]);
    else list.push(b.uid);
  }
  const binding = (uid: string) => ofBinding.get(uid) ?? [];
  const identity = (uid: string) => managers.of("identity", uid);
  return {
    binding,
    identity,
    /** No state declares the identity or any of its bindings. */
    unmanaged: (uid: string) =>
      identity(uid).length === 0 && (bindingsOf.get(uid) ?? []).every((b) => binding(b).length === 0),
  };
}

/** No token exchange has assumed the identity: its lastSeenTime is absent, or not after its createTime. */
function neverFederated(identity: {
  lastSeenTime?: string | undefined;
  createTime?: string | undefined;
}): boolean {
  if (identity.lastSeenTime === undefined) return true;
  return (
    identity.createTime !== undefined && Date.parse(identity.lastSeenTime) <= Date.parse(identity.createTime)
  );
}

/** How many of `groups` are strictly below each uid (any uid: a group listed or not). */
function countsBelow(groups: readonly { uid: string }[]): (uid: string) => number {
  const counts = new Map<string, number>();
  for (const { uid } of groups)
    for (const ancestor of ancestorsOf(uid)) counts.set(ancestor, (counts.get(ancestor) ?? 0) + 1);
  return (uid) => counts.get(uid) ?? 0;
}

/**
 * The bindings, each said once where it is bound, with how many groups of the review it reaches below its own, and
 * who holds anything (a binding that reaches a group of the review, to a role with capabilities the caller can read)
 * and who a privileged capability.
 */
function bindingsOf(data: AccessData, names: Names, managed: ReturnType<typeof managersOf> | undefined) {
  const below = countsBelow(data.groups);
  const listed = new Set(data.groups.map((g) => g.uid));
  const capabilities = new Map(data.roles.map((r) => [r.uid, r.capabilities ?? []]));
  const holders = new Set<string>();
  const privileged = new Set<string>();
  const bindings = data.bindings.map(bindingFacts).map((b): ReviewedBinding => {
    const reviewed: ReviewedBinding = {
      uid: b.uid,
      group: b.group,
      groupName: names.nameOf("group", b.group) ?? "",
      identity: b.identity,
      identityName: names.nameOf("identity", b.identity) ?? "",
      role: b.role,
      roleName: names.nameOf("role", b.role) ?? "",
      below: below(b.group),
      above: b.group !== data.top.uid && isAtOrBelow(data.top.uid, b.group),
      managedBy: managed?.binding(b.uid) ?? null,
    };
    const caps = capabilities.get(b.role) ?? [];
    if (caps.length > 0 && (listed.has(b.group) || reviewed.below > 0)) {
      holders.add(b.identity);
      if (caps.some(isPrivileged)) privileged.add(b.identity);
    }
    return reviewed;
  });
  return { bindings, holders, privileged };
}

/** The review of the subtree read into `data`. */
export function review(data: AccessData, options: ReviewOptions = {}): Review {
  const now = options.now ?? new Date();
  const unusedAfterDays = options.unusedAfterDays ?? DEFAULT_UNUSED_AFTER_DAYS;
  const states = options.states ?? [];
  const managed = states.length > 0 ? managersOf(data, states) : undefined;
  const names = namesOf(data);
  const { bindings, holders, privileged } = bindingsOf(data, names, managed);
  const listed = new Map(data.identities.map((i) => [i.uid, i]));
  const threshold = now.getTime() - unusedAfterDays * DAY_MS;
  const reviewed = (uid: string): ReviewedIdentity => {
    const found = listed.get(uid);
    // The service returns lastSeenTime from create on, as the creation time until a token exchange first assumes
    // the identity: one whose lastSeenTime is not after its createTime (or that has none) never federated. A
    // person's last login is not listed.
    const lastSeen = found === undefined || neverFederated(found) ? undefined : found.lastSeenTime;
    const unused =
      found === undefined ? null : lastSeen === undefined ? true : Date.parse(lastSeen) < threshold;
    return {
      uid,
      // Empty where no name is known (the uid is beside it): a uid is not a name.
      name: found?.name ?? names.nameOf("identity", uid) ?? "",
      kind: identityKind(uid),
      ...(lastSeen !== undefined ? { lastSeenTime: lastSeen } : {}),
      unused,
      unmanaged: managed === undefined ? null : managed.unmanaged(uid),
      managedBy: managed?.identity(uid) ?? null,
      privileged: privileged.has(uid),
    };
  };
  const identities = [...holders].sort(compare).map(reviewed);
  const depthBelowTop = (uid: string) => depthOf(uid) - depthOf(data.top.uid);
  const usedRoles = new Set(data.bindings.map((b) => b.role?.uid ?? ""));
  const callerName = data.caller === undefined ? undefined : names.nameOf("identity", data.caller);
  const r: Review = {
    format: REVIEW_FORMAT,
    formatVersion: REVIEW_FORMAT_VERSION,
    group: { uid: data.top.uid, name: data.top.name },
    ...(data.caller !== undefined ? { caller: data.caller } : {}),
    ...(callerName !== undefined ? { callerName } : {}),
    calls: data.calls,
    partial: data.partial,
    states: states.map((s) => s.file),
    unusedAfterDays,
    at: now.toISOString(),
    groups: data.groups.map((g) => ({
      uid: g.uid,
      name: g.name,
      ...(g.uid !== data.top.uid ? parentOfGroup(g.uid, names) : {}),
      depth: depthBelowTop(g.uid),
    })),
    identities,
    withoutAccess: data.identities.filter((i) => !holders.has(i.uid)).map((i) => reviewed(i.uid)),
    roles: data.roles
      .filter((r) => usedRoles.has(r.uid))
      .map((r) => ({
        uid: r.uid,
        name: r.name,
        builtin: isRoot(r.uid),
        capabilities: [...(r.capabilities ?? [])].sort(),
      })),
    bindings,
    ...(options.expand === true ? { grants: allGrants(data) } : {}),
  };
  if (options.since !== undefined) r.changes = changesBetween(options.since, r);
  return r;
}

/** A group's parent, uid and name (the name unless the caller may not read it). */
function parentOfGroup(uid: string, names: Names): { parent?: string; parentName?: string } {
  const parent = parentOf(uid);
  if (parent === undefined) return {};
  const name = names.nameOf("group", parent);
  return { parent, ...(name !== undefined ? { parentName: name } : {}) };
}

/** Identities a scheduled job should fail on: a privileged capability held by a workload or an unmanaged identity. */
export function privilegedFindings(r: Review): ReviewedIdentity[] {
  return r.identities.filter((i) => i.privileged && (i.kind === "workload" || i.unmanaged === true));
}
