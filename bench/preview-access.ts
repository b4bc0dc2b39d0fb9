/**
 * The cost of the preview's access review (provider/core/access-review) on the quick start (examples/quickstart),
 * in process: the provider's check of each of its resources, as a preview from empty calls them, with the review
 * and without it (the same operations built from descriptions without `accessEffect`), against the emulator with
 * every API request held `BENCH_LATENCIES` ms (stall fault). Reports the wall time of each and the API calls the
 * review adds, and fails (exit 1) when the review costs more than 1 s or more than 3 list calls.
 *
 *   TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/preview-access.ts   (npm run bench runs it)
 *
 * The engine's own time is the same with or without the review (the same calls to the provider), so the difference
 * measured here is the difference a `pulumi preview` sees.
 */
import { startEmulator } from "../emulator";
import { closeClients, configureFromLookup } from "../provider/core/client";
import { forgetLiveFacts } from "../provider/core/access-review";
import {
  resourceOperations,
  type ResourceDescription,
  type ResourceOperations,
} from "../provider/core/resource-provider";
import * as group from "../provider/iam/group.implementation";
import * as identity from "../provider/iam/identity.implementation";
import * as role from "../provider/iam/role.implementation";
import * as roleBinding from "../provider/iam/role-binding.implementation";
import { UNKNOWN } from "../provider/core/check";
import type { Capability } from "../sdk/schemas/capabilities";

const LATENCIES = (process.env.BENCH_LATENCIES ?? "0,50,150").split(",").map(Number);
const REPEAT = Number(process.env.BENCH_REPEAT ?? "3");

async function main(): Promise<void> {
  const emulator = await startEmulator();
  await configureFromLookup(
    (key) => ({ "platform:apiUrl": emulator.url, "platform:token": emulator.token })[key],
  );
  const org = emulator.orgUid;
  // The quick start's resources as a preview from empty checks them (outputs of resources not made yet unknown).
  const plan: [string, Record<string, unknown>][] = [
    ["group", { parentUid: org, name: "engineering", description: "Product engineering" }],
    ["group", { parentUid: org, name: "operations", description: "Operations and on-call" }],
    [
      "identity",
      {
        parentUid: org,
        name: "github-actions-deployer",
        claimMatch: {
          issuer: "https://token.actions.githubusercontent.com",
          subject: "repo:acme/app:ref:refs/heads/main",
        },
      },
    ],
    [
      "role",
      {
        parentUid: org,
        name: "deployer",
        capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", "CAP_TAG_LIST"] satisfies Capability[],
      },
    ],
    ["roleBinding", { groupUid: UNKNOWN, identityUid: UNKNOWN, roleUid: UNKNOWN }],
    ["roleBinding", { groupUid: UNKNOWN, identityUid: UNKNOWN, roleUid: UNKNOWN }],
  ];
  const modules = { group, identity, role, roleBinding } as const;
  const withReview = (stem: string): ResourceOperations => modules[stem as keyof typeof modules].resource;
  const withoutReview = (stem: string): ResourceOperations => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- every resource's own input and object types
    const description: ResourceDescription<any, any> = modules[stem as keyof typeof modules].description;
    return resourceOperations({ ...description, accessEffect: undefined });
  };

  const preview = async (ops: (stem: string) => ResourceOperations) => {
    forgetLiveFacts();
    const mark = emulator.requestLog().length;
    const started = process.hrtime.bigint();
    for (const [stem, news] of plan) {
      const result = await ops(stem).check({}, news);
      if ((result.failures ?? []).length > 0) throw new Error(JSON.stringify(result.failures));
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const calls = emulator
      .requestLog()
      .slice(mark)
      .filter((r) => !r.path.startsWith("/_"));
    return { ms, calls: calls.length };
  };

  let failed = false;
  const rows = [
    "| latency | preview without review | with review | difference | extra API calls |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const latency of LATENCIES) {
    emulator.faults.clear();
    if (latency > 0) emulator.faults.add({ path: "^/iam/", action: "stall", stallMs: latency });
    let without = Infinity;
    let withIt = Infinity;
    let extra = 0;
    for (let i = 0; i < REPEAT; i += 1) {
      const a = await preview(withoutReview);
      const b = await preview(withReview);
      without = Math.min(without, a.ms);
      withIt = Math.min(withIt, b.ms);
      extra = b.calls - a.calls;
    }
    const difference = withIt - without;
    if (difference > 1000 || extra > 3) failed = true;
    rows.push(
      `| ${latency} ms | ${without.toFixed(0)} ms | ${withIt.toFixed(0)} ms | ${difference.toFixed(0)} ms | ${extra} |`,
    );
  }
  console.log(rows.join("\n"));
  await closeClients();
  await emulator.close();
  if (failed) {
    console.error("preview-access: the access review costs more than 1 s or more than 3 list calls");
    process.exit(1);
  }
}

void main();
