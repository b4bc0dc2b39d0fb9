/**
 * The report over many stacks (docs/many-stacks.md): 50 stacks of 100 resources each (a team's folder, 50
 * identities in it, 49 role bindings), on the engine's DIY backend in a directory and on PostgreSQL (a server
 * started here, test/e2e/postgres.ts), over one organization of 5,000 objects plus 100 made by hand, the emulator in
 * its own process. The stacks' states are loaded with the engine's own `stack import` (running 50 programs would
 * measure the programs, not the report).
 *
 * Measured per backend: `platform-import report <org> --json` as a user runs it, the backend in PULUMI_BACKEND_URL
 * (wall time, engine invocations counted by a `pulumi` on PATH that logs each run before it hands over to the engine,
 * API calls from the emulator's log), and the reading alone (commands/stacks.ts readSources) at 1, 4 and 8 exports
 * at once, which is what the default of 4 is chosen from. Fails when the report runs the engine more than once per
 * stack plus one, or does not find exactly the hand-made objects unmanaged. Writes bench/results/stacks.json and
 * prints the table.
 *
 *   npx tsc -p tsconfig.build.json && TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/stacks.ts
 *
 * Env: BENCH_STACKS (50), BENCH_STACK_RESOURCES (100), BENCH_STACKS_POSTGRES=0 to skip PostgreSQL (it needs Debian's
 * postgresql package and root).
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pooled } from "../commands/command";
import type { Report } from "../commands/import/report";
import { EXPORT_CONCURRENCY, pulumiCli, readSources, type RunPulumi } from "../commands/stacks";
import { PlatformClient } from "../sdk";
import { stateExport, type StateEntry } from "../test/commands/fixtures";
import { engineBinDir } from "../test/e2e/harness";
import { startPostgres } from "../test/e2e/postgres";
import { startCliEmulator, type CliEmulator } from "./cli-emulator";
import { runWhenMain } from "./main";

const ROOT = join(__dirname, "..");
const STACKS = Number(process.env.BENCH_STACKS ?? 50);
const RESOURCES = Number(process.env.BENCH_STACK_RESOURCES ?? 100);
const POSTGRES = process.env.BENCH_STACKS_POSTGRES !== "0";
const HAND_MADE = 100;
const VIEWER = "viewer";

/** 0, 1, ..., n - 1. */
const upTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** The organization: per stack a folder, identities in it and bindings of them; and objects made by hand. */
async function organization(emulator: CliEmulator): Promise<{ stacks: StateEntry[][]; handMade: string[] }> {
  const client = new PlatformClient({ apiUrl: emulator.url, token: emulator.token, env: {} });
  try {
    const viewer = (await client.roles.list({ name: VIEWER })).items.find((r) => r.name === VIEWER)!.uid;
    const identities = Math.floor(RESOURCES / 2);
    const bindings = RESOURCES - 1 - identities;
    const stacks: StateEntry[][] = [];
    await pooled(upTo(STACKS), 4, async (s) => {
      const folder = await client.groups.create(emulator.orgUid, { name: `team-${s}` });
      const entries: StateEntry[] = [
        { front: "native", token: "platform:iam:Group", uid: folder.uid, name: `team-${s}` },
      ];
      for (let i = 0; i < identities; i++) {
        const identity = await client.identities.create(folder.uid, {
          name: `robot-${i}`,
          claimMatch: { issuer: "https://issuer.example.com", subject: `team-${s}-robot-${i}` },
        });
        entries.push({
          front: "native",
          token: "platform:iam:Identity",
          uid: identity.uid,
          name: `robot-${i}`,
        });
        if (i < bindings) {
          const binding = await client.roleBindings.create(folder.uid, {
            identityUid: identity.uid,
            roleUid: viewer,
          });
          entries.push({
            front: "native",
            token: "platform:iam:RoleBinding",
            uid: binding.uid,
            name: `robot-${i}-views`,
            props: { groupUid: folder.uid, identityUid: identity.uid, roleUid: viewer },
          });
        }
      }
      stacks[s] = entries;
    });
    const shadow = await client.groups.create(emulator.orgUid, { name: "by-hand" });
    const handMade = [shadow.uid];
    for (let i = 1; i < HAND_MADE; i++)
      handMade.push(
        (
          await client.identities.create(shadow.uid, {
            name: `by-hand-${i}`,
            claimMatch: { issuer: "https://issuer.example.com", subject: `by-hand-${i}` },
          })
        ).uid,
      );
    // The organization's owner binding, made with it.
    handMade.push((await client.roleBindings.list({ childrenOf: emulator.orgUid })).items[0]!.uid);
    return { stacks, handMade };
  } finally {
    await client.close();
  }
}

/** The offline engine environment (scripts/pulumi-env.sh) for `backend`, with `path` first on PATH. */
function engineEnv(home: string, backend: string, path: string): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    // Only the non-empty entries: an empty one (a leading ':') means the current directory.
    PATH: [path, engineBinDir(), ...(process.env.PATH ?? "").split(":")].filter((p) => p !== "").join(":"),
    PULUMI_PLATFORM_ENGINE_BIN: engineBinDir(),
    PULUMI_PLATFORM_STATE_DIR: home,
    PULUMI_HOME: join(home, "home"),
    PULUMI_BACKEND_URL: backend,
    PULUMI_CONFIG_PASSPHRASE: "bench-stacks",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    NO_COLOR: "1",
  };
}

/** Runs a command in the offline engine environment (scripts/pulumi-env.sh). */
function run(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", [join(ROOT, "scripts", "pulumi-env.sh"), ...args], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** Loads every stack's state into `backend` with `pulumi stack init` and `pulumi stack import`, 4 at a time. */
async function load(stacks: StateEntry[][], backend: string, work: string): Promise<void> {
  const env = engineEnv(work, backend, "");
  const loadOne = async (s: number) => {
    const dir = join(work, `team-${s}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "Pulumi.yaml"), `name: team-${s}\nruntime: yaml\n`);
    const state = stateExport(`team-${s}`, stacks[s]!) as { deployment: Record<string, unknown> };
    // No secrets in these states: the stack's own secrets provider stands.
    delete state.deployment["secrets_providers"];
    writeFileSync(join(dir, "state.json"), JSON.stringify(state));
    for (const args of [
      ["stack", "init", "dev"],
      // --force: the states are written here, without the checkpoint's magic cookie the engine adds.
      ["stack", "import", "--stack", "dev", "--file", "state.json", "--force"],
    ]) {
      const result = await run(["pulumi", ...args, "--non-interactive"], dir, env);
      if (result.code !== 0) throw new Error(`pulumi ${args.join(" ")} in team-${s}: ${result.stderr}`);
    }
  };
  // The first alone: the engine's PostgreSQL store creates its table on first use, and two processes doing that at
  // once collide (CREATE TABLE IF NOT EXISTS is not safe to run concurrently in PostgreSQL).
  await loadOne(0);
  await pooled(upTo(stacks.length - 1), 4, (s) => loadOne(s + 1));
}

/** A `pulumi` that logs each run to `log` and hands over to the engine. */
function countingPulumi(dir: string, log: string): string {
  mkdirSync(dir, { recursive: true });
  const shim = join(dir, "pulumi");
  writeFileSync(shim, `#!/bin/sh\necho "$*" >> '${log}'\nexec '${join(engineBinDir(), "pulumi")}' "$@"\n`, {
    mode: 0o755,
  });
  return dir;
}

interface BackendResult {
  backend: string;
  stacks: number;
  resourcesPerStack: number;
  report: {
    seconds: number;
    engineInvocations: number;
    apiCalls: number;
    unmanaged: number;
    managed: number;
  };
  reading: { concurrency: number; seconds: number; invocations: number }[];
}

async function measure(
  name: string,
  backend: string,
  emulator: CliEmulator,
  expected: { handMade: string[] },
  work: string,
): Promise<BackendResult> {
  const log = join(work, `${name}-invocations.log`);
  const env = {
    ...engineEnv(work, backend, countingPulumi(join(work, `${name}-bin`), log)),
    PLATFORM_API_URL: emulator.url,
    PLATFORM_TOKEN: emulator.token,
  };
  delete (env as Record<string, string | undefined>)["PULUMI_CONFIG_PASSPHRASE"];
  await emulator.clearRequests();
  const cli = join(ROOT, "dist", "commands", "import", "cli.js");
  const started = process.hrtime.bigint();
  const result = await run(["node", cli, "report", emulator.orgUid, "--json"], work, env);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const apiCalls = (await emulator.requests()).length;
  const invocations = readFileSync(log, "utf8").trim().split("\n").length;
  if (result.stdout === "") throw new Error(`${name}: the report printed nothing: ${result.stderr}`);
  const report = JSON.parse(result.stdout) as Report;
  if (
    report.unmanaged
      .map((u) => u.uid)
      .sort()
      .join() !== [...expected.handMade].sort().join()
  )
    throw new Error(
      `${name}: the report's unmanaged objects are not exactly the ${HAND_MADE + 1} made by hand`,
    );
  if (report.states.length !== STACKS)
    throw new Error(`${name}: ${report.states.length} stacks read, not ${STACKS}`);
  process.stderr.write(
    `bench stacks: ${name}: report ${seconds.toFixed(2)} s, ${invocations} engine invocations\n`,
  );

  const reading: BackendResult["reading"] = [];
  for (const concurrency of [1, EXPORT_CONCURRENCY, 8]) {
    const engine = (e: Record<string, string | undefined>): RunPulumi => pulumiCli(work, e);
    const t0 = process.hrtime.bigint();
    const sources = await readSources({ files: [], backend, env, engine, concurrency });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (sources.states.length !== STACKS) throw new Error(`${name}: read ${sources.states.length} stacks`);
    reading.push({ concurrency, seconds: s, invocations: sources.invocations });
    process.stderr.write(`bench stacks: ${name}: reading at ${concurrency} at once: ${s.toFixed(2)} s\n`);
  }
  return {
    backend: name,
    stacks: STACKS,
    resourcesPerStack: RESOURCES,
    report: {
      seconds,
      engineInvocations: invocations,
      apiCalls,
      unmanaged: report.unmanaged.length,
      managed: report.managed.length,
    },
    reading,
  };
}

async function main(): Promise<void> {
  const emulator = await startCliEmulator(ROOT);
  const work = mkdtempSync(join(tmpdir(), "platform-bench-stacks-"));
  const results: BackendResult[] = [];
  try {
    const org = await organization(emulator);
    process.stderr.write(
      `bench stacks: ${STACKS} stacks of ${RESOURCES} resources, ${HAND_MADE + 1} by hand\n`,
    );
    const backends: [string, () => { url: string; stop: () => void }][] = [
      ["file", () => ({ url: `file://${join(work, "file-backend")}`, stop: () => undefined })],
    ];
    const havePostgres =
      existsSync("/usr/lib/postgresql") && execFileSync("id", ["-u"]).toString().trim() === "0";
    if (POSTGRES && havePostgres) backends.push(["PostgreSQL", startPostgres]);
    else
      process.stderr.write(
        "bench stacks: PostgreSQL skipped (BENCH_STACKS_POSTGRES=0, or no server, or not root)\n",
      );
    for (const [name, start] of backends) {
      const server = start();
      try {
        const loadStarted = Date.now();
        await load(org.stacks, server.url, join(work, name));
        process.stderr.write(
          `bench stacks: ${name}: loaded in ${((Date.now() - loadStarted) / 1000).toFixed(1)} s\n`,
        );
        results.push(await measure(name, server.url, emulator, org, join(work, name)));
      } finally {
        server.stop();
      }
    }
  } finally {
    await emulator.stop();
    rmSync(work, { recursive: true, force: true });
  }
  mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
  writeFileSync(join(ROOT, "bench", "results", "stacks.json"), `${JSON.stringify(results, null, 2)}\n`);
  const lines = [
    `platform-import report over ${STACKS} stacks of ${RESOURCES} resources (${STACKS * RESOURCES + HAND_MADE + 1} objects)`,
    "",
    "| backend | report wall (s) | engine invocations | API calls | reading at 1 / 4 / 8 at once (s) |",
    "| --- | ---: | ---: | ---: | --- |",
  ];
  for (const r of results)
    lines.push(
      `| ${r.backend} | ${r.report.seconds.toFixed(2)} | ${r.report.engineInvocations} | ${r.report.apiCalls} | ` +
        `${r.reading.map((x) => x.seconds.toFixed(2)).join(" / ")} |`,
    );
  console.log(lines.join("\n"));
  for (const r of results)
    if (r.report.engineInvocations > STACKS + 1) {
      console.error(
        `bench stacks: ${r.backend}: ${r.report.engineInvocations} engine runs, over ${STACKS + 1}`,
      );
      process.exitCode = 1;
    }
}

runWhenMain(module, "stacks", main);
