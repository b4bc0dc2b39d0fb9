/**
 * Who can do what, where, and why: the review of a group's subtree, and the two questions it answers (who holds a
 * capability on a group; what an identity holds on each group). Every answer comes from the access model
 * (sdk/access-model.ts: a binding grants its role's capabilities on its group and every group below; what an
 * identity holds is the union over its bindings there and above); nothing here computes access on its own.
 *
 * The review as data (`--json`) says what it is and in which version of its shape (`format`, `formatVersion`: see
 * ./changes), when it was read and as whom, names beside every uid, and enough to rebuild the access model from it
 * (bindings, roles with their capabilities, groups, identities), so that a later review can say what changed since.
 *
 * May import: ../../sdk (types), ../../sdk/access-model, ../states, ./read, ./changes, ./names.
 */
import {
  AccessModel,
  ancestorsOrSelf,
  grantsOn,
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
import { identityKind, type IdentityKind } from "./names";

/** A binding through which a capability is held. */
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

/** One capability an identity holds on one group. */
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
  name: string;
  /** Root-level users (no parent) are people; identities under a group are workloads. */
  kind: IdentityKind;
  /** The last token exchange that assumed it; absent when none ever has. */
  lastSeenTime?: string;
  /** No token exchange since the threshold (or ever); null when not known (a person's last login is not listed). */
  unused: boolean | null;
  /** No state declares it or any of its bindings; null when no state was given. */
  unmanaged: boolean | null;
  /**
   * What manages the identity and each binding it holds (null when no state was given): the resources declaring the
   * identity, and per binding the RoleBinding that holds it by uid or the GroupAccess or IdentityAccess whose scope
   * holds it (`by` empty: no stack manages it).
   */
  managedBy: { identity: Manager[]; bindings: { binding: string; by: Manager[] }[] } | null;
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

/**
 * A role binding in effect in the subtree, by name: on a group of it, or on one above it (then every group of the
 * subtree inherits it). The page is built from these (each said once, where it is bound), not from `grants`.
 */
export interface ReviewedBinding {
  uid: string;
  identity: string;
  identityName: string;
  role: string;
  roleName: string;
  group: string;
  /** The group's name (its uid when the caller may not see it). */
  groupName: string;
}

export interface ReviewedRole {
  uid: string;
  name: string;
  builtin: boolean;
  capabilities: string[];
}

/** A role binding that applies in the subtree: on the group reviewed, one of its ancestors, or below it. */
export interface ReviewedBinding {
  uid: string;
  group: string;
  groupName: string;
  identity: string;
  identityName: string;
  role: string;
  roleName: string;
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
  /** The role bindings on the subtree and above it, in uid order. */
  bindings: ReviewedBinding[];
  /** Every capability held by every identity on every group of the subtree, sorted by group, identity, capability. */
  grants: Grant[];
  /** What changed since an earlier review (--since). */
  changes?: ReviewChanges;
}

export interface ReviewOptions {
  states?: { file: string; contents: StateContents }[];
  unusedAfterDays?: number;
  now?: Date;
  /** An earlier review of the same group: the review then says what changed since (./changes). */
  since?: ReviewFacts;
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
      groupName: names.groups.get(group) ?? "",
      identity,
      identityName: names.identities.get(identity) ?? "",
      capability,
      privileged: isPrivileged(capability),
      through: through.map((b: BindingFacts) => ({
        binding: b.uid,
        role: b.role,
        roleName: names.roles.get(b.role) ?? b.role,
        boundOn: b.group,
        boundOnName: names.groups.get(b.group) ?? b.group,
        inherited: b.group !== group,
      })),
    });
  }
  return out.sort((a, b) => compare(a.capability, b.capability));
}

interface Names {
  roles: Map<string, string>;
  groups: Map<string, string>;
  identities: Map<string, string>;
}

/** Names of roles, groups and identities: from the lists, and from the bindings (which name what they refer to). */
function namesOf(data: AccessData): Names {
  const roles = new Map<string, string>();
  const groups = new Map<string, string>();
  const identities = new Map<string, string>();
  for (const b of data.bindings) {
    if (b.role?.name) roles.set(b.role.uid, b.role.name);
    if (b.group?.name) groups.set(b.group.uid, b.group.name);
    if (b.identity?.name) identities.set(b.identity.uid, b.identity.name);
  }
  for (const r of data.roles) roles.set(r.uid, r.name);
  for (const g of data.groups) groups.set(g.uid, g.name);
  for (const i of data.identities) identities.set(i.uid, i.name);
  return { roles, groups, identities };
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

/** Every grant in the subtree: per group, per identity bound there or above, what the model says it holds. */
export function allGrants(data: AccessData, model = modelOf(data)): Grant[] {
  const names = namesOf(data);
  const grants: Grant[] = [];
  const bound = boundAbove(data);
  for (const g of data.groups)
    for (const identity of [...(bound.get(g.uid) ?? [])].sort(compare))
      grants.push(...grantsHere(model, names, identity, g.uid));
  return grants;
}

/** Who holds `capability` on `group`, and why (sdk/access-model AccessModel.holders). */
export function whoCan(data: AccessData, capability: string, group: string): Grant[] {
  const model = modelOf(data);
  const names = namesOf(data);
  const grants: Grant[] = [];
  for (const identity of model.holders(capability, group).keys())
    grants.push(...grantsHere(model, names, identity, group).filter((g) => g.capability === capability));
  return grants;
}

/** What `identity` holds on each group of the subtree (sdk/access-model AccessModel.grantsOf). */
export function whatCan(data: AccessData, identity: string): Grant[] {
  const model = modelOf(data);
  const names = namesOf(data);
  const grants: Grant[] = [];
  for (const group of model
    .grantsOf(
      identity,
      data.groups.map((g) => g.uid),
    )
    .keys())
    grants.push(...grantsHere(model, names, identity, group));
  return grants;
}

/** What manages each identity and each of its bindings, by identity uid. */
function managedBy(data: AccessData, states: { contents: StateContents }[]) {
  const managers = new Managers(states);
  const byIdentity = new Map<
    string,
    { identity: Manager[]; bindings: { binding: string; by: Manager[] }[] }
  >();
  const entry = (uid: string) => {
    let found = byIdentity.get(uid);
    if (found === undefined)
      byIdentity.set(uid, (found = { identity: managers.of("identity", uid), bindings: [] }));
    return found;
  };
  for (const b of data.bindings.map(bindingFacts))
    entry(b.identity).bindings.push({
      binding: b.uid,
      by: managers.managersOf("roleBinding", b.uid, {
        groupUid: b.group,
        identityUid: b.identity,
        roleUid: b.role,
      }),
    });
  return { of: entry };
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

/** The review of the subtree read into `data`. */
export function review(data: AccessData, options: ReviewOptions = {}): Review {
  const now = options.now ?? new Date();
  const unusedAfterDays = options.unusedAfterDays ?? DEFAULT_UNUSED_AFTER_DAYS;
  const states = options.states ?? [];
  const grants = allGrants(data);
  const managed = states.length > 0 ? managedBy(data, states) : undefined;
  const listed = new Map(data.identities.map((i) => [i.uid, i]));
  const named = new Map<string, string>();
  for (const b of data.bindings) if (b.identity?.name) named.set(b.identity.uid, b.identity.name);
  const privileged = new Set(grants.filter((g) => g.privileged).map((g) => g.identity));
  const holders = [...new Set(grants.map((g) => g.identity))].sort(compare);
  const threshold = now.getTime() - unusedAfterDays * DAY_MS;
  const reviewed = (uid: string): ReviewedIdentity => {
    const found = listed.get(uid);
    // The service returns lastSeenTime from create on, as the creation time until a token exchange first assumes
    // the identity: one whose lastSeenTime is not after its createTime (or that has none) never federated. A
    // person's last login is not listed.
    const lastSeen = found === undefined || neverFederated(found) ? undefined : found.lastSeenTime;
    const unused =
      found === undefined ? null : lastSeen === undefined ? true : Date.parse(lastSeen) < threshold;
    const managers = managed?.of(uid);
    return {
      uid,
      name: found?.name ?? named.get(uid) ?? uid,
      kind: identityKind(uid),
      ...(lastSeen !== undefined ? { lastSeenTime: lastSeen } : {}),
      unused,
      unmanaged:
        managers === undefined
          ? null
          : managers.identity.length === 0 && managers.bindings.every((b) => b.by.length === 0),
      managedBy: managers ?? null,
      privileged: privileged.has(uid),
    };
  };
  const identities = holders.map(reviewed);
  const holding = new Set(holders);
  const depthOf = (uid: string) => uid.split("/").length - data.top.uid.split("/").length;
  const usedRoles = new Set(data.bindings.map((b) => b.role?.uid ?? ""));
  const names = namesOf(data);
  const callerName = data.caller === undefined ? undefined : names.identities.get(data.caller);
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
      ...(g.uid !== data.top.uid ? parentOf(g.uid, names) : {}),
      depth: depthOf(g.uid),
    })),
    identities,
    withoutAccess: data.identities.filter((i) => !holding.has(i.uid)).map((i) => reviewed(i.uid)),
    roles: data.roles
      .filter((r) => usedRoles.has(r.uid))
      .map((r) => ({
        uid: r.uid,
        name: r.name,
        builtin: !r.uid.includes("/"),
        capabilities: [...(r.capabilities ?? [])].sort(),
      })),
    bindings: data.bindings.map(bindingFacts).map((b) => ({
      uid: b.uid,
      group: b.group,
      groupName: names.groups.get(b.group) ?? "",
      identity: b.identity,
      identityName: names.identities.get(b.identity) ?? "",
      role: b.role,
      roleName: names.roles.get(b.role) ?? "",
    })),
    grants,
  };
  if (options.since !== undefined) r.changes = changesBetween(options.since, r);
  return r;
}

/** A group's parent, uid and name (the name unless the caller may not read it). */
function parentOf(uid: string, names: Names): { parent: string; parentName?: string } {
  const parent = uid.slice(0, uid.lastIndexOf("/"));
  const name = names.groups.get(parent);
  return { parent, ...(name !== undefined ? { parentName: name } : {}) };
}

/** Identities a scheduled job should fail on: a privileged capability held by a workload or an unmanaged identity. */
export function privilegedFindings(r: Review): ReviewedIdentity[] {
  return r.identities.filter((i) => i.privileged && (i.kind === "workload" || i.unmanaged === true));
}
