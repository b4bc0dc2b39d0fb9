/**
 * Resilience: `pulumi up` of the benchmark program (bench/stack: 50 groups, 50 identities and 100 role bindings)
 * against an emulator that, on every API route, answers 20% of requests with 503, drops 5% of connections without
 * a response and, for another 5%, applies the request and then drops the connection (the response is lost). Five
 * fixed fault seeds, a fresh organization and stack each.
 *
 * For every seed the stack must converge in ONE `up`, with no re-run, to exactly the declared objects: listing
 * everything under the organization afterwards (faults off) finds each declared group, identity and binding once
 * (no duplicates), nothing else (no orphans), and every uid in the state exists (nothing lost). What makes that
 * hold is the retry budget: transient failures are retried for tens of seconds, not a fixed few sends.
 *
 * `up` runs at `--parallel 8`: the fault PRNG draws once per request in arrival order, so a seed fixes the sequence
 * of faults but not which resource meets each one; the per-request rates, and so the odds, are the same.
 *
 * Counts (faults injected, re-runs, objects) are printed. Dropped connections never reach the request log, so
 * the drop counts come from replaying the emulator's fault PRNG against the logged requests; the replay is
 * checked against the 503s, which are logged.
 */
import { createHash } from "node:crypto";

import { Emulator, startEmulator } from "../../emulator";
import { seededRandom } from "../../emulator/faults";
import { CommandResult, installLocalPackage, PulumiCommandError, PulumiStack } from "./harness";

jest.setTimeout(600_000);

const programDir = "bench/stack";
const GROUPS = 50;
const IDENTITIES = 50;
const BINDINGS = 100;
const FAULT_SEEDS = [20261122, 1, 2, 3, 4];
/** How many times up is run at most (the assertion allows 1: no re-run); more only to report the figure. */
const MAX_RUNS = 3;
const viewerRoleUid = createHash("sha1").update("viewer").digest("hex");

/** Target share of all API requests per fault; rules fire in order, so later rates are scaled up to match. */
const SHARE = { status503: 0.2, drop: 0.05, applyThenDrop: 0.05 };
const RATES = {
  status503: SHARE.status503,
  drop: SHARE.drop / (1 - SHARE.status503),
  applyThenDrop: SHARE.applyThenDrop / (1 - SHARE.status503 - SHARE.drop),
};

/** Replays the fault PRNG until `logged` requests would have been answered; counts what it injected. */
function replayFaults(
  seed: number,
  logged: number,
): { status503: number; drop: number; applyThenDrop: number } {
  const random = seededRandom(seed);
  const counts = { status503: 0, drop: 0, applyThenDrop: 0 };
  let answered = 0;
  while (answered < logged) {
    if (random() < RATES.status503) {
      counts.status503++;
      answered++;
    } else if (random() < RATES.drop) counts.drop++;
    else if (random() < RATES.applyThenDrop) counts.applyThenDrop++;
    else answered++;
  }
  return counts;
}

const pad = (i: number): string => String(i).padStart(3, "0");

describe.each(FAULT_SEEDS)("pulumi up converges in one run under faults (seed %i)", (faultSeed) => {
  let emulator: Emulator;
  let stack: PulumiStack;

  beforeAll(async () => {
    installLocalPackage(programDir, { build: false });
    emulator = await startEmulator({ faultSeed });
    stack = await PulumiStack.create({
      programDir,
      config: {
        organization: emulator.orgUid,
        roleUid: viewerRoleUid,
        groups: String(GROUPS),
        identities: String(IDENTITIES),
        bindings: String(BINDINGS),
        "platform:apiUrl": emulator.url,
      },
      secrets: { "platform:token": emulator.token },
      timeoutMs: 240_000,
    });
  });

  afterAll(async () => {
    emulator?.faults.clear();
    await stack?.cleanup();
    await emulator?.close();
  });

  it("creates exactly the declared objects: no duplicates, no orphans, nothing lost", async () => {
    emulator.faults.add({ action: "status", status: 503, rate: RATES.status503 });
    emulator.faults.add({ action: "drop", rate: RATES.drop });
    emulator.faults.add({ action: "applyThenDrop", rate: RATES.applyThenDrop });
    emulator.clearRequestLog();

    // Up until it succeeds (bounded), to report how many re-runs it took; at most one is asserted at the end.
    const runs: CommandResult[] = [];
    for (let run = 0; run < MAX_RUNS; run++) {
      const result = await stack.run(["up", "--yes", "--skip-preview", "--parallel", "8"], {
        allowFailure: true,
      });
      runs.push(result);
      if (result.exitCode === 0) break;
    }
    const log = emulator.requestLog();
    emulator.faults.clear();
    const last = runs[runs.length - 1]!;
    const failures = runs
      .filter((r) => r.exitCode !== 0)
      .map((r) => r.stdout.split("\n").filter((line) => line.includes("creating failed")).length);

    const logged503 = log.filter((r) => r.status === 503).length;
    const injected = replayFaults(faultSeed, log.length);
    expect(injected.status503).toBe(logged503); // the replay is in step with the emulator
    process.stdout.write(
      `resilience (seed ${faultSeed}): ${log.length} answered API requests (+${injected.drop + injected.applyThenDrop} dropped); ` +
        `faults injected: ${injected.status503} x 503, ${injected.drop} dropped, ${injected.applyThenDrop} applied then dropped; ` +
        `up runs: ${runs.length} (re-runs: ${runs.length - 1}; resources failed per failed run: ${failures.join(", ") || "none"}; ` +
        `converged: ${last.exitCode === 0}); ` +
        `objects: ${GROUPS} groups, ${IDENTITIES} identities, ${BINDINGS} bindings\n`,
    );
    // Faults really happened, of every kind, or this test proves nothing.
    expect(injected.status503).toBeGreaterThan(0);
    expect(injected.drop).toBeGreaterThan(0);
    expect(injected.applyThenDrop).toBeGreaterThan(0);

    // Everything under the organization, read with faults off.
    const client = emulator.client;
    const org = emulator.orgUid;
    const groups = await client.groups.list({ descendantsOf: org, pageSize: 200 }).all();
    const identities = await client.identities.list({ descendantsOf: org, pageSize: 200 }).all();
    const bindings = (await client.roleBindings.list({ descendantsOf: org, pageSize: 200 }).all()).filter(
      (b) => b.role?.uid === viewerRoleUid,
    );

    const expectedGroups = Array.from({ length: GROUPS }, (_, i) => `bench-group-${pad(i)}`);
    const expectedIdentities = Array.from({ length: IDENTITIES }, (_, i) => `bench-identity-${pad(i)}`);
    expect(groups.map((g) => g.name).sort()).toEqual(expectedGroups);
    expect(groups.every((g) => g.uid.startsWith(`${org}/`) && g.uid.split("/").length === 2)).toBe(true);
    const identityNames = identities.map((i) => i.name).sort();
    // The bootstrap user is a root-level identity, not under the organization.
    expect(identityNames).toEqual(expectedIdentities);

    const groupName = new Map(groups.map((g) => [g.uid, g.name]));
    const identityName = new Map(identities.map((i) => [i.uid, i.name]));
    const pairs = bindings
      .map((b) => `${groupName.get(b.group?.uid ?? "")} ${identityName.get(b.identity?.uid ?? "")}`)
      .sort();
    const expectedPairs = Array.from(
      { length: BINDINGS },
      (_, k) =>
        `bench-group-${pad(k % GROUPS)} bench-identity-${pad((k + Math.floor(k / GROUPS)) % IDENTITIES)}`,
    ).sort();
    expect(pairs).toEqual(expectedPairs);

    // The state points at exactly these objects.
    const { state } = await stack.exportState();
    const ids = (state.deployment.resources ?? [])
      .filter((r) => r.custom === true && !r.type.startsWith("pulumi:providers:"))
      .map((r) => r.id)
      .sort();
    expect(ids).toEqual([...groups, ...identities, ...bindings].map((o) => o.uid).sort());

    // Converged in the first run.
    if (last.exitCode !== 0) throw new PulumiCommandError(last, `up under faults, run ${runs.length}`, false);
    expect(runs.length - 1).toBe(0);
  });

  it("then a preview finds nothing to change", async () => {
    await expect(stack.preview({ expectNoChanges: true })).resolves.toMatchObject({ exitCode: 0 });
  });
});
