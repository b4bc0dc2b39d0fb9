/**
 * Emulator benchmark: starts the CLI-built emulator (dist/emulator/cli.js), loads 50,000 groups through the
 * control seed path, then measures requests per second and latency percentiles over loopback for
 *   - GET by uid,
 *   - a filtered, ordered list (uidp.descendants_of + order_by=name desc, page_size 50), walking pages,
 * with a bounded number of requests; then, on a second emulator with a fresh organization, how long it takes to
 * create N identities each with a role binding through the API (one POST each, sequential: what an import of an
 * organization sends), at N = 1,000, 5,000 and 20,000. Prints tables and writes bench/results/emulator.json.
 *
 *   npx tsc -p tsconfig.build.json && TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/emulator.ts
 *
 * Env: BENCH_GROUPS (default 50000), BENCH_REQUESTS (default 2000 per scenario), BENCH_CONCURRENCY (default 8),
 * BENCH_CREATE_SIZES (default 1000,5000,20000; empty skips the creates), BENCH_SKIP_READS=1 (the creates alone).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Pool } from "undici";
import { startCliEmulator, type CliEmulator } from "./cli-emulator";

const ROOT = join(__dirname, "..");
const GROUPS = Number(process.env.BENCH_GROUPS ?? 50_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const FOLDERS = 10;
const CREATE_SIZES = (process.env.BENCH_CREATE_SIZES ?? "1000,5000,20000")
  .split(",")
  .filter((n) => n.trim() !== "")
  .map(Number)
  .sort((a, b) => a - b);
/** Creates timed at each size for the marginal figure: the cost of one more create at that size. */
const CREATE_WINDOW = 500;

interface Result {
  scenario: string;
  requests: number;
  concurrency: number;
  seconds: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

const hex16 = (): string => randomBytes(8).toString("hex");

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The CLI-built emulator, built first unless BENCH_BUILD=0 says dist/ is current. */
async function startCli(): Promise<CliEmulator> {
  if (!existsSync(join(ROOT, "dist", "emulator", "cli.js")) || process.env.BENCH_BUILD !== "0") {
    // Type errors elsewhere do not stop tsc from emitting; only a missing cli.js is fatal (startCliEmulator).
    spawnSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "ignore" });
  }
  return startCliEmulator(ROOT);
}

async function run(pool: Pool, token: string, scenario: string, paths: () => string): Promise<Result> {
  const latencies: number[] = [];
  let next = 0;
  const begin = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    while (next < REQUESTS) {
      next++;
      const path = paths();
      const start = process.hrtime.bigint();
      const response = await pool.request({
        method: "GET",
        path,
        headers: { authorization: `Bearer ${token}` },
      });
      const text = await response.body.text();
      if (response.statusCode !== 200)
        throw new Error(`${scenario}: ${response.statusCode} ${text.slice(0, 200)}`);
      latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
  latencies.sort((a, b) => a - b);
  const round = (n: number): number => Math.round(n * 100) / 100;
  return {
    scenario,
    requests: latencies.length,
    concurrency: CONCURRENCY,
    seconds: round(seconds),
    rps: Math.round(latencies.length / seconds),
    p50: round(percentile(latencies, 50)),
    p95: round(percentile(latencies, 95)),
    p99: round(percentile(latencies, 99)),
    max: round(latencies[latencies.length - 1] ?? 0),
  };
}

interface Reads {
  seedSeconds: number;
  firstWalkOf100PagesMs: Record<string, number>;
  results: Result[];
}

/** GET by uid and filtered, ordered lists over GROUPS seeded groups. */
async function reads(): Promise<Reads> {
  const emulator = await startCli();
  const pool = new Pool(emulator.url, { connections: CONCURRENCY, pipelining: 1 });
  try {
    // 10 folders under the organization, the rest spread below them.
    const folders = Array.from({ length: FOLDERS }, () => `${emulator.orgUid}/${hex16()}`);
    const groups: { uid: string; parent?: string; name: string }[] = folders.map((uid, i) => ({
      uid,
      name: `folder-${i}`,
    }));
    const uids: string[] = [...folders];
    for (let i = groups.length; i < GROUPS; i++) {
      const parent = folders[i % FOLDERS]!;
      const uid = `${parent}/${hex16()}`;
      groups.push({ uid, parent, name: `group-${String(i).padStart(6, "0")}` });
      uids.push(uid);
    }
    const seedStart = Date.now();
    const seeded = await pool.request({
      method: "POST",
      path: "/_emulator/seed",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ groups }),
    });
    const seedBody = (await seeded.body.json()) as { groups?: number };
    if (seeded.statusCode !== 200 || seedBody.groups !== GROUPS)
      throw new Error(`seed failed: ${JSON.stringify(seedBody).slice(0, 300)}`);
    const seedSeconds = (Date.now() - seedStart) / 1000;

    let pick = 0;
    const results: Result[] = [];
    const byUid = (): string =>
      `/iam/v2beta1/groups/${encodeURI(uids[(pick = (pick * 7919 + 1) % uids.length)]!)}`;
    // Warm-up (untimed, one full round): JIT, and the garbage left by parsing a 50,000-object seed.
    await run(pool, emulator.token, "warm-up", byUid);
    results.push(await run(pool, emulator.token, "GET group by uid", byUid));

    // Pre-walk tokens for each scope so the measured requests spread over many pages.
    const walk = async (scope: string, maxPages: number): Promise<string[]> => {
      const base = `/iam/v2beta1/groups?uidp.descendants_of=${encodeURIComponent(scope)}&order_by=${encodeURIComponent("name desc")}&page_size=50`;
      const paths = [base];
      let token: string | undefined;
      for (let i = 1; i < maxPages; i++) {
        const r = await pool.request({
          method: "GET",
          path: token === undefined ? base : `${base}&page_token=${encodeURIComponent(token)}`,
          headers: { authorization: `Bearer ${emulator.token}` },
        });
        const body = (await r.body.json()) as { nextPageToken?: string };
        if (body.nextPageToken === undefined) break;
        token = body.nextPageToken;
        paths.push(`${base}&page_token=${encodeURIComponent(token)}`);
      }
      return paths;
    };
    const firstWalkOf100PagesMs: Record<string, number> = {};
    for (const [label, scope] of [
      [
        `list descendants_of folder (${(GROUPS - FOLDERS) / FOLDERS} groups), name desc, 50/page`,
        folders[0]!,
      ],
      [`list descendants_of org (${GROUPS} groups), name desc, 50/page`, emulator.orgUid],
    ] as const) {
      // The first request of a query filters and sorts the whole set (then cached per query and store version).
      const coldStart = process.hrtime.bigint();
      const paths = await walk(scope, 100);
      firstWalkOf100PagesMs[label] =
        Math.round((Number(process.hrtime.bigint() - coldStart) / 1e6) * 100) / 100;
      let i = 0;
      await run(pool, emulator.token, "warm-up", () => paths[i++ % paths.length]!);
      const result = await run(pool, emulator.token, label, () => paths[i++ % paths.length]!);
      results.push({ ...result, scenario: `${result.scenario}, ${paths.length} distinct pages` });
    }
    return { seedSeconds, firstWalkOf100PagesMs, results };
  } finally {
    await pool.close();
    await emulator.stop();
  }
}

/** The organization once it holds `identities` identities, each with its binding. */
interface CreateRow {
  identities: number;
  /** From the first create to this size. */
  seconds: number;
  /** A create is an identity and its binding: two POSTs. */
  msPerCreate: number;
  /** The mean of the last CREATE_WINDOW creates before this size: what one more create costs there. */
  msPerCreateAtSize: number;
}

/**
 * A fresh organization grown one identity and one viewer binding on the organization at a time, over one
 * connection, each POST awaited: the cost of a write as the organization grows.
 */
async function creates(): Promise<CreateRow[]> {
  const emulator = await startCli();
  const pool = new Pool(emulator.url, { connections: 1, pipelining: 1 });
  const headers = { authorization: `Bearer ${emulator.token}`, "content-type": "application/json" };
  const send = async (method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> => {
    const response = await pool.request({
      method,
      path,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`${method} ${path}: ${response.statusCode} ${text}`);
    return JSON.parse(text) as unknown;
  };
  try {
    const viewer = ((await send("GET", "/iam/v2beta1/roles?name=viewer")) as { roles: { uid: string }[] })
      .roles[0]!.uid;
    const rows: CreateRow[] = [];
    const windowStarts = new Map<number, bigint>();
    const begin = process.hrtime.bigint();
    const last = CREATE_SIZES[CREATE_SIZES.length - 1] ?? 0;
    for (let i = 0; i < last; i++) {
      if (CREATE_SIZES.some((size) => i === Math.max(0, size - CREATE_WINDOW)))
        windowStarts.set(i, process.hrtime.bigint());
      const identity = (await send("POST", `/iam/v2beta1/identities/${emulator.orgUid}`, {
        name: `robot-${i}`,
        claimMatch: { issuer: "https://issuer.example.com", subject: `robot-${i}` },
      })) as { uid: string };
      await send("POST", `/iam/v2beta1/roleBindings/${emulator.orgUid}`, {
        identityUid: identity.uid,
        roleUid: viewer,
      });
      const size = i + 1;
      if (!CREATE_SIZES.includes(size)) continue;
      const now = process.hrtime.bigint();
      const from = Math.max(0, size - CREATE_WINDOW);
      const ms = (since: bigint): number => Number(now - since) / 1e6;
      const round = (n: number): number => Math.round(n * 1000) / 1000;
      rows.push({
        identities: size,
        seconds: round(ms(begin) / 1000),
        msPerCreate: round(ms(begin) / size),
        msPerCreateAtSize: round(ms(windowStarts.get(from)!) / (size - from)),
      });
    }
    return rows;
  } finally {
    await pool.close();
    await emulator.stop();
  }
}

function readTable(found: Reads): string[] {
  const rows = found.results.map(
    (r) =>
      `| ${r.scenario} | ${r.requests} | ${r.concurrency} | ${r.rps} | ${r.p50} | ${r.p95} | ${r.p99} | ${r.max} |`,
  );
  return [
    `emulator bench: ${GROUPS} groups seeded through /_emulator/seed in ${found.seedSeconds.toFixed(2)} s; node ${process.version}, loopback`,
    `first walk of 100 pages (includes the one filter+sort of each query): ${Object.entries(
      found.firstWalkOf100PagesMs,
    )
      .map(([k, v]) => `${k.split(",")[0]}: ${v} ms`)
      .join("; ")}`,
    "",
    "| scenario | requests | concurrency | req/s | p50 ms | p95 ms | p99 ms | max ms |",
    "|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
  ];
}

function createTable(rows: CreateRow[]): string[] {
  return [
    `emulator creates: an identity and its viewer binding per create (2 POSTs), sequential, one connection; node ${process.version}, loopback`,
    "",
    `| identities | seconds | ms per create | ms per create at that size (last ${CREATE_WINDOW}) |`,
    "|---|---|---|---|",
    ...rows.map((r) => `| ${r.identities} | ${r.seconds} | ${r.msPerCreate} | ${r.msPerCreateAtSize} |`),
    "",
  ];
}

async function main(): Promise<void> {
  const found = process.env.BENCH_SKIP_READS === "1" ? undefined : await reads();
  const created = CREATE_SIZES.length === 0 ? [] : await creates();
  process.stdout.write(
    [...(found ? readTable(found) : []), ...(created.length > 0 ? createTable(created) : [])].join("\n"),
  );
  mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
  // Skipped reads are written as none (groups 0, no results), never as another run's figures.
  const readFigures = found ?? { seedSeconds: 0, firstWalkOf100PagesMs: {}, results: [] };
  writeFileSync(
    join(ROOT, "bench", "results", "emulator.json"),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, groups: found ? GROUPS : 0, ...readFigures, creates: created }, null, 2)}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
