/**
 * What a preview promises and what an up did, as one operation per resource, so a test can check that a preview is
 * a promise: `previewPlan` of `pulumi preview --json` equals `appliedPlan` of the following `pulumi up --json`.
 */

/** Operation per resource name (the last URN segment), with a replacement's three steps counted as one. */
export type Plan = Record<string, string>;

const REPLACEMENT_STEPS = new Set(["replace", "create-replacement", "delete-replaced"]);

function nameOf(urn: string): string {
  return urn.split("::").pop() ?? urn;
}

/** What `pulumi preview --json` promises. */
export function previewPlan(stdout: string): Plan {
  const preview = JSON.parse(stdout) as { steps: { op: string; urn: string }[] };
  const plan: Plan = {};
  for (const step of preview.steps) {
    plan[nameOf(step.urn)] = REPLACEMENT_STEPS.has(step.op) ? "replace" : step.op;
  }
  return plan;
}

/** What `pulumi up --json` did: its engine events, one JSON object per line. */
export function appliedPlan(stdout: string): Plan {
  const plan: Plan = {};
  for (const line of stdout.split("\n")) {
    if (!line.trim().startsWith("{")) continue;
    const event = JSON.parse(line) as { resourcePreEvent?: { metadata: { op: string; urn: string } } };
    const step = event.resourcePreEvent?.metadata;
    if (step === undefined) continue;
    const name = nameOf(step.urn);
    plan[name] = REPLACEMENT_STEPS.has(step.op) ? "replace" : (plan[name] ?? step.op);
  }
  return plan;
}

/** The plan without its "same" steps (the engine reports unchanged resources to a --json up only in part). */
export const changed = (plan: Plan): Plan =>
  Object.fromEntries(Object.entries(plan).filter(([, op]) => op !== "same"));
