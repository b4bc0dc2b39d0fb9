/**
 * Storage benchmark: the cost of one group create against the CLI emulator (dist/emulator/cli.js) in
 * memory, with `--data` and with `--data --data-sync`, the organization already holding N groups, for each N of
 * BENCH_STORAGE_SIZES. The three emulators run side by side and take turns request by request (one create on
 * each, in rotating order, each on its own connection), so a burst of load on a shared machine hits all three
 * alike; after an untimed warm-up of BENCH_STORAGE_WARMUP creates each, BENCH_STORAGE_CREATES creates each are
 * timed. Reports the median and the mean ms per create per mode, and the data file's size (the snapshot, and the
 * journal's bytes at the end of the run). Prints a table and writes bench/results/storage.json.
 *
 *   npm run bench:storage       (= TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/storage.ts; builds dist/ first)
 *
 * `npm run bench` runs it too (BENCH_SKIP_STORAGE=1 skips it) and bench/report.ts prints its table.
 *
 * Env: BENCH_STORAGE_SIZES (1000,20000,50000), BENCH_STORAGE_CREATES (300), BENCH_STORAGE_WARMUP (50),
 * BENCH_BUILD=0 to use dist/ as it is.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "undici";
import { runWhenMain } from "./main";

const ROOT = join(__dirname, "..");
const SIZES = (process.env.BENCH_STORAGE_SIZES ?? "1000,20000,50000").split(",").map(Number);
const CREATES = Number(process.env.BENCH_STORAGE_CREATES ?? 300);
const WARMUP = Number(process.env.BENCH_STORAGE_WARMUP ?? 50);

type Mode = "memory" | "data" | "sync";
const MODES: Mode[] = ["memory", "data", "sync"];

interface Figures {
  median: number;
  mean: number;
}

export interface StorageRow {
  groups: number;
  /** Median ms per create (the mean beside it, in `means`). */
  memoryMsPerCreate: number;
  dataMsPerCreate: number;
  /** --data --data-sync: fdatasync per write. */
  syncMsPerCreate: number;
  /** --data over in memory, medians. */
  ratio: number;
  means: Record<Mode, number>;
  snapshotBytes: number;
  journalBytes: number;
}

const size = (path: string): number => (existsSync(path) ? statSync(path).size : 0);
const round2 = (n: number): number => Math.round(n * 100) / 100;

interface Running {
  create(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts one CLI emulator, seeds `groups` groups, and returns a timed create on one connection. */
async function launch(groups: number, mode: Mode, dataFile: string): Promise<Running> {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, "dist", "emulator", "cli.js"),
      "--port",
      "0",
      "--quiet",
      ...(mode === "memory" ? [] : ["--data", dataFile]),
      ...(mode === "sync" ? ["--data-sync"] : []),
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  let pool: Pool | undefined;
  const stop = async (): Promise<void> => {
    await pool?.close();
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await exited;
    }
  };
  try {
    const deadline = Date.now() + 15_000;
    while (!/PLATFORM_ORG_UID=\S+/.test(out)) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`emulator did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const read = (name: string): string => new RegExp(`${name}=(\\S+)`).exec(out)![1]!;
    const [url, token, org] = [read("PLATFORM_API_URL"), read("PLATFORM_TOKEN"), read("PLATFORM_ORG_UID")];
    const connection = (pool = new Pool(url, { connections: 1, pipelining: 1 }));
    const seeded = await connection.request({
      method: "POST",
      path: "/_emulator/seed",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ groups: Array.from({ length: groups }, (_, i) => ({ name: `seeded-${i}` })) }),
    });
    const seedBody = (await seeded.body.json()) as { groups?: number };
    if (seeded.statusCode !== 200 || seedBody.groups !== groups)
      throw new Error(`seed failed: ${JSON.stringify(seedBody).slice(0, 300)}`);
    let counter = 0;
    const create = async (): Promise<number> => {
      const begin = process.hrtime.bigint();
      const response = await connection.request({
        method: "POST",
        path: `/iam/v2beta1/groups/${org}`,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: `created-${counter++}`, description: "storage bench" }),
      });
      const text = await response.body.text();
      if (response.statusCode !== 200)
        throw new Error(`create: ${response.statusCode} ${text.slice(0, 200)}`);
      return Number(process.hrtime.bigint() - begin) / 1e6;
    };
    return { create, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function measure(groups: number): Promise<StorageRow> {
  const dir = mkdtempSync(join(tmpdir(), "bench-storage-"));
  const files: Record<Mode, string> = {
    memory: "",
    data: join(dir, "data.json"),
    sync: join(dir, "sync.json"),
  };
  const running: Partial<Record<Mode, Running>> = {};
  try {
    for (const mode of MODES) running[mode] = await launch(groups, mode, files[mode]);
    const times: Record<Mode, number[]> = { memory: [], data: [], sync: [] };
    for (let i = 0; i < WARMUP + CREATES; i++) {
      for (let k = 0; k < MODES.length; k++) {
        const mode = MODES[(i + k) % MODES.length]!;
        const ms = await running[mode]!.create();
        if (i >= WARMUP) times[mode].push(ms);
      }
    }
    const figures = (mode: Mode): Figures => {
      const sorted = [...times[mode]].sort((a, b) => a - b);
      return {
        median: sorted[Math.floor(sorted.length / 2)]!,
        mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
      };
    };
    const [memory, data, sync] = MODES.map(figures) as [Figures, Figures, Figures];
    return {
      groups,
      memoryMsPerCreate: round2(memory.median),
      dataMsPerCreate: round2(data.median),
      syncMsPerCreate: round2(sync.median),
      ratio: round2(data.median / memory.median),
      means: { memory: round2(memory.mean), data: round2(data.mean), sync: round2(sync.mean) },
      snapshotBytes: size(files.data),
      journalBytes: size(`${files.data}.journal`),
    };
  } finally {
    for (const mode of MODES) await running[mode]?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The storage table (bench/report.ts prints it too). */
export function storageTable(rows: StorageRow[]): string[] {
  const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
  const kb = (bytes: number): string => `${(bytes / 1e3).toFixed(0)} kB`;
  return [
    "| N groups stored | in memory ms/create | --data ms/create | ratio (medians) | --data --data-sync ms/create | data file (snapshot + journal) |",
    "|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.groups.toLocaleString("en-US")} | ${r.memoryMsPerCreate} (${r.means.memory}) | ${r.dataMsPerCreate} (${r.means.data}) | ${r.ratio}× | ${r.syncMsPerCreate} (${r.means.sync}) | ${mb(r.snapshotBytes)} + ${kb(r.journalBytes)} |`,
    ),
  ];
}

async function main(): Promise<void> {
  const cli = join(ROOT, "dist", "emulator", "cli.js");
  if (!existsSync(cli) || process.env.BENCH_BUILD !== "0") {
    spawnSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "ignore" });
    if (!existsSync(cli))
      throw new Error("dist/emulator/cli.js was not built (npx tsc -p tsconfig.build.json)");
  }
  const rows: StorageRow[] = [];
  for (const groups of SIZES) {
    rows.push(await measure(groups));
    process.stderr.write(`storage bench: ${groups} groups done\n`);
  }
  process.stdout.write(
    [
      `storage bench: ${CREATES} sequential group creates per mode (after ${WARMUP} untimed), the modes taking turns; median (mean) ms; node ${process.version}, loopback`,
      "",
      ...storageTable(rows),
      "",
    ].join("\n"),
  );
  mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
  writeFileSync(
    join(ROOT, "bench", "results", "storage.json"),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, creates: CREATES, warmup: WARMUP, rows }, null, 2)}\n`,
  );
}

runWhenMain(module, "storage", main);
