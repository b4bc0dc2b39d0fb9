/**
 * `platform-access plan [--markdown] [--offline] [FILE|-]`: what an update will change in who can do what, from the
 * output of `pulumi preview --json` (a file, or standard input), by name. It reads, with the caller's own
 * credentials, only the organizations the plan touches (./read: one GET and four lists each), so existing groups,
 * identities and roles are named and the bindings a change revokes are known; `--offline` reads nothing and says
 * what the plan alone tells (what the policy pack's `access-plan` rule says at preview).
 */
import * as fs from "node:fs";
import type { PlatformClient } from "../../sdk";
import { Names, lineText } from "../../sdk/words";
import { Refusal, type CommandIo } from "../command";
import { NO_ORGANIZATION, planAccess, type AccessPlan, type Organization } from "./plan";
import { UNNAMED_HINT, createdBindingsText, planMarkdown, planText } from "./plan-format";
import { organizationsOf, planOfPreview } from "./preview-json";
import { bindingFacts, callerOf, readAccess } from "./read";

/** Where `--offline` leaves the names of objects outside the plan. */
export const OFFLINE_HINT = "without --offline, platform-access plan reads their names";

export interface PlanOptions {
  markdown: boolean;
  offline: boolean;
  /** Every capability of a role said whole, not only its count and privileged ones. */
  expand?: boolean;
  /** A file, or "-" for standard input. */
  source: string;
}

function readSource(source: string): string {
  try {
    return fs.readFileSync(source === "-" ? 0 : source, "utf8");
  } catch (err) {
    throw new Refusal(
      `cannot read ${source === "-" ? "standard input" : source}: ${(err as NodeJS.ErrnoException).code ?? err}`,
    );
  }
}

/** Reads the organizations, each as the caller may list it; what it may not is said on stderr. */
export async function readPlanOrganizations(
  client: PlatformClient,
  roots: readonly string[],
  io: CommandIo,
): Promise<Organization> {
  const org = {
    listed: true,
    groups: [] as Array<{ uid: string; name?: string }>,
    identities: [] as Array<{ uid: string; name?: string }>,
    roles: [] as Array<{ uid: string; name?: string; capabilities: string[] }>,
    bindings: [] as Array<ReturnType<typeof bindingFacts> & { identityName?: string }>,
  };
  const caller = callerOf(io.env);
  for (const root of roots) {
    const started = Date.now();
    const data = await readAccess(client, root, caller === undefined ? {} : { caller });
    for (const note of data.partial) io.stderr(`partial: ${lineText(note)}`);
    const top = new Names().add("group", root, data.top.name).group(root);
    io.stderr(`${top}: ${data.calls} API calls, ${Date.now() - started} ms`);
    org.groups.push(...data.groups.map((g) => ({ uid: g.uid, name: g.name })));
    org.identities.push(...data.identities.map((i) => ({ uid: i.uid, name: i.name })));
    org.roles.push(
      ...data.roles.map((r) => ({ uid: r.uid, name: r.name, capabilities: [...(r.capabilities ?? [])] })),
    );
    org.bindings.push(
      ...data.bindings.map((b) => ({
        ...bindingFacts(b),
        ...(b.identity?.name === undefined ? {} : { identityName: b.identity.name }),
      })),
    );
  }
  return org;
}

/** The plan of a preview, with the organizations it touches read unless offline. */
export async function accessPlanOf(
  options: PlanOptions,
  io: CommandIo,
  connect: () => PlatformClient,
): Promise<AccessPlan> {
  const plan = planOfPreview(
    readSource(options.source),
    options.source === "-" ? "standard input" : options.source,
  );
  const live = options.offline
    ? NO_ORGANIZATION
    : await readPlanOrganizations(connect(), organizationsOf(plan), io);
  return planAccess(plan, live);
}

/** Prints the summary: Markdown for a pull request's comment, or the lines the policy pack prints. */
export async function runPlan(
  options: PlanOptions,
  io: CommandIo,
  connect: () => PlatformClient,
): Promise<number> {
  const plan = await accessPlanOf(options, io, connect);
  const hint = options.offline ? OFFLINE_HINT : UNNAMED_HINT;
  const expand = options.expand === true;
  if (options.markdown) io.stdout(planMarkdown(plan, hint, expand));
  else io.stdout([...planText(plan, hint, expand), ...createdBindingsText(plan)].join("\n") + "\n");
  return 0;
}
