/**
 * How the preview's access lines put things in words (./access-review): the impact lines, the preflight's refusals
 * and what it could not verify. Pure functions over plain data, so anything that shows the same facts (a summary of
 * a whole update) says them in the same words.
 *
 * Names first, written as every output writes them (../../sdk/words): an identity, group or role by its name with
 * its kind ("workload identity ci", "user alice", "organization acme", "folder platform", "role deployer",
 * "built-in role viewer"), quoted with escapes unless plain (a name cannot forge a line); its uid only when another
 * of the same kind shares the name, or when no name is known.
 */
import { isPrivileged, type Collection } from "../../sdk/access-model";
import { COLLECTIONS } from "../../sdk/collections";
import { parentOf } from "../../sdk/uidp";
import {
  LISTED_CAPABILITIES,
  NAMED_COLLECTIONS,
  Names,
  andFoldersUnder,
  compareNames,
  nameText,
  roleHoldings,
  withArticle,
  type NamedKind,
} from "../../sdk/words";
import type { KnownNames, LiveFacts } from "./live-facts";

/** How many impact lines are named; the rest are counted. */
export const NAMED_IMPACT_LINES = 50;

// ---------------------------------------------------------------------------------------------------------------
// Names.

/**
 * The names `facts` and `known` hold: the objects' own first (they win over what bindings and state say of them),
 * then those learnt beside the facts (this process's own writes, lookups by uid: newer than the bindings read),
 * then those bindings carry.
 */
export function namesOf(facts: readonly LiveFacts[], known?: KnownNames): Names {
  const names = new Names();
  for (const f of facts) {
    for (const g of f.groups) names.set("group", g.uid, g.name);
    for (const i of f.identities) names.set("identity", i.uid, i.name);
    for (const r of f.roles) names.set("role", r.uid, r.name);
  }
  for (const [kind, learnt] of known ?? []) for (const [uid, name] of learnt) names.add(kind, uid, name);
  for (const f of facts)
    for (const b of f.bindings) {
      names.add("group", b.group, b.groupName);
      names.add("identity", b.identity, b.identityName);
      names.add("role", b.role, b.roleName);
    }
  return names;
}

export type { Names };

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
  /**
   * The roles gained or lost whole, with their capabilities: said by name (sdk/access-model `byWholeRoles`
   * decides); `rest` is what no such role covers, said capability by capability.
   */
  wholeRoles?: { change: "gained" | "lost"; role: string; capabilities: readonly string[] }[];
  rest?: { gained: string[]; lost: string[] };
  /**
   * The roles of `roles` that the update makes or edits, with what they hold after it: the reader cannot know them
   * by name, so the lines say every capability the first time they name one (`describeImpact`).
   */
  madeRoles?: { role: string; capabilities: readonly string[] }[];
}

/** "CAP_A (privileged!), CAP_B": each privileged capability marked so it stands out. */
function capabilityList(capabilities: readonly string[], markPrivileged: boolean): string {
  return capabilities.map((c) => (markPrivileged && isPrivileged(c) ? `${c} (privileged!)` : c)).join(", ");
}

const HOLDINGS = {
  capability: (c: string) => c,
  isPrivileged,
  marked: (written: string) => `${written} (privileged!)`,
};

/**
 * A role by name with what it holds: `capabilities` for a role said whole ("role deployer (3 capabilities)"); a role
 * the update makes or edits (`made`) with every capability the first time the lines name it (`told` remembers).
 */
function roleText(
  uid: string,
  names: Names,
  told: Set<string>,
  made: ReadonlyMap<string, readonly string[]>,
  capabilities?: readonly string[],
): string {
  const first = made.has(uid) && !told.has(uid);
  if (first) told.add(uid);
  const holds = capabilities ?? (first ? made.get(uid) : undefined);
  if (holds === undefined) return names.role(uid);
  return `${names.role(uid)} (${roleHoldings(holds, first ? LISTED_CAPABILITIES : 0, HOLDINGS)})`;
}

/**
 * One impact line in words, naming the resource whose change it is (`label`); `told` holds the roles made or edited
 * by the update that earlier lines of the same output have said with what they hold.
 */
export function describeImpactLine(
  line: ImpactLine,
  label: string,
  names: Names,
  told = new Set<string>(),
): string {
  const wholeRoles = line.wholeRoles ?? [];
  const rest = line.rest ?? { gained: line.gained, lost: line.lost };
  const made = new Map((line.madeRoles ?? []).map((m) => [m.role, m.capabilities]));
  const whole = (change: "gained" | "lost", verb: string) =>
    wholeRoles
      .filter((w) => w.change === change)
      .map((w) => `${verb} ${roleText(w.role, names, told, made, w.capabilities)}`);
  const what = [
    ...whole("gained", "becomes"),
    ...(rest.gained.length > 0 ? [`gains ${capabilityList(rest.gained, true)}`] : []),
    ...whole("lost", "is no longer"),
    ...(rest.lost.length > 0 ? [`loses ${capabilityList(rest.lost, false)}`] : []),
  ].join(" and ");
  const under = andFoldersUnder(line.inheritedBy);
  const said = new Set(wholeRoles.map((w) => w.role));
  // "role deployer, built-in role viewer": each role with its kind, in the order of their names.
  const others = [...new Set(line.roles.filter((r) => !said.has(r)))].sort(
    (a, b) => compareNames(names.role(a), names.role(b)) || (a < b ? -1 : a > b ? 1 : 0),
  );
  const through =
    others.length === 0
      ? ""
      : `, through ${others.map((uid) => roleText(uid, names, told, made)).join(", ")}`;
  return `access: ${names.identity(line.identity)} ${what} on ${names.group(line.group)}${under}${through} (${label})`;
}

/** The impact lines in words: the first NAMED_IMPACT_LINES, the rest counted. */
export function describeImpact(lines: readonly ImpactLine[], label: string, names: Names): string[] {
  const told = new Set<string>();
  const out = lines.slice(0, NAMED_IMPACT_LINES).map((line) => describeImpactLine(line, label, names, told));
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

/** The collections whose objects a person reads by name, and their kind in the shared words. */
const NAMED_KINDS = new Map<Collection, NamedKind>(
  (Object.entries(NAMED_COLLECTIONS) as [NamedKind, Collection][]).map(([kind, c]) => [c, kind]),
);

/** What an object of `collection` made under a group is called: "folder", "workload identity", "invite". */
const nounUnderOf = (collection: Collection): string => COLLECTIONS[collection].noun.under;

/** An object of `collection` by its uid, named where the kind has names. */
function objectWords(collection: Collection, uid: string, names: Names): string {
  const named = NAMED_KINDS.get(collection);
  if (named !== undefined) return names[named](uid);
  const parent = parentOf(uid);
  // A binding is named by where it is: the object itself has no name.
  if (collection === "roleBindings" && parent !== undefined && parent !== "")
    return `a ${COLLECTIONS.roleBindings.noun.under} on ${names.group(parent)}`;
  return `${COLLECTIONS[collection].noun.under} ${nameText(uid)}`;
}

/** "create a folder in organization acme", "update role deployer", "grant role viewer (no escalation)". */
export function describeReason(reason: NeedReason, names: Names): string {
  switch (reason.act) {
    case "create": {
      return `create ${withArticle(nounUnderOf(reason.collection))} in ${names.group(reason.parent)}`;
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
