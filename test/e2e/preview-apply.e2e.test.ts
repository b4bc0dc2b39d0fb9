/**
 * A preview is a promise: for every program change in the table below, over a stack that holds every resource
 * kind (fixtures/every-kind), the steps `pulumi preview --json` shows (resource and operation) are exactly the
 * steps the following `pulumi up --json` performs, and a resource is replaced only when something it depends on
 * really is. Each row is applied to the stack as the previous row left it (a row's program is the base program
 * with that one change, so going from one row to the next also undoes the previous change).
 */
import { startEmulator, type Emulator } from "../../emulator";
import { tearDown, installLocalPackage, PulumiStack } from "./harness";
import { appliedPlan, changed, previewPlan, type Plan } from "./plans";

jest.setTimeout(600_000);

const programDir = "test/e2e/fixtures/every-kind";

/**
 * Each program change, and what it must do (besides undoing the previous row's change). Only the rows that move
 * the team folder or change the invite replace anything: a group's parent, a binding's role and everything of an
 * invite are immutable, and only the team's contents depend on the team.
 */
const teamAndContents = {
  "platform-team": "replace",
  ci: "replace",
  "ci-deploys-engineering": "replace",
  "ci-views-operations": "replace",
};
const table: { change: string; expected: Plan }[] = [
  { change: "description", expected: { engineering: "update" } },
  { change: "rename", expected: { engineering: "update", operations: "update" } },
  { change: "capabilities", expected: { operations: "update", deployer: "update" } },
  { change: "claim-match", expected: { deployer: "update", ci: "update" } },
  { change: "move", expected: { ...teamAndContents, ci: "replace" } },
  { change: "binding-role", expected: { ...teamAndContents, "ci-views-operations": "replace" } },
  { change: "add-binding", expected: { "ci-views-operations": "replace", "ci-views-team": "create" } },
  { change: "remove-binding", expected: { "ci-views-team": "delete", "ci-views-operations": "delete" } },
  { change: "invite", expected: { "ci-views-operations": "create", "partner-invite": "replace" } },
  { change: "none", expected: { "partner-invite": "replace" } },
];

describe("preview = apply, under the real engine, for every resource kind", () => {
  let emulator: Emulator;
  let stack: PulumiStack;
  const report: string[] = [];

  beforeAll(async () => {
    installLocalPackage(programDir, { build: false });
    emulator = await startEmulator();
    stack = await PulumiStack.create({
      programDir,
      config: { organization: emulator.orgUid, "platform:apiUrl": emulator.url },
      secrets: { "platform:token": emulator.token, clientSecret: "sso-client-secret" },
    });
    await stack.up();
  });

  afterAll(async () => {
    await tearDown(stack, emulator);
    if (report.length > 0) console.info(["change | preview | up", ...report].join("\n"));
  });

  it("every resource's recorded source position is the program's own line, not the package's", async () => {
    const { state } = await stack.exportState();
    const ours = (state.deployment.resources ?? []).filter((r) =>
      r.type.startsWith("pulumi-nodejs:dynamic/"),
    );
    expect(ours).toHaveLength(11);
    for (const resource of ours) {
      expect(resource["sourcePosition"]).toMatch(/^project:\/\/\/index\.js#\d+,\d+$/);
    }
  });

  it.each(table)("$change: preview shows exactly what up does", async ({ change, expected }) => {
    await stack.setConfig("change", change);
    emulator.clearRequestLog();
    const preview = previewPlan((await stack.run(["preview", "--json"])).stdout);
    // A preview changes nothing.
    expect(emulator.requestLog().filter((r) => r.method !== "GET")).toEqual([]);

    const applied = appliedPlan((await stack.run(["up", "--json", "--yes", "--skip-preview"])).stdout);
    report.push(`${change} | ${JSON.stringify(changed(preview))} | ${JSON.stringify(changed(applied))}`);

    // Every step but "same" (the engine reports unchanged resources to a --json up only in part).
    expect(changed(applied)).toEqual(changed(preview));
    expect(changed(applied)).toEqual(expected);
  });

  it("a refused delete reads as one line with what to do, without the host's echo or a stack trace", async () => {
    const { state } = await stack.exportState();
    const partners = (state.deployment.resources ?? []).find((r) => r.urn.endsWith("iam:Group::partners"));
    const child = await emulator.client.groups.create(partners?.id as string, { name: "made-by-hand" });
    await stack.setConfig("change", "no-partners");
    const failed = await stack.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
    const output = failed.stdout + failed.stderr;
    expect(failed.exitCode).not.toBe(0);
    const message =
      `Could not delete platform:iam:Group "partners" (uid ${partners?.id}): Precondition failed: group ` +
      `${partners?.id} still contains 1 subgroup. Still in it: folder made-by-hand (${child.uid}). Delete or move ` +
      "what still lives in it first (or remove them from the program in the same update), then retry.";
    expect(output).toContain(`error: ${message}`);
    expect(output).not.toContain("PlatformProviderError");
    expect(output).not.toMatch(/^\s+at /m);
    // The Diagnostics section names it once.
    const diagnostics = output.slice(output.indexOf("Diagnostics:"));
    expect(diagnostics.split(message).length - 1).toBe(1);

    await emulator.client.groups.delete(child.uid);
    await stack.setConfig("change", "none");
    await stack.up();
  });
});
