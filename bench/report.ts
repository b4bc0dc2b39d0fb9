/**
 * Merges bench/results/emulator.json and bench/results/stack.json into bench/results/latest.json and prints
 * one markdown table of every figure (the form bench/README.md's performance section uses).
 *
 *   TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/report.ts
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const RESULTS = join(__dirname, "results");

interface StackResults {
  cpus: number;
  parallel: number;
  stack: { groups: number; identities: number; bindings: number; repos: number };
  apiCalls: { operation: string; total: number; minimum: number; ok: boolean }[];
  timing: { operation: string; pulumiSeconds: number; sdkSeconds: number; ratio: number }[];
  noOpUpSeconds?: number;
  state: { stateBytesPerResource: number; providerBytesPerResource: number; resources: number };
}

interface EmulatorResults {
  groups: number;
  results: { scenario: string; rps: number; p50: number; p95: number; p99: number; concurrency: number }[];
}

function load<T>(name: string): T | undefined {
  const file = join(RESULTS, name);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as T) : undefined;
}

/** The markdown rows of every figure available. */
export function table(stack: StackResults | undefined, emulator: EmulatorResults | undefined): string[] {
  const rows = ["| figure | value |", "|---|---|"];
  if (stack) {
    const s = stack.stack;
    for (const c of stack.apiCalls) {
      const verdict = c.ok ? "minimal" : `**EXCESS** (minimum ${c.minimum})`;
      rows.push(`| API calls: ${c.operation} | ${c.total} (${verdict}) |`);
    }
    for (const t of stack.timing) {
      rows.push(
        `| time: pulumi ${t.operation} vs raw SDK (--parallel ${stack.parallel}) | ${t.pulumiSeconds} s vs ${t.sdkSeconds} s = ${t.ratio}× |`,
      );
    }
    if (stack.noOpUpSeconds !== undefined) {
      rows.push(
        `| time: pulumi up with nothing to change (0 API calls: the engine's floor) | ${stack.noOpUpSeconds} s |`,
      );
    }
    rows.push(
      `| state per resource (stack export, ${stack.state.resources} resources) | ${stack.state.stateBytesPerResource} bytes |`,
    );
    rows.push(`| serialized provider per resource | ${stack.state.providerBytesPerResource} bytes |`);
    rows.unshift(
      `stack: ${s.groups} groups, ${s.identities} identities, ${s.bindings} role bindings, getRepos over ${s.repos} repos; ${stack.cpus} CPUs`,
      "",
    );
  }
  if (emulator) {
    for (const r of emulator.results) {
      rows.push(
        `| emulator (${emulator.groups} groups, concurrency ${r.concurrency}): ${r.scenario} | ${r.rps} req/s; p50 ${r.p50} / p95 ${r.p95} / p99 ${r.p99} ms |`,
      );
    }
  }
  return rows;
}

if (require.main === module) {
  const stack = load<StackResults>("stack.json");
  const emulator = load<EmulatorResults>("emulator.json");
  writeFileSync(
    join(RESULTS, "latest.json"),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, stack, emulator }, null, 2)}\n`,
  );
  process.stdout.write(`\n${table(stack, emulator).join("\n")}\n\nwritten: bench/results/latest.json\n`);
}
