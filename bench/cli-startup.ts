/**
 * The command-line tools' start-up: wall and CPU seconds of each built tool (dist/) for `--help`, each command's
 * `--help`, and `platform-access review` of the quick start's organization (two folders, a workload identity, a
 * custom role, two bindings; made through the API on the CLI emulator, in its own process). Each figure is the
 * median of BENCH_REPEAT runs (7), one after another; CPU from bench/cpu-probe.js in the tool's process.
 * Fails (exit 1) when a `--help` takes 0.3 s of wall time or more, or the review 0.6 s (on a loaded machine, read
 * the CPU seconds: BENCH_CLI_NO_LIMITS=1 reports without failing). Writes bench/results/cli-startup.json.
 *
 *   npx tsc -p tsconfig.build.json && TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/cli-startup.ts
 *   BENCH_CLI_ROOT=<another checkout, built>  measures that checkout's dist/ instead, into
 *     bench/results/cli-startup-before.json (BENCH_CLI_MEASURED names it there, e.g. a commit), which each later
 *     run prints beside its own figures
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { BUILTIN_ROLES } from "../emulator";
import { PlatformClient } from "../sdk";
import { startCliEmulator } from "./cli-emulator";
import { runWhenMain } from "./main";
import type { Capability } from "../sdk/schemas/capabilities";

const repo = path.resolve(__dirname, "..");
const measured = path.resolve(process.env.BENCH_CLI_ROOT ?? repo);
const REPEAT = Number(process.env.BENCH_REPEAT ?? "7");
const HELP_LIMIT_S = 0.3;
const REVIEW_LIMIT_S = 0.6;

interface Figure {
  what: string;
  wallSeconds: number;
  cpuSeconds: number;
  limitSeconds: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs `node <measured>/dist/<bin> ...args` REPEAT times: median wall and CPU seconds. */
function time(bin: string, args: string[], env: NodeJS.ProcessEnv = {}): { wall: number; cpu: number } {
  const walls: number[] = [];
  const cpus: number[] = [];
  const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "cli-startup-")), "cpu.jsonl");
  for (let i = 0; i < REPEAT; i++) {
    fs.writeFileSync(log, "");
    const started = process.hrtime.bigint();
    const run = spawnSync(
      process.execPath,
      ["--require", path.join(__dirname, "cpu-probe.js"), path.join(measured, "dist", bin), ...args],
      { env: { ...process.env, ...env, BENCH_CPU_LOG: log }, encoding: "utf8" },
    );
    walls.push(Number(process.hrtime.bigint() - started) / 1e9);
    // Before this checkout, some tools refused `COMMAND --help` (exit 1) after loading everything: still timed.
    if (run.status !== 0 && !(args.includes("--help") && process.env.BENCH_CLI_ROOT !== undefined))
      throw new Error(`${bin} ${args.join(" ")}: exit ${run.status}: ${run.stderr.slice(0, 300)}`);
    const [line] = fs.readFileSync(log, "utf8").trim().split("\n");
    const { user, system } = JSON.parse(line!) as { user: number; system: number };
    cpus.push(user + system);
  }
  return { wall: median(walls), cpu: median(cpus) };
}

/** The quick start's organization, as examples/quickstart makes it: returns the organization's uid. */
async function quickStart(url: string, token: string, org: string): Promise<void> {
  const client = new PlatformClient({ apiUrl: url, token });
  try {
    const engineering = await client.groups.create(org, { name: "engineering" });
    const operations = await client.groups.create(org, { name: "operations" });
    const ci = await client.identities.create(org, {
      name: "github-actions-deployer",
      claimMatch: {
        issuer: "https://token.actions.githubusercontent.com",
        subject: "repo:acme/app:ref:refs/heads/main",
      },
    });
    const deployer = await client.roles.create(org, {
      name: "deployer",
      capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", "CAP_TAG_LIST"] satisfies Capability[],
    });
    const viewer = BUILTIN_ROLES.find((r) => r.name === "viewer")!;
    await client.roleBindings.create(engineering.uid, { identityUid: ci.uid, roleUid: deployer.uid });
    await client.roleBindings.create(operations.uid, { identityUid: ci.uid, roleUid: viewer.uid });
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  const figures: Figure[] = [];
  const tools = [
    {
      name: "platform-access",
      bin: "commands/access/cli.js",
      commands: ["review", "who-can", "what-can", "least-privilege", "plan"],
    },
    { name: "platform-import", bin: "commands/import/cli.js", commands: ["report", "load"] },
    { name: "platform-emulator", bin: "emulator/cli.js", commands: [] },
  ];
  for (const tool of tools)
    for (const args of [["--help"], ...tool.commands.map((c) => [c, "--help"])]) {
      const { wall, cpu } = time(tool.bin, args);
      figures.push({
        what: `${tool.name} ${args.join(" ")}`,
        wallSeconds: wall,
        cpuSeconds: cpu,
        limitSeconds: HELP_LIMIT_S,
      });
    }
  const emulator = await startCliEmulator(repo);
  try {
    await quickStart(emulator.url, emulator.token, emulator.orgUid);
    const env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token };
    for (const format of [[], ["--json"]]) {
      const { wall, cpu } = time("commands/access/cli.js", ["review", emulator.orgUid, ...format], env);
      figures.push({
        what: `platform-access review <the quick start's organization> ${format.join(" ")}`.trim(),
        wallSeconds: wall,
        cpuSeconds: cpu,
        limitSeconds: REVIEW_LIMIT_S,
      });
    }
  } finally {
    await emulator.stop();
  }
  const results = path.join(__dirname, "results");
  const file = path.join(
    results,
    process.env.BENCH_CLI_ROOT === undefined ? "cli-startup.json" : "cli-startup-before.json",
  );
  const beforeFile = path.join(results, "cli-startup-before.json");
  const before =
    process.env.BENCH_CLI_ROOT === undefined && fs.existsSync(beforeFile)
      ? (JSON.parse(fs.readFileSync(beforeFile, "utf8")) as { figures: Figure[]; measured: string })
      : undefined;
  const then = (what: string) => before?.figures.find((f) => f.what === what);
  const table = [
    `start-up of ${process.env.BENCH_CLI_ROOT ?? "this checkout"}'s dist/ (median of ${REPEAT}; ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)})` +
      (before !== undefined ? `; before: ${before.measured} (bench/results/cli-startup-before.json)` : ""),
    "",
    `| command | wall s | CPU s |${before !== undefined ? " before: wall s | before: CPU s |" : ""} limit (wall) |`,
    `| --- | ---: | ---: |${before !== undefined ? " ---: | ---: |" : ""} ---: |`,
    ...figures.map(
      (f) =>
        `| \`${f.what}\` | ${f.wallSeconds.toFixed(3)} | ${f.cpuSeconds.toFixed(3)} |${
          before !== undefined
            ? ` ${then(f.what)?.wallSeconds.toFixed(3) ?? "–"} | ${then(f.what)?.cpuSeconds.toFixed(3) ?? "–"} |`
            : ""
        } ${f.limitSeconds} |`,
    ),
  ];
  process.stdout.write(`${table.join("\n")}\n`);
  const measuredName =
    process.env.BENCH_CLI_ROOT === undefined ? "this checkout" : (process.env.BENCH_CLI_MEASURED ?? measured);
  fs.writeFileSync(
    file,
    `${JSON.stringify({ measured: measuredName, repeat: REPEAT, cpus: os.cpus().length, load: os.loadavg()[0], figures }, null, 2)}\n`,
  );
  const over = figures.filter((f) => f.wallSeconds >= f.limitSeconds);
  if (over.length > 0 && process.env.BENCH_CLI_NO_LIMITS !== "1")
    throw new Error(
      `over the limit: ${over.map((f) => `${f.what} ${f.wallSeconds.toFixed(3)} s`).join(", ")}`,
    );
}

runWhenMain(module, "cli-startup", main);
