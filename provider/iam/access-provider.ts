/**
 * The provider object of an authoritative resource (GroupAccess, IdentityAccess), from a small description of its
 * scope and of how its bindings are written. Both fronts call it: the dynamic-provider host directly, the native
 * plugin through its catalogue entry, so the two behave the same.
 *
 * What it does, method by method:
 *   - check: the declaration's rules, then the defaults and the set's canonical order, then the claims of the
 *     other resources of the stack (./access claim) and the lock-out guard (each conflict one failure line); then
 *     the plan, each binding named, as an info message of the preview (../core/engine-log).
 *   - diff: the scope, the options and the SET of bindings (by key, never by order or uid). Nothing replaces.
 *   - create: lists the scope and makes it match the declaration (the scope is taken over as it is).
 *   - read: lists the scope (pages of 200): every binding made or removed outside the stack is drift.
 *   - update: applies exactly the difference between the recorded set and the declared one: adds, then removes.
 *   - delete: removes the bindings it declared, or keeps them (`onDelete`).
 * What create, update and delete make and remove is recorded in the live facts (../core/live-facts), so the access
 * reviews later in the same process see it.
 */
import { said } from "../../sdk/words";
import type * as pulumi from "@pulumi/pulumi";
import { NotFoundError, type PlatformClient } from "../../sdk";
import { checkInputs, containsUnknown } from "../core/check";
import { clientFor, termsFor } from "../core/client";
import type { ResourceDeclaration } from "../core/declaration";
import { translateError, withoutHostEcho, type Attempt } from "../core/errors";
import { compact, type ResourceDiff, type ResourceOperations } from "../core/resource-provider";
import { propertyChanges } from "../core/diff";
import { logInfo } from "../core/engine-log";
import { bindingPlanEffect, PreflightError, reviewChange } from "../core/access-review";
import { factOfBinding, noteName, recordOwnWrite, withBinding, withoutBindings } from "../core/live-facts";
import {
  applyPlan,
  callerIdentity,
  inScope,
  PlanInterrupted,
  canonicalSet,
  claim,
  bindingNames,
  describeBinding,
  describeScope,
  keyOf,
  NAMED_STEPS,
  withNames,
  labelOfScope,
  labelOfUrn,
  listScope,
  planOf,
  type Binding,
  type LiveBinding,
  type Scope,
} from "./access";

type Props = Record<string, unknown>;

/** What an authoritative resource tells the builder. */
export interface AccessDescription {
  declaration: ResourceDeclaration;
  /** The scope the inputs (or the state) govern; undefined while a part of it is unknown (a preview). */
  scopeOf(props: Props): Scope | undefined;
  /** The scope an id names (`pulumi import`, a `get`). */
  scopeOfId(id: string): Scope;
  /** The id of a new resource. */
  idOf(scope: Scope): string;
  /** The inputs that say which scope (e.g. { groupUid, scope }), from a scope. */
  scopeInputs(scope: Scope): Props;
  /** The bindings the inputs declare, each complete (the group filled in). */
  declaredOf(props: Props, scope: Scope): Binding[];
  /** Bindings as the program writes them, in canonical order. */
  programFormOf(bindings: readonly Binding[], scope: Scope): Props[];
  /** Reads the group or identity the scope belongs to (a NotFoundError when it is gone). */
  assertExists(client: PlatformClient, scope: Scope): Promise<unknown>;
}

const OPTION_DEFAULTS = { onDelete: "remove", allowRemovingOwnAccess: false } as const;

/**
 * Records in the live facts of `profile` what a plan made and removed: the bindings `held` has that `live` had not,
 * and those `live` had that `held` no longer has (both as far as this run knows, even when it stopped part-way).
 */
function recordPlanWrites(
  profile: string | undefined,
  live: readonly LiveBinding[],
  held: readonly LiveBinding[],
): void {
  const had = new Set(live.map((b) => b.uid));
  const kept = new Set(held.map((b) => b.uid));
  const removed = new Set(live.filter((b) => !kept.has(b.uid)).map((b) => b.uid));
  const made = held.filter((b) => !had.has(b.uid));
  if (removed.size + made.length === 0) return;
  recordOwnWrite(profile, (facts) =>
    made.reduce(
      (f, b) => withBinding(f, factOfBinding(b)),
      withoutBindings(facts, (b) => removed.has(b.uid)),
    ),
  );
}

/** Applies a plan (./access applyPlan) and records what it made and removed, whether it finished or stopped. */
async function applyRecorded(
  client: PlatformClient,
  plan: ReturnType<typeof planOf>,
  live: readonly LiveBinding[],
  caller: string | undefined,
  profile: string | undefined,
): Promise<void> {
  try {
    recordPlanWrites(profile, live, await applyPlan(client, plan, live, caller));
  } catch (err) {
    if (err instanceof PlanInterrupted) recordPlanWrites(profile, live, err.held);
    throw err;
  }
}

/** A check that knows the resource's URN (the native plugin passes it; the dynamic host cannot). */
export type CheckWithUrn = (olds: Props, news: Props, urn?: string) => Promise<pulumi.dynamic.CheckResult>;

/** The operations of an authoritative resource, which both fronts drive (the dynamic one through dynamicProvider). */
export function accessOperations(spec: AccessDescription): ResourceOperations {
  const token = spec.declaration.token;
  const attempt = (action: string, props: Props | undefined, uid?: string): Attempt => {
    const scope = props === undefined ? undefined : spec.scopeOf(props);
    return {
      action,
      type: token,
      uid,
      profile: props?.profile as string | undefined,
      where: scope === undefined ? undefined : said`governing ${describeScope(scope)}`,
    };
  };
  const failure = (err: unknown, context: Attempt): Error =>
    withoutHostEcho(translateError(err, context, undefined, termsFor(context.profile)));

  /** The state of a resource: its inputs with their defaults and the canonical set, its id as `uid`. */
  const stateOf = (scope: Scope, props: Props, bindings: readonly Binding[], id: string): Props =>
    compact({
      ...spec.scopeInputs(scope),
      bindings: spec.programFormOf(canonicalSet(bindings), scope),
      onDelete: props.onDelete ?? OPTION_DEFAULTS.onDelete,
      allowRemovingOwnAccess: props.allowRemovingOwnAccess ?? OPTION_DEFAULTS.allowRemovingOwnAccess,
      profile: props.profile,
      uid: id,
    });
  const inputsOf = (state: Props): Props => {
    const { uid: _uid, ...inputs } = state;
    return inputs;
  };

  /**
   * The failure of a create or update. One that stopped a plan part-way (PlanInterrupted) carries the state to
   * record, so that what was created is never lost and the next run continues: `id`, `properties` and `reasons`,
   * which the dynamic-provider host and the plugin both hand to the engine as a resource that failed to initialise
   * (ErrorResourceInitFailed: the engine records it with its initErrors and updates it on the next run). Its
   * bindings are what the scope holds, listed once more, or, when that fails too, what this run knows it holds.
   */
  const interrupted = async (err: unknown, context: Attempt, scope: Scope, props: Props, id: string) => {
    const error = failure(err instanceof PlanInterrupted ? err.stoppedBy : err, context);
    if (!(err instanceof PlanInterrupted)) return error;
    let held: readonly Binding[] = err.held.filter((b) => inScope(scope, b));
    try {
      held = await liveIn(clientFor(props.profile as string | undefined), scope);
    } catch {
      // The service is still failing: what this run saw is the best account of the scope.
    }
    const properties = stateOf(scope, props, held, id);
    // The dynamic-provider host records `properties` as they are: its provider reference goes with them.
    if (props.__provider !== undefined) properties.__provider = props.__provider;
    return Object.assign(error, { id, properties, reasons: [error.message] });
  };

  /** The live bindings of a scope, none when the scope's group or identity does not exist (yet). */
  const liveIn = async (client: PlatformClient, scope: Scope): Promise<LiveBinding[]> => {
    try {
      return await listScope(client, scope);
    } catch (err) {
      if (NotFoundError.isInstance(err)) return [];
      throw err;
    }
  };

  /**
   * What the update will do, as the preview promises it: an existing resource applies the difference between the
   * set its state records and the declared one; a new one (or one moved to another scope) takes the scope over as
   * it is (and drops what it declared in the old one). Lists the scope only in that second case.
   */
  const planned = async (client: PlatformClient, olds: Props, scope: Scope, declared: Binding[]) => {
    const oldScope = Object.keys(olds).length > 0 ? spec.scopeOf(olds) : undefined;
    if (oldScope !== undefined && JSON.stringify(oldScope) === JSON.stringify(scope))
      return { plan: planOf(spec.declaredOf(olds, oldScope), declared), live: undefined };
    const live = await liveIn(client, scope);
    const recorded = oldScope === undefined ? [] : spec.declaredOf(olds, oldScope);
    return { plan: planOf([...recorded, ...live], declared), live };
  };

  /**
   * The lock-out guard's lines (one per binding of the provider's own identity the plan removes), and the plan in
   * words, each binding named as the service names it (one list call, only when the plan changes something).
   */
  const review = async (olds: Props, news: Props, scope: Scope, declared: Binding[], label: string) => {
    const client = clientFor(news.profile as string | undefined);
    const { plan, live: listed } = await planned(client, olds, scope, declared);
    if (plan.adds.length + plan.removes.length === 0) return { refusals: [], steps: [], plan };
    const live = listed ?? (await liveIn(client, scope));
    const caller = callerIdentity(news.profile as string | undefined);
    const own = (b: Binding) => b.identityUid === caller && news.allowRemovingOwnAccess !== true;
    // Named as the service names them: the lock-out's bindings, and the first NAMED_STEPS of the plan.
    const changes = [
      ...plan.adds.map((b) => ({ verb: "add", binding: b })),
      ...plan.removes.map((b) => ({ verb: "remove", binding: b })),
    ];
    const shown = changes.slice(0, NAMED_STEPS);
    const toName = [...plan.removes.filter(own), ...shown.map((c) => c.binding)];
    const named = new Map((await withNames(client, toName, live)).map((b) => [keyOf(b), b]));
    // The access review's lines that follow name the same objects: what was just looked up, it need not be again.
    const profile = news.profile as string | undefined;
    for (const b of named.values()) {
      noteName(profile, "group", b.groupUid, b.groupName);
      noteName(profile, "identity", b.identityUid, b.identityName);
      noteName(profile, "role", b.roleUid, b.roleName);
    }
    const names = bindingNames([...named.values()]);
    const describe = (b: Binding) => describeBinding(b, names);
    const refusals = plan.removes
      .filter(own)
      .map(
        (b) =>
          `${label} would remove ${describe(b)}, a binding of the identity this provider runs as: it could lose the access it manages these bindings with. Declare the binding, or set allowRemovingOwnAccess: true to remove it anyway.`,
      );
    const steps = shown.map((c) => `${label} will ${c.verb} ${describe(c.binding)}`);
    if (changes.length > shown.length)
      steps.push(
        `${label} will make ${changes.length - shown.length} more changes (see the bindings property)`,
      );
    return { refusals, steps, plan };
  };

  /** The plan's impact lines and preflight; the preflight's refusals, one line each (none: it may go on). */
  const reviewPlan = async (
    plan: { adds: readonly Binding[]; removes: readonly Binding[] },
    inputs: Props,
    label: string,
    urn: string | undefined,
  ): Promise<string[]> => {
    try {
      const effect = bindingPlanEffect(plan.adds, plan.removes);
      await reviewChange(
        effect,
        { kind: "create", news: inputs },
        inputs.profile as string | undefined,
        label,
        urn,
      );
      return [];
    } catch (err) {
      if (err instanceof PreflightError) return [...err.refusals];
      throw err;
    }
  };

  const check: CheckWithUrn = async (olds, news, urn) => {
    const failures = checkInputs(spec.declaration.inputSchema, news);
    if (failures.length > 0) return { inputs: news, failures };
    if (!containsUnknown(news.profile)) {
      try {
        clientFor(news.profile as string | undefined);
      } catch (err) {
        throw failure(err, attempt("plan", news));
      }
    }
    const scope = spec.scopeOf(news);
    // Unknown parts (a group made in the same update): nothing to compare yet; the update's own check will.
    if (scope === undefined || containsUnknown(news.bindings)) return { inputs: news };
    const declared = spec.declaredOf(news, scope);
    const inputs = { ...news, ...inputsOf(stateOf(scope, news, declared, "")) };
    const label = (urn !== undefined ? labelOfUrn(urn) : undefined) ?? labelOfScope(scope);
    const key = urn ?? `${token} ${JSON.stringify(scope)} ${declared.map(keyOf).join(",")}`;
    const reasons = claim(key, label, { kind: "authority", scope, declared });
    if (!containsUnknown(news.profile)) {
      try {
        const { refusals, steps, plan } = await review(olds ?? {}, inputs, scope, declared, label);
        reasons.push(...refusals);
        // The plan, binding by binding, in the preview's output (the property diff shows only uids).
        if (reasons.length === 0 && steps.length > 0) await logInfo(steps.join("\n"), urn);
        // Its access impact and preflight (../core/access-review), as every resource's.
        if (reasons.length === 0 && plan.adds.length + plan.removes.length > 0)
          reasons.push(...(await reviewPlan(plan, inputs, label, urn)));
      } catch (err) {
        throw failure(err, attempt("plan", news));
      }
    }
    return { inputs, failures: reasons.map((reason) => ({ property: "", reason })) };
  };

  return {
    check: async (olds, news, urn) => {
      const result = await check(olds, news, urn);
      return { inputs: (result.inputs ?? news) as Props, failures: result.failures };
    },

    async diff(_id: string, olds: Props, news: Props): Promise<ResourceDiff> {
      const oldScope = spec.scopeOf(olds);
      const newScope = spec.scopeOf(news);
      const option = (props: Props, key: keyof typeof OPTION_DEFAULTS) => props[key] ?? OPTION_DEFAULTS[key];
      const setOf = (props: Props, scope: Scope | undefined) =>
        scope === undefined || containsUnknown(props.bindings)
          ? undefined
          : canonicalSet(spec.declaredOf(props, scope)).map(keyOf).join(",");
      // The fields that change, by meaning: the scope's inputs (all of them while the new scope is unknown), the
      // SET of bindings, the options.
      const oldScopeInputs: Props = oldScope === undefined ? {} : spec.scopeInputs(oldScope);
      const newScopeInputs = newScope === undefined ? undefined : spec.scopeInputs(newScope);
      const scopeFields =
        newScopeInputs === undefined
          ? Object.keys(oldScopeInputs)
          : Object.keys(newScopeInputs).filter(
              (key) => JSON.stringify(oldScopeInputs[key]) !== JSON.stringify(newScopeInputs[key]),
            );
      const setChanged =
        setOf(news, newScope) === undefined || setOf(olds, oldScope) !== setOf(news, newScope);
      const changedFields = [
        ...scopeFields,
        ...(setChanged ? ["bindings"] : []),
        ...(["onDelete", "allowRemovingOwnAccess"] as const).filter(
          (k) => option(olds, k) !== option(news, k),
        ),
      ];
      const changes = changedFields.length > 0 || (olds.profile ?? "") !== (news.profile ?? "");
      const decided = { changes, replaces: [], changedFields };
      return {
        ...decided,
        deleteBeforeReplace: false,
        properties: propertyChanges(olds, news, spec.declaration.fields, decided),
      };
    },

    async create(inputs: Props): Promise<{ id: string; outs: Props }> {
      const scope = spec.scopeOf(inputs)!;
      const id = spec.idOf(scope);
      try {
        const client = clientFor(inputs.profile as string | undefined);
        const declared = spec.declaredOf(inputs, scope);
        const live = await liveIn(client, scope);
        const profile = inputs.profile as string | undefined;
        await applyRecorded(client, planOf(live, declared), live, callerIdentity(profile), profile);
        return { id, outs: stateOf(scope, inputs, declared, id) };
      } catch (err) {
        throw await interrupted(err, attempt("create", inputs), scope, inputs, id);
      }
    },

    async read(id: string, props?: Props): Promise<{ id?: string; props?: Props; inputs?: Props }> {
      const state = props ?? {};
      const scope = spec.scopeOf(state) ?? spec.scopeOfId(id);
      try {
        const client = clientFor(state.profile as string | undefined);
        const live = await listScope(client, scope);
        // No binding at all: the scope may be gone, and then so is the resource (one more call, only then).
        if (live.length === 0) await spec.assertExists(client, scope);
        const read = stateOf(scope, state, live, id);
        return { id, props: read, inputs: inputsOf(read) };
      } catch (err) {
        // The group or identity is gone: so is every binding it governed.
        if (NotFoundError.isInstance(err)) return {};
        throw failure(err, attempt("read", state, id));
      }
    },

    async update(id: string, olds: Props, news: Props): Promise<{ outs: Props }> {
      const oldScope = spec.scopeOf(olds)!;
      const scope = spec.scopeOf(news)!;
      try {
        const client = clientFor(news.profile as string | undefined);
        const moved = JSON.stringify(oldScope) !== JSON.stringify(scope);
        const declared = spec.declaredOf(news, scope);
        const recorded = spec.declaredOf(olds, oldScope);
        const liveNew = await liveIn(client, scope);
        const liveOld = moved ? await liveIn(client, oldScope) : [];
        const live = [...new Map([...liveNew, ...liveOld].map((b) => [b.uid, b])).values()];
        // The recorded set is what the preview compared with; a scope taken over brings what it holds.
        const current = moved ? [...recorded, ...liveNew] : recorded;
        const profile = news.profile as string | undefined;
        await applyRecorded(client, planOf(current, declared), live, callerIdentity(profile), profile);
        return { outs: stateOf(scope, news, declared, id) };
      } catch (err) {
        throw await interrupted(err, attempt("update", news, id), scope, news, id);
      }
    },

    async delete(id: string, props: Props): Promise<void> {
      if ((props.onDelete ?? OPTION_DEFAULTS.onDelete) === "keep") return;
      try {
        const scope = spec.scopeOf(props) ?? spec.scopeOfId(id);
        const client = clientFor(props.profile as string | undefined);
        const live = await liveIn(client, scope);
        const declared = spec.declaredOf(props, scope);
        const profile = props.profile as string | undefined;
        await applyRecorded(client, planOf(declared, []), live, callerIdentity(profile), profile);
      } catch (err) {
        throw failure(err, attempt("delete", props, id));
      }
    },
  };
}
