/**
 * Emulator benchmark: starts the CLI-built emulator (dist/emulator/cli.js), loads 50,000 groups through the
 * control seed path, then measures requests per second and latency percentiles over loopback for
 *   - GET by uid,
 *   - a filtered, ordered list (uidp.descendants_of + order_by=name desc, page_size 50), walking pages,
 * with a bounded number of requests. Prints a table and writes bench/results/emulator.json.
 *
 *   npx tsc -p tsconfig.build.json && TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/emulator.ts
 *
 * Env: BENCH_GROUPS (default 50000), BENCH_REQUESTS (default 2000 per scenario), BENCH_CONCURRENCY (default 8).
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

async function main(): Promise<void> {
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
    const coldFirstPageMs: Record<string, number> = {};
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
      coldFirstPageMs[label] = Math.round((Number(process.hrtime.bigint() - coldStart) / 1e6) * 100) / 100;
      let i = 0;
      await run(pool, emulator.token, "warm-up", () => paths[i++ % paths.length]!);
      const result = await run(pool, emulator.token, label, () => paths[i++ % paths.length]!);
      results.push({ ...result, scenario: `${result.scenario}, ${paths.length} distinct pages` });
    }

    const rows = results.map(
      (r) =>
        `| ${r.scenario} | ${r.requests} | ${r.concurrency} | ${r.rps} | ${r.p50} | ${r.p95} | ${r.p99} | ${r.max} |`,
    );
    process.stdout.write(
      [
        `emulator bench: ${GROUPS} groups seeded through /_emulator/seed in ${seedSeconds.toFixed(2)} s; node ${process.version}, loopback`,
        `first walk of 100 pages (includes the one filter+sort of each query): ${Object.entries(
          coldFirstPageMs,
        )
          .map(([k, v]) => `${k.split(",")[0]}: ${v} ms`)
          .join("; ")}`,
        "",
        "| scenario | requests | concurrency | req/s | p50 ms | p95 ms | p99 ms | max ms |",
        "|---|---|---|---|---|---|---|---|",
        ...rows,
        "",
      ].join("\n"),
    );
    mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
    writeFileSync(
      join(ROOT, "bench", "results", "emulator.json"),
      `${JSON.stringify({ date: new Date().toISOString(), node: process.version, groups: GROUPS, seedSeconds, firstWalkOf100PagesMs: coldFirstPageMs, results }, null, 2)}\n`,
    );
  } finally {
    await pool.close();
    await emulator.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
