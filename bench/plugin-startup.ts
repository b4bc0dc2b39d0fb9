/**
 * The plugin's start-up and its CPU on the 200-resource preview of bench/stack, before and after it carried its
 * own Node.js (scripts/build-plugin.js):
 *
 *   before                   main 564f344's archive: a launcher running the `node` on PATH on the bundle
 *   after, no code cache     the archive of `npm run plugin`, its launcher running the Node.js 24 beside it, with
 *                            NODE_DISABLE_COMPILE_CACHE=1
 *   after, as shipped        the same with the launcher's NODE_COMPILE_CACHE (V8's code cache on disk beside the
 *                            plugin, what a single executable application's `useCodeCache` would embed), warm
 *
 * Start-up: wall ms from spawn to the port line and the process's CPU ms then (/proc), the median of
 * BENCH_PLUGIN_RUNS (10) each, the variants taking turns. Preview: `pulumi preview` of bench/stack from empty (200
 * resources) on each archive, wall s and the plugin's CPU s (bench/cpu-probe.js), the best of BENCH_REPEAT (2).
 * Writes bench/results/plugin-startup.json and prints a table. Needs the built package (bench/cli-emulator.ts), the
 * plugin (BENCH_PLUGIN_TARBALL or `npm run plugin`) and bench/stack's node_modules (scripts/bench.sh installs them).
 *
 *   TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/plugin-startup.ts
 */
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PulumiStack } from "../test/e2e/harness";
import { startCliEmulator } from "./cli-emulator";
import { runWhenMain } from "./main";
import { benchPluginTarball } from "./plugin-tarball";
import { measured } from "./stack";

const ROOT = join(__dirname, "..");
const RUNS = Number(process.env.BENCH_PLUGIN_RUNS ?? 10);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 2);
const SKIP_PREVIEW = process.env.BENCH_PLUGIN_SKIP_PREVIEW === "1";
const NAME = "pulumi-resource-platform";
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
/** Linux's clock ticks per second, in which /proc/<pid>/stat counts CPU time. */
const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());

/** main 564f344's launcher, less its version check: `node` from PATH on the bundle beside it. */
const BEFORE_LAUNCHER = `#!/bin/sh\nexec node "$(dirname "$0")/${NAME}.js" "$@"\n`;

interface Variant {
  label: string;
  dir: string;
  tarball: string;
  env: Record<string, string>;
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** Starts the plugin once: ms to its port line, and its CPU ms by then. */
function startOnce(variant: Variant): Promise<{ wallMs: number; cpuMs: number }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(join(variant.dir, NAME), ["127.0.0.1:1"], {
      env: { ...process.env, ...variant.env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (!/^\d+\n/.test(stdout)) return;
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      // The launcher execs node: the same pid. utime and stime are fields 14 and 15 (after the command's ")").
      const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cpuMs = ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS) * 1000;
      child.kill("SIGTERM");
      resolve({ wallMs, cpuMs });
    });
    child.on("exit", (code) => {
      if (!/^\d+\n/.test(stdout)) reject(new Error(`${variant.label}: exited (${code}) without a port`));
    });
  });
}

async function startUp(variants: Variant[]) {
  for (const variant of variants) await startOnce(variant); // warms the page cache (and the compile cache)
  const samples = new Map(variants.map((v) => [v.label, [] as { wallMs: number; cpuMs: number }[]]));
  for (let i = 0; i < RUNS; i++) {
    for (const variant of variants) samples.get(variant.label)!.push(await startOnce(variant));
  }
  return variants.map((variant) => {
    const runs = samples.get(variant.label)!;
    return {
      variant: variant.label,
      wallMs: Math.round(median(runs.map((r) => r.wallMs))),
      cpuMs: Math.round(median(runs.map((r) => r.cpuMs))),
    };
  });
}

async function preview(variants: Variant[]) {
  const emulator = await startCliEmulator(ROOT);
  const roleUid = createHash("sha1").update("viewer").digest("hex");
  try {
    const results = [];
    for (const variant of variants) {
      let best: { wallSeconds: number; pluginCpuSeconds: number } | undefined;
      for (let i = 0; i < REPEAT; i++) {
        const stack = await PulumiStack.create({
          programDir: "bench/stack",
          config: {
            organization: emulator.orgUid,
            roleUid,
            library: "pulumi-platform-bench-native",
            groups: "50",
            identities: "50",
            bindings: "100",
            "platform:apiUrl": emulator.url,
          },
          secrets: { "platform:token": emulator.token },
          env: variant.env,
          timeoutMs: 900_000,
        });
        try {
          await stack.run(["plugin", "install", "resource", "platform", VERSION, "--file", variant.tarball], {
            stackless: true,
          });
          const run = await measured(stack, ["preview"], variant.env);
          if (best === undefined || run.wallSeconds < best.wallSeconds) {
            best = { wallSeconds: run.wallSeconds, pluginCpuSeconds: run.cpu.plugin };
          }
        } finally {
          await stack.cleanup();
        }
      }
      results.push({ variant: variant.label, ...best! });
    }
    return results;
  } finally {
    await emulator.stop();
  }
}

async function main(): Promise<void> {
  const tarball = benchPluginTarball(ROOT);
  const work = mkdtempSync(join(tmpdir(), "bench-plugin-startup-"));
  try {
    const after = join(work, "after");
    const before = join(work, "before");
    mkdirSync(after);
    mkdirSync(before);
    execFileSync("tar", ["-xzf", tarball, "-C", after]);
    writeFileSync(join(before, NAME), BEFORE_LAUNCHER, { mode: 0o755 });
    writeFileSync(join(before, `${NAME}.js`), readFileSync(join(after, `${NAME}.js`)));
    const beforeTarball = join(work, "before.tar.gz");
    execFileSync("tar", ["-czf", beforeTarball, "-C", before, NAME, `${NAME}.js`]);
    const pathNode = execFileSync("node", ["--version"], { encoding: "utf8" }).trim();
    const ownNode = execFileSync(join(after, "node"), ["--version"], { encoding: "utf8" }).trim();
    const variants: Variant[] = [
      { label: `before (node on PATH, ${pathNode})`, dir: before, tarball: beforeTarball, env: {} },
      {
        label: `after, no code cache (its own node, ${ownNode})`,
        dir: after,
        tarball,
        env: { NODE_DISABLE_COMPILE_CACHE: "1" },
      },
      { label: `after, as shipped: code cache (its own node, ${ownNode})`, dir: after, tarball, env: {} },
    ];
    const startup = await startUp(variants);
    const previews =
      SKIP_PREVIEW || !existsSync(join(ROOT, "bench", "stack", "node_modules"))
        ? []
        : await preview([variants[0]!, variants[2]!]);
    const results = { date: new Date().toISOString(), runs: RUNS, startup, preview200: previews };
    mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
    writeFileSync(
      join(ROOT, "bench", "results", "plugin-startup.json"),
      `${JSON.stringify(results, null, 2)}\n`,
    );
    const lines = ["plugin start-up (spawn to port line, median)", "", "| variant | wall (ms) | CPU (ms) |"];
    lines.push("| --- | ---: | ---: |", ...startup.map((s) => `| ${s.variant} | ${s.wallMs} | ${s.cpuMs} |`));
    if (previews.length > 0) {
      lines.push(
        "",
        "200-resource preview (bench/stack, from empty)",
        "",
        "| variant | wall (s) | plugin CPU (s) |",
      );
      lines.push("| --- | ---: | ---: |");
      lines.push(...previews.map((p) => `| ${p.variant} | ${p.wallSeconds} | ${p.pluginCpuSeconds} |`));
    }
    console.log(lines.join("\n"));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

runWhenMain(module, "plugin start-up", main);
