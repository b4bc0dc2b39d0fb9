/**
 * One plan, written once, as each adapter of the access plan receives it: the resources the engine gives a policy
 * analyzer at preview (props through @pulumi/policy's own unknown-checking proxy, property dependencies as
 * resources) and the steps `pulumi preview --json` prints (pkg/display/json.go PreviewDigest: op, urn, oldState and
 * newState with inputs, outputs and propertyDependencies; an unknown value is the engine's placeholder). A
 * reference to another resource of the plan is `ref(name)`: known (its uid) when that resource exists before the
 * update, unknown at preview when the update makes it.
 */
import type { PolicyResource } from "@pulumi/policy";
// @ts-expect-error -- internal module of @pulumi/policy without typings: the engine's unknown sentinels
import { unknownCheckingProxy, unknownStringValue } from "@pulumi/policy/proxy";
import type { PlanKind, PlanOperation } from "../../commands/access/plan";
import { UNKNOWN_PLACEHOLDER } from "../../commands/access/preview-json";

export class Ref {
  constructor(readonly name: string) {}
}
export const ref = (name: string) => new Ref(name);

export interface FixtureResource {
  kind: PlanKind;
  name: string;
  op: PlanOperation;
  /** The object's uid before the update (every op but create). */
  uid?: string;
  /** Inputs after the update (every op but delete). */
  inputs?: Record<string, unknown>;
  /** The state before the update (inputs and outputs). */
  olds?: Record<string, unknown>;
}

export type Front = "native" | "dynamic";

const typeOf = (kind: PlanKind, front: Front) =>
  front === "native" ? `platform:iam:${kind}` : `pulumi-nodejs:dynamic/iam:${kind}`;

export const urnOf = (r: { kind: PlanKind; name: string }, front: Front) =>
  `urn:pulumi:dev::plan::${typeOf(r.kind, front)}::${r.name}`;

/** The inputs with references resolved: a uid where the referenced object exists, `unknown` where it is new. */
function resolved(
  plan: readonly FixtureResource[],
  props: Record<string, unknown>,
  unknown: unknown,
): { props: Record<string, unknown>; deps: Map<string, FixtureResource[]> } {
  const deps = new Map<string, FixtureResource[]>();
  const value = (v: unknown, field: string): unknown => {
    if (v instanceof Ref) {
      const target = plan.find((r) => r.name === v.name);
      if (target === undefined) throw new Error(`no resource ${v.name} in the plan`);
      const list = deps.get(field) ?? [];
      if (!list.includes(target)) list.push(target);
      deps.set(field, list);
      return target.op === "same" || target.op === "update" ? target.uid : unknown;
    }
    if (Array.isArray(v)) return v.map((x) => value(x, field));
    if (typeof v === "object" && v !== null)
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, value(x, field)]));
    return v;
  };
  return {
    props: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, value(v, k)])),
    deps,
  };
}

const provider = (front: Front) => (front === "dynamic" ? { __provider: "exports.handler = ..." } : {});

/**
 * What the engine gives an analyzer at preview: the resources of the stack as they will be (a deleted one is not
 * among them); a new or changed one with its new inputs and no uid (the dynamic front has none before `up`), an
 * unchanged one with its recorded state.
 */
export function analyzerResources(plan: readonly FixtureResource[], front: Front): PolicyResource[] {
  const resources = new Map<string, PolicyResource>();
  const live = plan.filter((r) => r.op !== "delete");
  for (const r of live) {
    const type = typeOf(r.kind, front);
    const { props, deps } =
      r.op === "same"
        ? resolved(plan, { ...r.olds, uid: r.uid }, unknownStringValue)
        : resolved(plan, r.inputs ?? {}, unknownStringValue);
    resources.set(r.name, {
      type,
      name: r.name,
      urn: urnOf(r, front),
      props: unknownCheckingProxy({ ...provider(front), ...props }),
      opts: {} as PolicyResource["opts"],
      dependencies: [],
      propertyDependencies: Object.fromEntries(
        [...deps].map(([k, list]) => [k, list.map((t) => t.name)]),
      ) as never,
      isType: () => false,
      asType: () => undefined,
    });
  }
  // Dependencies as resources, once every resource exists.
  for (const resource of resources.values()) {
    const named = resource.propertyDependencies as unknown as Record<string, string[]>;
    const deps = Object.fromEntries(
      Object.entries(named).map(([k, names]) => [
        k,
        names.map((n) => resources.get(n)).filter((x): x is PolicyResource => x !== undefined),
      ]),
    );
    (resource as { propertyDependencies: Record<string, PolicyResource[]> }).propertyDependencies = deps;
    (resource as { dependencies: PolicyResource[] }).dependencies = Object.values(deps).flat();
  }
  return [...resources.values()];
}

/** What `pulumi preview --json` prints for the plan (unchanged resources only with `showSames`, as the CLI). */
export function previewJson(plan: readonly FixtureResource[], front: Front, showSames = false): string {
  const steps = plan
    .filter((r) => showSames || r.op !== "same")
    .map((r) => {
      const type = typeOf(r.kind, front);
      const urn = urnOf(r, front);
      const step: Record<string, unknown> = {
        op: r.op,
        urn,
        provider: `urn:pulumi:dev::plan::pulumi:providers:x::default::1`,
      };
      if (r.op !== "create") {
        const olds = { ...provider(front), ...r.olds };
        step.oldState = {
          urn,
          custom: true,
          id: r.uid,
          type,
          inputs: olds,
          outputs: { ...olds, uid: r.uid },
        };
      }
      if (r.op !== "delete") {
        const { props, deps } = resolved(
          plan,
          r.op === "same" ? (r.olds ?? {}) : (r.inputs ?? {}),
          UNKNOWN_PLACEHOLDER,
        );
        step.newState = {
          urn,
          custom: true,
          type,
          inputs: { ...provider(front), ...props },
          propertyDependencies: Object.fromEntries(
            Object.keys({ ...props }).map((k) => [k, (deps.get(k) ?? []).map((t) => urnOf(t, front))]),
          ),
        };
      }
      step.detailedDiff = null;
      return step;
    });
  return JSON.stringify({ config: {}, steps, changeSummary: {} }, null, 4);
}
