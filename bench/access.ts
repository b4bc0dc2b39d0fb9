/**
 * Access bench (bench/README.md, `npm run bench:access`): the same role bindings on one folder (1,000 by default),
 * held by one `GroupAccess` against declared as one `RoleBinding` each, under the real Pulumi engine with the CLI's
 * defaults (no --skip-preview, checkpoints on), against the emulator in its own process at 50 ms per API request.
 * For each form: up from empty, up with nothing changed, refresh; wall time, CPU seconds (bench/stack.ts's
 * `measured`) and API calls from the emulator's request log. One run each, not best-of: the per-binding form takes
 * minutes.
 *
 * Goals: the authoritative form at least 5x faster to create, and its refresh at most a dozen list calls (it lists
 * its scope instead of reading each binding); its 1,000 bindings created with at most 45 API calls
 * (roleBindings:batchCreate, 25 per call).
 *
 * Then the stack bench's organization (50 groups, 50 identities, 100 bindings: bench/stack's program), its bindings
 * held by one GroupAccess per group (`org-group-access`) or declared as one RoleBinding each (`org-role-binding`):
 * up from empty, up with nothing changed, refresh, destroy, the same way.
 *
 * Writes bench/results/access.json; exits 1 when a goal is missed.
 *
 *   scripts/bench-access.sh   (builds, installs the package into bench/access, runs this)
 *
 * Env: BENCH_ACCESS_BINDINGS (1000), BENCH_ACCESS_LATENCY_MS (50), BENCH_ACCESS_FORMS ("group-access,role-binding"),
 * BENCH_ACCESS_ORG_FORMS ("org-group-access,org-role-binding"; empty skips the organization part).
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { PlatformClient } from "../sdk";
import { PulumiStack } from "../test/e2e/harness";
import { startCliEmulator, type CliEmulator, type LoggedRequest } from "./cli-emulator";
import { callKey, measured, setLatency, type Cpu } from "./stack";
import { runWhenMain } from "./main";

const ROOT = join(__dirname, "..");
const BINDINGS = Number(process.env.BENCH_ACCESS_BINDINGS ?? 1000);
const LATENCY_MS = Number(process.env.BENCH_ACCESS_LATENCY_MS ?? 50);
const FORMS = (process.env.BENCH_ACCESS_FORMS ?? "group-access,role-binding").split(",").filter(Boolean);
/** The whole run is bounded: a stuck engine fails the bench instead of hanging it. */
const COMMAND_TIMEOUT_MS = 20 * 60_000;
const ORG_FORMS = (process.env.BENCH_ACCESS_ORG_FORMS ?? "org-group-access,org-role-binding")
  .split(",")
  .filter(Boolean);
/** The organization part's size: bench/stack's. */
const ORG_SIZE = { groups: 50, identities: 50, bindings: 100 };
const GOAL = { createSpeedup: 5, refreshListCalls: 12, createCalls: 45 };

interface Operation {
  wallSeconds: number;
  cpu: Cpu;
  apiCalls: number;
  /** Calls by method and collection, e.g. { "GET roleBindings": 10 }. */
  calls: Record<string, number>;
  /** List calls (GETs of a collection). */
  listCalls: number;
}

const OPERATIONS: Record<string, string[]> = {
  "up (from empty)": ["up", "--yes"],
  "up (no changes)": ["up", "--yes"],
  refresh: ["refresh", "--yes"],
};
const ORG_OPERATIONS: Record<string, string[]> = { ...OPERATIONS, destroy: ["destroy", "--yes"] };

function tally(requests: LoggedRequest[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of requests) counts[callKey(r)] = (counts[callKey(r)] ?? 0) + 1;
  return counts;
}

/** A GET of a collection (`/iam/v2beta1/roleBindings`), not of one object. */
// eslint-disable-next-line no-restricted-syntax -- a request path, not a uid
const isList = (r: LoggedRequest) => r.method === "GET" && r.path.split("/").length === 4;

async function makeIdentities(emulator: CliEmulator, count: number): Promise<string[]> {
  const client = new PlatformClient({ apiUrl: emulator.url, token: emulator.token, maxConnections: 16 });
  try {
    const uids: string[] = [];
    for (let i = 0; i < count; i += 50) {
      const batch = Array.from({ length: Math.min(50, count - i) }, (_, j) =>
        client.identities.create(emulator.orgUid, {
          name: `bench-access-${String(i + j).padStart(4, "0")}`,
          claimMatch: { issuer: "https://ci.example.com", subject: `access-${i + j}` },
        }),
      );
      uids.push(...(await Promise.all(batch)).map((identity) => identity.uid));
    }
    return uids;
  } finally {
    await client.close();
  }
}

async function folder(emulator: CliEmulator, name: string): Promise<string> {
  const client = new PlatformClient({ apiUrl: emulator.url, token: emulator.token });
  try {
    return (await client.groups.create(emulator.orgUid, { name })).uid;
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  const log = (line: string): boolean => process.stderr.write(`${line}\n`);
  const emulator = await startCliEmulator(ROOT);
  const scratch = mkdtempSync(join(tmpdir(), "bench-access-"));
  const stacks: PulumiStack[] = [];
  const results: Record<string, Record<string, Operation>> = {};
  try {
    await setLatency(emulator, 0);
    // Built-in roles' uids are the sha1 of their name (emulator/README.md).
    const roleUid = createHash("sha1").update("viewer").digest("hex");
    const identitiesFile = join(scratch, "identities.json");
    writeFileSync(identitiesFile, JSON.stringify(await makeIdentities(emulator, BINDINGS)));
    const forms = [
      // Each form on a folder of its own, so neither sees the other's bindings.
      ...FORMS.map((form) => ({
        form,
        operations: OPERATIONS,
        config: async () => ({ folder: await folder(emulator, `bench-${form}`), identitiesFile }),
      })),
      // One after the other under the organization: each destroys what it made before the next one runs.
      ...ORG_FORMS.map((form) => ({
        form,
        operations: ORG_OPERATIONS,
        config: async () => ({
          organization: emulator.orgUid,
          groups: String(ORG_SIZE.groups),
          identities: String(ORG_SIZE.identities),
          bindings: String(ORG_SIZE.bindings),
        }),
      })),
    ];
    for (const { form, operations, config } of forms) {
      const stack = await PulumiStack.create({
        programDir: "bench/access",
        config: { ...(await config()), roleUid, form, "platform:apiUrl": emulator.url },
        secrets: { "platform:token": emulator.token },
        timeoutMs: COMMAND_TIMEOUT_MS,
      });
      stacks.push(stack);
      await setLatency(emulator, LATENCY_MS);
      results[form] = {};
      for (const [operation, args] of Object.entries(operations)) {
        await emulator.clearRequests();
        const figures = await measured(stack, [...args]);
        const requests = (await emulator.requests()).filter((r) => !r.path.startsWith("/sts/"));
        results[form][operation] = {
          ...figures,
          apiCalls: requests.length,
          calls: tally(requests),
          listCalls: requests.filter(isList).length,
        };
        log(
          `${form}: ${operation}: ${figures.wallSeconds} s wall, ${figures.cpu.total ?? "?"} s CPU, ` +
            `${requests.length} API calls (${requests.filter(isList).length} lists)`,
        );
      }
      await setLatency(emulator, 0);
    }
  } finally {
    // The stacks' state and the emulator go; the objects need no destroy (the emulator is in memory).
    for (const stack of stacks) await stack.cleanup();
    await emulator.stop();
    rmSync(scratch, { recursive: true, force: true });
  }

  const access = results["group-access"]?.["up (from empty)"];
  const perBinding = results["role-binding"]?.["up (from empty)"];
  const refresh = results["group-access"]?.refresh;
  const createSpeedup =
    access && perBinding ? Math.round((perBinding.wallSeconds / access.wallSeconds) * 10) / 10 : null;
  const goals = {
    createSpeedup: { goal: `>= ${GOAL.createSpeedup}`, measured: createSpeedup },
    refreshListCalls: { goal: `<= ${GOAL.refreshListCalls}`, measured: refresh?.listCalls ?? null },
    createCalls: { goal: `<= ${GOAL.createCalls}`, measured: access?.apiCalls ?? null },
  };
  const output = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    bindings: BINDINGS,
    organization: ORG_SIZE,
    latencyMs: LATENCY_MS,
    cli: "defaults (preview before up and refresh, checkpoints on)",
    results,
    goals,
  };
  mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
  writeFileSync(join(ROOT, "bench", "results", "access.json"), `${JSON.stringify(output, null, 2)}\n`);
  log(
    `access bench: create ${createSpeedup ?? "?"}x faster with GroupAccess, in ${access?.apiCalls ?? "?"} API calls; ` +
      `its refresh ${refresh?.listCalls ?? "?"} list calls`,
  );
  const missed =
    (createSpeedup !== null && createSpeedup < GOAL.createSpeedup) ||
    (refresh !== undefined && refresh.listCalls > GOAL.refreshListCalls) ||
    (access !== undefined && access.apiCalls > GOAL.createCalls);
  if (missed) {
    log("access bench: a goal is missed (bench/results/access.json)");
    process.exitCode = 1;
  }
}

runWhenMain(module, "access", main);
