/**
 * What a preview says about access, on both fronts: the impact lines (what a change grants and revokes, for whom,
 * where, through which role and resource) and the preflight (whether the identity the provider runs as may perform
 * each planned operation, before any write). Both ask the shared access model (sdk/access-model); nothing here
 * computes access on its own.
 *
 * The live facts (groups, roles, role bindings the provider's credentials may list) are read once per provider
 * process and profile: three list calls (pages of 200) the first time a preview needs them. The engine runs every
 * resource of one provider in one process and starts a new process for each operation (a preview, then `up`'s
 * update), so a preview reads them once, before any write of its own.
 *
 * A resource's implementation describes what its planned change does (`AccessEffect`): the operations it sends
 * (rule 4 and 5 of the model give their needs), any reference the caller must be able to read, and the facts after
 * the change. The impact lines are `accessDiff(before, after)` over the groups the change touches.
 *
 * Preflight's decisions (docs/guide.md, "Preflight"):
 *   - It judges against the access in effect when the preview starts. A capability that an earlier change of the
 *     same update grants the provider's own identity does not count: the engine does not tell a provider the order
 *     of the plan, and the service takes time to make a new binding or role effective (the emulator's
 *     `propagationDelayMs`), so the later operation could meet PermissionDenied anyway. Grant it in an update of
 *     its own first.
 *   - It refuses only what it can see: when the caller cannot list the role bindings of the organization a need
 *     falls in, some of its own bindings may be hidden from it, and the need is reported as unverified, not refused.
 *   - It knows the caller from its credentials: the identity assumed through token exchange, or the `sub` of a
 *     static API token (a JWT). An opaque token: skipped, with one info line saying why.
 *   - Deletes the engine plans for resources dropped from the program are not checked: the engine does not consult
 *     the provider about them at preview.
 *
 * May import: the SDK (its access model), ./check, ./client, ./config, ./engine-log.
 */
import {
  AccessModel,
  accessDiff,
  collapseInherited,
  grantsOn,
  isPrivileged,
  needsOf,
  capabilitiesOn,
  underAny,
  type BindingFacts,
  type Need,
  type Operation,
  type RoleFacts,
} from "../../sdk/access-model";
import { NotFoundError, PermissionDeniedError, type PlatformClient } from "../../sdk";
import { containsUnknown } from "./check";
import { callerIdentity, clientFor, currentSettings } from "./client";
import { CONFIG_KEYS, preflightMode, type PreflightMode } from "./config";
import { logInfo, logWarning } from "./engine-log";

/** How many impact lines are named; the rest are counted. */
export const NAMED_IMPACT_LINES = 50;

export interface LiveGroup {
  uid: string;
  name?: string | undefined;
}

export interface LiveBinding extends BindingFacts {
  identityName?: string | undefined;
}

/** What the provider's credentials may list: the facts the model answers from. */
export interface LiveFacts {
  groups: readonly LiveGroup[];
  roles: readonly RoleFacts[];
  bindings: readonly LiveBinding[];
}

/** One planned change of a resource, as the kit knows it at preview. */
export type PlannedChange =
  | { kind: "create"; news: Record<string, unknown> }
  | {
      kind: "update";
      uid: string;
      olds: Record<string, unknown>;
      news: Record<string, unknown>;
      changed: string[];
    }
  | { kind: "replace"; uid: string; olds: Record<string, unknown>; news: Record<string, unknown> };

/** What a planned change does to access, as the resource's implementation describes it. */
export interface AccessEffect {
  /** The operations it sends, in order (their needs: sdk/access-model needsOf). */
  operations: Operation[];
  /** What else the caller must hold: a reference it must be able to read (a custom role, a workload identity). */
  needs?: Need[];
  /** The facts after the change; absent when it changes no access. */
  after?: LiveFacts;
}

/** Describes a planned change; undefined when a part it depends on is unknown yet (then nothing is said). */
export type AccessEffectOf = (change: PlannedChange, live: LiveFacts) => AccessEffect | undefined;

// ---------------------------------------------------------------------------------------------------------------
// The live facts, read once per process and profile.

const cache = new Map<string, Promise<LiveFacts>>();
const NO_FACTS: LiveFacts = { groups: [], roles: [], bindings: [] };
const skipNoted = new Set<string>();

/** Forgets what was read (configure with new settings; tests). */
export function forgetLiveFacts(): void {
  cache.clear();
  skipNoted.clear();
}

async function listed<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  try {
    for await (const item of items) out.push(item);
  } catch (err) {
    // What the caller may not list, it does not see: the model answers from what it may.
    if (PermissionDeniedError.isInstance(err) || NotFoundError.isInstance(err)) return out;
    throw err;
  }
  return out;
}

/** Reads the live facts: one listing each of groups, roles and role bindings (pages of 200). */
export async function readLiveFacts(client: PlatformClient): Promise<LiveFacts> {
  const [groups, roles, bindings] = await Promise.all([
    listed(client.groups.list({ pageSize: 200 })),
    listed(client.roles.list({ pageSize: 200 })),
    listed(client.roleBindings.list({ pageSize: 200 })),
  ]);
  return {
    groups: groups.map((g) => ({ uid: g.uid, name: g.name })),
    roles: roles.map((r) => ({ uid: r.uid, name: r.name, capabilities: [...(r.capabilities ?? [])] })),
    bindings: bindings.map((b) => ({
      uid: b.uid,
      group: b.group?.uid ?? b.uid.slice(0, Math.max(0, b.uid.lastIndexOf("/"))),
      identity: b.identity?.uid ?? "",
      identityName: b.identity?.name,
      role: b.role?.uid ?? "",
    })),
  };
}

/** The live facts for `profile`, read on first use in this process. */
export function liveFacts(profile: string | undefined): Promise<LiveFacts> {
  const key = `${profile ?? ""}\u0000${JSON.stringify(currentSettings())}`;
  let facts = cache.get(key);
  if (facts === undefined) {
    facts = readLiveFacts(clientFor(profile));
    // A failed read is not remembered: the next resource tries again.
    facts.catch(() => cache.delete(key));
    cache.set(key, facts);
  }
  return facts;
}

// ---------------------------------------------------------------------------------------------------------------
// Impact lines.

const modelOf = (facts: LiveFacts) => new AccessModel({ roles: facts.roles, bindings: facts.bindings });

/** The groups whose effective access the change from `before` to `after` may alter: those under what it touches. */
export function touchedGroups(before: LiveFacts, after: LiveFacts): string[] {
  const positions = new Set<string>();
  const key = (b: BindingFacts) => `${b.uid}\u0000${b.group}\u0000${b.identity}\u0000${b.role}`;
  const beforeKeys = new Set(before.bindings.map(key));
  const afterKeys = new Set(after.bindings.map(key));
  for (const b of before.bindings) if (!afterKeys.has(key(b))) positions.add(b.group);
  for (const b of after.bindings) if (!beforeKeys.has(key(b))) positions.add(b.group);
  const capsOf = (facts: LiveFacts) =>
    new Map(facts.roles.map((r) => [r.uid, [...new Set(r.capabilities)].sort().join(",")]));
  const was = capsOf(before);
  const is = capsOf(after);
  const changedRoles = new Set(
    [...new Set([...was.keys(), ...is.keys()])].filter((uid) => was.get(uid) !== is.get(uid)),
  );
  for (const b of [...before.bindings, ...after.bindings])
    if (changedRoles.has(b.role)) positions.add(b.group);
  if (positions.size === 0) return [];
  const all = new Set<string>();
  for (const facts of [before, after]) {
    for (const g of facts.groups) all.add(g.uid);
    for (const b of facts.bindings) all.add(b.group);
  }
  return [...all].filter((g) => underAny(g, positions)).sort();
}

/** One impact line's content: an identity's gains and losses at a group and the groups under it that inherit them. */
export interface ImpactLine {
  identity: string;
  group: string;
  /** How many groups under `group` change the same way (they inherit it). */
  inheritedBy: number;
  gained: string[];
  lost: string[];
  /** The roles (names where known) that grant the gains after the change, or granted the losses before it. */
  roles: string[];
}

/** The impact of a change, grouped: one entry per identity and top-most group of each identical change. */
export function impactOf(before: LiveFacts, after: LiveFacts): ImpactLine[] {
  const groups = touchedGroups(before, after);
  if (groups.length === 0) return [];
  const beforeModel = modelOf(before);
  const afterModel = modelOf(after);
  const changes = collapseInherited(accessDiff(beforeModel, afterModel, groups));
  const roleNames = new Map([...before.roles, ...after.roles].map((r) => [r.uid, r.name ?? r.uid]));
  const lines: ImpactLine[] = [];
  for (const c of changes) {
    const roles = new Set<string>();
    const gainedGrants = grantsOn(afterModel, c.identity, c.group);
    for (const cap of c.gained) for (const b of gainedGrants.get(cap) ?? []) roles.add(b.role);
    const lostGrants = grantsOn(beforeModel, c.identity, c.group);
    for (const cap of c.lost) for (const b of lostGrants.get(cap) ?? []) roles.add(b.role);
    lines.push({
      identity: c.identity,
      group: c.group,
      inheritedBy: c.under.length,
      gained: c.gained,
      lost: c.lost,
      roles: [...roles].map((uid) => roleNames.get(uid) ?? uid).sort(),
    });
  }
  return lines;
}

/** "CAP_A, CAP_B (privileged)": each privileged capability marked so it stands out. */
function capabilityList(capabilities: readonly string[], markPrivileged: boolean): string {
  return capabilities.map((c) => (markPrivileged && isPrivileged(c) ? `${c} (privileged!)` : c)).join(", ");
}

/** The impact lines in words, each naming the resource (`label`): the first NAMED_IMPACT_LINES, the rest counted. */
export function describeImpact(
  lines: readonly ImpactLine[],
  label: string,
  facts: readonly LiveFacts[] = [],
): string[] {
  const identityNames = new Map<string, string>();
  const groupNames = new Map<string, string>();
  for (const f of facts) {
    for (const b of f.bindings) if (b.identityName) identityNames.set(b.identity, b.identityName);
    for (const g of f.groups) if (g.name) groupNames.set(g.uid, g.name);
  }
  const named = (uid: string, names: Map<string, string>) => {
    const name = names.get(uid);
    return name === undefined || name === uid ? uid : `${name} (${uid})`;
  };
  const out = lines.slice(0, NAMED_IMPACT_LINES).map((l) => {
    const what = [
      ...(l.gained.length > 0 ? [`gains ${capabilityList(l.gained, true)}`] : []),
      ...(l.lost.length > 0 ? [`loses ${capabilityList(l.lost, false)}`] : []),
    ].join(" and ");
    const where =
      l.inheritedBy === 0
        ? `on ${named(l.group, groupNames)}`
        : `on ${named(l.group, groupNames)} and the ${l.inheritedBy} group${l.inheritedBy === 1 ? "" : "s"} under it`;
    const through = l.roles.length === 0 ? "" : ` through role ${l.roles.join(", ")}`;
    return `access: ${named(l.identity, identityNames)} ${what} ${where},${through} (${label})`;
  });
  if (lines.length > NAMED_IMPACT_LINES)
    out.push(`access: ${lines.length - NAMED_IMPACT_LINES} more changes of access (${label})`);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Preflight.

/** The outcome of a preflight: the refusals (one line each), and what could not be verified. */
export interface PreflightResult {
  refusals: string[];
  unverified: string[];
}

/** A role that grants `capability`: built-in preferred (uid without a parent), then the one granting least. */
export function roleGranting(facts: LiveFacts, capability: string): RoleFacts | undefined {
  const candidates = facts.roles.filter((r) => r.capabilities.includes(capability));
  const builtin = (r: RoleFacts) => (r.uid.includes("/") ? 1 : 0);
  return [...candidates].sort(
    (a, b) =>
      builtin(a) - builtin(b) ||
      a.capabilities.length - b.capabilities.length ||
      (a.name ?? a.uid).localeCompare(b.name ?? b.uid),
  )[0];
}

/** The needs of `effect` the caller does not meet under the live facts, each in words. */
export function preflight(
  facts: LiveFacts,
  caller: string,
  effect: AccessEffect,
  label: string,
): PreflightResult {
  const model = modelOf(facts);
  const needs = [...effect.operations.flatMap(needsOf), ...(effect.needs ?? [])];
  const seen = new Set<string>();
  const refusals: string[] = [];
  const unverified: string[] = [];
  for (const need of needs) {
    // A root-level position (an organization's own creation) is not governed by a group's bindings.
    if (need.group === "") continue;
    const key = `${need.capability}\u0000${need.group}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (capabilitiesOn(model, caller, need.group).has(need.capability)) continue;
    // Every binding that applies on the group is visible only when the caller may list bindings from the top.
    const top = need.group.split("/")[0]!;
    if (!capabilitiesOn(model, caller, top).has("CAP_IAM_ROLE_BINDINGS_LIST")) {
      unverified.push(`${label}: ${need.reason} needs ${need.capability} on ${need.group}`);
      continue;
    }
    const role = roleGranting(facts, need.capability);
    refusals.push(
      `${label}: ${need.reason} needs ${need.capability} on ${need.group}, which ${caller} (the identity this ` +
        `provider runs as) lacks there` +
        (role === undefined
          ? "; no listed role grants it"
          : `; a role that grants it: ${role.name ?? role.uid} (${role.uid})`),
    );
  }
  return { refusals, unverified };
}

// ---------------------------------------------------------------------------------------------------------------
// What the kit calls at preview.

/** The preflight's mode from the stack config (a malformed value fails, naming the key). */
export function currentPreflightMode(): PreflightMode {
  return preflightMode(currentSettings().preflight);
}

/**
 * Reviews one planned change: logs its impact lines (under `urn` when known) and runs the preflight, which throws
 * (mode "error") or warns (mode "warn") when the caller lacks a capability. Nothing is read when the resource
 * describes no effect, or a part of the change is unknown.
 */
export async function reviewChange(
  effectOf: AccessEffectOf | undefined,
  change: PlannedChange,
  profile: string | undefined,
  label: string,
  urn?: string,
): Promise<void> {
  if (effectOf === undefined) return;
  const mode = currentPreflightMode();
  // What the change could need, judged without the live facts: nothing is read when it alters no access and no
  // preflight is to run (a group's create with an opaque token, or with preflight off).
  const probe = effectOf(change, NO_FACTS);
  if (probe === undefined) return;
  const caller = mode === "off" ? undefined : callerIdentity(profile);
  if (mode !== "off" && caller === undefined && probe.operations.length > 0) {
    const key = profile ?? "";
    if (!skipNoted.has(key)) {
      skipNoted.add(key);
      await logInfo(
        `preflight skipped${profile ? ` for profile ${profile}` : ""}: the provider cannot tell which identity its ` +
          `token belongs to (not a JWT with a sub claim). Use token exchange with ${CONFIG_KEYS.identity}, or a ` +
          `token the service issued; or set ${CONFIG_KEYS.preflight}: off to silence this.`,
      );
    }
  }
  const wantsPreflight = caller !== undefined && probe.operations.length > 0;
  if (probe.after === undefined && !wantsPreflight) return;
  const before = await liveFacts(profile);
  const effect = effectOf(change, before);
  if (effect === undefined) return;
  if (effect.after !== undefined) {
    const lines = describeImpact(impactOf(before, effect.after), label, [before, effect.after]);
    if (lines.length > 0) await logInfo(lines.join("\n"), urn);
  }
  if (caller === undefined) return;
  const { refusals, unverified } = preflight(before, caller, effect, label);
  if (unverified.length > 0)
    await logInfo(
      `preflight could not verify (${caller} may not list the role bindings that apply there):\n` +
        unverified.join("\n"),
      urn,
    );
  if (refusals.length === 0) return;
  if (mode === "warn") {
    await logWarning(refusals.join("\n"), urn);
    return;
  }
  throw new PreflightError(refusals);
}

/** A preview refused by the preflight: every missing capability, one line each, and how to go on. */
export class PreflightError extends Error {
  constructor(readonly refusals: readonly string[]) {
    super(
      `preflight: the update would stop halfway for a missing permission:\n${refusals.join("\n")}\n` +
        `Grant the capability (or run as an identity that holds it), or set ${CONFIG_KEYS.preflight}: warn or off ` +
        `for a service whose rules differ.`,
    );
    this.name = "PreflightError";
  }
}

// ---------------------------------------------------------------------------------------------------------------
// How implementations describe their effect: one call each.

type Props = Record<string, unknown>;

/** The facts without the group `uid` and what lives under it (a deleted group takes its bindings with it). */
export function withoutGroup(facts: LiveFacts, uid: string): LiveFacts {
  const gone = new Set([uid]);
  return {
    groups: facts.groups.filter((g) => !underAny(g.uid, gone)),
    roles: facts.roles.filter((r) => !underAny(r.uid.slice(0, Math.max(0, r.uid.lastIndexOf("/"))), gone)),
    bindings: facts.bindings.filter((b) => !underAny(b.group, gone) && !underAny(b.role, gone)),
  };
}

/** The facts without the bindings `drop` selects. */
export function withoutBindings(facts: LiveFacts, drop: (b: LiveBinding) => boolean): LiveFacts {
  return { ...facts, bindings: facts.bindings.filter((b) => !drop(b)) };
}

/** What granting a role needs beyond its capabilities: seeing the role (a custom one) and the identity (a workload). */
export function referenceNeeds(roleUid: string, identityUid?: string): Need[] {
  const needs: Need[] = [];
  const cut = roleUid.lastIndexOf("/");
  if (cut > 0)
    needs.push({
      capability: "CAP_IAM_ROLES_LIST",
      group: roleUid.slice(0, cut),
      reason: `read role ${roleUid}`,
    });
  const at = identityUid?.lastIndexOf("/") ?? -1;
  if (identityUid !== undefined && at > 0)
    needs.push({
      capability: "CAP_IAM_IDENTITY_LIST",
      group: identityUid.slice(0, at),
      reason: `read identity ${identityUid}`,
    });
  return needs;
}

/** The capabilities of `roleUid` as listed (none when the caller cannot list it: then `referenceNeeds` says so). */
export function capabilitiesOfRole(facts: LiveFacts, roleUid: string): string[] {
  return [...(facts.roles.find((r) => r.uid === roleUid)?.capabilities ?? [])];
}

/** Are the inputs `keys` of `props` all known (a preview knows no output of a resource not made yet)? */
const known = (props: Props, keys: readonly string[]) => keys.every((k) => !containsUnknown(props[k]));

/** How one resource's objects live in the access rules, for `objectEffect`. */
export interface ObjectAccess {
  collection: Operation["collection"];
  /** The input naming the parent group ("" or absent: at the root). */
  parentKey: string;
  /** The other inputs the effect reads (it is said only once they are known). */
  reads?: readonly string[];
  /** The capabilities a create hands out (a binding's role...), with the references it must read. */
  grants?: (
    news: Props,
    facts: LiveFacts,
  ) => { capabilities: string[]; what: string; needs: Need[] } | undefined;
  /** The capabilities an update hands out, given the inputs before and after. */
  updateGrants?: (
    olds: Props,
    news: Props,
    facts: LiveFacts,
  ) => { capabilities: string[]; what: string; needs: Need[] } | undefined;
  /** Access after creating the object (a binding grants). */
  afterCreate?: (facts: LiveFacts, news: Props) => LiveFacts;
  /** Access after updating it (a role's capabilities). */
  afterUpdate?: (facts: LiveFacts, uid: string, news: Props) => LiveFacts;
  /** Access after deleting it (a group or role takes its bindings; a binding revokes). */
  afterDelete?: (facts: LiveFacts, uid: string) => LiveFacts;
}

/** The effect of a planned change of an ordinary object (create, update, replace = delete then create). */
export function objectEffect(rules: ObjectAccess): AccessEffectOf {
  const { collection } = rules;
  const create = (news: Props, facts: LiveFacts) => {
    const parent = news[rules.parentKey];
    if (!known(news, [rules.parentKey, ...(rules.reads ?? [])])) return undefined;
    if (parent === undefined || parent === "") return { operations: [] as Operation[], needs: [] as Need[] };
    const grants = rules.grants?.(news, facts);
    return {
      operations: [
        {
          verb: "CREATE" as const,
          collection,
          parent: String(parent),
          grants: grants?.capabilities,
          grantsWhat: grants?.what,
        },
      ],
      needs: grants?.needs ?? [],
    };
  };
  return (change, facts) => {
    if (change.kind === "create") {
      const made = create(change.news, facts);
      if (made === undefined) return undefined;
      return { ...made, after: rules.afterCreate?.(facts, change.news) };
    }
    if (!known(change.news, [rules.parentKey, ...(rules.reads ?? [])])) return undefined;
    if (change.kind === "update") {
      const grants = rules.updateGrants?.(change.olds, change.news, facts);
      return {
        operations: [
          {
            verb: "UPDATE",
            collection,
            uid: change.uid,
            grants: grants?.capabilities,
            grantsWhat: grants?.what,
          },
        ],
        needs: grants?.needs ?? [],
        after: rules.afterUpdate?.(facts, change.uid, change.news),
      };
    }
    const made = create(change.news, facts);
    if (made === undefined) return undefined;
    const deleted = rules.afterDelete?.(facts, change.uid) ?? facts;
    const after = rules.afterCreate?.(deleted, change.news) ?? deleted;
    return {
      operations: [{ verb: "DELETE", collection, uid: change.uid }, ...made.operations],
      needs: made.needs,
      after: after === facts ? undefined : after,
    };
  };
}

/** One binding by its natural key, as the authoritative resources (GroupAccess, IdentityAccess) plan them. */
export interface PlannedBinding {
  groupUid: string;
  identityUid: string;
  roleUid: string;
}

/** The effect of an authoritative resource's plan: each add a binding's create, each remove its delete. */
export function bindingPlanEffect(
  adds: readonly PlannedBinding[],
  removes: readonly PlannedBinding[],
): AccessEffectOf {
  return (_change, facts) => {
    const same = (p: PlannedBinding) => (b: LiveBinding) =>
      b.group === p.groupUid && b.identity === p.identityUid && b.role === p.roleUid;
    const operations: Operation[] = [
      ...adds.map((p) => ({
        verb: "CREATE" as const,
        collection: "roleBindings" as const,
        parent: p.groupUid,
        grants: capabilitiesOfRole(facts, p.roleUid),
        grantsWhat: `role ${facts.roles.find((r) => r.uid === p.roleUid)?.name ?? p.roleUid}`,
      })),
      ...removes.map((p) => ({
        verb: "DELETE" as const,
        collection: "roleBindings" as const,
        // A binding's position is its group (its uid's parent).
        uid: facts.bindings.find(same(p))?.uid ?? `${p.groupUid}/-`,
      })),
    ];
    const kept = facts.bindings.filter((b) => !removes.some((p) => same(p)(b)));
    return {
      operations,
      needs: adds.flatMap((p) => referenceNeeds(p.roleUid, p.identityUid)),
      after: {
        ...facts,
        bindings: [
          ...kept,
          ...adds.map((p) => ({
            uid: `(new) ${p.groupUid} ${p.identityUid} ${p.roleUid}`,
            group: p.groupUid,
            identity: p.identityUid,
            role: p.roleUid,
          })),
        ],
      },
    };
  };
}
