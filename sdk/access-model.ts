/**
 * The access model, written once: who holds which capability on which group, and through which bindings. The
 * emulator's authorization, the access tools (`platform-access`), the `getEffectiveAccess` data source, the
 * provider's preview (impact lines, preflight) and the policy pack all ask these functions; none computes access
 * on its own. It is pure: the facts (roles' capabilities, bindings) come from the caller, read from the API (built-in
 * roles included: the model never names one) or, in the emulator, from its store.
 *
 * The rules, each with its source (docs/access-model.md gives them with examples):
 *   1. A role binding on group G grants its role's capabilities to its identity on G and on every group below G
 *      (spec §5.2 "Access is granted through role bindings on groups"; the uidp tree, spec §2: a child's uid is its
 *      parent's uid followed by "/" and a segment, so "below" is read from the uid alone).
 *   2. What an identity holds on G is the union over its bindings on G and on G's ancestors; nothing else grants
 *      (spec §5.2; there is no deny).
 *   3. An identity sees a position (a group uid) when it holds any binding there or above; elsewhere it is told
 *      "not found" (AIP-211; spec §5.2 "The caller sees ... only resources its identity has roles for").
 *   4. Each operation needs one capability at one position: `CAP_<stem>_<VERB>` where the collection's stem is
 *      the OpenAPI's Capability enum name, on the group that governs the object: a group's own uid for a group and
 *      an account association, the repo's group for a tag, the parent group otherwise; a create needs it on the
 *      parent group it creates under (OpenAPI `platform.capabilities.Capability`; the emulator's behaviour).
 *   5. No escalation: granting access (binding a role, inviting with a role, an identity provider's default role,
 *      putting capabilities into a custom role) needs, besides the operation's capability, every capability granted
 *      held by the caller on that group (emulator/README.md "No escalation": the real service cannot let an editor
 *      make itself owner).
 */
// Types only: the policy pack bundles this module, and the capability list lives beside zod.
import type { Capability, CapabilityStem } from "./schemas/capabilities";
import { COLLECTIONS, COLLECTION_NAMES, type CollectionName, type Position } from "./collections";
import { ancestorsOrSelf, isAtOrBelow, parentOf, underAny } from "./uidp";

/** A role as the model needs it: built-in or custom, read from the API. */
export interface RoleFacts {
  uid: string;
  name?: string;
  capabilities: readonly string[];
}

/** A role binding: `identity` holds `role` on `group` and below. */
export interface BindingFacts {
  uid: string;
  group: string;
  identity: string;
  role: string;
}

/** Where grants come from. The emulator implements it over its store; `AccessModel` over lists read from the API. */
export interface AccessFacts {
  /** Every binding of this identity that is in effect. */
  bindingsOf(identityUid: string): readonly BindingFacts[];
  /** The capabilities a binding of this role grants (none for an unknown role). */
  roleCapabilities(roleUid: string): readonly string[];
}

/** The uid helpers the model's users import from it; sdk/uidp.ts holds them. */
export { ancestorsOrSelf, isAtOrBelow, underAny };

/** The identity's bindings that apply on `groupUid`: on it or on one of its ancestors (rule 1). */
export function bindingsOn(facts: AccessFacts, identityUid: string, groupUid: string): BindingFacts[] {
  if (groupUid === "") return [];
  return facts.bindingsOf(identityUid).filter((b) => isAtOrBelow(groupUid, b.group));
}

/** Each capability the identity holds on `groupUid`, with the bindings that grant it (rules 1, 2). */
export function grantsOn(
  facts: AccessFacts,
  identityUid: string,
  groupUid: string,
): Map<string, BindingFacts[]> {
  const grants = new Map<string, BindingFacts[]>();
  for (const binding of bindingsOn(facts, identityUid, groupUid)) {
    for (const capability of facts.roleCapabilities(binding.role)) {
      const through = grants.get(capability);
      if (through === undefined) grants.set(capability, [binding]);
      else through.push(binding);
    }
  }
  return grants;
}

/** The capabilities the identity holds on `groupUid` (rules 1, 2). */
export function capabilitiesOn(facts: AccessFacts, identityUid: string, groupUid: string): Set<string> {
  const held = new Set<string>();
  for (const binding of bindingsOn(facts, identityUid, groupUid)) {
    for (const capability of facts.roleCapabilities(binding.role)) held.add(capability);
  }
  return held;
}

/** Does the identity see the position `groupUid` (rule 3)? */
export function sees(facts: AccessFacts, identityUid: string, groupUid: string): boolean {
  return bindingsOn(facts, identityUid, groupUid).length > 0;
}

/** The capabilities of `wanted` the identity lacks on `groupUid`, sorted (empty: granting them escalates nothing). */
export function missingOn(
  facts: AccessFacts,
  identityUid: string,
  groupUid: string,
  wanted: Iterable<string>,
): string[] {
  const held = capabilitiesOn(facts, identityUid, groupUid);
  return [...new Set(wanted)].filter((c) => !held.has(c)).sort();
}

/** The groups where the identity is bound to a role granting `capability`: it holds it there and below. */
export function grantRoots(facts: AccessFacts, identityUid: string, capability: Capability): Set<string> {
  const roots = new Set<string>();
  for (const binding of facts.bindingsOf(identityUid)) {
    if (facts.roleCapabilities(binding.role).includes(capability)) roots.add(binding.group);
  }
  return roots;
}

/**
 * The model over lists read from the API (or a stack's plan): roles (built-in ones as the API lists them) and
 * bindings. Answers for every identity at once: who holds a capability where, and what one identity holds.
 */
export class AccessModel implements AccessFacts {
  private readonly roles = new Map<string, RoleFacts>();
  private readonly byIdentity = new Map<string, BindingFacts[]>();

  constructor(facts: { roles: Iterable<RoleFacts>; bindings: Iterable<BindingFacts> }) {
    for (const role of facts.roles) this.roles.set(role.uid, role);
    for (const binding of facts.bindings) {
      const list = this.byIdentity.get(binding.identity);
      if (list === undefined) this.byIdentity.set(binding.identity, [binding]);
      else list.push(binding);
    }
  }

  bindingsOf(identityUid: string): readonly BindingFacts[] {
    return this.byIdentity.get(identityUid) ?? [];
  }

  roleCapabilities(roleUid: string): readonly string[] {
    return this.roles.get(roleUid)?.capabilities ?? [];
  }

  role(roleUid: string): RoleFacts | undefined {
    return this.roles.get(roleUid);
  }

  /** Every identity that holds at least one binding, sorted. */
  identities(): string[] {
    return [...this.byIdentity.keys()].sort();
  }

  /** Each identity holding `capability` on `groupUid`, with the bindings that grant it there. */
  holders(capability: string, groupUid: string): Map<string, BindingFacts[]> {
    const found = new Map<string, BindingFacts[]>();
    for (const identity of this.identities()) {
      const through = grantsOn(this, identity, groupUid).get(capability);
      if (through !== undefined) found.set(identity, through);
    }
    return found;
  }

  /** What the identity holds on each of `groups` (those where it holds nothing are left out). */
  grantsOf(identityUid: string, groups: Iterable<string>): Map<string, Map<string, BindingFacts[]>> {
    const found = new Map<string, Map<string, BindingFacts[]>>();
    for (const group of groups) {
      const grants = grantsOn(this, identityUid, group);
      if (grants.size > 0) found.set(group, grants);
    }
    return found;
  }
}

/** The API's collections, as the access rules see them (rule 4): the rows of ./collections. */
export type Collection = CollectionName;

export type Verb = "CREATE" | "UPDATE" | "LIST" | "DELETE";

interface CollectionAccess {
  /** The capability stem: `CAP_IAM_ROLE_BINDINGS` → `CAP_IAM_ROLE_BINDINGS_CREATE`, ... (OpenAPI Capability enum). */
  capability: CapabilityStem;
  /** The group whose bindings govern an object of this collection, from its uid alone (AIP-211). */
  position: (uid: string) => string;
}

/** The parent's position; "" (no group governs it) for a root object. */
const parentPosition = (uid: string): string => parentOf(uid) ?? "";

/** Each place ./collections may give for the governing group. */
const POSITIONS: Readonly<Record<Position, (uid: string) => string>> = {
  self: (uid) => uid,
  parent: parentPosition,
  // A tag lives under a repo; its repo's group governs it.
  grandparent: (uid) => parentPosition(parentPosition(uid)),
};

/** Rule 4, per collection: its capability stem and the position that governs its objects (./collections). */
export const COLLECTION_ACCESS: Readonly<Record<Collection, CollectionAccess>> = Object.fromEntries(
  COLLECTION_NAMES.map((c) => [
    c,
    { capability: COLLECTIONS[c].capability, position: POSITIONS[COLLECTIONS[c].position] },
  ]),
) as Record<Collection, CollectionAccess>;

/**
 * The capability an operation on `collection` needs (rule 4). The stem is a `CapabilityStem`, so a misspelt one does
 * not type-check; that each operation the API has is a capability is checked by test/sdk/capability-type.test.ts
 * (every collection and verb: all are, but an invite's UPDATE, which the API does not have).
 */
export function capabilityFor(collection: Collection, verb: Verb): Capability {
  return `${COLLECTION_ACCESS[collection].capability}_${verb}` as Capability;
}

/** One capability an operation needs, where, and why. */
export interface Need {
  capability: string;
  group: string;
  /** e.g. "create under acme/eng", "grant role deployer". */
  reason: string;
}

/** An operation a caller would perform, as the access rules see it. */
export type Operation =
  | {
      verb: "CREATE";
      collection: Collection;
      parent: string;
      grants?: readonly string[];
      grantsWhat?: string;
    }
  | { verb: "UPDATE"; collection: Collection; uid: string; grants?: readonly string[]; grantsWhat?: string }
  | { verb: "DELETE" | "LIST"; collection: Collection; uid: string };

/**
 * Every capability the operation needs and where (rules 4, 5): a read (LIST) of the object is needed before any
 * change of it, as the service decides visibility first; `grants` are the capabilities the operation hands out
 * (a binding's or invite's role, an identity provider's default role, the capabilities a role gains), each needed
 * on the same group.
 */
export function needsOf(operation: Operation): Need[] {
  const { collection, verb } = operation;
  if (verb === "CREATE") {
    const needs: Need[] = [
      {
        capability: capabilityFor(collection, "CREATE"),
        group: operation.parent,
        reason: `create under ${operation.parent}`,
      },
    ];
    return [...needs, ...grantNeeds(operation.grants, operation.parent, operation.grantsWhat)];
  }
  const group = COLLECTION_ACCESS[collection].position(operation.uid);
  const needs: Need[] = [
    { capability: capabilityFor(collection, "LIST"), group, reason: `read ${operation.uid}` },
  ];
  if (verb !== "LIST") {
    needs.push({
      capability: capabilityFor(collection, verb),
      group,
      reason: `${verb.toLowerCase()} ${operation.uid}`,
    });
  }
  if (verb === "UPDATE") needs.push(...grantNeeds(operation.grants, group, operation.grantsWhat));
  return needs;
}

function grantNeeds(grants: readonly string[] | undefined, group: string, what: string | undefined): Need[] {
  return [...new Set(grants ?? [])]
    .sort()
    .map((capability) => ({ capability, group, reason: `grant ${what ?? capability} (no escalation)` }));
}

/** The needs of `operation` that `identityUid` does not meet under `facts`. */
export function unmetNeeds(facts: AccessFacts, identityUid: string, operation: Operation): Need[] {
  return needsOf(operation).filter(
    (need) => !capabilitiesOn(facts, identityUid, need.group).has(need.capability),
  );
}

/**
 * Privileged capabilities: those with which an identity can grant access to itself or another (create or change
 * role bindings, roles, identity providers; create identities, which a workload may then assume; change an identity,
 * whose claim match decides who assumes it; create invites, which carry a role). A review marks them.
 */
export const PRIVILEGED_CAPABILITIES: ReadonlySet<string> = new Set<Capability>([
  "CAP_IAM_ROLE_BINDINGS_CREATE",
  "CAP_IAM_ROLE_BINDINGS_UPDATE",
  "CAP_IAM_ROLES_CREATE",
  "CAP_IAM_ROLES_UPDATE",
  "CAP_IAM_IDENTITY_CREATE",
  "CAP_IAM_IDENTITY_UPDATE",
  "CAP_IAM_GROUP_INVITES_CREATE",
  "CAP_IAM_IDENTITY_PROVIDERS_CREATE",
  "CAP_IAM_IDENTITY_PROVIDERS_UPDATE",
]);

export function isPrivileged(capability: string): boolean {
  return PRIVILEGED_CAPABILITIES.has(capability);
}

/** A role through which one side of a change comes: its uid, every capability it grants, and its binding's fate. */
export interface RoleGrant {
  uid: string;
  capabilities: readonly string[];
  /**
   * The binding is there before and after the change (its role was edited): what changes hands through it is part of
   * the role, never the role.
   */
  kept?: boolean;
}

/**
 * How a change of access is said (every output asks this, none decides it): a role whose every capability changes
 * hands with the change, through a binding made (or removed) by it, is said by its name ("becomes editor on folder
 * apps", "is no longer viewer there"); the capabilities no such role covers (a role edited, two bindings
 * overlapping, a role partly held already) are said one by one. `changed` is one side of a change (gained or lost),
 * `roles` those of the bindings through which it is gained (after) or was held (before), with their capabilities on
 * that side. A role that grants nothing is never whole (it changes nothing). Whole roles keep the order of `roles`,
 * once each; `rest` keeps `changed`'s order.
 */
export function byWholeRoles<R extends RoleGrant>(
  changed: readonly string[],
  roles: Iterable<R>,
): { whole: R[]; rest: string[] } {
  const changing = new Set(changed);
  const whole: R[] = [];
  const covered = new Set<string>();
  for (const role of roles) {
    if (role.kept === true || role.capabilities.length === 0 || whole.some((w) => w.uid === role.uid))
      continue;
    if (!role.capabilities.every((c) => changing.has(c))) continue;
    whole.push(role);
    for (const c of role.capabilities) covered.add(c);
  }
  return { whole, rest: changed.filter((c) => !covered.has(c)) };
}

/** An organization at one time, as a change of access is read from it: roles with their capabilities, and role bindings. */
export interface AccessSnapshot {
  roles: Iterable<RoleFacts>;
  bindings: readonly BindingFacts[];
}

const bindingKey = (b: BindingFacts) => `${b.uid}\u0000${b.group}\u0000${b.identity}\u0000${b.role}`;

/** A role's capabilities as one comparable value: none for a role not there. */
const capabilitySet = (capabilities: readonly string[] | undefined) =>
  [...new Set(capabilities ?? [])].sort().join(",");

/**
 * The roles whose capabilities differ between `before` and `after`: made, edited or deleted (a role not there holds
 * none).
 */
export function changedRoles(before: Iterable<RoleFacts>, after: Iterable<RoleFacts>): Set<string> {
  const capabilitiesOf = (roles: Iterable<RoleFacts>) =>
    new Map([...roles].map((r) => [r.uid, capabilitySet(r.capabilities)]));
  const was = capabilitiesOf(before);
  const is = capabilitiesOf(after);
  return new Set(
    [...new Set([...was.keys(), ...is.keys()])].filter((uid) => (was.get(uid) ?? "") !== (is.get(uid) ?? "")),
  );
}

/**
 * Where effective access may differ between `before` and `after`: the positions (groups) where a binding appears or
 * goes, or where a role whose capabilities changed is bound, and the identities of those bindings. Access differs
 * only on and below these positions (rule 1), and only for these identities (rule 2), so `accessDiff` need look
 * nowhere else.
 */
export function touchedBy(
  before: AccessSnapshot,
  after: AccessSnapshot,
): { positions: Set<string>; identities: Set<string> } {
  const positions = new Set<string>();
  const identities = new Set<string>();
  const mark = (b: BindingFacts) => {
    positions.add(b.group);
    identities.add(b.identity);
  };
  const was = new Set(before.bindings.map(bindingKey));
  const is = new Set(after.bindings.map(bindingKey));
  for (const b of before.bindings) if (!is.has(bindingKey(b))) mark(b);
  for (const b of after.bindings) if (!was.has(bindingKey(b))) mark(b);
  const changed = changedRoles(before.roles, after.roles);
  for (const b of [...before.bindings, ...after.bindings]) if (changed.has(b.role)) mark(b);
  return { positions, identities };
}

/** How effective access changes between two models, per identity and group. */
export interface AccessChange {
  identity: string;
  group: string;
  gained: string[];
  lost: string[];
}

/**
 * The difference in effective access between `before` and `after` on each of `groups` (those where nothing changes
 * are left out), for every identity bound in either. The basis of a preview's impact lines.
 */
export function accessDiff(
  before: AccessModel,
  after: AccessModel,
  groups: Iterable<string>,
): AccessChange[] {
  const identities = [...new Set([...before.identities(), ...after.identities()])].sort();
  const groupList = [...new Set(groups)].sort();
  const changes: AccessChange[] = [];
  for (const identity of identities) {
    // Where the identity has no binding at or above a group in either model, it holds nothing there in both.
    const roots = new Set(
      [...before.bindingsOf(identity), ...after.bindingsOf(identity)].map((b) => b.group),
    );
    for (const group of groupList) {
      if (!underAny(group, roots)) continue;
      const was = capabilitiesOn(before, identity, group);
      const is = capabilitiesOn(after, identity, group);
      const gained = [...is].filter((c) => !was.has(c)).sort();
      const lost = [...was].filter((c) => !is.has(c)).sort();
      if (gained.length > 0 || lost.length > 0) changes.push({ identity, group, gained, lost });
    }
  }
  return changes;
}

/** A change of access said once where it happens: on `group` and on the groups under it that change the same way. */
export interface CollapsedChange extends AccessChange {
  /** The groups under `group` that change exactly as it does, through an unbroken chain of such groups, sorted. */
  under: string[];
}

/**
 * Each identity's changes said once where they happen: a change on a group whose parent changes the same way for
 * the same identity is inherited from it, and is listed in the parent's `under` (the preview's impact lines and the
 * access review's changes read them so). Keeps the order of `changes` for the changes that remain.
 */
export function collapseInherited(changes: readonly AccessChange[]): CollapsedChange[] {
  const signature = (c: AccessChange) => `${c.gained.join(",")}|${c.lost.join(",")}`;
  const byKey = new Map<string, string>();
  const key = (identity: string, group: string) => `${identity}\u0000${group}`;
  for (const c of changes) byKey.set(key(c.identity, c.group), signature(c));
  /** The top of the unbroken chain of groups above `c.group` that change as it does. */
  const rootOf = (c: AccessChange): string => {
    const sig = signature(c);
    let root = c.group;
    for (let parent = parentOf(root); parent !== undefined; parent = parentOf(root)) {
      if (byKey.get(key(c.identity, parent)) !== sig) break;
      root = parent;
    }
    return root;
  };
  const under = new Map<string, string[]>();
  const kept: AccessChange[] = [];
  for (const c of changes) {
    const root = rootOf(c);
    if (root === c.group) kept.push(c);
    else {
      const list = under.get(key(c.identity, root));
      if (list === undefined) under.set(key(c.identity, root), [c.group]);
      else list.push(c.group);
    }
  }
  return kept.map((c) => ({ ...c, under: (under.get(key(c.identity, c.group)) ?? []).sort() }));
}
