/**
 * The `access-plan` rule: at preview, what the update will change in who can do what, by name, as one advisory
 * line (the per-update summary) and one line per binding the update creates whose references have no uid yet.
 * Advisory diagnostics are an analyzer's only output channel; the rule never fails a preview.
 *
 * The engine gives an analyzer every resource of the stack as it will be (its properties, with values not known yet,
 * and the resources each property comes from), but neither the operation nor the state before. So the rule reads the
 * plan from that: a resource whose uid is not known yet is made by this update (or, when another resource already
 * names it by a known uid, changed by it, from a state the pack does not see), and one with a known uid exists (on
 * the native plugin a changed resource keeps its uid at preview, so a change of an existing role's capabilities
 * looks like none here; the provider's own lines at preview say it). It reads nothing from the service: a policy
 * pack judges the plan it is given, offline (the credentials the engine passes in the provider's inputs are never
 * used, printed or kept). What it cannot name (an object outside the stack, shown by uid; what an existing role held
 * before) it says; `platform-access plan` over `pulumi preview --json` reads the organization and gives the full
 * answer, through the same function (../commands/access/plan.ts).
 */
import type { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import {
  NO_ORGANIZATION,
  UNKNOWN as PLAN_UNKNOWN,
  isPlanKind,
  planAccess,
  type Organization,
  type PlanKind,
  type PlannedResource,
} from "../commands/access/plan";
import { createdBindingLines, planText } from "../commands/access/plan-format";
import { builtinRoleNamed } from "./access";
import { EMULATOR_OWNER_ROLE_UID, UNKNOWN, kindOf, known } from "./resources";
import { BUILTIN_ROLES } from "../emulator/builtin-roles";

export const ACCESS_PLAN_RULE = "access-plan";

/** Where the pack, which reads nothing, sends a reader for the names of objects outside the stack. */
const PACK_HINT = "the pack reads nothing; platform-access plan over pulumi preview --json reads their names";

/** A property as plain data: every value the engine does not know yet is the plan's UNKNOWN. */
function plain(read: () => unknown): unknown {
  const value = known(read);
  if (value === UNKNOWN) return PLAN_UNKNOWN;
  if (Array.isArray(value)) return value.map((_, i) => plain(() => (value as unknown[])[i]));
  if (typeof value === "object" && value !== null) {
    const object = value as Record<string, unknown>;
    return Object.fromEntries(Object.keys(object).map((key) => [key, plain(() => object[key])]));
  }
  return value;
}

/** The stack's resources as a plan (see the module's comment for how an operation is read). */
export function planOfStack(resources: readonly PolicyResource[]): PlannedResource[] {
  const read = resources
    .filter((r) => isPlanKind(kindOf(r.type)))
    .map((r) => {
      const props = plain(() => r.props) as Record<string, unknown>;
      const dependencies = new Map(
        Object.entries(r.propertyDependencies ?? {}).map(([key, deps]) => [key, deps.map((d) => d.urn)]),
      );
      return { resource: r, kind: kindOf(r.type) as PlanKind, props, dependencies };
    });
  // A uid another resource names through a dependency on this one: the object exists, and this update changes it.
  const namedBy = new Map<string, string>();
  for (const { props, dependencies } of read) {
    for (const [key, deps] of dependencies) {
      const value = props[key];
      if (typeof value === "string" && value !== "" && deps.length === 1) namedBy.set(deps[0]!, value);
    }
  }
  return read.map(({ resource, kind, props, dependencies }): PlannedResource => {
    const uid = typeof props.uid === "string" && props.uid !== "" ? props.uid : namedBy.get(resource.urn);
    const exists = typeof props.uid === "string" && props.uid !== "";
    return {
      key: resource.urn,
      name: resource.name,
      kind,
      op: exists ? "same" : uid !== undefined ? "update" : "create",
      uid,
      news: props,
      olds: exists ? props : undefined,
      dependencies,
    };
  });
}

/** What the pack knows of the organization: the built-in roles it can name, and nothing else. */
function builtinsOnly(ownerRoleUids: readonly string[]): Organization {
  const uids = [...new Set([...BUILTIN_ROLES.map((r) => r.uid), ...ownerRoleUids])];
  const roles = uids.map((uid) => builtinRoleNamed(uid, ownerRoleUids)).filter((r) => r !== undefined);
  return { ...NO_ORGANIZATION, roles };
}

export const accessPlan: StackValidationPolicy = {
  name: ACCESS_PLAN_RULE,
  description:
    "Says, at preview, what the update will change in who can do what: each identity's gained and lost capabilities per group, through which role and binding, by name (advisory: it never fails a preview).",
  enforcementLevel: "advisory",
  configSchema: {
    properties: {
      ownerRoleUids: {
        type: "array",
        items: { type: "string" },
        default: [EMULATOR_OWNER_ROLE_UID],
        description: "The uids of the built-in owner role, named as such in the summary.",
      },
    },
  },
  validateStack: (args, reportViolation) => {
    const config = args.getConfig<{ ownerRoleUids?: unknown }>();
    const owners = Array.isArray(config.ownerRoleUids)
      ? config.ownerRoleUids.filter((u): u is string => typeof u === "string")
      : [EMULATOR_OWNER_ROLE_UID];
    const plan = planAccess(planOfStack(args.resources), builtinsOnly(owners));
    if (plan.changes.length === 0 && plan.notes.length === 0 && plan.created.length === 0) return;
    reportViolation(`[${ACCESS_PLAN_RULE}] ${planText(plan, PACK_HINT).join("\n")}`);
    for (const { key, line } of createdBindingLines(plan))
      reportViolation(`[${ACCESS_PLAN_RULE}] ${line}`, key);
  },
};
