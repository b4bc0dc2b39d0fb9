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
 *
 * Beside it, the authoritative resources on the native plugin (a YAML program): one GroupAccess of 200 bindings and
 * one IdentityAccess of 50, with the same faults on every role-binding request, over three seeds. Each `up` (create,
 * then removing half) must converge in ONE run, the folder then hold exactly the declared bindings with none
 * twice, and a refreshing preview show no change.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { Emulator, startEmulator } from "../../emulator";
import { seededRandom } from "../../emulator/faults";
import { CommandResult, installLocalPackage, PulumiCommandError, PulumiStack } from "./harness";
import { buildPluginTarball, installPlugin } from "./plugin-tarball";

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

// ---------------------------------------------------------------------------------------------------------------
// GroupAccess and IdentityAccess on the native plugin, faults on every role-binding request.

const ACCESS_SEEDS = [20261122, 1, 2];
const editorRoleUid = createHash("sha1").update("editor").digest("hex");
/** The plugin's tarball, built once for every seed. */
let tarball = "";

describe.each(ACCESS_SEEDS)(
  "GroupAccess and IdentityAccess converge in one up under faults (seed %i)",
  (faultSeed) => {
    let emulator: Emulator;
    let stack: PulumiStack;
    let dir: string;
    let folder: string;
    let members: string[];
    let ci: string;
    let groups: string[];

    type Declared = {
      group: { identityUid: string; roleUid: string }[];
      identity: { groupUid: string; roleUid: string }[];
    };
    const writeProgram = (declared: Declared) =>
      // YAML is a superset of JSON.
      fs.writeFileSync(
        path.join(dir, "Pulumi.yaml"),
        JSON.stringify({
          name: "resilience-access",
          runtime: "yaml",
          resources: {
            "folder-access": {
              type: "platform:iam:GroupAccess",
              properties: { groupUid: folder, bindings: declared.group },
            },
            "ci-access": {
              type: "platform:iam:IdentityAccess",
              properties: { identityUid: ci, bindings: declared.identity },
            },
          },
        }),
      );
    const faultsOn = () => {
      const onBindings = "^/iam/v2beta1/roleBindings";
      emulator.faults.add({ path: onBindings, action: "status", status: 503, rate: RATES.status503 });
      emulator.faults.add({ path: onBindings, action: "drop", rate: RATES.drop });
      emulator.faults.add({ path: onBindings, action: "applyThenDrop", rate: RATES.applyThenDrop });
    };
    /** Every binding of the organization's own identities, read with faults off, duplicates kept. */
    const bindings = async () =>
      (await emulator.client.roleBindings.list({ descendantsOf: emulator.orgUid, pageSize: 200 }).all())
        .filter((b) => b.identity?.uid?.startsWith(`${emulator.orgUid}/`))
        .map((b) => `${b.group?.uid} ${b.identity?.uid} ${b.role?.uid}`)
        .sort();
    const expected = (declared: Declared) =>
      [
        ...declared.group.map((b) => `${folder} ${b.identityUid} ${b.roleUid}`),
        ...declared.identity.map((b) => `${b.groupUid} ${ci} ${b.roleUid}`),
      ].sort();

    /** One `up` with the faults on (the CLI's defaults: a preview first); the faults are off again after it. */
    const upUnderFaults = async (declared: Declared, what: string) => {
      writeProgram(declared);
      emulator.clearRequestLog();
      faultsOn();
      const result = await stack.run(["up", "--yes"], { allowFailure: true });
      const log = emulator.requestLog();
      emulator.faults.clear();
      const injected = log.filter((r) => r.status === 503).length;
      process.stdout.write(
        `resilience, access (seed ${faultSeed}, ${what}): ${log.length} answered API requests, ${injected} x 503; ` +
          `converged in one up: ${result.exitCode === 0}\n`,
      );
      expect(injected).toBeGreaterThan(0);
      if (result.exitCode !== 0) throw new PulumiCommandError(result, `up under faults (${what})`, false);
      const found = await bindings();
      expect(found).toEqual(expected(declared)); // exactly the declared ones, none twice
      await expect(stack.run(["preview", "--refresh", "--expect-no-changes"])).resolves.toMatchObject({
        exitCode: 0,
      });
    };

    beforeAll(async () => {
      emulator = await startEmulator({ faultSeed });
      const c = emulator.client;
      folder = (await c.groups.create(emulator.orgUid, { name: "governed" })).uid;
      members = [];
      for (let i = 0; i < 100; i++)
        members.push(
          (
            await c.identities.create(emulator.orgUid, {
              name: `member-${pad(i)}`,
              claimMatch: { issuer: "https://issuer.example", subject: `member-${i}` },
            })
          ).uid,
        );
      ci = (
        await c.identities.create(emulator.orgUid, {
          name: "ci",
          claimMatch: { issuer: "https://issuer.example", subject: "ci" },
        })
      ).uid;
      groups = [];
      for (let i = 0; i < 25; i++)
        groups.push((await c.groups.create(emulator.orgUid, { name: `team-${pad(i)}` })).uid);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-resilience-access-"));
      writeProgram({ group: [], identity: [] });
      stack = await PulumiStack.create({
        programDir: dir,
        config: { "platform:apiUrl": emulator.url },
        secrets: { "platform:token": emulator.token },
        timeoutMs: 300_000,
      });
      tarball ||= buildPluginTarball();
      await installPlugin(stack, tarball);
    });

    afterAll(async () => {
      emulator?.faults.clear();
      await stack?.cleanup();
      await emulator?.close();
      if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
    });

    const all = (): Declared => ({
      group: members.flatMap((identityUid) => [
        { identityUid, roleUid: viewerRoleUid },
        { identityUid, roleUid: editorRoleUid },
      ]),
      identity: groups.flatMap((groupUid) => [
        { groupUid, roleUid: viewerRoleUid },
        { groupUid, roleUid: editorRoleUid },
      ]),
    });

    it("creates 200 + 50 bindings in one up: exactly the declared ones, and a refreshing preview finds no change", async () => {
      await upUnderFaults(all(), "create");
    });

    it("removes half of each in one up, the same way", async () => {
      const { group, identity } = all();
      await upUnderFaults(
        { group: group.filter((_, i) => i % 2 === 0), identity: identity.filter((_, i) => i % 2 === 1) },
        "remove half",
      );
    });
  },
);
