/**
 * Storage benchmark (issue 23): the cost of one group create against the CLI emulator (dist/emulator/cli.js) in
 * memory, with `--data` and with `--data --data-sync`, the organization already holding N groups, for each N of BENCH_STORAGE_SIZES. Each
 * figure is the mean of BENCH_STORAGE_CREATES sequential creates (one connection, after an untimed warm-up of
 * BENCH_STORAGE_WARMUP), best of BENCH_REPEAT runs, the modes taking turns. Also reports the data file's size
 * (the snapshot, and the journal's bytes at the end of the run). Prints a table and writes
 * bench/results/storage.json.
 *
 *   npm run bench:storage       (= TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/storage.ts; builds dist/ first)
 *
 * `npm run bench` runs it too (BENCH_SKIP_STORAGE=1 skips it) and bench/report.ts prints its table.
 *
 * Env: BENCH_STORAGE_SIZES (1000,20000,50000), BENCH_STORAGE_CREATES (200), BENCH_STORAGE_WARMUP (50),
 * BENCH_REPEAT (2), BENCH_BUILD=0 to use dist/ as it is.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "undici";

const ROOT = join(__dirname, "..");
const SIZES = (process.env.BENCH_STORAGE_SIZES ?? "1000,20000,50000").split(",").map(Number);
const CREATES = Number(process.env.BENCH_STORAGE_CREATES ?? 200);
const WARMUP = Number(process.env.BENCH_STORAGE_WARMUP ?? 50);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 2);

type Mode = "memory" | "data" | "sync";
const MODES: Mode[] = ["memory", "data", "sync"];

interface Run {
  msPerCreate: number;
  snapshotBytes: number;
  journalBytes: number;
}

export interface StorageRow {
  groups: number;
  memoryMsPerCreate: number;
  dataMsPerCreate: number;
  /** --data --data-sync: fdatasync per write. */
  syncMsPerCreate: number;
  /** --data over in memory. */
  ratio: number;
  snapshotBytes: number;
  journalBytes: number;
}

const size = (path: string): number => (existsSync(path) ? statSync(path).size : 0);

async function measure(groups: number, mode: Mode): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), "bench-storage-"));
  const dataFile = join(dir, "state.json");
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
  const pool = { current: undefined as Pool | undefined };
  try {
    const deadline = Date.now() + 15_000;
    while (!/PLATFORM_ORG_UID=\S+/.test(out)) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`emulator did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const read = (name: string): string => new RegExp(`${name}=(\\S+)`).exec(out)![1]!;
    const [url, token, org] = [read("PLATFORM_API_URL"), read("PLATFORM_TOKEN"), read("PLATFORM_ORG_UID")];
    const connection = (pool.current = new Pool(url, { connections: 1, pipelining: 1 }));
    const seedGroups = Array.from({ length: groups }, (_, i) => ({ name: `seeded-${i}` }));
    const seeded = await connection.request({
      method: "POST",
      path: "/_emulator/seed",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ groups: seedGroups }),
    });
    const seedBody = (await seeded.body.json()) as { groups?: number };
    if (seeded.statusCode !== 200 || seedBody.groups !== groups)
      throw new Error(`seed failed: ${JSON.stringify(seedBody).slice(0, 300)}`);
    let counter = 0;
    const create = async (): Promise<void> => {
      const response = await connection.request({
        method: "POST",
        path: `/iam/v2beta1/groups/${org}`,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: `created-${counter++}`, description: "storage bench" }),
      });
      const text = await response.body.text();
      if (response.statusCode !== 200)
        throw new Error(`create: ${response.statusCode} ${text.slice(0, 200)}`);
    };
    for (let i = 0; i < WARMUP; i++) await create();
    const begin = process.hrtime.bigint();
    for (let i = 0; i < CREATES; i++) await create();
    const msPerCreate = Number(process.hrtime.bigint() - begin) / 1e6 / CREATES;
    return { msPerCreate, snapshotBytes: size(dataFile), journalBytes: size(`${dataFile}.journal`) };
  } finally {
    await pool.current?.close();
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The table of issue 23 (bench/report.ts prints it too). */
export function storageTable(rows: StorageRow[]): string[] {
  const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
  const kb = (bytes: number): string => `${(bytes / 1e3).toFixed(0)} kB`;
  return [
    "| N groups stored | in memory ms/create | --data ms/create | ratio | --data --data-sync ms/create | data file (snapshot + journal) |",
    "|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.groups.toLocaleString("en-US")} | ${r.memoryMsPerCreate} | ${r.dataMsPerCreate} | ${r.ratio}× | ${r.syncMsPerCreate} | ${mb(r.snapshotBytes)} + ${kb(r.journalBytes)} |`,
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
    const best: Partial<Record<Mode, Run>> = {};
    for (let round = 0; round < REPEAT; round++) {
      for (const mode of round % 2 === 0 ? MODES : [...MODES].reverse()) {
        const run = await measure(groups, mode);
        if (best[mode] === undefined || run.msPerCreate < best[mode].msPerCreate) best[mode] = run;
      }
    }
    const [memory, data, sync] = [best.memory!, best.data!, best.sync!];
    const round2 = (n: number): number => Math.round(n * 100) / 100;
    rows.push({
      groups,
      memoryMsPerCreate: round2(memory.msPerCreate),
      dataMsPerCreate: round2(data.msPerCreate),
      syncMsPerCreate: round2(sync.msPerCreate),
      ratio: round2(data.msPerCreate / memory.msPerCreate),
      snapshotBytes: data.snapshotBytes,
      journalBytes: data.journalBytes,
    });
    process.stderr.write(`storage bench: ${groups} groups done\n`);
  }
  process.stdout.write(
    [
      `storage bench: ${CREATES} sequential group creates (after ${WARMUP} untimed), best of ${REPEAT}; node ${process.version}, loopback`,
      "",
      ...storageTable(rows),
      "",
    ].join("\n"),
  );
  mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
  writeFileSync(
    join(ROOT, "bench", "results", "storage.json"),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, creates: CREATES, warmup: WARMUP, repeat: REPEAT, rows }, null, 2)}\n`,
  );
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`storage bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
