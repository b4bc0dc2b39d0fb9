/**
 * Policy pack benchmark (issue 29): what `--policy-pack policy` adds to a `pulumi preview` of the quick start
 * (examples/quickstart, dynamic resources, against the in-process emulator). Previews alternate without and with
 * the pack, BENCH_POLICY_RUNS (5) of each after one untimed warm-up of each, so load on a shared machine hits both
 * alike; prints the median and each run's wall time. The pack's verdict does not matter here (the quick start's
 * identity has no audience, which the pack reports): the preview runs every rule on every resource either way.
 *
 *   TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/policy-pack.ts      (needs dist/ and policy/dist: npm run build)
 */
import { startEmulator } from "../emulator";
import { installLocalPackage, PulumiStack, repoRoot } from "../test/e2e/harness";

const RUNS = Number(process.env.BENCH_POLICY_RUNS ?? 5);

async function main(): Promise<void> {
  const emulator = await startEmulator();
  installLocalPackage("examples/quickstart", { build: false });
  const stack = await PulumiStack.create({
    programDir: ".", // the root Pulumi.yaml runs examples/quickstart
    config: { organization: emulator.orgUid, "platform:apiUrl": emulator.url },
    secrets: { "platform:token": emulator.token },
  });
  const times: Record<"without" | "with", number[]> = { without: [], with: [] };
  const preview = async (kind: "without" | "with", timed: boolean) => {
    const args = kind === "with" ? ["preview", "--policy-pack", `${repoRoot}/policy`] : ["preview"];
    const started = Date.now();
    await stack.run(args, { allowFailure: true });
    if (timed) times[kind].push(Date.now() - started);
  };
  try {
    await preview("without", false);
    await preview("with", false);
    for (let i = 0; i < RUNS; i++) {
      await preview("without", true);
      await preview("with", true);
    }
  } finally {
    await stack.cleanup();
    await emulator.close();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  for (const kind of ["without", "with"] as const) {
    console.log(`preview ${kind} the pack: median ${median(times[kind])} ms (${times[kind].join(", ")} ms)`);
  }
  console.log(`the pack adds: ${median(times.with) - median(times.without)} ms (medians)`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
