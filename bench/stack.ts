/**
 * Stack benchmark (bench/README.md): the program in bench/stack/ (50 groups, 50 identities, 100 role bindings
 * under one organization) under the real Pulumi engine, against the emulator in its own process.
 *
 *   1. API calls per operation, from the emulator's request log, checked against the minimum: preview none, up
 *      one create per resource, no-op up none, refresh one GET per resource, destroy one DELETE per resource,
 *      getRepos over 1,000 repos ceil(1000/200) list calls. Any excess is listed and fails the run (exit 1).
 *   2. Time of up / refresh / destroy versus the raw SDK client making the same calls at the engine's
 *      parallelism (4 x CPUs).
 *   3. State bytes per resource (`pulumi stack export`) and serialized provider bytes per resource.
 *
 * Writes bench/results/stack.json; scripts/bench.sh merges it with emulator.json into latest.json.
 *
 *   npx tsc -p tsconfig.build.json && scripts/install-local.sh --no-build bench/stack
 *   TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/stack.ts
 *
 * Env: BENCH_STACK_GROUPS (50), BENCH_STACK_IDENTITIES (50), BENCH_STACK_BINDINGS (100), BENCH_REPOS (1000).
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { PlatformClient } from "../sdk";
import { PulumiStack } from "../test/e2e/harness";
import { CliEmulator, LoggedRequest, startCliEmulator } from "./cli-emulator";

const ROOT = join(__dirname, "..");
const GROUPS = Number(process.env.BENCH_STACK_GROUPS ?? 50);
const IDENTITIES = Number(process.env.BENCH_STACK_IDENTITIES ?? 50);
const BINDINGS = Number(process.env.BENCH_STACK_BINDINGS ?? 100);
const REPOS = Number(process.env.BENCH_REPOS ?? 1000);
const RESOURCES = GROUPS + IDENTITIES + BINDINGS;
/** Pulumi's default --parallel (PULUMI-NOTES.md); the raw client uses the same. */
const PARALLEL = 4 * cpus().length;
const DATA_SOURCE_PAGE_SIZE = 200;

/** "POST groups", "GET roleBindings", "GET repos"...: method and collection of a logged API request. */
export function callKey(request: Pick<LoggedRequest, "method" | "path">): string {
  const collection = request.path.split("/")[3] ?? request.path;
  return `${request.method} ${collection}`;
}

function tally(requests: LoggedRequest[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of requests) counts[callKey(r)] = (counts[callKey(r)] ?? 0) + 1;
  return counts;
}

interface CallCheck {
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

/** Runs `tasks` with at most `limit` in flight. */
async function pool<T>(items: T[], limit: number, task: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

const pad = (i: number): string => String(i).padStart(3, "0");

/** The same calls as the program's up / refresh / destroy, made directly with the SDK. */
async function rawSdk(emulator: CliEmulator, roleUid: string): Promise<Record<string, number>> {
  const client = new PlatformClient({
    apiUrl: emulator.url,
    token: emulator.token,
    maxConnections: PARALLEL,
  });
  const org = emulator.orgUid;
  const seconds = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e9;
  try {
    let start = process.hrtime.bigint();
    const groups: string[] = new Array(GROUPS);
    const identities: string[] = new Array(IDENTITIES);
    const firstWave = [
      ...Array.from({ length: GROUPS }, (_, i) => async () => {
        groups[i] = (
          await client.groups.create(org, {
            name: `raw-group-${pad(i)}`,
            description: `benchmark folder ${i}`,
          })
        ).uid;
      }),
      ...Array.from({ length: IDENTITIES }, (_, i) => async () => {
        identities[i] = (
          await client.identities.create(org, {
            name: `raw-identity-${pad(i)}`,
            claimMatch: { issuer: "https://ci.example.com", subject: `pipeline-${i}` },
          })
        ).uid;
      }),
    ];
    await pool(firstWave, PARALLEL, (f) => f());
    const bindings: string[] = new Array(BINDINGS);
    await pool(
      Array.from({ length: BINDINGS }, (_, k) => k),
      PARALLEL,
      async (k) => {
        const binding = await client.roleBindings.create(groups[k % GROUPS]!, {
          identityUid: identities[(k + Math.floor(k / GROUPS)) % IDENTITIES]!,
          roleUid,
        });
        bindings[k] = binding.uid;
      },
    );
    const up = seconds(start);

    start = process.hrtime.bigint();
    await pool(
      [
        ...groups.map((uid) => () => client.groups.get(uid)),
        ...identities.map((uid) => () => client.identities.get(uid)),
        ...bindings.map((uid) => () => client.roleBindings.get(uid)),
      ],
      PARALLEL,
      (f) => f(),
    );
    const refresh = seconds(start);

    start = process.hrtime.bigint();
    await pool(bindings, PARALLEL, (uid) => client.roleBindings.delete(uid));
    await pool(
      [
        ...groups.map((uid) => () => client.groups.delete(uid)),
        ...identities.map((uid) => () => client.identities.delete(uid)),
      ],
      PARALLEL,
      (f) => f(),
    );
    const destroy = seconds(start);
    return { up, refresh, destroy };
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  const emulator = await startCliEmulator(ROOT);
  // Built-in roles' uids are the sha1 of their name (emulator/README.md).
  const roleUid = createHash("sha1").update("viewer").digest("hex");
  let stack: PulumiStack | undefined;
  const checks: CallCheck[] = [];
  const pulumiSeconds: Record<string, number> = {};
  try {
    stack = await PulumiStack.create({
      programDir: "bench/stack",
      config: {
        organization: emulator.orgUid,
        roleUid,
        groups: String(GROUPS),
        identities: String(IDENTITIES),
        bindings: String(BINDINGS),
        "platform:apiUrl": emulator.url,
      },
      secrets: { "platform:token": emulator.token },
      timeoutMs: 600_000,
    });
    const step = async (
      operation: string,
      run: () => Promise<{ durationMs: number }>,
      expected: Record<string, number>,
    ): Promise<void> => {
      await emulator.clearRequests();
      const result = await run();
      pulumiSeconds[operation] = result.durationMs / 1000;
      const c = check(operation, expected, await emulator.requests());
      checks.push(c);
      process.stderr.write(
        `${operation}: ${c.total} API calls (minimum ${c.minimum}) in ${result.durationMs} ms\n`,
      );
    };
    const perResource = (method: string) => ({
      [`${method} groups`]: GROUPS,
      [`${method} identities`]: IDENTITIES,
      [`${method} roleBindings`]: BINDINGS,
    });

    await step("preview", () => stack!.preview({ expectNoChanges: false }), {});
    await step("up (from empty)", () => stack!.up(), perResource("POST"));
    await step("up (no changes)", () => stack!.up(), {});
    // Measured with --skip-preview, like up (the harness's up does the same). The CLI's default refresh runs a
    // preview first, and a refresh preview reads every resource too: that costs a second GET per resource.
    await step("refresh", () => stack!.run(["refresh", "--yes", "--skip-preview"]), perResource("GET"));
    await step("refresh (CLI default: preview, then refresh)", () => stack!.refresh(), {
      "GET groups": 2 * GROUPS,
      "GET identities": 2 * IDENTITIES,
      "GET roleBindings": 2 * BINDINGS,
    });

    const { state, text } = await stack.exportState();
    const managed = (state.deployment.resources ?? []).filter(
      (r) => r.custom === true && !r.type.startsWith("pulumi:providers:"),
    );
    const providerBytes = managed.map((r) => Buffer.byteLength(String(r.outputs?.["__provider"] ?? "")));
    const stateFigures = {
      resources: managed.length,
      stateBytes: Buffer.byteLength(text),
      stateBytesPerResource: Math.round(Buffer.byteLength(text) / managed.length),
      providerBytesPerResource: Math.round(providerBytes.reduce((a, b) => a + b, 0) / managed.length),
      providerBytesMax: Math.max(...providerBytes),
    };
    if (managed.length !== RESOURCES)
      throw new Error(`state holds ${managed.length} resources, not ${RESOURCES}`);

    await step("destroy", () => stack!.run(["destroy", "--yes", "--skip-preview"]), perResource("DELETE"));

    // Data source: getRepos over REPOS repos, evaluated by a preview (data sources run in previews too).
    await emulator.seed({ repos: Array.from({ length: REPOS }, (_, i) => ({ name: `repo-${i}` })) });
    await stack.setConfig("readRepos", "true");
    await step(`getRepos over ${REPOS} repos`, () => stack!.preview({ expectNoChanges: false }), {
      "GET repos": Math.ceil(REPOS / DATA_SOURCE_PAGE_SIZE),
    });

    const raw = await rawSdk(emulator, roleUid);
    const timing = (["up", "refresh", "destroy"] as const).map((op) => {
      const pulumi = pulumiSeconds[op === "up" ? "up (from empty)" : op]!;
      return {
        operation: op,
        pulumiSeconds: Math.round(pulumi * 100) / 100,
        sdkSeconds: Math.round(raw[op]! * 100) / 100,
        ratio: Math.round((pulumi / raw[op]!) * 10) / 10,
      };
    });

    // What the engine costs with zero API calls: program, plugins, diff of every resource, checkpoint.
    const noOpUpSeconds = Math.round(pulumiSeconds["up (no changes)"]! * 100) / 100;

    const results = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      parallel: PARALLEL,
      stack: { groups: GROUPS, identities: IDENTITIES, bindings: BINDINGS, repos: REPOS },
      apiCalls: checks,
      timing,
      noOpUpSeconds,
      state: stateFigures,
    };
    mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
    writeFileSync(join(ROOT, "bench", "results", "stack.json"), `${JSON.stringify(results, null, 2)}\n`);

    const show = (counts: Record<string, number>): string =>
      Object.entries(counts)
        .map(([k, v]) => `${v} ${k}`)
        .join(", ") || "none";
    process.stdout.write(
      [
        `stack bench: ${GROUPS} groups, ${IDENTITIES} identities, ${BINDINGS} role bindings; ${cpus().length} CPUs, --parallel ${PARALLEL}; node ${process.version}`,
        "",
        "| operation | API calls | minimum | calls made | verdict |",
        "|---|---|---|---|---|",
        ...checks.map(
          (c) =>
            `| ${c.operation} | ${c.total} | ${c.minimum} | ${show(c.actual)} | ${c.ok ? "minimal" : "EXCESS"} |`,
        ),
        "",
        "| operation | pulumi s | raw SDK s | ratio |",
        "|---|---|---|---|",
        ...timing.map((t) => `| ${t.operation} | ${t.pulumiSeconds} | ${t.sdkSeconds} | ${t.ratio} |`),
        `| up, nothing to change (0 API calls) | ${noOpUpSeconds} | | |`,
        "",
        `state: ${stateFigures.stateBytesPerResource} bytes per resource (${stateFigures.stateBytes} bytes, ${stateFigures.resources} resources); serialized provider ${stateFigures.providerBytesPerResource} bytes per resource`,
        "",
      ].join("\n"),
    );
    if (checks.some((c) => !c.ok)) {
      process.stderr.write("stack bench: API calls above the minimum (see EXCESS rows)\n");
      process.exitCode = 1;
    }
  } finally {
    await stack?.cleanup();
    await emulator.stop();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`stack bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
