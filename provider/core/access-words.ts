/**
 * How the preview's access lines put things in words (./access-review): the impact lines, the preflight's refusals
 * and what it could not verify. Pure functions over plain data, so anything that shows the same facts (a summary of
 * a whole update) says them in the same words.
 *
 * Names first: an identity, group or role is named by its name, with its kind ("workload identity ci", "user
 * alice", "organization acme", "folder platform", "role deployer"); its uid only when another of the same kind
 * shares the name, or when no name is known. A name comes from the service, where anyone who may create an object
 * chooses it, so a line a person reads must not be forged by one: a name of anything but plain characters is
 * quoted, with its quotes, backslashes, control, format and separator characters escaped (a newline, an ANSI
 * escape, a right-to-left override cannot start a line of their own or repaint one).
 *
 * May import: the SDK's access model (types, isPrivileged), ./live-facts (types).
 */
import { isPrivileged, type Collection } from "../../sdk/access-model";
import type { KnownNames, LiveFacts, NamedKind } from "./live-facts";

/** How many impact lines are named; the rest are counted. */
export const NAMED_IMPACT_LINES = 50;

// ---------------------------------------------------------------------------------------------------------------
// Names.

/** Reads as it is: letters, digits and a few joiners, no space (so it cannot pass for more than one word). */
const PLAIN = /^[A-Za-z0-9][A-Za-z0-9._@:+/-]*$/;
/** What must never reach a reader's terminal raw: controls, format characters (bidi), separators, unassigned. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}]/u;

function escapeCharacter(c: string): string {
  if (c === '"') return '\\"';
  if (c === "\\") return "\\\\";
  if (c === "\n") return "\\n";
  if (c === "\r") return "\\r";
  if (c === "\t") return "\\t";
  if (!UNSAFE.test(c)) return c;
  // As JSON escapes it (a character beyond U+FFFF as its two UTF-16 halves), so the name reads back exactly.
  return Array.from(
    { length: c.length },
    (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`,
  ).join("");
}

/** A name in double quotes, every character that could forge a line escaped (a JSON string: it parses back). */
export function quoted(name: string): string {
  return `"${Array.from(name, escapeCharacter).join("")}"`;
}

/** A name as a line shows it: as it is when plain, else quoted. */
export function quoteName(name: string): string {
  return PLAIN.test(name) ? name : quoted(name);
}

/** What a line calls an object: its name (or uid) with the words for its kind. */
export interface Names {
  /** The name alone: quoted unless plain; with the uid when another of its kind has the same name; else the uid. */
  name(kind: NamedKind, uid: string): string;
  /** Whether a name is known for `uid`. */
  known(kind: NamedKind, uid: string): boolean;
  /** "organization acme" (a root group) or "folder platform". */
  group(uid: string): string;
  /** "user alice" (a root-level identity) or "workload identity ci". */
  identity(uid: string): string;
  /** "role deployer". */
  role(uid: string): string;
}

const isRoot = (uid: string) => !uid.includes("/");

/** The kind of group a uid is: an organization (a root group) or a folder. */
export const groupKind = (uid: string) => (isRoot(uid) ? "organization" : "folder");
/** The kind of identity a uid is: a user (root-level) or a workload identity (under a group). */
export const identityKind = (uid: string) => (isRoot(uid) ? "user" : "workload identity");

/**
 * The names `facts` and `known` hold: the objects' own first (later sets win), then those bindings carry, then
 * those learnt beside the facts.
 */
export function namesOf(facts: readonly LiveFacts[], known?: KnownNames): Names {
  const byKind = new Map<NamedKind, Map<string, string>>([
    ["group", new Map()],
    ["identity", new Map()],
    ["role", new Map()],
  ]);
  const put = (kind: NamedKind, uid: string, name: string | undefined) => {
    const names = byKind.get(kind)!;
    if (name !== undefined && name !== "" && !names.has(uid)) names.set(uid, name);
  };
  for (const [kind, names] of known ?? []) for (const [uid, name] of names) put(kind, uid, name);
  for (const f of facts) {
    for (const b of f.bindings) {
      put("group", b.group, b.groupName);
      put("identity", b.identity, b.identityName);
      put("role", b.role, b.roleName);
    }
  }
  // The objects' own names win over what bindings and state say of them: set them last, over the rest.
  const own = (kind: NamedKind, uid: string, name: string | undefined) => {
    if (name !== undefined && name !== "") byKind.get(kind)!.set(uid, name);
  };
  for (const f of facts) {
    for (const g of f.groups) own("group", g.uid, g.name);
    for (const i of f.identities) own("identity", i.uid, i.name);
    for (const r of f.roles) own("role", r.uid, r.name);
  }
  const holders = new Map<NamedKind, Map<string, number>>();
  for (const [kind, names] of byKind) {
    const count = new Map<string, number>();
    for (const name of names.values()) count.set(name, (count.get(name) ?? 0) + 1);
    holders.set(kind, count);
  }
  const name = (kind: NamedKind, uid: string): string => {
    const found = byKind.get(kind)!.get(uid);
    if (found === undefined || found === uid) return quoteName(uid);
    const shown = quoteName(found);
    return (holders.get(kind)!.get(found) ?? 0) > 1 ? `${shown} (${quoteName(uid)})` : shown;
  };
  return {
    name,
    known: (kind, uid) => byKind.get(kind)!.has(uid),
    group: (uid) => `${groupKind(uid)} ${name("group", uid)}`,
    identity: (uid) => `${identityKind(uid)} ${name("identity", uid)}`,
    role: (uid) => `role ${name("role", uid)}`,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Impact lines.

/** One impact line's content: an identity's gains and losses at a group and the groups under it that inherit them. */
export interface ImpactLine {
  identity: string;
  group: string;
  /** How many groups under `group` change the same way (they inherit it). */
  inheritedBy: number;
  gained: string[];
  lost: string[];
  /** The uids of the roles that grant the gains after the change, or granted the losses before it. */
  roles: string[];
}

/** "CAP_A (privileged!), CAP_B": each privileged capability marked so it stands out. */
function capabilityList(capabilities: readonly string[], markPrivileged: boolean): string {
  return capabilities.map((c) => (markPrivileged && isPrivileged(c) ? `${c} (privileged!)` : c)).join(", ");
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** "role deployer", "roles deployer, viewer": the roles' names, sorted. */
function throughRoles(roles: readonly string[], names: Names): string {
  const shown = [...new Set(roles.map((uid) => names.name("role", uid)))].sort();
  return `${shown.length === 1 ? "role" : "roles"} ${shown.join(", ")}`;
}

/** One impact line in words, naming the resource whose change it is (`label`). */
export function describeImpactLine(line: ImpactLine, label: string, names: Names): string {
  const what = [
    ...(line.gained.length > 0 ? [`gains ${capabilityList(line.gained, true)}`] : []),
    ...(line.lost.length > 0 ? [`loses ${capabilityList(line.lost, false)}`] : []),
  ].join(" and ");
  const under = line.inheritedBy === 0 ? "" : ` and the ${plural(line.inheritedBy, "folder")} under it`;
  const through = line.roles.length === 0 ? "" : `, through ${throughRoles(line.roles, names)}`;
  return `access: ${names.identity(line.identity)} ${what} on ${names.group(line.group)}${under}${through} (${label})`;
}

/** The impact lines in words: the first NAMED_IMPACT_LINES, the rest counted. */
export function describeImpact(lines: readonly ImpactLine[], label: string, names: Names): string[] {
  const out = lines.slice(0, NAMED_IMPACT_LINES).map((line) => describeImpactLine(line, label, names));
  if (lines.length > NAMED_IMPACT_LINES)
    out.push(`access: ${lines.length - NAMED_IMPACT_LINES} more changes of access (${label})`);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Preflight lines.

/** Why an operation needs a capability. */
export type NeedReason =
  | { act: "create"; collection: Collection; parent: string }
  | { act: "read" | "update" | "delete"; collection: Collection; uid: string }
  | { act: "grant"; what: string }
  | { act: "use"; kind: "role" | "identity"; uid: string };

/** One capability the provider's identity needs, where, why; and a role that grants it, if one is listed. */
export interface PreflightFinding {
  capability: string;
  group: string;
  reason: NeedReason;
  /** The uid of a listed role that grants the capability (built-in preferred). */
  role?: string | undefined;
}

/** What each collection's objects are called. */
const NOUNS: Readonly<Record<Collection, string>> = {
  groups: "folder",
  identities: "workload identity",
  roles: "role",
  roleBindings: "role binding",
  identityProviders: "identity provider",
  groupInvites: "invite",
  accountAssociations: "account association",
  repos: "repo",
  tags: "tag",
  advisories: "advisory",
};

const article = (noun: string) => (/^[aeiou]/.test(noun) ? "an" : "a");

/** An object of `collection` by its uid, named where the kind has names. */
function objectWords(collection: Collection, uid: string, names: Names): string {
  if (collection === "groups") return names.group(uid);
  if (collection === "identities") return names.identity(uid);
  if (collection === "roles") return names.role(uid);
  const cut = uid.lastIndexOf("/");
  // A binding is named by where it is: the object itself has no name.
  if (collection === "roleBindings" && cut > 0) return `a role binding on ${names.group(uid.slice(0, cut))}`;
  return `${NOUNS[collection]} ${quoteName(uid)}`;
}

/** "create a folder in organization acme", "update role deployer", "grant role viewer (no escalation)". */
export function describeReason(reason: NeedReason, names: Names): string {
  switch (reason.act) {
    case "create": {
      const noun = NOUNS[reason.collection];
      return `create ${article(noun)} ${noun} in ${names.group(reason.parent)}`;
    }
    case "grant":
      return `grant ${reason.what} (no escalation)`;
    case "use":
      return `read ${reason.kind === "role" ? names.role(reason.uid) : names.identity(reason.uid)}`;
    default:
      return `${reason.act} ${objectWords(reason.collection, reason.uid, names)}`;
  }
}

/** A refusal: what the resource (`label`) would do, the capability it needs where, and who lacks it. */
export function describeRefusal(
  finding: PreflightFinding,
  label: string,
  caller: string,
  names: Names,
): string {
  return (
    `${label}: ${describeReason(finding.reason, names)} needs ${finding.capability} on ` +
    `${names.group(finding.group)}, which ${names.identity(caller)} (the identity this provider runs as) lacks ` +
    `there; ` +
    (finding.role === undefined ? "no listed role grants it" : `${names.role(finding.role)} grants it`)
  );
}

/** A need the preflight could not verify, as the line under `unverifiedHeading` says it. */
export function describeUnverified(finding: PreflightFinding, label: string, names: Names): string {
  return `${label}: ${describeReason(finding.reason, names)} needs ${finding.capability} on ${names.group(finding.group)}`;
}

/** The first line of what could not be verified: whose bindings could not be listed. */
export function unverifiedHeading(caller: string, names: Names): string {
  return `preflight could not verify (${names.identity(caller)} may not list the role bindings that apply there):`;
}
