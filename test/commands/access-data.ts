/**
 * Random organizations as the access tools read them (commands/access/read.ts): no emulator, so a property runs
 * hundreds of them. Names repeat and hold markup, groups nest, bindings sit on the group reviewed, above it and below
 * it, and some workloads have exchanged a token.
 */
import fc from "fast-check";
import type { AccessData } from "../../commands/access/read";
import { review, type Review } from "../../commands/access/review";
import { CAP_POOL } from "./access-fixtures";

export const ORG = "c".repeat(40);
const hex = (n: number) => n.toString(16).padStart(16, "0");
export const NOW = new Date("2026-06-01T00:00:00Z");

export interface Plan {
  /** Each group's parent: an earlier group, or -1 (the organization). */
  parents: number[];
  names: string[];
  /** Each workload's group (-1: the organization). */
  workloads: number[];
  people: number;
  roles: string[][];
  bindings: { identity: number; role: number; group: number }[];
  /** Review the organization (-1) or a group of it. */
  top: number;
  /** Workloads that have exchanged a token lately. */
  used: number[];
  /** Groups the caller may not list (nor anything under them): bindings on them are read, the groups are not. */
  hidden: number[];
}

export const plan: fc.Arbitrary<Plan> = fc
  .record({
    parents: fc.array(fc.nat(), { maxLength: 14 }),
    names: fc.array(fc.constantFrom("team-2", "team-10", "Team-1", "b", "a", "<i>x</i>", "team-2"), {
      minLength: 14,
      maxLength: 14,
    }),
    workloads: fc.array(fc.nat(), { maxLength: 6 }),
    people: fc.nat(2),
    roles: fc.array(fc.subarray([...CAP_POOL]), { minLength: 1, maxLength: 4 }),
    bindings: fc.array(fc.record({ identity: fc.nat(), role: fc.nat(), group: fc.nat() }), { maxLength: 16 }),
    top: fc.nat(),
    used: fc.array(fc.nat(), { maxLength: 3 }),
    hidden: fc.array(fc.nat(), { maxLength: 2 }),
  })
  .map((p) => ({
    ...p,
    parents: p.parents.map((x, i) => (x % (i + 1)) - 1),
    workloads: p.workloads.map((x) => (p.parents.length === 0 ? -1 : (x % (p.parents.length + 1)) - 1)),
    top: p.parents.length === 0 ? -1 : (p.top % (p.parents.length + 1)) - 1,
    hidden: p.parents.length === 0 ? [] : p.hidden.map((x) => x % p.parents.length),
  }));

/** The plan as the access tools read it (commands/access/read.ts): the subtree of `top`, bindings there and above. */
export function accessData(p: Plan): AccessData {
  const groups: { uid: string; name: string }[] = [];
  const uidOf = (i: number) => (i < 0 ? ORG : groups[i]!.uid);
  p.parents.forEach((parent, i) =>
    groups.push({ uid: `${uidOf(parent)}/${hex(i + 1)}`, name: p.names[i] ?? `g${i}` }),
  );
  const all = [{ uid: ORG, name: "acme" }, ...groups];
  const at = (i: number) => all[(i % all.length) + 0]!;
  const workloads = p.workloads.map((g, i) => ({
    uid: `${uidOf(g)}/${hex(0x100 + i)}`,
    name: `wl-${i}`,
    ...(p.used.includes(i) ? { lastSeenTime: "2026-05-30T00:00:00Z" } : {}),
  }));
  const people = Array.from({ length: p.people }, (_, i) => ({
    uid: hex(0x200 + i).padStart(40, "0"),
    name: `p${i}`,
  }));
  const identities = [...workloads, ...people];
  const roles = p.roles.map((capabilities, i) => ({
    uid: `${ORG}/${hex(0x300 + i)}`,
    name: `role-${i}`,
    capabilities,
  }));
  const top = at(p.top + 1);
  const hidden = p.hidden.map((i) => groups[i]!.uid).filter((uid) => uid.startsWith(`${top.uid}/`));
  const listed = (uid: string) => !hidden.some((h) => uid === h || uid.startsWith(`${h}/`));
  const inTree = (uid: string) => uid === top.uid || uid.startsWith(`${top.uid}/`);
  const above = (uid: string) => top.uid === uid || top.uid.startsWith(`${uid}/`);
  const bindings =
    identities.length === 0
      ? []
      : p.bindings.map((b, i) => {
          const group = at(b.group);
          const identity = identities[b.identity % identities.length]!;
          const role = roles[b.role % roles.length]!;
          return {
            uid: `${group.uid}/${hex(0x400 + i)}`,
            // A group the caller may not list is known by its uid alone.
            group: listed(group.uid) ? group : { uid: group.uid },
            identity: { uid: identity.uid, name: identity.name },
            role: { uid: role.uid, name: role.name },
          };
        });
  const byUid = <T extends { uid: string }>(a: T, b: T) => (a.uid < b.uid ? -1 : 1);
  return {
    top: top as AccessData["top"],
    groups: [
      top,
      ...groups.filter((g) => g.uid !== top.uid && inTree(g.uid) && listed(g.uid)).sort(byUid),
    ] as AccessData["groups"],
    identities: workloads.filter(
      (w) => w.uid.startsWith(`${top.uid}/`) && listed(w.uid.slice(0, w.uid.lastIndexOf("/"))),
    ) as AccessData["identities"],
    roles: roles as AccessData["roles"],
    bindings: bindings
      .filter((b) => inTree(b.group.uid) || above(b.group.uid))
      .sort(byUid) as AccessData["bindings"],
    caller: undefined,
    partial: [],
    calls: 0,
  };
}

export const emptyPlan: Plan = {
  parents: [],
  names: [],
  workloads: [],
  people: 0,
  roles: [[]],
  bindings: [],
  top: -1,
  used: [],
  hidden: [],
};

/** One folder under the organization, one workload in it, bound there to one role of one capability. */
export const oneBinding: Plan = {
  ...emptyPlan,
  parents: [-1],
  names: ["team"],
  workloads: [0],
  roles: [["CAP_REPO_LIST"]],
  bindings: [{ identity: 0, role: 0, group: 1 }],
};

/** Asserts `check` on the data of random plans and their review as of NOW, with the given runs and seed. */
export function forEveryReview(
  check: (data: AccessData, r: Review) => void,
  parameters: fc.Parameters<[Plan]>,
): void {
  fc.assert(
    fc.property(plan, (p) => {
      const data = accessData(p);
      check(data, review(data, { now: NOW }));
    }),
    parameters,
  );
}
