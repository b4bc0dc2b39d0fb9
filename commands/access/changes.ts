/**
 * What changed between two access reviews of the same group (`platform-access review --since PREVIOUS.json`): the
 * access gained and lost, identities and groups new and gone, roles whose capabilities changed, privileged changes
 * first. The access part is the shared model's difference (sdk/access-model `accessDiff` over the models rebuilt
 * from each review's roles and bindings, on every group of either review, worked out where a change can reach it:
 * ./difference), said once where it happens
 * (`collapseInherited`: on a group "and the N groups under it"), with the bindings through which each capability is
 * gained (in the later review) or was held (in the earlier one). Nothing here computes access on its own.
 *
 * A "change of access" is one identity's gained and lost capabilities on one group (and the groups under it that
 * change the same way). A new group shows only what differs from what it inherits (its own bindings); a group gone
 * shows the access its own bindings gave. An identity is in a review when it is a workload identity under the group
 * or holds access there (a person is known only by its bindings): "new" and "gone" compare those sets.
 *
 * Also reads a previous review's JSON, refusing in one line a file that is not a review, a format version it does
 * not know, or a review of another group.
 */
import { z } from "zod";
import {
  AccessModel,
  byWholeRoles,
  collapseInherited,
  grantsOn,
  isPrivileged,
  type BindingFacts,
} from "../../sdk/access-model";
import { Refusal } from "../command";
import { accessDifference } from "./difference";
import {
  compareNames,
  identityKind,
  lineText,
  nameText,
  type IdentityKind,
  type Names,
} from "../../sdk/words";
import { namesFrom } from "./names";

/** What the review JSON says it is, and the version of its shape this code writes and reads. */
export const REVIEW_FORMAT = "platform-access review";
export const REVIEW_FORMAT_VERSION = 3;

/**
 * The versions `--since` reads: 2 held an identity's uid as its name where no name was known; 3 leaves the name
 * empty there (the uid is beside it). Both carry the same members.
 */
export const READABLE_FORMAT_VERSIONS: readonly number[] = [2, 3];

/** The part of a review the changes are computed from: what its JSON carries (see REVIEW_FORMAT_VERSION). */
export interface ReviewFacts {
  group: { uid: string; name: string };
  at: string;
  caller?: string | undefined;
  callerName?: string | undefined;
  partial: readonly string[];
  groups: readonly { uid: string; name: string; parent?: string | undefined }[];
  /** Identities holding access in the subtree. */
  identities: readonly { uid: string; name: string; kind: IdentityKind; privileged: boolean }[];
  /** Workload identities under the group that hold no access there. */
  withoutAccess: readonly { uid: string; name: string; kind: IdentityKind }[];
  roles: readonly { uid: string; name: string; capabilities: readonly string[] }[];
  bindings: readonly BindingFacts[];
}

/** A binding through which a capability of a change is gained (in the later review) or was held (the earlier). */
export interface ChangedThrough {
  change: "gained" | "lost";
  binding: string;
  role: string;
  roleName: string;
  boundOn: string;
  boundOnName: string;
  /** The capabilities of the change this binding grants (or granted). */
  capabilities: string[];
  /**
   * Its role changes hands whole: every capability the role grants is gained (or lost) with the change, so the
   * change is said by the role's name (sdk/access-model `byWholeRoles`); `capabilities` is then the role's.
   */
  whole: boolean;
}

/** One identity's change of access on a group, and on the groups under it that change the same way. */
export interface ChangedAccess {
  identity: string;
  identityName: string;
  identityKind: IdentityKind;
  group: string;
  groupName: string;
  under: { uid: string; name: string }[];
  gained: string[];
  lost: string[];
  /** Gains or loses a privileged capability (sdk/access-model isPrivileged). */
  privileged: boolean;
  through: ChangedThrough[];
}

export interface ChangedIdentity {
  uid: string;
  name: string;
  kind: IdentityKind;
  /** Holds a privileged capability in the review where it is present. */
  privileged: boolean;
}

export interface ChangedGroup {
  uid: string;
  name: string;
  parent?: string;
  parentName?: string;
}

export interface ChangedRole {
  uid: string;
  name: string;
  added: string[];
  removed: string[];
}

export interface ReviewChanges {
  /** The earlier review: when it was read and as whom. */
  since: { at: string; caller?: string; callerName?: string };
  /** Either review was partial: a change may be only what the caller could see then or now. */
  partial: boolean;
  /** Privileged changes first (gains, then losses), then the others; each by identity and group. */
  access: ChangedAccess[];
  identities: { new: ChangedIdentity[]; gone: ChangedIdentity[] };
  groups: { new: ChangedGroup[]; gone: ChangedGroup[] };
  roles: ChangedRole[];
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The names both reviews know, the later one's first. */
function namesOf(before: ReviewFacts, after: ReviewFacts): Names {
  const sources = (r: ReviewFacts) => ({
    identities: [...r.identities, ...r.withoutAccess],
    groups: r.groups,
    roles: r.roles,
  });
  return namesFrom(sources(after), sources(before));
}

/** The bindings of `model` through which `identity` holds `capabilities` on `group`, each with those it grants. */
function throughOf(
  model: AccessModel,
  other: AccessModel,
  names: Names,
  change: ChangedThrough["change"],
  identity: string,
  group: string,
  capabilities: readonly string[],
): ChangedThrough[] {
  const grants = grantsOn(model, identity, group);
  const byBinding = new Map<string, ChangedThrough>();
  for (const capability of capabilities)
    for (const b of grants.get(capability) ?? []) {
      const entry = byBinding.get(b.uid) ?? {
        change,
        binding: b.uid,
        role: b.role,
        roleName: names.nameOf("role", b.role) ?? "",
        boundOn: b.group,
        boundOnName: names.nameOf("group", b.group) ?? "",
        capabilities: [],
        whole: false,
      };
      entry.capabilities.push(capability);
      byBinding.set(b.uid, entry);
    }
  const through = [...byBinding.values()];
  // A binding in both reviews changes hands only in part (its role was edited): never said as the whole role.
  const kept = new Set(other.bindingsOf(identity).map((b) => b.uid));
  const { whole } = byWholeRoles(
    capabilities,
    through.map((t) => ({
      uid: t.role,
      capabilities: model.roleCapabilities(t.role),
      kept: kept.has(t.binding),
      through: t,
    })),
  );
  for (const w of whole) w.through.whole = true;
  return through;
}

/** Privileged gains first, then privileged losses, then the rest. */
function rank(c: ChangedAccess): number {
  if (c.gained.some(isPrivileged)) return 0;
  return c.privileged ? 1 : 2;
}

/** The access gained and lost between the two reviews, said once where it happens. */
function accessChanges(before: ReviewFacts, after: ReviewFacts, names: Names): ChangedAccess[] {
  const groups = [...new Set([...before.groups, ...after.groups].map((g) => g.uid))];
  const { changes: diff, before: was, after: is } = accessDifference(before, after, groups);
  const changes = collapseInherited(diff).map((c): ChangedAccess => ({
    identity: c.identity,
    identityName: names.nameOf("identity", c.identity) ?? "",
    identityKind: identityKind(c.identity),
    group: c.group,
    groupName: names.nameOf("group", c.group) ?? "",
    under: c.under.map((uid) => ({ uid, name: names.nameOf("group", uid) ?? "" })),
    gained: c.gained,
    lost: c.lost,
    privileged: [...c.gained, ...c.lost].some(isPrivileged),
    through: [
      ...throughOf(is, was, names, "gained", c.identity, c.group, c.gained),
      ...throughOf(was, is, names, "lost", c.identity, c.group, c.lost),
    ],
  }));
  return changes.sort(
    (a, b) =>
      rank(a) - rank(b) ||
      compareNames(names.rawName("identity", a.identity), names.rawName("identity", b.identity)) ||
      compare(a.identity, b.identity) ||
      compareNames(names.rawName("group", a.group), names.rawName("group", b.group)) ||
      compare(a.group, b.group),
  );
}

/** What is in `a` and not in `b`, by uid, in `a`'s order. */
function missingFrom<T extends { uid: string }>(a: readonly T[], b: readonly T[]): T[] {
  const there = new Set(b.map((x) => x.uid));
  return a.filter((x) => !there.has(x.uid));
}

function identitiesOf(r: ReviewFacts): ChangedIdentity[] {
  return [
    ...r.identities.map((i) => ({ uid: i.uid, name: i.name, kind: i.kind, privileged: i.privileged })),
    ...r.withoutAccess.map((i) => ({ uid: i.uid, name: i.name, kind: i.kind, privileged: false })),
  ];
}

function groupsOf(r: ReviewFacts, names: Names): ChangedGroup[] {
  return r.groups.map((g) => ({
    uid: g.uid,
    name: g.name,
    ...(g.parent !== undefined
      ? { parent: g.parent, parentName: names.nameOf("group", g.parent) ?? "" }
      : {}),
  }));
}

/** Roles in both reviews whose capabilities differ. */
function roleChanges(before: ReviewFacts, after: ReviewFacts): ChangedRole[] {
  const was = new Map(before.roles.map((r) => [r.uid, new Set(r.capabilities)]));
  const out: ChangedRole[] = [];
  for (const role of after.roles) {
    const old = was.get(role.uid);
    if (old === undefined) continue;
    const now = new Set(role.capabilities);
    const added = [...now].filter((c) => !old.has(c)).sort();
    const removed = [...old].filter((c) => !now.has(c)).sort();
    if (added.length > 0 || removed.length > 0) out.push({ uid: role.uid, name: role.name, added, removed });
  }
  return out.sort((a, b) => compareNames(a.name || a.uid, b.name || b.uid) || compare(a.uid, b.uid));
}

/** Privileged first, then by name (the uid where none is known) in the one order (../../sdk/words). */
const byPrivilegeAndName = (a: ChangedIdentity, b: ChangedIdentity) =>
  Number(b.privileged) - Number(a.privileged) ||
  compareNames(a.name || a.uid, b.name || b.uid) ||
  compare(a.uid, b.uid);

/** Groups by name (the uid where none is known) in the one order. */
const groupsByName = (a: ChangedGroup, b: ChangedGroup) =>
  compareNames(a.name || a.uid, b.name || b.uid) || compare(a.uid, b.uid);

/** What changed from `before` to `after` (two reviews of the same group). */
export function changesBetween(before: ReviewFacts, after: ReviewFacts): ReviewChanges {
  const names = namesOf(before, after);
  const identitiesBefore = identitiesOf(before);
  const identitiesAfter = identitiesOf(after);
  return {
    since: {
      at: before.at,
      ...(before.caller !== undefined ? { caller: before.caller } : {}),
      ...(before.callerName !== undefined ? { callerName: before.callerName } : {}),
    },
    partial: before.partial.length > 0 || after.partial.length > 0,
    access: accessChanges(before, after, names),
    identities: {
      new: missingFrom(identitiesAfter, identitiesBefore).sort(byPrivilegeAndName),
      gone: missingFrom(identitiesBefore, identitiesAfter).sort(byPrivilegeAndName),
    },
    groups: {
      new: missingFrom(groupsOf(after, names), before.groups).sort(groupsByName),
      gone: missingFrom(groupsOf(before, names), after.groups).sort(groupsByName),
    },
    roles: roleChanges(before, after),
  };
}

/** The changes that make a privileged capability newly held (--fail-on-new-privileged). */
export function newPrivileged(changes: ReviewChanges): ChangedAccess[] {
  return changes.access.filter((c) => c.gained.some(isPrivileged));
}

// ---------------------------------------------------------------------------------------------------------------
// Reading a previous review.

const nameless = z.string();
const identityKindSchema = z.enum(["person", "workload"]);

/** The members of a version-2 review that the changes read; others are ignored. */
const previousSchema = z.object({
  group: z.object({ uid: z.string(), name: nameless }),
  at: z.string(),
  caller: z.string().optional(),
  callerName: z.string().optional(),
  partial: z.array(z.string()),
  groups: z.array(z.object({ uid: z.string(), name: nameless, parent: z.string().optional() })),
  identities: z.array(
    z.object({ uid: z.string(), name: nameless, kind: identityKindSchema, privileged: z.boolean() }),
  ),
  withoutAccess: z.array(z.object({ uid: z.string(), name: nameless, kind: identityKindSchema })),
  roles: z.array(z.object({ uid: z.string(), name: nameless, capabilities: z.array(z.string()) })),
  bindings: z.array(z.object({ uid: z.string(), group: z.string(), identity: z.string(), role: z.string() })),
});

/**
 * A previous review of `groupUid`, from the text of the file at `path` (`review --json`). Refuses, in one line, what is not a
 * review, a format version this code does not read, and a review of another group.
 */
export function readPreviousReview(text: string, path: string, groupUid: string): ReviewFacts {
  // The file's name and everything read from it are data: one line each, nothing raw.
  const file = lineText(path);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Refusal(`${file} is not JSON: --since takes a file written by platform-access review --json`);
  }
  const record = typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  const member = (name: string): unknown =>
    Object.hasOwn(record, name) ? (record as Record<string, unknown>)[name] : undefined;
  if (member("format") !== REVIEW_FORMAT) {
    // A review before formats had versions: the same members, less the format and the bindings.
    const older =
      member("formatVersion") === undefined &&
      ["grants", "groups", "identities", "roles"].every((m) => Array.isArray(member(m))) &&
      typeof member("at") === "string";
    throw new Refusal(
      older
        ? `${file} is a review without a format version, written before reviews could be compared (it lacks ` +
            `the bindings); review again with this version to start the series`
        : `${file} is not a platform-access review: --since takes a file written by platform-access review --json`,
    );
  }
  const version = member("formatVersion");
  if (typeof version !== "number" || !READABLE_FORMAT_VERSIONS.includes(version))
    throw new Refusal(
      `${file} is a review in format version ${lineText(JSON.stringify(version) ?? "undefined")}; this platform-access reads versions ` +
        `${READABLE_FORMAT_VERSIONS.join(" and ")}`,
    );
  const parsed = previousSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Refusal(
      `${file} is not a complete review: ${lineText(issue.path.map(String).join(".")) || "(top)"}: ${issue.message}`,
    );
  }
  // Version 2 wrote an identity's uid as its name where none was known: none, as version 3 writes it.
  const previous = {
    ...parsed.data,
    identities: parsed.data.identities.map((i) => (i.name === i.uid ? { ...i, name: "" } : i)),
    withoutAccess: parsed.data.withoutAccess.map((i) => (i.name === i.uid ? { ...i, name: "" } : i)),
  };
  if (previous.group.uid !== groupUid)
    throw new Refusal(
      `${file} is a review of ${nameText(previous.group.name)} (${lineText(previous.group.uid)}), not of ${lineText(groupUid)}: ` +
        `--since compares two reviews of the same group`,
    );
  return previous;
}
