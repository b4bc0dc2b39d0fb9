/**
 * What the access plan's summary adds to the quick start's preview (examples/quickstart at its first preview: two
 * folders, a workload identity, a custom role, a binding of each role), in process:
 *   - the policy pack's `access-plan` rule over the resources as the engine gives an analyzer: milliseconds, and
 *     no API call (it reads nothing);
 *   - `platform-access plan` over the same preview's `pulumi preview --json`, against the emulator with every API
 *     request held BENCH_LATENCIES ms (stall fault): wall time and API calls (one GET and four lists for the one
 *     organization the plan touches), and the same with `--offline`;
 *   - at the users' size: the pure function and both renderings over an organization of 3,000 objects (900 groups,
 *     900 identities, 50 roles, 1,150 bindings) and a plan of 50 changes (20 new bindings, 10 role updates, 20
 *     deleted bindings), with no API.
 * Fails (exit 1) when the rule takes 50 ms or more, the command makes more than 5 API calls, or the large plan takes
 * 2 s or more. Writes bench/results/access-plan.json.
 *
 *   TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/access-plan.ts   (npm run bench runs it)
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { StackValidationPolicy } from "@pulumi/policy";
import { BUILTIN_ROLES, startEmulator } from "../emulator";
import { main } from "../commands/access/cli";
import { planAccess, type Organization, type PlannedResource } from "../commands/access/plan";
import { planMarkdown, planText } from "../commands/access/plan-format";
import { accessPlan } from "../policy/access-plan";
import { analyzerResources, previewJson, ref, type FixtureResource } from "../test/commands/plan-fixtures";
import type { Capability } from "../sdk/schemas/capabilities";

const LATENCIES = (process.env.BENCH_LATENCIES ?? "0,50,150").split(",").map(Number);
const REPEAT = Number(process.env.BENCH_REPEAT ?? "5");
const viewer = BUILTIN_ROLES.find((r) => r.name === "viewer")!.uid;

/** The quick start as its first preview plans it (getRole's viewer uid is known at preview). */
function quickStart(org: string): FixtureResource[] {
  const group = (name: string) => ({
    kind: "Group" as const,
    name,
    op: "create" as const,
    inputs: { parentUid: org, name },
  });
  return [
    group("engineering"),
    group("operations"),
    {
      kind: "Identity",
      name: "ci",
      op: "create",
      inputs: {
        parentUid: org,
        name: "github-actions-deployer",
        claimMatch: {
          issuer: "https://token.actions.githubusercontent.com",
          subject: "repo:acme/app:ref:refs/heads/main",
        },
      },
    },
    {
      kind: "Role",
      name: "deployer",
      op: "create",
      inputs: {
        parentUid: org,
        name: "deployer",
        capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", "CAP_TAG_LIST"] satisfies Capability[],
      },
    },
    {
      kind: "RoleBinding",
      name: "ci-deploys-engineering",
      op: "create",
      inputs: { groupUid: ref("engineering"), identityUid: ref("ci"), roleUid: ref("deployer") },
    },
    {
      kind: "RoleBinding",
      name: "ci-views-operations",
      op: "create",
      inputs: { groupUid: ref("operations"), identityUid: ref("ci"), roleUid: viewer },
    },
  ];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e6;

/** An organization of 3,000 objects and a plan of 50 changes over it. */
function large(): { live: Organization; plan: PlannedResource[] } {
  const org = "0123456789abcdef0123456789abcdef01234567";
  const hex = (n: number) => n.toString(16).padStart(16, "0");
  const folders = Array.from({ length: 10 }, (_, i) => `${org}/${hex(i)}`);
  const groups = [
    { uid: org, name: "acme" },
    ...folders.map((uid, i) => ({ uid, name: `folder-${i}` })),
    ...Array.from({ length: 890 }, (_, i) => ({
      uid: `${folders[i % 10]}/${hex(1000 + i)}`,
      name: `team-${i}`,
    })),
  ];
  const identities = Array.from({ length: 900 }, (_, i) => ({
    uid: `${groups[1 + (i % 900)]!.uid}/${hex(5000 + i)}`,
    name: `robot-${i}`,
  }));
  const caps: Capability[] = [
    "CAP_REPO_LIST",
    "CAP_TAG_LIST",
    "CAP_IAM_GROUPS_LIST",
    "CAP_IAM_ROLE_BINDINGS_CREATE",
    "CAP_IAM_IDENTITY_LIST",
  ];
  const roles = [
    ...BUILTIN_ROLES.map((r) => ({ uid: r.uid, name: r.name, capabilities: [...r.capabilities] })),
    ...Array.from({ length: 50 }, (_, i) => ({
      uid: `${org}/${hex(9000 + i)}`,
      name: `role-${i}`,
      capabilities: caps.slice(0, 1 + (i % 5)),
    })),
  ];
  const bindings = Array.from({ length: 1150 }, (_, i) => {
    const group = groups[i % groups.length]!.uid;
    return {
      uid: `${group}/${hex(20000 + i)}`,
      group,
      identity: identities[i % 900]!.uid,
      role: roles[4 + (i % 50)]!.uid,
    };
  });
  const plan: PlannedResource[] = [];
  for (let i = 0; i < 20; i++)
    plan.push({
      key: `urn:new-${i}`,
      name: `grant-${i}`,
      kind: "RoleBinding",
      op: "create",
      news: { groupUid: folders[i % 10], identityUid: identities[i * 7]!.uid, roleUid: roles[5 + i]!.uid },
    });
  for (let i = 0; i < 10; i++) {
    const role = roles[4 + i]!;
    plan.push({
      key: `urn:role-${i}`,
      name: role.name,
      kind: "Role",
      op: "update",
      uid: role.uid,
      olds: { name: role.name, capabilities: role.capabilities },
      news: {
        parentUid: org,
        name: role.name,
        capabilities: [...role.capabilities, "CAP_IAM_GROUPS_CREATE" satisfies Capability],
      },
    });
  }
  for (let i = 0; i < 20; i++) {
    const b = bindings[i * 13]!;
    plan.push({
      key: `urn:old-${i}`,
      name: `old-${i}`,
      kind: "RoleBinding",
      op: "delete",
      uid: b.uid,
      olds: { groupUid: b.group, identityUid: b.identity, roleUid: b.role },
    });
  }
  return { live: { listed: true, groups, identities, roles, bindings }, plan };
}

async function bench(): Promise<boolean> {
  const emulator = await startEmulator();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "bench-access-plan-"));
  const plan = quickStart(emulator.orgUid);
  const results: Record<string, unknown> = { when: new Date().toISOString(), repeat: REPEAT };
  let ok = true;
  try {
    // The rule, as the engine's analyzer calls it.
    const resources = analyzerResources(plan, "dynamic");
    const rule = accessPlan as StackValidationPolicy;
    const validate = rule.validateStack as (args: unknown, report: (m: string) => void) => void;
    const mark = emulator.requestLog().length;
    const ruleTimes: number[] = [];
    for (let i = 0; i < REPEAT * 4; i++) {
      const started = process.hrtime.bigint();
      validate({ resources, getConfig: () => ({}) }, () => undefined);
      ruleTimes.push(ms(started));
    }
    const ruleCalls = emulator.requestLog().length - mark;
    results.rule = { medianMs: median(ruleTimes), apiCalls: ruleCalls };
    if (median(ruleTimes) >= 50 || ruleCalls > 0) ok = false;

    // The command over the preview's JSON.
    const file = path.join(tmp, "preview.json");
    fs.writeFileSync(file, previewJson(plan, "dynamic"));
    const env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token };
    const io = { stdout: () => undefined, stderr: () => undefined, env };
    const command: Array<Record<string, number>> = [];
    for (const latency of LATENCIES) {
      emulator.faults.clear();
      if (latency > 0) emulator.faults.add({ path: "^/iam/", action: "stall", stallMs: latency });
      const times: number[] = [];
      const offline: number[] = [];
      let calls = 0;
      for (let i = 0; i < REPEAT; i++) {
        const before = emulator.requestLog().length;
        let started = process.hrtime.bigint();
        if ((await main(["plan", file], io)) !== 0) throw new Error("platform-access plan failed");
        times.push(ms(started));
        calls = emulator
          .requestLog()
          .slice(before)
          .filter((r) => !r.path.startsWith("/_")).length;
        started = process.hrtime.bigint();
        await main(["plan", "--offline", file], io);
        offline.push(ms(started));
      }
      command.push({
        latencyMs: latency,
        wallMs: Math.min(...times),
        apiCalls: calls,
        offlineMs: Math.min(...offline),
      });
      if (calls > 5) ok = false;
    }
    results.command = command;

    // At the users' size, no API.
    const { live, plan: big } = large();
    const started = process.hrtime.bigint();
    const access = planAccess(big, live);
    const text = planText(access).join("\n");
    const markdown = planMarkdown(access);
    const largeMs = ms(started);
    results.large = {
      objects: 3000,
      planned: big.length,
      changes: access.changes.length,
      ms: largeMs,
      textBytes: text.length,
      markdownBytes: markdown.length,
    };
    if (largeMs >= 2000) ok = false;
  } finally {
    emulator.faults.clear();
    await emulator.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const rule = results.rule as { medianMs: number; apiCalls: number };
  console.log(
    `access-plan rule (analyzer, quick start's first preview): median ${rule.medianMs.toFixed(2)} ms, ${rule.apiCalls} API calls`,
  );
  console.log("| latency | platform-access plan | API calls | --offline |\n| --- | --- | --- | --- |");
  for (const r of results.command as Array<Record<string, number>>)
    console.log(
      `| ${r.latencyMs} ms | ${r.wallMs!.toFixed(0)} ms | ${r.apiCalls} | ${r.offlineMs!.toFixed(1)} ms |`,
    );
  const l = results.large as Record<string, number>;
  console.log(
    `3,000 objects, ${l.planned} planned changes: ${l.changes} summary lines in ${l.ms!.toFixed(0)} ms (text ${l.textBytes} B, Markdown ${l.markdownBytes} B)`,
  );
  fs.mkdirSync(path.join(__dirname, "results"), { recursive: true });
  fs.writeFileSync(
    path.join(__dirname, "results", "access-plan.json"),
    `${JSON.stringify(results, null, 2)}\n`,
  );
  if (!ok)
    console.error(
      "access-plan: the rule took 50 ms or made a call, the command made more than 5 calls, or the large plan took 2 s",
    );
  return ok;
}

bench().then(
  (ok) => process.exit(ok ? 0 : 1),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
