/**
 * Stack benchmark (bench/README.md): the program in bench/stack/ (groups, workload identities and role bindings
 * under one organization) under the real Pulumi engine, against the emulator in its own process, at realistic API
 * latency (the emulator's stall fault delays every API request).
 *
 *   1. API calls per operation, from the emulator's request log, checked against the minimum: preview the access
 *      review's three list calls, up one create per resource (and those three), no-op up none, refresh one GET per resource, destroy one DELETE per resource,
 *      getRepos over 1,000 repos ceil(1000/200) list calls. Any excess is listed and fails the run (exit 1).
 *   2. For each latency (0, 50, 150 ms) and each program variant (pulumi-platform; the reference minimal dynamic
 *      provider of bench/minimal, the floor of this engine path; the native plugin when built): up, no-op up,
 *      refresh and destroy, all `--skip-preview`, with wall time and CPU seconds per process (the CLI with its Go
 *      plugins, the program, the provider), against the raw SDK making the same calls at the engine's parallelism.
 *   3. State bytes per resource (`pulumi stack export`) and stored provider bytes per resource, per variant.
 *   4. With BENCH_LARGE=1: 1,000 resources at 0 ms, with the CLI's defaults and with the fast path the README
 *      documents (--skip-preview, PULUMI_SKIP_CHECKPOINTS=true), against the raw SDK.
 *
 * Writes bench/results/stack.json; scripts/bench.sh merges it with emulator.json into latest.json.
 *
 *   npx tsc -p tsconfig.build.json && scripts/install-local.sh --no-build bench/stack
 *   TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/stack.ts
 *
 * Env: BENCH_LATENCIES ("0,50,150"), BENCH_STACK_GROUPS (50), BENCH_STACK_IDENTITIES (50), BENCH_STACK_BINDINGS
 * (100), BENCH_REPOS (1000), BENCH_LARGE (unset; 1 adds the 1,000-resource runs), BENCH_VARIANTS (all available),
 * BENCH_REPEAT (2: each figure is the best of that many runs, the variants taking turns).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { PlatformClient } from "../sdk";
import { PulumiStack } from "../test/e2e/harness";
import { CliEmulator, LoggedRequest, startCliEmulator } from "./cli-emulator";
import { runWhenMain } from "./main";

const ROOT = join(__dirname, "..");
const LATENCIES = (process.env.BENCH_LATENCIES ?? "0,50,150").split(",").filter(Boolean).map(Number);
const SIZE = {
  groups: Number(process.env.BENCH_STACK_GROUPS ?? 50),
  identities: Number(process.env.BENCH_STACK_IDENTITIES ?? 50),
  bindings: Number(process.env.BENCH_STACK_BINDINGS ?? 100),
};
const LARGE_SIZE = { groups: 250, identities: 250, bindings: 500 };
const REPOS = Number(process.env.BENCH_REPOS ?? 1000);
/** Pulumi's default --parallel (PULUMI-NOTES.md); the raw client uses the same. */
const PARALLEL = 4 * cpus().length;
const DATA_SOURCE_PAGE_SIZE = 200;
const CPU_PROBE = join(__dirname, "cpu-probe.js");
/** Runs per variant and latency; each figure is the best (shortest wall time) of them. */
const REPEAT = Number(process.env.BENCH_REPEAT ?? 2);
const TIME = "/usr/bin/time";

type Size = typeof SIZE;
const total = (size: Size): number => size.groups + size.identities + size.bindings;

/** The programs measured: each is bench/stack with `library` set to a package installed beside it. */
const VARIANTS: Record<string, { library: string; label: string }> = {
  platform: { library: "pulumi-platform", label: "pulumi-platform (dynamic)" },
  minimal: { library: "pulumi-platform-bench-minimal", label: "reference minimal dynamic provider" },
  native: { library: "pulumi-platform-bench-native", label: "native plugin (pulumi-resource-platform)" },
};
/** The native plugin's tarball (scripts/bench.sh builds it with `npm run plugin`); without it, no native variant. */
const PLUGIN_TARBALL = process.env.BENCH_PLUGIN_TARBALL ?? "";
const CHOSEN = (
  process.env.BENCH_VARIANTS ?? (PLUGIN_TARBALL ? "platform,native,minimal" : "platform,minimal")
).split(",");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

/** "POST groups", "GET roleBindings", "GET repos"...: method and collection of a logged API request. */
export function callKey(request: Pick<LoggedRequest, "method" | "path">): string {
  // eslint-disable-next-line no-restricted-syntax -- a request path, not a uid
  const collection = request.path.split("/")[3] ?? request.path;
  return `${request.method} ${collection}`;
}

function tally(requests: LoggedRequest[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of requests) counts[callKey(r)] = (counts[callKey(r)] ?? 0) + 1;
  return counts;
}

export interface CallCheck {
  operation: string;
  expected: Record<string, number>;
  actual: Record<string, number>;
  total: number;
  minimum: number;
  ok: boolean;
}

function check(operation: string, expected: Record<string, number>, requests: LoggedRequest[]): CallCheck {
  const actual = tally(requests);
  const minimum = Object.values(expected).reduce((a, b) => a + b, 0);
  const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
  const ok = [...keys].every((k) => (expected[k] ?? 0) === (actual[k] ?? 0));
  return { operation, expected, actual, total: requests.length, minimum, ok };
}

/** CPU seconds of one command, split by process. `cli` is the rest of the tree: the CLI and its Go plugins. */
export interface Cpu {
  total: number | null;
  cli: number | null;
  program: number;
  provider: number;
  plugin: number;
  other: number;
}

interface Measured {
  wallSeconds: number;
  cpu: Cpu;
}

const round = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * Runs `pulumi <args>` with every Node.js process reporting its CPU (bench/cpu-probe.js) and, where
 * /usr/bin/time exists, the whole process tree's CPU (user + system of the CLI and every descendant it waited for).
 */
export async function measured(
  stack: PulumiStack,
  args: string[],
  env: Record<string, string> = {},
): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), "bench-cpu-"));
  const log = join(dir, "node.jsonl");
  const times = join(dir, "time");
  try {
    const result = await stack.run(args, {
      env: { ...env, NODE_OPTIONS: `--require ${CPU_PROBE}`, BENCH_CPU_LOG: log },
      wrapper: existsSync(TIME) ? [TIME, "-f", "%U %S", "-o", times] : [],
    });
    const cpu: Cpu = { total: null, cli: null, program: 0, provider: 0, plugin: 0, other: 0 };
    if (existsSync(log)) {
      for (const line of readFileSync(log, "utf8").split("\n").filter(Boolean)) {
        const p = JSON.parse(line) as { role: keyof Cpu; user: number; system: number };
        (cpu[p.role] as number) += p.user + p.system;
      }
    }
    if (existsSync(times)) {
      const [user, system] = readFileSync(times, "utf8").trim().split("\n").pop()!.split(" ").map(Number);
      cpu.total = user! + system!;
      cpu.cli = Math.max(0, cpu.total - cpu.program - cpu.provider - cpu.plugin - cpu.other);
    }
    for (const key of Object.keys(cpu) as (keyof Cpu)[]) if (cpu[key] !== null) cpu[key] = round(cpu[key]!);
    return { wallSeconds: round(result.durationMs / 1000), cpu };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `tasks` with at most `limit` in flight. */
async function pool<T>(items: T[], limit: number, task: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

const pad = (i: number): string => String(i).padStart(3, "0");

/** Wall and CPU seconds of `fn` in this process (the raw SDK runs in-process). */
async function timed(fn: () => Promise<void>): Promise<Measured> {
  const start = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(cpu0);
  const seconds = (used.user + used.system) / 1e6;
  return {
    wallSeconds: round(Number(process.hrtime.bigint() - start) / 1e9),
    cpu: { total: round(seconds), cli: null, program: round(seconds), provider: 0, plugin: 0, other: 0 },
  };
}

/** The same calls as the program's up / refresh / destroy, made directly with the SDK. */
async function rawSdk(emulator: CliEmulator, roleUid: string, size: Size): Promise<Record<string, Measured>> {
  const client = new PlatformClient({
    apiUrl: emulator.url,
    token: emulator.token,
    maxConnections: PARALLEL,
  });
  const org = emulator.orgUid;
  const groups: string[] = new Array(size.groups);
  const identities: string[] = new Array(size.identities);
  const bindings: string[] = new Array(size.bindings);
  try {
    const up = await timed(async () => {
      const firstWave = [
        ...Array.from({ length: size.groups }, (_, i) => async () => {
          const body = { name: `raw-group-${pad(i)}`, description: `benchmark folder ${i}` };
          groups[i] = (await client.groups.create(org, body)).uid;
        }),
        ...Array.from({ length: size.identities }, (_, i) => async () => {
          const claimMatch = { issuer: "https://ci.example.com", subject: `pipeline-${i}` };
          identities[i] = (
            await client.identities.create(org, { name: `raw-identity-${pad(i)}`, claimMatch })
          ).uid;
        }),
      ];
      await pool(firstWave, PARALLEL, (f) => f());
      await pool(
        Array.from({ length: size.bindings }, (_, k) => k),
        PARALLEL,
        async (k) => {
          const binding = await client.roleBindings.create(groups[k % size.groups]!, {
            identityUid: identities[(k + Math.floor(k / size.groups)) % size.identities]!,
            roleUid,
          });
          bindings[k] = binding.uid;
        },
      );
    });
    const refresh = await timed(() =>
      pool(
        [
          ...groups.map((uid) => () => client.groups.get(uid)),
          ...identities.map((uid) => () => client.identities.get(uid)),
          ...bindings.map((uid) => () => client.roleBindings.get(uid)),
        ],
        PARALLEL,
        (f) => f(),
      ),
    );
    const destroy = await timed(async () => {
      await pool(bindings, PARALLEL, (uid) => client.roleBindings.delete(uid));
      await pool(
        [
          ...groups.map((uid) => () => client.groups.delete(uid)),
          ...identities.map((uid) => () => client.identities.delete(uid)),
        ],
        PARALLEL,
        (f) => f(),
      );
    });
    return { up, refresh, destroy };
  } finally {
    await client.close();
  }
}

/** Delays every API request by `ms` (the emulator's stall fault); 0 removes the delay. */
export async function setLatency(emulator: CliEmulator, ms: number): Promise<void> {
  const control = `${emulator.url}/_emulator/faults`;
  const response = await fetch(control, { method: "DELETE" });
  if (!response.ok) throw new Error(`DELETE /_emulator/faults: ${response.status}`);
  if (ms === 0) return;
  const rule = { path: "^/(iam|registry|vulnerabilities|sts)/", action: "stall", stallMs: ms, rate: 1 };
  const set = await fetch(control, {
    method: "POST",
    body: JSON.stringify(rule),
    headers: { "content-type": "application/json" },
  });
  if (!set.ok) throw new Error(`POST /_emulator/faults: ${set.status} ${await set.text()}`);
}

export interface StateFigures {
  resources: number;
  stateBytesPerResource: number;
  providerBytesPerResource: number;
}

async function stateFigures(stack: PulumiStack, size: Size): Promise<StateFigures> {
  const { state, text } = await stack.exportState();
  const managed = (state.deployment.resources ?? []).filter(
    (r) => r.custom === true && !r.type.startsWith("pulumi:providers:"),
  );
  if (managed.length !== total(size))
    throw new Error(`state holds ${managed.length} resources, not ${total(size)}`);
  const providerBytes = managed.map((r) => Buffer.byteLength(String(r.outputs?.["__provider"] ?? "")));
  return {
    resources: managed.length,
    stateBytesPerResource: Math.round(Buffer.byteLength(text) / managed.length),
    providerBytesPerResource: Math.round(providerBytes.reduce((a, b) => a + b, 0) / managed.length),
  };
}

export interface Row {
  resources: number;
  latencyMs: number;
  variant: string;
  settings: string;
  operation: string;
  wallSeconds: number;
  cpu: Cpu;
}

/** Keeps, per (resources, latency, variant, settings, operation), the run with the shortest wall time. */
function keepBest(rows: Row[], row: Row): void {
  const same = (r: Row): boolean =>
    r.resources === row.resources &&
    r.latencyMs === row.latencyMs &&
    r.variant === row.variant &&
    r.settings === row.settings &&
    r.operation === row.operation;
  const at = rows.findIndex(same);
  if (at < 0) rows.push(row);
  else if (row.wallSeconds < rows[at]!.wallSeconds) rows[at] = row;
}

const OPERATIONS = {
  up: ["up", "--yes", "--skip-preview"],
  "no-op up": ["up", "--yes", "--skip-preview"],
  refresh: ["refresh", "--yes", "--skip-preview"],
  destroy: ["destroy", "--yes", "--skip-preview"],
} as const;

async function main(): Promise<void> {
  const emulator = await startCliEmulator(ROOT);
  // Built-in roles' uids are the sha1 of their name (emulator/README.md).
  const roleUid = createHash("sha1").update("viewer").digest("hex");
  const checks: CallCheck[] = [];
  const rows: Row[] = [];
  const states: Record<string, StateFigures> = {};
  const log = (line: string): boolean => process.stderr.write(`${line}\n`);

  const newStack = async (variant: string, size: Size): Promise<PulumiStack> => {
    const stack = await PulumiStack.create({
      programDir: "bench/stack",
      config: {
        organization: emulator.orgUid,
        roleUid,
        library: VARIANTS[variant]!.library,
        groups: String(size.groups),
        identities: String(size.identities),
        bindings: String(size.bindings),
        "platform:apiUrl": emulator.url,
      },
      secrets: { "platform:token": emulator.token },
      timeoutMs: 900_000,
    });
    if (variant === "native") {
      if (!PLUGIN_TARBALL) throw new Error("the native variant needs BENCH_PLUGIN_TARBALL (npm run plugin)");
      const install = ["plugin", "install", "resource", "platform", VERSION, "--file", PLUGIN_TARBALL];
      await stack.run(install, { stackless: true });
    }
    return stack;
  };

  // The preview's access review (provider/core/access-review) reads groups, roles and bindings once per provider
  // process, the first time a planned create or change is reviewed: one page each at this size.
  const REVIEW_READS = { "GET groups": 1, "GET roles": 1, "GET roleBindings": 1 };

  const perResource = (method: string, size: Size, times = 1) => ({
    [`${method} groups`]: size.groups * times,
    [`${method} identities`]: size.identities * times,
    [`${method} roleBindings`]: size.bindings * times,
  });

  try {
    // 1. API calls, at 0 ms, of pulumi-platform.
    await setLatency(emulator, 0);
    {
      const stack = await newStack("platform", SIZE);
      try {
        const step = async (operation: string, args: string[], expected: Record<string, number>) => {
          await emulator.clearRequests();
          await stack.run(args);
          const c = check(operation, expected, await emulator.requests());
          checks.push(c);
          log(`calls: ${operation}: ${c.total} (minimum ${c.minimum})`);
        };
        await step("preview", ["preview"], REVIEW_READS);
        await step("up (from empty)", [...OPERATIONS.up], { ...perResource("POST", SIZE), ...REVIEW_READS });
        await step("up (no changes)", [...OPERATIONS.up], {});
        await step("refresh", [...OPERATIONS.refresh], perResource("GET", SIZE));
        // The CLI's default refresh runs a refresh preview first, which reads every resource too.
        await step(
          "refresh (CLI default: preview, then refresh)",
          ["refresh", "--yes"],
          perResource("GET", SIZE, 2),
        );
        await step("destroy", [...OPERATIONS.destroy], perResource("DELETE", SIZE));
        await emulator.seed({ repos: Array.from({ length: REPOS }, (_, i) => ({ name: `repo-${i}` })) });
        await stack.setConfig("readRepos", "true");
        await step(`getRepos over ${REPOS} repos`, ["preview"], {
          "GET repos": Math.ceil(REPOS / DATA_SOURCE_PAGE_SIZE),
          ...REVIEW_READS,
        });
      } finally {
        await stack.cleanup();
      }
    }

    // 2-3. Time, CPU and state, per latency and variant.
    for (const latencyMs of LATENCIES) {
      await setLatency(emulator, latencyMs);
      // Variants take turns, REPEAT times each, so a burst of load on the shared machine hits them alike.
      for (let repeat = 0; repeat < REPEAT; repeat++) {
        for (const variant of CHOSEN) {
          const stack = await newStack(variant, SIZE);
          try {
            for (const [operation, args] of Object.entries(OPERATIONS)) {
              const m = await measured(stack, [...args]);
              const settings = "--skip-preview";
              keepBest(rows, { resources: total(SIZE), latencyMs, variant, settings, operation, ...m });
              log(
                `${latencyMs} ms ${variant} ${operation}: ${m.wallSeconds} s, cpu ${JSON.stringify(m.cpu)}`,
              );
              if (operation === "refresh" && latencyMs === LATENCIES[0])
                states[variant] = await stateFigures(stack, SIZE);
            }
          } finally {
            await stack.cleanup();
          }
        }
        const raw = await rawSdk(emulator, roleUid, SIZE);
        for (const [operation, m] of Object.entries(raw)) {
          keepBest(rows, {
            resources: total(SIZE),
            latencyMs,
            variant: "raw",
            settings: "",
            operation,
            ...m,
          });
        }
      }
    }

    // 4. 1,000 resources at 0 ms: the CLI's defaults, then the documented fast path.
    if (process.env.BENCH_LARGE === "1") {
      await setLatency(emulator, 0);
      const settings = {
        "CLI defaults": {
          env: {},
          ops: { up: ["up", "--yes"], refresh: ["refresh", "--yes"], destroy: ["destroy", "--yes"] },
        },
        "fast path": {
          env: { PULUMI_SKIP_CHECKPOINTS: "true" },
          ops: { up: [...OPERATIONS.up], refresh: [...OPERATIONS.refresh], destroy: [...OPERATIONS.destroy] },
        },
      };
      for (const [name, s] of Object.entries(settings)) {
        const stack = await newStack("platform", LARGE_SIZE);
        try {
          for (const [operation, args] of Object.entries(s.ops)) {
            const m = await measured(stack, args, s.env);
            rows.push({
              resources: total(LARGE_SIZE),
              latencyMs: 0,
              variant: "platform",
              settings: name,
              operation,
              ...m,
            });
            log(`1000 resources, ${name}, ${operation}: ${m.wallSeconds} s`);
          }
        } finally {
          await stack.cleanup();
        }
      }
      const raw = await rawSdk(emulator, roleUid, LARGE_SIZE);
      for (const [operation, m] of Object.entries(raw)) {
        rows.push({
          resources: total(LARGE_SIZE),
          latencyMs: 0,
          variant: "raw",
          settings: "",
          operation,
          ...m,
        });
      }
    }
  } finally {
    await emulator.stop();
  }

  const results = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    parallel: PARALLEL,
    stack: { ...SIZE, repos: REPOS },
    repeat: REPEAT,
    variants: Object.fromEntries(CHOSEN.map((v) => [v, VARIANTS[v]!.label])),
    apiCalls: checks,
    rows,
    state: states,
  };
  mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
  writeFileSync(join(ROOT, "bench", "results", "stack.json"), `${JSON.stringify(results, null, 2)}\n`);
  if (checks.some((c) => !c.ok)) {
    log("stack bench: API calls above the minimum (see EXCESS rows)");
    process.exitCode = 1;
  }
}

runWhenMain(module, "stack", main);
