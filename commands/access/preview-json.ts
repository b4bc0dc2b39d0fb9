/**
 * `pulumi preview --json` as a plan (./plan): the engine's PreviewDigest (pulumi/pulumi pkg/display/json.go,
 * written by pkg/backend/display/json.go ShowPreviewDigest), whose `steps` each carry `op`, `urn` and the
 * resource's `oldState` and `newState` (apitype.ResourceV3: `id`, `type`, `inputs`, `outputs`,
 * `propertyDependencies`). A value the engine does not know yet is the string
 * "04da6b54-80e4-46f7-96ec-b56ff0331ba9" (pkg/resource/stack: computedValuePlaceholder); a secret is "[secret]".
 *
 * Why the JSON ties unknown uids here, and not the policy pack's analysis: the digest leaves policy events out
 * (ShowPreviewDigest skips them), so what CI keeps of a preview is the steps; each step's `propertyDependencies`
 * names the resources an input comes from, the same record the engine gives an analyzer, so both reach the same
 * answer through the same function. Steps the digest leaves out (unchanged resources, unless `--show-sames`) are
 * objects that exist: the organization as read names them.
 *
 * Which organizations the plan touches: the root of every group uid it names (a `parentUid`, a `groupUid`, a
 * group's own uid) and of every other uid under a group; a built-in role's uid (40 hex, no `/`) is not one.
 */
import { Refusal } from "../command";
import { resourceName, tokenOf } from "../states";
import { UNKNOWN, isPlanKind, type PlanOperation, type PlannedResource } from "./plan";
import { parentOf, rootOf } from "../../sdk/uidp";

/** The engine's placeholder for a value not known until the update. */
export const UNKNOWN_PLACEHOLDER = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

interface ResourceV3 {
  urn?: string;
  id?: string;
  type?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  propertyDependencies?: Record<string, string[]>;
}

interface PreviewStep {
  op?: string;
  urn?: string;
  oldState?: ResourceV3;
  newState?: ResourceV3;
}

/** The engine's step operations, as the plan sees them (a step the digest shows that changes nothing is "same"). */
const OPERATIONS = new Map<string, PlanOperation>([
  ["create", "create"],
  ["create-replacement", "create"],
  ["import", "same"],
  ["import-replacement", "replace"],
  ["update", "update"],
  ["replace", "replace"],
  ["delete", "delete"],
  ["delete-replaced", "delete"],
  ["discard", "delete"],
  ["discard-replaced", "delete"],
  ["same", "same"],
  ["read", "same"],
  ["refresh", "same"],
  ["read-replacement", "same"],
]);

/** The placeholder as UNKNOWN, at any depth. */
function withUnknowns(value: unknown): unknown {
  if (value === UNKNOWN_PLACEHOLDER) return UNKNOWN;
  if (Array.isArray(value)) return value.map(withUnknowns);
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withUnknowns(v)]));
  return value;
}

/** Reads a PreviewDigest; throws Refusal (one line) for a text that is not one. */
export function planOfPreview(text: string, source: string): PlannedResource[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Refusal(`${source} is not the output of pulumi preview --json: it is not JSON`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new Refusal(`${source} is not the output of pulumi preview --json: it is not an object`);
  const steps = (parsed as { steps?: unknown }).steps ?? [];
  if (!Array.isArray(steps))
    throw new Refusal(`${source} is not the output of pulumi preview --json: "steps" is not a list`);
  const plan: PlannedResource[] = [];
  for (const step of steps as PreviewStep[]) {
    const op = OPERATIONS.get(step.op ?? "");
    const state = step.newState ?? step.oldState;
    const urn = step.urn ?? state?.urn;
    if (op === undefined || state === undefined || typeof urn !== "string") continue;
    const token = tokenOf({ type: state.type, inputs: state.inputs });
    const kind = token?.slice(token.lastIndexOf(":") + 1);
    if (!isPlanKind(kind)) continue;
    const old = step.oldState;
    const olds = old === undefined ? undefined : { ...old.inputs, ...old.outputs };
    const uid =
      op === "create" ? undefined : (old?.id ?? (typeof olds?.uid === "string" ? olds.uid : undefined));
    const news =
      op === "delete" ? undefined : (withUnknowns(step.newState?.inputs ?? {}) as Record<string, unknown>);
    plan.push({
      key: urn,
      name: resourceName(urn),
      kind,
      op,
      uid: uid === "" ? undefined : uid,
      news,
      olds,
      dependencies: new Map(Object.entries((step.newState ?? old)?.propertyDependencies ?? {})),
    });
  }
  return plan;
}

const GROUP_FIELDS = new Set(["parentUid", "groupUid"]);

/** The organizations (root group uids) the plan names, for reading only those. */
export function organizationsOf(plan: readonly PlannedResource[]): string[] {
  const roots = new Set<string>();
  const add = (field: string, value: unknown) => {
    if (typeof value !== "string" || value === "") return;
    if (GROUP_FIELDS.has(field) || parentOf(value) !== undefined) roots.add(rootOf(value));
  };
  const walk = (props: Record<string, unknown> | undefined) => {
    for (const [field, value] of Object.entries(props ?? {})) {
      if (field === "bindings" && Array.isArray(value))
        for (const entry of value)
          if (typeof entry === "object" && entry !== null)
            for (const [f, v] of Object.entries(entry as Record<string, unknown>)) add(f, v);
      if (field.endsWith("Uid")) add(field, value);
    }
  };
  for (const resource of plan) {
    walk(resource.news);
    walk(resource.olds);
    if (resource.uid !== undefined) add(resource.kind === "Group" ? "groupUid" : "uid", resource.uid);
  }
  return [...roots].sort();
}
