/**
 * Policy pack benchmark (issue 29): what `--policy-pack policy` adds to a `pulumi preview` of the quick start
 * (examples/quickstart, dynamic resources, against the in-process emulator). Previews alternate without and with
 * the pack, BENCH_POLICY_RUNS (5) of each after one untimed warm-up of each, so load on a shared machine hits both
 * alike; prints the median wall time and CPU time (user + system of the CLI and every process it starts, the
 * pack's included: what the pack costs whatever else loads the machine) and each run's. Every rule runs as advisory (--policy-pack-config): the quick start's
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
  const cpu: Record<"without" | "with", number[]> = { without: [], with: [] };
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "policy-bench-"));
  const timeFile = path.join(scratch, "time");
  const configFile = path.join(scratch, "policy-config.json");
  const { POLICIES } = await import("../policy/rules");
  fs.writeFileSync(configFile, JSON.stringify(Object.fromEntries(POLICIES.map((p) => [p.name, "advisory"]))));
  const preview = async (kind: "without" | "with", timed: boolean) => {
    const pack = ["--policy-pack", `${repoRoot}/policy`, "--policy-pack-config", configFile];
    const args = kind === "with" ? ["preview", ...pack] : ["preview"];
    const started = Date.now();
    await stack.run(args, { allowFailure: true, wrapper: ["/usr/bin/time", "-f", "%U %S", "-o", timeFile] });
    if (!timed) return;
    times[kind].push(Date.now() - started);
    const [user, system] = fs.readFileSync(timeFile, "utf8").trim().split(/\s+/).slice(-2).map(Number);
    cpu[kind].push(Math.round(((user ?? NaN) + (system ?? NaN)) * 1000));
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
    console.log(
      `preview ${kind} the pack: wall median ${median(times[kind])} ms (${times[kind].join(", ")} ms)`,
    );
    console.log(`preview ${kind} the pack: CPU median ${median(cpu[kind])} ms (${cpu[kind].join(", ")} ms)`);
  }
  console.log(
    `the pack adds (medians): wall ${median(times.with) - median(times.without)} ms, CPU ${median(cpu.with) - median(cpu.without)} ms`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
