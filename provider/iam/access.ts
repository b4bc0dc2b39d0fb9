/**
 * What the two authoritative resources (GroupAccess, IdentityAccess) share: a scope of role bindings, the set a
 * resource declares in it, the plan that turns one set into another, the one way a plan is applied, the caller's
 * identity (the lock-out guard) and the claims that let the resources of one stack see each other at preview.
 *
 * A binding is its natural key, (group, identity, role): the service mints a new uid for every grant, so two
 * bindings with the same key are the same access, and the sets compare keys, never uids.
 *
 * The plan between two sets is exactly their symmetric difference, and applying it creates every missing binding
 * (in batches of up to 25 per group, recovered without duplicates after a transient failure) BEFORE it deletes any
 * extra one (a change of role never leaves a gap in access), deletes only bindings that the
 * new set does not hold (a binding that stays is never deleted and re-created), and deletes the provider's own
 * identity's bindings last.
 */
import {
  NotFoundError,
  ROLE_BINDING_BATCH_MAX,
  isRetryableError,
  retryDelay,
  sleep,
  withRetry,
  type PlatformClient,
  type RoleBindingListQuery,
} from "../../sdk";
import { DEFAULT_CREATE_POLICY, isAmbiguousFailure, type CreatePolicy } from "../core/create";
import { Names, resourceText, type NamedKind, said, nameText, type Words } from "../../sdk/words";
import { namedBinding, namesByUid, type NamedBinding } from "../core/live-facts";
import { isAtOrBelow } from "../../sdk/uidp";

/** One grant: an identity holds a role on a group. */
export interface Binding {
  groupUid: string;
  identityUid: string;
  roleUid: string;
}

/** A binding as the service lists it: its uid, and the names of what it refers to (for messages). */
export type LiveBinding = NamedBinding;

/** What an authoritative resource governs. */
export type Scope =
  { kind: "group"; groupUid: string; subtree: boolean } | { kind: "identity"; identityUid: string };

/** The listing page size: the service's maximum, so a refresh of 1,000 bindings is five list calls. */
export const PAGE_SIZE = 200;

/** How many creates or deletes are in flight at once while a plan is applied. */
export const CONCURRENCY = 16;

export function keyOf(binding: Binding): string {
  return `${binding.groupUid} ${binding.identityUid} ${binding.roleUid}`;
}

/** The set in its one canonical form: one entry per key, sorted by group, identity, role. */
export function canonicalSet<B extends Binding>(bindings: readonly B[]): B[] {
  const byKey = new Map<string, B>();
  for (const binding of bindings) if (!byKey.has(keyOf(binding))) byKey.set(keyOf(binding), binding);
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, binding]) => binding);
}

/** Whether `groupUid` is `ancestor` or below it (sdk/uidp.ts). */
export { isAtOrBelow };

export function inScope(scope: Scope, binding: Binding): boolean {
  if (scope.kind === "identity") return binding.identityUid === scope.identityUid;
  return scope.subtree ? isAtOrBelow(binding.groupUid, scope.groupUid) : binding.groupUid === scope.groupUid;
}

export function describeScope(scope: Scope): Words {
  if (scope.kind === "identity") return said`every binding of identity ${nameText(scope.identityUid)}`;
  return scope.subtree
    ? said`the bindings on group ${nameText(scope.groupUid)} and every group under it`
    : said`the bindings on group ${nameText(scope.groupUid)}`;
}

/** How a resource of the dynamic front is named in a conflict (the dynamic host does not say which one it checks). */
export function labelOfScope(scope: Scope): string {
  if (scope.kind === "identity") return `IdentityAccess of identity ${scope.identityUid}`;
  return `GroupAccess of group ${scope.groupUid}${scope.subtree ? " and its subtree" : ""}`;
}

/** The names the service gave with `bindings`, for lines about them (told apart by uid where two share one). */
export function bindingNames(bindings: readonly (Binding | LiveBinding)[]): Names {
  const names = new Names();
  for (const b of bindings as readonly LiveBinding[]) {
    names.add("role", b.roleUid, b.roleName);
    names.add("identity", b.identityUid, b.identityName);
    names.add("group", b.groupUid, b.groupName);
  }
  return names;
}

/** A binding in words, as every line names things: "built-in role viewer of workload identity ci on folder eng". */
export function describeBinding(binding: Binding, names: Names = bindingNames([binding])): string {
  return `${names.role(binding.roleUid)} of ${names.identity(binding.identityUid)} on ${names.group(binding.groupUid)}`;
}

/** Every binding in the scope, in pages of 200: one list call per 200 bindings. */
export async function listScope(client: PlatformClient, scope: Scope): Promise<LiveBinding[]> {
  const query: RoleBindingListQuery =
    scope.kind === "identity"
      ? { identity: scope.identityUid }
      : scope.subtree
        ? { descendantsOf: scope.groupUid }
        : { group: scope.groupUid };
  const found: LiveBinding[] = [];
  for await (const binding of client.roleBindings.list({ ...query, pageSize: PAGE_SIZE })) {
    const live = namedBinding(binding);
    if (inScope(scope, live)) found.push(live);
  }
  return found;
}

/** How many bindings of a plan the preview names one by one; the rest are counted. */
export const NAMED_STEPS = 50;

/**
 * `bindings` with the names of what they refer to: from the live bindings when there, else looked up by uid, one
 * list call per kind (`uidp.ids`, up to PAGE_SIZE uids a page) rather than a get per object, so naming a plan of
 * 50 bindings costs three calls, not fifty; one that cannot be read keeps its uid alone.
 */
export async function withNames(
  client: PlatformClient,
  bindings: readonly Binding[],
  live: readonly LiveBinding[],
): Promise<LiveBinding[]> {
  const names = new Map<string, string | undefined>();
  for (const b of live) {
    names.set(`group ${b.groupUid}`, b.groupName);
    names.set(`identity ${b.identityUid}`, b.identityName);
    names.set(`role ${b.roleUid}`, b.roleName);
  }
  const unnamed = (kind: NamedKind, uids: string[]) =>
    [...new Set(uids)].filter((uid) => names.get(`${kind} ${uid}`) === undefined);
  const uidsOf: Record<NamedKind, (b: Binding) => string> = {
    group: (b) => b.groupUid,
    identity: (b) => b.identityUid,
    role: (b) => b.roleUid,
  };
  await Promise.all(
    (["group", "identity", "role"] as const).map(async (kind) => {
      const found = await namesByUid(client, kind, unnamed(kind, bindings.map(uidsOf[kind])));
      for (const [uid, name] of found) names.set(`${kind} ${uid}`, name);
    }),
  );
  return bindings.map((b) => ({
    uid: "",
    ...b,
    groupName: names.get(`group ${b.groupUid}`),
    identityName: names.get(`identity ${b.identityUid}`),
    roleName: names.get(`role ${b.roleUid}`),
  }));
}

/** What turns one set into another: exactly their symmetric difference, by key. */
export interface Plan {
  adds: Binding[];
  removes: Binding[];
}

export function planOf(current: readonly Binding[], declared: readonly Binding[]): Plan {
  const has = (set: readonly Binding[]) => {
    const keys = new Set(set.map(keyOf));
    return (binding: Binding) => keys.has(keyOf(binding));
  };
  const inCurrent = has(current);
  const inDeclared = has(declared);
  return {
    adds: canonicalSet(declared.filter((b) => !inCurrent(b))),
    removes: canonicalSet(current.filter((b) => !inDeclared(b))),
  };
}

/** Runs `work` over `items`, at most `limit` at a time; the first failure is thrown once all have settled. */
async function inPool<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item).catch((err: unknown) => {
        failures.push(err);
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.length > 0) throw failures[0];
}

/** A write that failed in a way a later attempt may not: a 503, 429, 502, 504, a timeout or a lost answer. */
export function isTransientFailure(err: unknown): boolean {
  return isAmbiguousFailure(err) || isRetryableError(err);
}

/**
 * A plan stopped part-way: `stoppedBy` is the failure that stopped it, `held` every binding of the scope as far as this
 * run knows (the live ones it started from, less those it deleted, plus those it created or found created), so
 * the resource can record what exists and the next run continue from there.
 */
export class PlanInterrupted extends Error {
  constructor(
    readonly stoppedBy: unknown,
    readonly held: LiveBinding[],
  ) {
    super(stoppedBy instanceof Error ? stoppedBy.message : String(stoppedBy));
  }
}

/** The adds in batches the API takes: per group, at most ROLE_BINDING_BATCH_MAX, a role's bindings together. */
export function batchesOf(adds: readonly Binding[]): Binding[][] {
  const byGroup = new Map<string, Binding[]>();
  for (const b of canonicalSet(adds)) byGroup.set(b.groupUid, [...(byGroup.get(b.groupUid) ?? []), b]);
  const batches: Binding[][] = [];
  for (const bindings of byGroup.values()) {
    const byRole = [...bindings].sort((a, b) => (a.roleUid < b.roleUid ? -1 : a.roleUid > b.roleUid ? 1 : 0));
    for (let i = 0; i < byRole.length; i += ROLE_BINDING_BATCH_MAX)
      batches.push(byRole.slice(i, i + ROLE_BINDING_BATCH_MAX));
  }
  return batches;
}

/** The role every binding of a batch has, if they share one (then sent once, as the batch's). */
function sharedRole(batch: readonly Binding[]): string | undefined {
  const roles = new Set(batch.map((b) => b.roleUid));
  return roles.size === 1 ? batch[0]!.roleUid : undefined;
}

/** The bindings of one group (of one role, when given), as a lookup after a write whose answer was lost. */
async function listGroup(client: PlatformClient, groupUid: string, roleUid: string | undefined) {
  const found: LiveBinding[] = [];
  const query: RoleBindingListQuery = {
    group: groupUid,
    ...(roleUid !== undefined ? { role: roleUid } : {}),
  };
  for await (const binding of client.roleBindings.list({ ...query, pageSize: PAGE_SIZE }))
    found.push(namedBinding(binding));
  return found;
}

/**
 * Creates one batch without duplicates, as the kit creates one object (../core/create.ts): a batch that fails
 * transiently may or may not have been applied (all of it: the API's batch is atomic), so before anything is sent
 * again the group is listed and only what it still lacks is sent, backing off (honouring Retry-After) within the
 * policy's time budget. Calls `onCreated` with each binding as soon as it is known to exist.
 */
export async function createBatch(
  client: PlatformClient,
  batch: readonly Binding[],
  onCreated: (made: LiveBinding) => void,
  policy: CreatePolicy = DEFAULT_CREATE_POLICY,
): Promise<void> {
  const now = policy.now ?? Date.now;
  const started = now();
  const remaining = (): number => policy.budgetMs - (now() - started);
  const groupUid = batch[0]!.groupUid;
  let missing = [...batch];
  for (let sent = 1; ; sent++) {
    const role = sharedRole(missing);
    try {
      const made = await client.roleBindings.batchCreate(
        groupUid,
        missing.map((b) => ({
          identityUid: b.identityUid,
          ...(role === undefined ? { roleUid: b.roleUid } : {}),
        })),
        role === undefined ? {} : { roleUid: role },
      );
      for (const binding of made) onCreated(namedBinding(binding));
      return;
    } catch (err) {
      if (!isTransientFailure(err)) throw err;
      let found: LiveBinding[];
      try {
        found = await withRetry(() => listGroup(client, groupUid, role), {
          maxRetries: policy.lookupRetries,
          // At least one patient lookup even when the budget is spent: it decides what was applied.
          budgetMs: Math.max(remaining(), policy.lookupBaseDelayMs * 8),
          now,
          baseDelayMs: policy.lookupBaseDelayMs,
          shouldRetry: isTransientFailure,
          ...(policy.sleep ? { sleep: policy.sleep } : {}),
        });
      } catch {
        // Whether the batch was applied is unknown: report the write's failure, not the lookup's.
        throw err;
      }
      const foundByKey = new Map(found.map((b) => [keyOf(b), b]));
      for (const b of missing) {
        const live = foundByKey.get(keyOf(b));
        if (live !== undefined) onCreated(live);
      }
      missing = missing.filter((b) => !foundByKey.has(keyOf(b)));
      if (missing.length === 0) return;
      const delay = retryDelay(sent, err, {
        maxRetries: policy.maxCreates,
        baseDelayMs: policy.lookupBaseDelayMs,
      });
      if (sent >= policy.maxCreates || delay > remaining()) throw err;
      await (policy.sleep ?? sleep)(delay);
    }
  }
}

/**
 * Applies a plan against the live bindings: creates, in batches per group, each added binding the service does not
 * already hold, THEN deletes every live binding with a removed key (the provider's own identity's last; one
 * already gone is fine: a delete whose answer was lost and is repeated finds nothing). Transient failures are
 * recovered as `createBatch` says; one that still stops the plan throws PlanInterrupted with what the scope holds
 * as far as this run knows. Returns the bindings the scope holds afterwards, as far as this plan touched them.
 */
export async function applyPlan(
  client: PlatformClient,
  plan: Plan,
  live: readonly LiveBinding[],
  caller: string | undefined,
  policy: CreatePolicy = DEFAULT_CREATE_POLICY,
): Promise<LiveBinding[]> {
  const liveKeys = new Set(live.map(keyOf));
  const created: LiveBinding[] = [];
  const deleted = new Set<string>();
  const held = () => [...live.filter((b) => !deleted.has(b.uid)), ...created];
  try {
    await inPool(batchesOf(plan.adds.filter((b) => !liveKeys.has(keyOf(b)))), CONCURRENCY, (batch) =>
      createBatch(client, batch, (made) => created.push(made), policy),
    );
    const removedKeys = new Set(plan.removes.map(keyOf));
    const doomed = live.filter((b) => removedKeys.has(keyOf(b)));
    const remove = async (binding: LiveBinding) => {
      try {
        await client.roleBindings.delete(binding.uid);
      } catch (err) {
        if (!NotFoundError.isInstance(err)) throw err;
      }
      deleted.add(binding.uid);
    };
    await inPool(
      doomed.filter((b) => b.identityUid !== caller),
      CONCURRENCY,
      remove,
    );
    await inPool(
      doomed.filter((b) => b.identityUid === caller),
      CONCURRENCY,
      remove,
    );
  } catch (err) {
    throw new PlanInterrupted(err, held());
  }
  return held();
}

// The caller's identity (the lock-out guard's and the preflight's): ../core/client.
export { callerIdentity, subjectOf } from "../core/client";

// ---------------------------------------------------------------------------------------------------------------
// Claims: how the resources of one stack see each other at preview.
//
// The engine never tells a provider about the other resources of a stack. What it does do is run every resource of
// one provider in ONE process and call `check` for each of them, in every preview and update, before any of them
// changes. So each RoleBinding, GroupAccess and IdentityAccess records, in `check`, what it claims, in a table of
// that process, and compares it with the claims recorded before it: of two resources that conflict, the one checked
// second fails, naming both. The table is kept on `globalThis`, so two copies of this module in one process share it.

/** What one resource claims. */
export type Claim =
  { kind: "binding"; binding: Binding } | { kind: "authority"; scope: Scope; declared: readonly Binding[] };

interface Claimant {
  /** Who the claim is (a URN on the native front, a description of the resource on the dynamic one). */
  key: string;
  label: string;
  claim: Claim;
}

const CLAIMS_KEY = Symbol.for("pulumi-platform.access-claims");

function claimTable(): Map<string, Claimant> {
  const global = globalThis as unknown as Record<symbol, Map<string, Claimant> | undefined>;
  let table = global[CLAIMS_KEY];
  if (table === undefined) {
    table = new Map();
    global[CLAIMS_KEY] = table;
  }
  return table;
}

/** Forgets every claim (tests; a process serves one deployment). */
export function resetClaims(): void {
  claimTable().clear();
}

function scopesOverlap(a: Scope, b: Scope): boolean {
  if (a.kind === "identity" && b.kind === "identity") return a.identityUid === b.identityUid;
  if (a.kind === "group" && b.kind === "group") {
    return (
      a.groupUid === b.groupUid ||
      (a.subtree && isAtOrBelow(b.groupUid, a.groupUid)) ||
      (b.subtree && isAtOrBelow(a.groupUid, b.groupUid))
    );
  }
  return false;
}

/** Why two claims cannot both hold, or undefined when they can. */
function conflictOf(a: Claim, b: Claim): string | undefined {
  if (a.kind === "binding" && b.kind === "binding") return undefined;
  if (a.kind === "binding" || b.kind === "binding") {
    const [binding, authority] = (a.kind === "binding" ? [a, b] : [b, a]) as [
      Extract<Claim, { kind: "binding" }>,
      Extract<Claim, { kind: "authority" }>,
    ];
    return inScope(authority.scope, binding.binding)
      ? `the binding is inside ${describeScope(authority.scope)}, which the other declares completely`
      : undefined;
  }
  if (scopesOverlap(a.scope, b.scope)) {
    return `their scopes overlap (${describeScope(a.scope)}; ${describeScope(b.scope)})`;
  }
  // A group's authority and an identity's authority meet on that identity's bindings in that group's scope:
  // they may both stand only when they declare exactly the same bindings there.
  const shared = (declared: readonly Binding[]) =>
    canonicalSet(declared.filter((x) => inScope(a.scope, x) && inScope(b.scope, x)))
      .map(keyOf)
      .join(",");
  if (shared(a.declared) !== shared(b.declared)) {
    return `they declare different bindings where their scopes meet (${describeScope(a.scope)}; ${describeScope(b.scope)})`;
  }
  return undefined;
}

/**
 * Records a resource's claim and returns one line for every resource recorded before it that it conflicts with.
 * A claim recorded again under the same key replaces the earlier one (the same resource checked again).
 */
export function claim(key: string, label: string, what: Claim): string[] {
  const table = claimTable();
  table.delete(key);
  const conflicts: string[] = [];
  for (const other of table.values()) {
    const why = conflictOf(what, other.claim);
    if (why !== undefined) conflicts.push(`${label} conflicts with ${other.label} of the same stack: ${why}`);
  }
  table.set(key, { key, label, claim: what });
  return conflicts;
}

/** The short name of a resource from its URN (`urn:pulumi:stack::project::type::name`), with its type. */
export function labelOfUrn(urn: string): string | undefined {
  const parts = urn.split("::");
  if (parts.length < 4) return undefined;
  const type = (parts[2] ?? "").split("$").pop() ?? "";
  return resourceText(type.replace(/^pulumi-nodejs:dynamic\//, "platform:"), parts.slice(3).join("::"));
}
