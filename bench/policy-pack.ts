/**
 * Policy pack benchmark: what `--policy-pack policy` adds to a `pulumi preview` of the quick start
 * (examples/quickstart, dynamic resources, against the in-process emulator). Previews alternate without and with
 * the pack, BENCH_POLICY_RUNS (5) of each after one untimed warm-up of each, so load on a shared machine hits both
 * alike; prints the median wall time and each run's. (CPU time is not reported: the engine kills its plugins, the
 * pack among them, without waiting for them, so their CPU time reaches no parent's accounting.) Every rule runs as advisory (--policy-pack-config): the quick start's
 * identity has no audience, which the pack reports, and a mandatory violation would end the preview early.
 *
 *   TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/policy-pack.ts      (needs dist/ and policy/dist: npm run build)
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
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
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "policy-bench-"));
  const configFile = path.join(scratch, "policy-config.json");
  const { POLICIES } = await import("../policy/rules");
  fs.writeFileSync(configFile, JSON.stringify(Object.fromEntries(POLICIES.map((p) => [p.name, "advisory"]))));
  const preview = async (kind: "without" | "with", timed: boolean) => {
    const pack = ["--policy-pack", `${repoRoot}/policy`, "--policy-pack-config", configFile];
    const args = kind === "with" ? ["preview", ...pack] : ["preview"];
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
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  for (const kind of ["without", "with"] as const) {
    console.log(
      `preview ${kind} the pack: wall median ${median(times[kind])} ms (${times[kind].join(", ")} ms)`,
    );
  }
  console.log(`the pack adds: ${median(times.with) - median(times.without)} ms (medians)`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
