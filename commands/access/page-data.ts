/**
 * The review as a tree, for the access page (./html embeds it and its script reads it) and the review's text
 * (./format): the review's groups as a tree ordered by name, the identities with their marks, each bound role once
 * with its capability set, and the role bindings, each on the group it is bound on, with the stacks' resources that
 * manage it. Built from the review's bindings, never from expanded grants (those repeat a binding's capabilities on
 * every group below it: 760,000 at 10,000 folders). References between them are indices into the lists. Also the
 * summary at the top of the page (what needs attention), worked out from the same data.
 */
import { isPrivileged } from "../../sdk/access-model";
import { isRoot, parentOf } from "../../sdk/uidp";
import {
  IDENTITY_NOUNS,
  byName,
  identityKind,
  nameText,
  pluralOf,
  resourceText,
  type IdentityKind,
} from "../../sdk/words";
import { resourceName, type Manager } from "../states";
import type { Review, ReviewedBinding } from "./review";

/** A stack's resource that manages an object, as a person reads it: its type and logical name (sdk/words). */
export function managerResource(m: Manager): string {
  return resourceText(m.type, resourceName(m.urn));
}

export interface PageGroup {
  uid: string;
  name: string;
  /** The parent's index; -1 for the group reviewed (index 0). */
  parent: number;
  /** How many groups are below it (its whole subtree but itself): the groups a binding on it also covers. */
  below: number;
}

export interface PageIdentity {
  uid: string;
  name: string;
  kind: IdentityKind;
  /** The group a workload lives in (its index; -1 when not in the tree); -1 for a person. */
  home: number;
  lastSeenTime?: string;
  /** As in the review: null where not known. */
  unused: boolean | null;
  unmanaged: boolean | null;
  privileged: boolean;
}

export interface PageRole {
  uid: string;
  name: string;
  builtin: boolean;
  /** Indices into `capabilities`; null when the caller may not read the role (its capabilities are not shown). */
  capabilities: number[] | null;
}

export interface PageCapability {
  name: string;
  /** One with which access can be granted (sdk/access-model PRIVILEGED_CAPABILITIES). */
  privileged: boolean;
}

export interface PageBinding {
  uid: string;
  identity: number;
  role: number;
  /** The group of the tree it is shown on: where it is bound, or the nearest one listed. */
  group: number;
  /**
   * Bound on a group the tree does not show: above the group reviewed (`above`: so on every group of the tree), or
   * one the caller may not list. Then shown on the nearest group of the tree.
   */
  elsewhere?: { uid: string; name: string; above: boolean };
  /**
   * The resources that manage it, each its stack (an index into `stacks`) and its resource, written
   * (`managerResource`): empty when no stack does; null when no state was given.
   */
  managedBy: { stack: number; resource: string }[] | null;
}

export interface PageData {
  groups: PageGroup[];
  identities: PageIdentity[];
  roles: PageRole[];
  capabilities: PageCapability[];
  bindings: PageBinding[];
  /** The stacks (or state files) that manage a binding, each once. */
  stacks: string[];
  unusedAfterDays: number;
  /** Whether states were given (else nobody is marked unmanaged and the filter is off). */
  unmanagedKnown: boolean;
  /** What the page calls each kind of identity, one and many: the words every output uses (../../sdk/words). */
  kindWords: Record<IdentityKind, [one: string, many: string]>;
}

const KIND_WORDS: PageData["kindWords"] = {
  person: [IDENTITY_NOUNS.person, pluralOf(IDENTITY_NOUNS.person)],
  workload: [IDENTITY_NOUNS.workload, pluralOf(IDENTITY_NOUNS.workload)],
};

/** The groups in tree order: each followed by its subtree, siblings by name. */
function treeOrder(r: Review): PageGroup[] {
  const children = new Map<string, Review["groups"]>();
  for (const g of r.groups.slice(1)) {
    // Every group but the top one is under another.
    const parent = g.parent ?? parentOf(g.uid)!;
    const list = children.get(parent);
    if (list === undefined) children.set(parent, [g]);
    else list.push(g);
  }
  const out: PageGroup[] = [];
  const top = r.groups[0];
  // Depth first without recursion (nothing bounds a tree's depth): a stack of [group, parent index], siblings pushed
  // in reverse so the first by name comes out first.
  const stack: [Review["groups"][number], number][] = top === undefined ? [] : [[top, -1]];
  while (stack.length > 0) {
    const [g, parent] = stack.pop()!;
    const index = out.length;
    out.push({ uid: g.uid, name: g.name, parent, below: 0 });
    const mine = (children.get(g.uid) ?? []).sort(byName);
    for (let i = mine.length - 1; i >= 0; i--) stack.push([mine[i]!, index]);
  }
  // In tree order a group's subtree follows it, so counting from the end sums each subtree before its parent.
  for (let i = out.length - 1; i > 0; i--) out[out[i]!.parent]!.below += 1 + out[i]!.below;
  return out;
}

/** Identities: each identity a binding names, users first, then by name (the uid when no name is known). */
function identitiesOf(r: Review, groupIndex: Map<string, number>): PageIdentity[] {
  const reviewed = new Map(r.identities.map((i) => [i.uid, i]));
  const all = new Map<string, PageIdentity>();
  const add = (uid: string, name: string) => {
    if (all.has(uid)) return;
    const i = reviewed.get(uid);
    const kind = i?.kind ?? identityKind(uid);
    const parent = parentOf(uid);
    all.set(uid, {
      uid,
      name: i?.name || name || uid,
      kind,
      home: kind === "workload" && parent !== undefined ? (groupIndex.get(parent) ?? -1) : -1,
      ...(i?.lastSeenTime !== undefined ? { lastSeenTime: i.lastSeenTime } : {}),
      unused: i?.unused ?? null,
      unmanaged: i?.unmanaged ?? null,
      privileged: i?.privileged ?? false,
    });
  };
  for (const i of r.identities) add(i.uid, i.name);
  for (const b of r.bindings) add(b.identity, b.identityName);
  const rank = (i: PageIdentity) => (i.kind === "person" ? 0 : 1);
  return [...all.values()].sort((a, b) => rank(a) - rank(b) || byName(a, b));
}

/** The page's data. */
export function pageData(r: Review): PageData {
  const groups = treeOrder(r);
  const groupIndex = new Map(groups.map((g, i) => [g.uid, i]));
  const identities = identitiesOf(r, groupIndex);
  const identityIndex = new Map(identities.map((x, i) => [x.uid, i]));

  const readable = new Map(r.roles.map((role) => [role.uid, role]));
  const capabilityNames = [...new Set(r.roles.flatMap((role) => role.capabilities))].sort();
  const capabilityIndex = new Map(capabilityNames.map((c, i) => [c, i]));
  const roleNames = new Map<string, string>();
  for (const b of r.bindings) roleNames.set(b.role, b.roleName);
  const roles: PageRole[] = [...roleNames]
    .map(([uid, name]) => {
      const role = readable.get(uid);
      return {
        uid,
        name: role?.name || name || uid,
        builtin: isRoot(uid),
        capabilities: role === undefined ? null : role.capabilities.map((c) => capabilityIndex.get(c)!),
      };
    })
    .sort(byName);
  const roleIndex = new Map(roles.map((role, i) => [role.uid, i]));

  /** The nearest group of the tree at or above `uid`; the top when `uid` is above it. */
  const shownOn = (uid: string): number => {
    for (let at: string | undefined = uid; at !== undefined; at = parentOf(at)) {
      const i = groupIndex.get(at);
      if (i !== undefined) return i;
    }
    return 0;
  };
  const place = (b: ReviewedBinding): Pick<PageBinding, "group" | "elsewhere"> => {
    const here = groupIndex.get(b.group);
    if (here !== undefined) return { group: here };
    return {
      group: shownOn(b.group),
      elsewhere: { uid: b.group, name: nameText(b.groupName || b.group), above: b.above },
    };
  };
  const stacks: string[] = [];
  const stackIndex = new Map<string, number>();
  const stack = (name: string) => {
    let index = stackIndex.get(name);
    if (index === undefined) stackIndex.set(name, (index = stacks.push(name) - 1));
    return index;
  };
  const bindings: PageBinding[] = r.bindings
    .map((b) => ({
      uid: b.uid,
      identity: identityIndex.get(b.identity)!,
      role: roleIndex.get(b.role)!,
      ...place(b),
      managedBy: b.managedBy?.map((m) => ({ stack: stack(m.stack), resource: managerResource(m) })) ?? null,
    }))
    .sort(
      (a, b) =>
        a.group - b.group ||
        a.identity - b.identity ||
        byName(roles[a.role]!, roles[b.role]!) ||
        (a.uid < b.uid ? -1 : 1),
    );

  // Sorted by the names as the service gave them (the one order), written as every output writes them: a hard name
  // (a space, a bidi override, a zero-width character) in quotes with its escapes, as the text and Markdown say it.
  const written = <T extends { name: string }>(x: T): T => ({ ...x, name: nameText(x.name) });
  return {
    groups: groups.map(written),
    identities: identities.map(written),
    roles: roles.map(written),
    capabilities: capabilityNames.map((name) => ({ name, privileged: isPrivileged(name) })),
    bindings,
    stacks,
    unusedAfterDays: r.unusedAfterDays,
    unmanagedKnown: r.states.length > 0,
    kindWords: KIND_WORDS,
  };
}

/** The questions the top of the page answers, each with the identities it is about (indices into `identities`). */
export interface Summary {
  privilegedWorkloads: number[];
  privilegedHolders: number[];
  unused: number[];
  /** null when no state was given. */
  unmanaged: number[] | null;
  people: number[];
  workloads: number[];
}

export function summaryOf(data: PageData): Summary {
  const where = (test: (i: PageIdentity) => boolean) =>
    data.identities.flatMap((i, index) => (test(i) ? [index] : []));
  return {
    privilegedWorkloads: where((i) => i.privileged && i.kind === "workload"),
    privilegedHolders: where((i) => i.privileged),
    unused: where((i) => i.unused === true),
    unmanaged: data.unmanagedKnown ? where((i) => i.unmanaged === true) : null,
    people: where((i) => i.kind === "person"),
    workloads: where((i) => i.kind === "workload"),
  };
}
