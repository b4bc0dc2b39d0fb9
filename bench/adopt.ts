/**
 * Adoption benchmark (docs/adopting.md): an organization of 3,003 objects (1,000 folders, 1,000 identities, 1,000
 * role bindings of one custom role, the organization and its owner's binding) adopted onto the native plugin in a
 * YAML project, with the CLI's defaults (checkpoints on, preview before import), two ways:
 *
 *   - state-first: `platform-import --out --state-out`, `platform-import load`, `pulumi import --preview-only`
 *     (prints the program), `PULUMI_SKIP_CHECKPOINTS=true pulumi preview --expect-no-changes` (as the docs say);
 *   - `pulumi import --file`: `platform-import --out`, `pulumi import --file --out`, the same preview.
 *
 * Wall time and API calls (the emulator's request log) of each step, the emulator in its own process. Writes
 * bench/results/adopt.json and prints the table. The goal: state-first in at most 30 s end to end. Then the
 * state-first path again on the oldest and on the newest engine the project supports (scripts/build-engine.sh builds
 * either), each step's time per engine; the goal: the newest in at most 1.2 times the oldest, end to end. Then, on
 * the newest and the oldest engine, the first and second `pulumi up --yes --skip-preview` after the state-first
 * adoption with one description edited (upAfterAdoption); the goal: the first up at most 1.5x the second.
 *
 *   npx tsc -p tsconfig.build.json && TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/adopt.ts
 *
 * Env: BENCH_PLUGIN_TARBALL (else `npm run plugin` builds it), BENCH_ADOPT_FOLDERS (1000: folders, identities and
 * bindings each), BENCH_ADOPT_SKIP_IMPORT=1 (state-first only: the `pulumi import --file` path takes minutes),
 * BENCH_ADOPT_POSTGRES=1 (the same again on the engine's DIY PostgreSQL backend, a server started here: needs
 * Debian's postgresql package and root), BENCH_ADOPT_SKIP_ENGINES=1 (no per-engine paths), BENCH_ADOPT_UNMITIGATED=1
 * (each engine's path again with a plain `pulumi preview`: minutes on the newest), BENCH_ADOPT_OLDEST_ENGINE=0 (the
 * updates after adoption on the newest engine only), BENCH_ADOPT_UP_ONLY=1 (only the updates after adoption).
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PlatformClient } from "../sdk";
import { PulumiStack, engineBinDir, testPassphrase } from "../test/e2e/harness";
import { startPostgres } from "../test/e2e/postgres";
import { startCliEmulator, type CliEmulator } from "./cli-emulator";
import { runWhenMain } from "./main";
import { benchPluginTarball } from "./plugin-tarball";
import type { Capability } from "../sdk/schemas/capabilities";

const ROOT = join(__dirname, "..");
const FOLDERS = Number(process.env.BENCH_ADOPT_FOLDERS ?? 1000);
const SKIP_IMPORT = process.env.BENCH_ADOPT_SKIP_IMPORT === "1";
const POSTGRES = process.env.BENCH_ADOPT_POSTGRES === "1";
const UP_ONLY = process.env.BENCH_ADOPT_UP_ONLY === "1";
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const CLI = join(ROOT, "dist", "commands", "import", "cli.js");

interface Step {
  step: string;
  seconds: number;
  apiCalls: number;
}

interface PathResult {
  path: string;
  steps: Step[];
  seconds: number;
  apiCalls: number;
}

/** Runs `command` in the stack's offline environment (scripts/pulumi-env.sh), in `dir`; fails on a non-zero exit. */
function run(
  command: string[],
  dir: string,
  stack: PulumiStack,
  env: Record<string, string>,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [join(ROOT, "scripts", "pulumi-env.sh"), ...command], {
      cwd: dir,
      env: {
        ...process.env,
        PULUMI_PLATFORM_ENGINE_BIN: engineBinDir(),
        PULUMI_PLATFORM_STATE_DIR: stack.stateDir,
        PULUMI_HOME: join(stack.stateDir, "home"),
        PULUMI_BACKEND_URL: `file://${join(stack.stateDir, "backend")}`,
        PULUMI_CONFIG_PASSPHRASE: testPassphrase,
        NO_COLOR: "1",
        // Last: a PULUMI_BACKEND_URL here (the PostgreSQL backend) wins.
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (output += c.toString("utf8")));
    child.on("close", (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${command.join(" ")} exited ${code}:\n${output.slice(-4000)}`)),
    );
  });
}

/** The organization: FOLDERS folders, as many identities (one per folder) and bindings (each in its folder). */
async function makeOrganization(emulator: CliEmulator): Promise<number> {
  const client = new PlatformClient({ apiUrl: emulator.url, token: emulator.token, env: {} });
  try {
    const role = await client.roles.create(emulator.orgUid, {
      name: "deployer",
      capabilities: ["CAP_REPO_LIST"] satisfies Capability[],
    });
    const pool = async (count: number, work: (i: number) => Promise<unknown>) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < count) await work(next++);
        }),
      );
    };
    await pool(FOLDERS, async (i) => {
      const folder = await client.groups.create(emulator.orgUid, {
        name: `team-${i}`,
        description: `Team ${i}`,
      });
      const identity = await client.identities.create(folder.uid, {
        name: `robot-${i}`,
        claimMatch: { issuer: "https://issuer.example.com", subject: `robot-${i}` },
      });
      await client.roleBindings.create(folder.uid, { identityUid: identity.uid, roleUid: role.uid });
    });
  } finally {
    await client.close();
  }
  // The organization and its owner's binding, the custom role, and three objects per folder.
  return 2 + 1 + 3 * FOLDERS;
}

async function timed(
  emulator: CliEmulator,
  steps: Step[],
  step: string,
  work: () => Promise<unknown>,
): Promise<void> {
  await emulator.clearRequests();
  const started = process.hrtime.bigint();
  await work();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const apiCalls = (await emulator.requests()).length;
  steps.push({ step, seconds, apiCalls });
  process.stderr.write(`bench adopt: ${step}: ${seconds.toFixed(2)} s, ${apiCalls} API calls\n`);
}

/** A fresh YAML project and stack with the plugin installed. */
async function project(
  tarball: string,
  env: Record<string, string>,
): Promise<{ dir: string; stack: PulumiStack }> {
  const dir = mkdtempSync(join(tmpdir(), "platform-bench-adopt-"));
  writeFileSync(join(dir, "Pulumi.yaml"), "name: platform-bench-adopt\nruntime: yaml\n");
  const stack = await PulumiStack.create({ programDir: dir, env, timeoutMs: 1_800_000 });
  // The harness makes the stack in a file backend; on another backend, make it there too.
  if (env["PULUMI_BACKEND_URL"] !== undefined) await stack.run(["stack", "init"], { env });
  // It makes it with the default engine; on another one, make it again there (`platform-import load` refuses a
  // stack that a newer engine than the one on PATH wrote).
  if (env["PULUMI_PLATFORM_ENGINE_BIN"] !== undefined) {
    await stack.run(["stack", "rm", "--yes", "--force"]);
    await stack.run(["stack", "init"], { env });
  }
  await stack.run(["plugin", "install", "resource", "platform", VERSION, "--file", tarball], {
    stackless: true,
  });
  return { dir, stack };
}

function total(path: string, steps: Step[]): PathResult {
  return {
    path,
    steps,
    seconds: steps.reduce((s, x) => s + x.seconds, 0),
    apiCalls: steps.reduce((s, x) => s + x.apiCalls, 0),
  };
}

/** Runs one timed step: its wall time and API calls join the path's steps. */
type TimedStep = (step: string, work: () => Promise<unknown>) => Promise<void>;

/**
 * One way of adopting, in a fresh project: `importSteps`, which leave the program `pulumi import` printed in
 * program.yaml; then that program as the project's and `pulumi preview --expect-no-changes`.
 */
async function adoptionPath(
  name: string,
  emulator: CliEmulator,
  tarball: string,
  env: Record<string, string>,
  importSteps: (step: TimedStep, dir: string, stack: PulumiStack) => Promise<void>,
  previewEnv: Record<string, string> = env,
): Promise<PathResult> {
  const { dir, stack } = await project(tarball, env);
  const steps: Step[] = [];
  const step: TimedStep = (label, work) => timed(emulator, steps, label, work);
  try {
    await importSteps(step, dir, stack);
    renameSync(join(dir, "program.yaml"), join(dir, "Main.yaml"));
    await step("pulumi preview --expect-no-changes", () => stack.preview({ env: previewEnv }));
    return total(name, steps);
  } finally {
    await stack.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

function stateFirst(
  emulator: CliEmulator,
  tarball: string,
  env: Record<string, string>,
  name = "state-first",
  previewEnv: Record<string, string> = env,
) {
  return adoptionPath(
    name,
    emulator,
    tarball,
    env,
    async (step, dir, stack) => {
      const org = emulator.orgUid;
      const stackFlag = ["--stack", stack.name];
      await step("platform-import --out --state-out", () =>
        run(["node", CLI, org, "--out", "import.json", "--state-out", "adopted.json"], dir, stack, env),
      );
      await step("platform-import load", () =>
        run(["node", CLI, "load", "adopted.json", ...stackFlag], dir, stack, env),
      );
      await step("pulumi import --preview-only (prints the program)", () =>
        stack.run(["import", "--file", "import.json", "--preview-only", "--out", "program.yaml"], { env }),
      );
    },
    previewEnv,
  );
}

function importFile(emulator: CliEmulator, tarball: string, env: Record<string, string>) {
  return adoptionPath("pulumi import --file", emulator, tarball, env, async (step, dir, stack) => {
    await step("platform-import --out", () =>
      run(["node", CLI, emulator.orgUid, "--out", "import.json"], dir, stack, env),
    );
    await step("pulumi import --file --yes", () =>
      stack.run(["import", "--file", "import.json", "--yes", "--out", "program.yaml"], {
        env,
        timeoutMs: 1_800_000,
      }),
    );
  });
}

// The first preview per engine: the state-first path on the oldest and the newest engine the project supports,
// each with the settings docs/adopting.md gives for the first preview, in one run. The goal: the newest takes at
// most ENGINE_RATIO_GOAL times the oldest, end to end (walk to first preview). 3.276.0's engine serializes and
// checks the whole snapshot after every step of a preview too (nothing is saved: O(n^2) CPU, 162 s instead of 12 s
// at 3,001 objects); PULUMI_SKIP_CHECKPOINTS=true, which docs/adopting.md puts on the preview, builds it once.

const ENGINE_RATIO_GOAL = 1.2;
/** BENCH_ADOPT_SKIP_ENGINES=1 leaves the comparison out; BENCH_ADOPT_UNMITIGATED=1 adds each engine's plain preview. */
const SKIP_ENGINES = process.env.BENCH_ADOPT_SKIP_ENGINES === "1";
const UNMITIGATED = process.env.BENCH_ADOPT_UNMITIGATED === "1";

/** The environment docs/adopting.md's state-first block gives `pulumi preview` (see "The first preview"). */
const FIRST_PREVIEW_ENV = { PULUMI_SKIP_CHECKPOINTS: "true" };

interface EngineResult {
  engine: string;
  bin: string;
  path: PathResult;
  /** The same path with a plain `pulumi preview` (BENCH_ADOPT_UNMITIGATED=1). */
  unmitigated?: PathResult;
}

/** The oldest engine (the floor of package.json's `@pulumi/pulumi` range) and the newest (the installed one). */
function supportedEngineVersions(): { oldest: string; newest: string } {
  const range = (
    JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    }
  ).dependencies["@pulumi/pulumi"]!;
  const oldest = /^\^(\d+\.\d+\.\d+)$/.exec(range)?.[1];
  if (oldest === undefined) throw new Error(`package.json's @pulumi/pulumi range '${range}' is not ^X.Y.Z`);
  const installed = join(ROOT, "node_modules", "@pulumi", "pulumi", "package.json");
  const newest = (JSON.parse(readFileSync(installed, "utf8")) as { version: string }).version;
  return { oldest, newest };
}

/** The bin directory of `version`'s engine, built by scripts/build-engine.sh when it is not in the cache yet. */
function engineBin(version: string): string {
  const stdout = execFileSync("bash", [join(ROOT, "scripts", "build-engine.sh")], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, PULUMI_ENGINE_VERSION: version, PULUMI_PLATFORM_BUILD_ENGINE: "1" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return stdout.trim().split("\n").pop()!;
}

/** The state-first path of the same organization on each supported engine, oldest first. */
async function perEngine(
  emulator: CliEmulator,
  tarball: string,
  env: Record<string, string>,
): Promise<EngineResult[]> {
  const { oldest, newest } = supportedEngineVersions();
  const results: EngineResult[] = [];
  for (const engine of oldest === newest ? [oldest] : [oldest, newest]) {
    const bin = engineBin(engine);
    const engineEnv = { ...env, PULUMI_PLATFORM_ENGINE_BIN: bin };
    const name = `state-first, engine ${engine}`;
    const result: EngineResult = {
      engine,
      bin,
      path: await stateFirst(emulator, tarball, engineEnv, name, { ...engineEnv, ...FIRST_PREVIEW_ENV }),
    };
    if (UNMITIGATED)
      result.unmitigated = await stateFirst(emulator, tarball, engineEnv, `${name}, plain preview`);
    results.push(result);
  }
  return results;
}

/** The preview's seconds of a path (its last step). */
function previewSeconds(path: PathResult): number {
  return path.steps[path.steps.length - 1]!.seconds;
}

/** The table's lines for the engines, and whether the newest is within ENGINE_RATIO_GOAL of the oldest. */
function engineReport(results: EngineResult[]): { lines: string[]; ratio: number } {
  const lines = [
    "",
    "first preview per engine (state-first, the docs' settings; `plain`: without PULUMI_SKIP_CHECKPOINTS)",
    "",
    "| engine | first preview (s) | end to end (s) | plain first preview (s) |",
    "| --- | ---: | ---: | ---: |",
  ];
  for (const r of results) {
    const plain = r.unmitigated ? previewSeconds(r.unmitigated).toFixed(2) : "–";
    lines.push(
      `| ${r.engine} | ${previewSeconds(r.path).toFixed(2)} | ${r.path.seconds.toFixed(2)} | ${plain} |`,
    );
  }
  const ratio = results[results.length - 1]!.path.seconds / results[0]!.path.seconds;
  lines.push("", `newest / oldest, end to end: ${ratio.toFixed(2)} (goal <= ${ENGINE_RATIO_GOAL})`);
  return { lines, ratio };
}

/** The first and second `pulumi up` after the documented state-first adoption, with one description edited. */
interface UpAfterAdoption {
  engine: string;
  /** `pulumi up --yes --skip-preview`: the edit (1 updated, the rest unchanged). */
  firstUp: number;
  /** The same again, nothing changed. */
  secondUp: number;
  /** firstUp / secondUp: the goal is at most UP_RATIO_GOAL. */
  ratio: number;
}

/** The first update after adoption costs at most this many times the next one (issue 53). */
const UP_RATIO_GOAL = 1.5;

/** The engines to measure the updates after adoption with: the newest, and the oldest unless told otherwise. */
function upEngines(): { version: string; bin: string }[] {
  const { oldest, newest } = supportedEngineVersions();
  const versions =
    process.env.BENCH_ADOPT_OLDEST_ENGINE === "0" || oldest === newest ? [newest] : [newest, oldest];
  return versions.map((version) => ({ version, bin: engineBin(version) }));
}

/**
 * The documented state-first adoption (walk, load, the printed program made the project's), one folder's
 * description edited in the program, then `pulumi up --yes --skip-preview` twice: the first applies the edit, the
 * second changes nothing. The first used to rewrite the whole checkpoint once per adopted resource (the loaded state
 * was not the one the engine keeps); now it costs about what the second does.
 */
async function upAfterAdoption(
  emulator: CliEmulator,
  tarball: string,
  env: Record<string, string>,
  engine: { version: string; bin: string },
): Promise<UpAfterAdoption> {
  const engineEnv = { ...env, PULUMI_PLATFORM_ENGINE_BIN: engine.bin };
  const { dir, stack } = await project(tarball, engineEnv);
  try {
    const org = emulator.orgUid;
    await run(
      ["node", CLI, org, "--out", "import.json", "--state-out", "adopted.json"],
      dir,
      stack,
      engineEnv,
    );
    await run(["node", CLI, "load", "adopted.json", "--stack", stack.name], dir, stack, engineEnv);
    await stack.run(["import", "--file", "import.json", "--preview-only", "--out", "program.yaml"], {
      env: engineEnv,
    });
    const program = readFileSync(join(dir, "program.yaml"), "utf8");
    const edited = program.replace(/^(\s+description: Team 0)$/m, "$1, edited");
    if (edited === program)
      throw new Error("bench adopt: no folder description to edit in the printed program");
    writeFileSync(join(dir, "Main.yaml"), edited);
    rmSync(join(dir, "program.yaml"));
    const seconds = async (label: string) => {
      const started = process.hrtime.bigint();
      const result = await stack.run(["up", "--yes", "--skip-preview"], {
        env: engineEnv,
        timeoutMs: 1_800_000,
      });
      const took = Number(process.hrtime.bigint() - started) / 1e9;
      const summary = (/Resources:\n([\s\S]*?)\n\n/.exec(result.stdout)?.[1] ?? "")
        .split("\n")
        .map((line) => line.trim())
        .join(", ");
      process.stderr.write(
        `bench adopt: ${engine.version}: ${label} up: ${took.toFixed(2)} s (${summary})\n`,
      );
      return took;
    };
    const firstUp = await seconds("first");
    const secondUp = await seconds("second");
    return { engine: engine.version, firstUp, secondUp, ratio: firstUp / secondUp };
  } finally {
    await stack.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The updates after adoption on each engine: the table's lines, and whether each is within the goal. */
async function upsAfterAdoption(
  emulator: CliEmulator,
  tarball: string,
  env: Record<string, string>,
  objects: number,
): Promise<{ results: UpAfterAdoption[]; lines: string[] }> {
  const results: UpAfterAdoption[] = [];
  for (const engine of upEngines()) results.push(await upAfterAdoption(emulator, tarball, env, engine));
  const lines = [
    "",
    `the updates after state-first adoption of ${objects} objects, one description edited (file backend, --skip-preview)`,
    "",
    "| engine | first up (s) | second up (s) | first / second |",
    "| --- | ---: | ---: | ---: |",
    ...results.map(
      (r) => `| ${r.engine} | ${r.firstUp.toFixed(2)} | ${r.secondUp.toFixed(2)} | ${r.ratio.toFixed(2)} |`,
    ),
  ];
  return { results, lines };
}

async function main(): Promise<void> {
  const tarball = benchPluginTarball(ROOT);
  const emulator = await startCliEmulator(ROOT);
  try {
    const objects = await makeOrganization(emulator);
    process.stderr.write(`bench adopt: an organization of ${objects} objects\n`);
    const env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token };
    const paths = UP_ONLY
      ? []
      : [await stateFirst(emulator, tarball, env, "state-first", { ...env, ...FIRST_PREVIEW_ENV })];
    if (!SKIP_IMPORT && !UP_ONLY) paths.push(await importFile(emulator, tarball, env));
    const resultsFile = join(ROOT, "bench", "results", "adopt.json");
    // Only the updates measured: the adoption paths' figures stay as the last full run left them.
    const kept =
      UP_ONLY && existsSync(resultsFile) ? (JSON.parse(readFileSync(resultsFile, "utf8")) as object) : {};
    const results: Record<string, unknown> = UP_ONLY
      ? { ...kept }
      : { objects, cliDefaults: true, backend: "file", paths };
    if (POSTGRES && !UP_ONLY) {
      const postgres = startPostgres();
      try {
        const pgEnv = { ...env, PULUMI_BACKEND_URL: postgres.url };
        const pgPaths = [await stateFirst(emulator, tarball, pgEnv)];
        if (!SKIP_IMPORT) pgPaths.push(await importFile(emulator, tarball, pgEnv));
        for (const p of pgPaths) paths.push({ ...p, path: `${p.path} (PostgreSQL backend)` });
        results["postgres"] = pgPaths;
      } finally {
        postgres.stop();
      }
    }
    const engines = SKIP_ENGINES || UP_ONLY ? [] : await perEngine(emulator, tarball, env);
    if (engines.length > 0) results["engines"] = engines;
    for (const e of engines) paths.push(e.path, ...(e.unmitigated ? [e.unmitigated] : []));
    const ups = await upsAfterAdoption(emulator, tarball, env, objects);
    results["upAfterAdoption"] = ups.results;
    mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
    writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
    const lines = [`adoption of ${objects} objects (native plugin, YAML, CLI defaults, file backend)`, ""];
    lines.push(`| path | step | wall (s) | API calls |`, `| --- | --- | ---: | ---: |`);
    for (const p of paths) {
      for (const s of p.steps)
        lines.push(`| ${p.path} | ${s.step} | ${s.seconds.toFixed(2)} | ${s.apiCalls} |`);
      lines.push(`| **${p.path}** | **end to end** | **${p.seconds.toFixed(2)}** | **${p.apiCalls}** |`);
    }
    lines.push(...ups.lines);
    console.log(lines.join("\n"));
    if (engines.length > 1) {
      const report = engineReport(engines);
      console.log(report.lines.join("\n"));
      if (report.ratio > ENGINE_RATIO_GOAL) {
        console.error(
          `bench adopt: the newest engine took ${report.ratio.toFixed(2)}x the oldest, over the ${ENGINE_RATIO_GOAL}x goal`,
        );
        process.exitCode = 1;
      }
    }
    for (const r of ups.results)
      if (r.ratio > UP_RATIO_GOAL) {
        console.error(
          `bench adopt: ${r.engine}: the first up after adoption took ${r.ratio.toFixed(2)}x the second, over ` +
            `the ${UP_RATIO_GOAL}x goal`,
        );
        process.exitCode = 1;
      }
    const stateFirstPath = paths[0];
    // The goal is the file backend's (the CLI's default); the PostgreSQL figures are reported as they are.
    if (stateFirstPath !== undefined && stateFirstPath.seconds > 30) {
      console.error(
        `bench adopt: state-first took ${stateFirstPath.seconds.toFixed(1)} s, over the 30 s goal`,
      );
      process.exitCode = 1;
    }
  } finally {
    await emulator.stop();
  }
}

runWhenMain(module, "adopt", main);
