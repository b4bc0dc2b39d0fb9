/**
 * What a preview says about access, on both fronts: the impact lines (what a change grants and revokes, for whom,
 * where, through which role and resource) and the preflight (whether the identity the provider runs as may perform
 * each planned operation, before any write). Both ask the shared access model (sdk/access-model); nothing here
 * computes access on its own, and nothing here words a line (./access-words).
 *
 * The live facts (./live-facts) are the groups, roles and role bindings of the organizations a change touches, read
 * once per provider process, profile and organization, plus every write the provider itself has made since in the
 * same process: `up` runs in a process of its own after the preview, and the binding of a role that the same update
 * has just created is reviewed against facts that hold the role.
 *
 * A resource's implementation describes what its planned change does (`AccessEffect`): the operations it sends
 * (rule 4 and 5 of the model give their needs), any reference the caller must be able to read, and the facts after
 * the change. The impact lines are `accessDiff(before, after)` over the groups the change touches.
 *
 * Preflight's decisions (docs/guide.md, "Preflight"):
 *   - It judges the caller's own access as read when the review's organization was first read. A capability that
 *     an earlier change of the same update grants the provider's own identity does not count, own writes included:
 *     the engine does not tell a provider the order of the plan, and the service takes time to make a new binding
 *     or role effective (the emulator's `propagationDelayMs`), so the later operation could meet PermissionDenied
 *     anyway. Grant it in an update of its own first. What a change grants (a role made earlier in the run) is
 *     judged with the own writes: the service checks those capabilities too.
 *   - It refuses only what it can see: when the caller cannot list the role bindings of the organization a need
 *     falls in, some of its own bindings may be hidden from it, and the need is reported as unverified, not refused.
 *   - It knows the caller from its credentials: the identity assumed through token exchange, or the `sub` of a
 *     static API token (a JWT). An opaque token: skipped, with one info line saying why.
 *   - Deletes the engine plans for resources dropped from the program are not checked: the engine does not consult
 *     the provider about them at preview.
 */
import {
  AccessModel,
  byWholeRoles,
  accessDiff,
  changedRoles,
  collapseInherited,
  grantsOn,
  needsOf,
  capabilitiesOn,
  touchedBy,
  underAny,
  type BindingFacts,
  type Operation,
  type RoleFacts,
} from "../../sdk/access-model";
import type { Capability } from "../../sdk/schemas/capabilities";
import { isRoot, parentOf } from "../../sdk/uidp";
import { containsUnknown } from "./check";
import { callerIdentity, currentSettings } from "./client";
import { CONFIG_KEYS, preflightMode, type PreflightMode } from "./config";
import { logInfo, logWarning } from "./engine-log";
import {
  NAMED_IMPACT_LINES,
  describeImpact,
  describeRefusal,
  describeUnverified,
  namesOf,
  unverifiedHeading,
  type ImpactLine,
  type NeedReason,
  type PreflightFinding,
} from "./access-words";
import { Names, nameText } from "../../sdk/words";
import {
  NO_FACTS,
  factsFor,
  forgetLiveFacts as forgetFacts,
  lookUpNames,
  organizationOf,
  type FactsNow,
  type LiveBinding,
  type LiveFacts,
  type NamedKind,
  type OwnWrites,
} from "./live-facts";

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

/** A reference a change must be able to read (a custom role it grants, a workload identity it binds). */
export interface ReferenceNeed {
  capability: Capability;
  group: string;
  reads: { kind: "role" | "identity"; uid: string };
}

/** What a planned change does to access, as the resource's implementation describes it. */
export interface AccessEffect {
  /** The operations it sends, in order (their needs: sdk/access-model needsOf). */
  operations: Operation[];
  /** What else the caller must hold: a reference it must be able to read (a custom role, a workload identity). */
  needs?: ReferenceNeed[];
  /** The facts after the change; absent when it changes no access. */
  after?: LiveFacts;
}

/** Describes a planned change; undefined when a part it depends on is unknown yet (then nothing is said). */
export type AccessEffectOf = (change: PlannedChange, live: LiveFacts) => AccessEffect | undefined;

const skipNoted = new Set<string>();

/** Forgets what was read and written, and that the preflight's skip was said (configure with new settings; tests). */
export function forgetLiveFacts(): void {
  forgetFacts();
  skipNoted.clear();
}

/**
 * The organizations a change touches: the root of every group it creates under or binds on and of every object it
 * changes or must read. Only their facts are read (./live-facts): a preview reads no wider than its program.
 */
export function organizationsOf(effect: AccessEffect): string[] {
  const uids = [
    ...effect.operations.map((op) => (op.verb === "CREATE" ? op.parent : op.uid)),
    ...(effect.needs ?? []).map((need) => need.group),
    ...(effect.after?.bindings ?? []).map((b) => b.group),
  ];
  return [...new Set(uids.filter((uid) => uid !== "").map(organizationOf))].sort();
}

// ---------------------------------------------------------------------------------------------------------------
// Impact lines.

const modelOf = (facts: LiveFacts) => new AccessModel({ roles: facts.roles, bindings: facts.bindings });

/** The groups whose effective access the change from `before` to `after` may alter: those under what it touches. */
export function touchedGroups(before: LiveFacts, after: LiveFacts): string[] {
  const { positions } = touchedBy(before, after);
  if (positions.size === 0) return [];
  const all = new Set<string>();
  for (const facts of [before, after]) {
    for (const g of facts.groups) all.add(g.uid);
    for (const b of facts.bindings) all.add(b.group);
  }
  return [...all].filter((g) => underAny(g, positions)).sort();
}

/**
 * The impact of a change, grouped: one entry per identity and top-most group of each identical change. `known`: the
 * roles as the reader knows them (as read before the update); a role of `after` that holds something else is made or
 * edited by the update, and its lines say what it holds (`ImpactLine.madeRoles`).
 */
export function impactOf(
  before: LiveFacts,
  after: LiveFacts,
  known: readonly RoleFacts[] = before.roles,
): ImpactLine[] {
  const groups = touchedGroups(before, after);
  if (groups.length === 0) return [];
  const beforeModel = modelOf(before);
  const afterModel = modelOf(after);
  const changes = collapseInherited(accessDiff(beforeModel, afterModel, groups));
  const made = changedRoles(known, after.roles);
  const holdings = new Map(after.roles.filter((r) => made.has(r.uid)).map((r) => [r.uid, r.capabilities]));
  const lines: ImpactLine[] = [];
  for (const c of changes) {
    const roles = new Set<string>();
    /** One side's roles, and those of them it gains or loses whole (said by name: sdk/access-model). */
    const side = (model: AccessModel, other: AccessModel, capabilities: readonly string[]) => {
      const grants = grantsOn(model, c.identity, c.group);
      const kept = new Set(other.bindingsOf(c.identity).map((b) => b.uid));
      const through = new Map<string, BindingFacts>();
      for (const cap of capabilities) for (const b of grants.get(cap) ?? []) through.set(b.uid, b);
      for (const b of through.values()) roles.add(b.role);
      return byWholeRoles(
        capabilities,
        [...through.values()]
          .sort((a, b) => (a.role < b.role ? -1 : a.role > b.role ? 1 : 0))
          .map((b) => ({
            uid: b.role,
            capabilities: [...model.roleCapabilities(b.role)].sort(),
            kept: kept.has(b.uid),
          })),
      );
    };
    const gains = side(afterModel, beforeModel, c.gained);
    const losses = side(beforeModel, afterModel, c.lost);
    lines.push({
      identity: c.identity,
      group: c.group,
      inheritedBy: c.under.length,
      gained: c.gained,
      lost: c.lost,
      roles: [...roles].sort(),
      wholeRoles: [
        ...gains.whole.map((r) => ({ change: "gained" as const, role: r.uid, capabilities: r.capabilities })),
        ...losses.whole.map((r) => ({ change: "lost" as const, role: r.uid, capabilities: r.capabilities })),
      ],
      rest: { gained: gains.rest, lost: losses.rest },
      madeRoles: [...roles].sort().flatMap((role) => {
        const capabilities = holdings.get(role);
        return capabilities === undefined || capabilities.length === 0
          ? []
          : [{ role, capabilities: [...new Set(capabilities)].sort() }];
      }),
    });
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------------------------
// Preflight.

/** The outcome of a preflight: what the provider's identity lacks, and what could not be verified. */
export interface PreflightResult {
  refusals: PreflightFinding[];
  unverified: PreflightFinding[];
}

/** A role that grants `capability`: built-in preferred (uid without a parent), then the one granting least. */
export function roleGranting(facts: LiveFacts, capability: string): RoleFacts | undefined {
  const candidates = facts.roles.filter((r) => r.capabilities.includes(capability));
  const builtin = (r: RoleFacts) => (!isRoot(r.uid) ? 1 : 0);
  return [...candidates].sort(
    (a, b) =>
      builtin(a) - builtin(b) ||
      a.capabilities.length - b.capabilities.length ||
      (a.name ?? a.uid).localeCompare(b.name ?? b.uid),
  )[0];
}

/**
 * Each need of `operation` with why it arises: needsOf gives a create's own need first, or a change's read and then
 * its own; the capabilities it hands out follow (one need each, sdk/access-model grantNeeds).
 */
function reasonedNeeds(operation: Operation): { capability: string; group: string; reason: NeedReason }[] {
  const needs = needsOf(operation);
  const handsOut = operation.verb === "CREATE" || operation.verb === "UPDATE";
  const grants = handsOut ? new Set(operation.grants ?? []).size : 0;
  const what = handsOut ? operation.grantsWhat : undefined;
  const own = needs.length - grants;
  return needs.map((need, i) => {
    let reason: NeedReason;
    if (i >= own) reason = { act: "grant", what: what ?? need.capability };
    else if (operation.verb === "CREATE")
      reason = { act: "create", collection: operation.collection, parent: operation.parent };
    else if (i === 0) reason = { act: "read", collection: operation.collection, uid: operation.uid };
    else
      reason = {
        act: operation.verb === "UPDATE" ? "update" : "delete",
        collection: operation.collection,
        uid: operation.uid,
      };
    return { capability: need.capability, group: need.group, reason };
  });
}

/**
 * The needs of `effect` that `caller` does not meet. Its own access is judged from the facts as read (`asRead`): a
 * grant of the same update may not be in effect when the later operation reaches the service. What the change
 * grants, and the roles a refusal suggests, come from the facts with the provider's own writes (`current`).
 */
export function preflight(
  asRead: LiveFacts,
  current: LiveFacts,
  caller: string,
  effect: AccessEffect,
): PreflightResult {
  const model = modelOf(asRead);
  const needs = [
    ...effect.operations.flatMap(reasonedNeeds),
    ...(effect.needs ?? []).map((need) => ({
      capability: need.capability,
      group: need.group,
      reason: { act: "use" as const, ...need.reads },
    })),
  ];
  const seen = new Set<string>();
  const refusals: PreflightFinding[] = [];
  const unverified: PreflightFinding[] = [];
  for (const need of needs) {
    // A root-level position (an organization's own creation) is not governed by a group's bindings.
    if (need.group === "") continue;
    const key = `${need.capability}\u0000${need.group}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (capabilitiesOn(model, caller, need.group).has(need.capability)) continue;
    // Every binding that applies on the group is visible only when the caller may list bindings from the top.
    if (
      !capabilitiesOn(model, caller, organizationOf(need.group)).has(
        "CAP_IAM_ROLE_BINDINGS_LIST" satisfies Capability,
      )
    ) {
      unverified.push(need);
      continue;
    }
    refusals.push({ ...need, role: roleGranting(current, need.capability)?.uid });
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
 * The names of what the lines mention: from the facts, the change's own result and what this process has learnt;
 * what is still unnamed is looked up by uid (../live-facts lookUpNames), once per process.
 */
async function namesFor(
  profile: string | undefined,
  facts: FactsNow,
  after: LiveFacts | undefined,
  lines: readonly ImpactLine[],
  found: PreflightResult,
  caller: string | undefined,
): Promise<Names> {
  const sets = after === undefined ? [facts.current] : [facts.current, after];
  const names = namesOf(sets, facts.known);
  const findings = [...found.refusals, ...found.unverified];
  const groups = [
    ...lines.map((l) => l.group),
    ...findings.flatMap((f) => [
      f.group,
      ...(f.reason.act === "create" ? [f.reason.parent] : []),
      ...(f.reason.act !== "create" && "collection" in f.reason && f.reason.collection === "groups"
        ? [f.reason.uid]
        : []),
    ]),
  ];
  const identities = [
    ...lines.map((l) => l.identity),
    ...(caller !== undefined && findings.length > 0 ? [caller] : []),
    ...findings.flatMap((f) =>
      f.reason.act === "use" && f.reason.kind === "identity" ? [f.reason.uid] : [],
    ),
  ];
  const unnamed = (kind: NamedKind, uids: string[]) => uids.filter((uid) => !names.known(kind, uid));
  const missing = { groups: unnamed("group", groups), identities: unnamed("identity", identities) };
  if (missing.groups.length + missing.identities.length === 0) return names;
  await lookUpNames(profile, missing);
  return namesOf(sets, facts.known);
}

/**
 * Reviews one planned change: logs its impact lines (under `urn` when known) and runs the preflight, which throws
 * (mode "error") or warns (mode "warn") when the caller lacks a capability. Nothing is read when the resource
 * describes no effect, or a part of the change is unknown; otherwise only the organizations the change touches.
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
        `preflight skipped${profile ? ` for profile ${nameText(profile)}` : ""}: the provider cannot tell which ` +
          `identity its token belongs to (not a JWT with a sub claim). Use token exchange with ` +
          `${CONFIG_KEYS.identity}, or a token the service issued; or set ${CONFIG_KEYS.preflight}: off to ` +
          `silence this.`,
      );
    }
  }
  const wantsPreflight = caller !== undefined && probe.operations.length > 0;
  if (probe.after === undefined && !wantsPreflight) return;
  const facts = await factsFor(profile, organizationsOf(probe));
  const effect = effectOf(change, facts.current);
  if (effect === undefined) return;
  const known = facts.asRead.roles.filter((r) => !facts.ownRoles.has(r.uid));
  const lines = effect.after === undefined ? [] : impactOf(facts.current, effect.after, known);
  const found =
    caller === undefined
      ? { refusals: [], unverified: [] }
      : preflight(facts.asRead, facts.current, caller, effect);
  if (lines.length + found.refusals.length + found.unverified.length === 0) return;
  const names = await namesFor(
    profile,
    facts,
    effect.after,
    lines.slice(0, NAMED_IMPACT_LINES),
    found,
    caller,
  );
  if (lines.length > 0) await logInfo(describeImpact(lines, label, names).join("\n"), urn);
  if (caller === undefined) return;
  if (found.unverified.length > 0)
    await logInfo(
      [
        unverifiedHeading(caller, names),
        ...found.unverified.map((f) => describeUnverified(f, label, names)),
      ].join("\n"),
      urn,
    );
  if (found.refusals.length === 0) return;
  const refusals = found.refusals.map((f) => describeRefusal(f, label, caller, names));
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

/** What granting a role needs beyond its capabilities: seeing the role (a custom one) and the identity (a workload). */
export function referenceNeeds(roleUid: string, identityUid?: string): ReferenceNeed[] {
  const needs: ReferenceNeed[] = [];
  const roleGroup = parentOf(roleUid);
  if (roleGroup !== undefined)
    needs.push({ capability: "CAP_IAM_ROLES_LIST", group: roleGroup, reads: { kind: "role", uid: roleUid } });
  const identityGroup = identityUid === undefined ? undefined : parentOf(identityUid);
  if (identityUid !== undefined && identityGroup !== undefined)
    needs.push({
      capability: "CAP_IAM_IDENTITY_LIST",
      group: identityGroup,
      reads: { kind: "identity", uid: identityUid },
    });
  return needs;
}

/** The capabilities of `roleUid` as listed (none when the caller cannot list it: then `referenceNeeds` says so). */
export function capabilitiesOfRole(facts: LiveFacts, roleUid: string): string[] {
  return [...(facts.roles.find((r) => r.uid === roleUid)?.capabilities ?? [])];
}

/** "role deployer", "built-in role viewer": a role a change grants, by its name where the facts know it. */
export function roleWords(facts: LiveFacts, roleUid: string): string {
  return new Names().add("role", roleUid, facts.roles.find((r) => r.uid === roleUid)?.name).role(roleUid);
}

/** Are the inputs `keys` of `props` all known (a preview knows no output of a resource not made yet)? */
const known = (props: Props, keys: readonly string[]) => keys.every((k) => !containsUnknown(props[k]));

/** How one resource's objects live in the access rules, for `objectEffect` and `objectAccess`. */
export interface ObjectAccess<T = unknown> {
  collection: Operation["collection"];
  /** The input naming the parent group ("" or absent: at the root). */
  parentKey: string;
  /** The other inputs the effect reads (it is said only once they are known). */
  reads?: readonly string[];
  /** The capabilities a create hands out (a binding's role...), with the references it must read. */
  grants?: (
    news: Props,
    facts: LiveFacts,
  ) => { capabilities: string[]; what: string; needs: ReferenceNeed[] } | undefined;
  /** The capabilities an update hands out, given the inputs before and after. */
  updateGrants?: (
    olds: Props,
    news: Props,
    facts: LiveFacts,
  ) => { capabilities: string[]; what: string; needs: ReferenceNeed[] } | undefined;
  /** Access after creating the object (a binding grants). */
  afterCreate?: (facts: LiveFacts, news: Props) => LiveFacts;
  /** Access after updating it (a role's capabilities). */
  afterUpdate?: (facts: LiveFacts, uid: string, news: Props) => LiveFacts;
  /** Access after deleting it (a group or role takes its bindings; a binding revokes). */
  afterDelete?: (facts: LiveFacts, uid: string) => LiveFacts;
  /** The facts after the provider created or updated `object` (with `afterDelete`: its own writes' effect). */
  written?: (facts: LiveFacts, object: T) => LiveFacts;
  /** The kind of name its state records (`name`, `uid`), which lines may use. */
  names?: NamedKind;
}

/** The effect of a planned change of an ordinary object (create, update, replace = delete then create). */
export function objectEffect<T>(rules: ObjectAccess<T>): AccessEffectOf {
  const { collection } = rules;
  const create = (news: Props, facts: LiveFacts) => {
    const parent = news[rules.parentKey];
    if (!known(news, [rules.parentKey, ...(rules.reads ?? [])])) return undefined;
    if (parent === undefined || parent === "")
      return { operations: [] as Operation[], needs: [] as ReferenceNeed[] };
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

/**
 * What a resource description takes from its access rules: the effect of a planned change (at preview), and how
 * the provider's own writes of it change the live facts (for the rest of the process).
 */
export function objectAccess<T>(rules: ObjectAccess<T>): {
  accessEffect: AccessEffectOf;
  ownWrites?: OwnWrites<T>;
} {
  const { written, afterDelete, names } = rules;
  return {
    accessEffect: objectEffect(rules),
    ...(written === undefined || afterDelete === undefined
      ? {}
      : { ownWrites: { written, deleted: afterDelete, ...(names === undefined ? {} : { names }) } }),
  };
}

/** One binding by its natural key, as the authoritative resources (GroupAccess, IdentityAccess) plan them. */
export interface PlannedBinding {
  groupUid: string;
  identityUid: string;
  roleUid: string;
}

/** A binding's natural key: its group, identity and role (a uid holds no NUL). */
const bindingKey = (group: string, identity: string, role: string) =>
  `${group}\u0000${identity}\u0000${role}`;

/** The effect of an authoritative resource's plan: each add a binding's create, each remove its delete. */
export function bindingPlanEffect(
  adds: readonly PlannedBinding[],
  removes: readonly PlannedBinding[],
): AccessEffectOf {
  const removed = new Set(removes.map((p) => bindingKey(p.groupUid, p.identityUid, p.roleUid)));
  return (_change, facts) => {
    // The first binding of each natural key, as a remove deletes it: one pass, not one per remove.
    const byKey = new Map<string, LiveBinding>();
    for (const b of facts.bindings) {
      const key = bindingKey(b.group, b.identity, b.role);
      if (!byKey.has(key)) byKey.set(key, b);
    }
    const operations: Operation[] = [
      ...adds.map((p) => ({
        verb: "CREATE" as const,
        collection: "roleBindings" as const,
        parent: p.groupUid,
        grants: capabilitiesOfRole(facts, p.roleUid),
        grantsWhat: roleWords(facts, p.roleUid),
      })),
      ...removes.map((p) => ({
        verb: "DELETE" as const,
        collection: "roleBindings" as const,
        // A binding's position is its group (its uid's parent).
        uid: byKey.get(bindingKey(p.groupUid, p.identityUid, p.roleUid))?.uid ?? `${p.groupUid}/-`,
      })),
    ];
    const kept = facts.bindings.filter((b) => !removed.has(bindingKey(b.group, b.identity, b.role)));
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
