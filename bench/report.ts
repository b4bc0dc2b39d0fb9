/**
 * Merges bench/results/emulator.json, bench/results/storage.json, bench/results/grpc.json and bench/results/stack.json into bench/results/latest.json and prints the
 * tables (the form the README's performance section and bench/README.md use).
 *
 *   TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/report.ts
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallCheck, Row, StateFigures } from "./stack";
import { grpcTable, type GrpcResults } from "./grpc";
import { storageTable, type StorageRow } from "./storage";

const RESULTS = join(__dirname, "results");

interface StackResults {
  cpus: number;
  parallel: number;
  stack: { groups: number; identities: number; bindings: number; repos: number };
  variants: Record<string, string>;
  apiCalls: CallCheck[];
  rows: Row[];
  state: Record<string, StateFigures>;
}

interface EmulatorResults {
  groups: number;
  results: { scenario: string; rps: number; p50: number; p95: number; p99: number; concurrency: number }[];
}

function load<T>(name: string): T | undefined {
  const file = join(RESULTS, name);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as T) : undefined;
}

const fixed = (x: number | null | undefined, digits = 2): string => (x == null ? "–" : x.toFixed(digits));
const ratio = (a: number | undefined, b: number | undefined): string =>
  a === undefined || b === undefined || b === 0 ? "–" : `${(a / b).toFixed(1)}×`;

/** The figures of one latency: wall time, ratios and CPU per process, per operation. */
function latencyTable(stack: StackResults, resources: number, latencyMs: number): string[] {
  const rows = stack.rows.filter((r) => r.resources === resources && r.latencyMs === latencyMs);
  const find = (variant: string, operation: string): Row | undefined =>
    rows.find((r) => r.variant === variant && r.operation === operation);
  const dynamic = Object.keys(stack.variants).filter((v) => v !== "minimal");
  const out = [
    `**${resources} resources, ${latencyMs} ms per API request** (wall seconds; CPU seconds: the CLI with its Go plugins, the program, the provider with its launcher)`,
    "",
    "| operation | variant | wall s | vs raw SDK | vs minimal | our share | CPU s total | CLI | program | provider |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const operation of ["up", "no-op up", "refresh", "destroy"]) {
    const raw = find("raw", operation);
    const minimal = find("minimal", operation);
    for (const variant of [...dynamic, "minimal"]) {
      const r = find(variant, operation);
      if (!r) continue;
      const share =
        variant !== "minimal" && minimal
          ? `${(((r.wallSeconds - minimal.wallSeconds) / r.wallSeconds) * 100).toFixed(0)}%`
          : "";
      out.push(
        `| ${operation} | ${variant} | ${fixed(r.wallSeconds)} | ${ratio(r.wallSeconds, raw?.wallSeconds)} | ${
          variant === "minimal" ? "" : ratio(r.wallSeconds, minimal?.wallSeconds)
        } | ${share} | ${fixed(r.cpu.total)} | ${fixed(r.cpu.cli)} | ${fixed(r.cpu.program)} | ${fixed(
          r.cpu.provider + r.cpu.plugin + r.cpu.other,
        )} |`,
      );
    }
    if (raw)
      out.push(
        `| ${operation} | raw SDK | ${fixed(raw.wallSeconds)} | 1.0× | | | ${fixed(raw.cpu.total)} | | | |`,
      );
  }
  return out;
}

/** Every table of the stack bench. */
export function stackTables(stack: StackResults): string[] {
  const s = stack.stack;
  const out = [
    `stack: ${s.groups} groups, ${s.identities} identities, ${s.bindings} role bindings; ${stack.cpus} CPUs, --parallel ${stack.parallel}`,
    "",
    "| API calls | made | minimum | verdict |",
    "|---|---|---|---|",
    ...stack.apiCalls.map(
      (c) => `| ${c.operation} | ${c.total} | ${c.minimum} | ${c.ok ? "minimal" : "**EXCESS**"} |`,
    ),
    "",
  ];
  const base = s.groups + s.identities + s.bindings;
  const keys = new Set(
    stack.rows.filter((r) => r.resources === base).map((r) => `${r.resources}/${r.latencyMs}`),
  );
  for (const key of keys) {
    // eslint-disable-next-line no-restricted-syntax -- a "resources/latency" key, not a uid
    const [resources, latency] = key.split("/").map(Number);
    out.push(...latencyTable(stack, resources!, latency!), "");
  }
  const large = stack.rows.filter((r) => r.resources !== base);
  if (large.length > 0) {
    const resources = large[0]!.resources;
    out.push(
      `**${resources} resources, 0 ms per API request**: the CLI's defaults (\`up --yes\`, which previews first, and a state checkpoint per step) against the fast path (\`--skip-preview\`, \`PULUMI_SKIP_CHECKPOINTS=true\`)`,
      "",
      "| operation | CLI defaults: wall s (CPU s) | fast path: wall s (CPU s) | raw SDK: wall s (CPU s) |",
      "|---|---|---|---|",
    );
    for (const operation of ["up", "refresh", "destroy"]) {
      const get = (settings: string, variant = "platform"): string => {
        const r = large.find(
          (x) => x.operation === operation && x.settings === settings && x.variant === variant,
        );
        return r ? `${fixed(r.wallSeconds)} (${fixed(r.cpu.total)})` : "–";
      };
      out.push(`| ${operation} | ${get("CLI defaults")} | ${get("fast path")} | ${get("", "raw")} |`);
    }
    out.push("");
  }
  out.push("| state | bytes per resource | stored provider bytes per resource |", "|---|---|---|");
  for (const [variant, st] of Object.entries(stack.state)) {
    out.push(`| ${variant} | ${st.stateBytesPerResource} | ${st.providerBytesPerResource} |`);
  }
  return out;
}

function emulatorTable(emulator: EmulatorResults): string[] {
  return [
    "| emulator scenario | req/s | p50 / p95 / p99 ms |",
    "|---|---|---|",
    ...emulator.results.map(
      (r) =>
        `| ${r.scenario} (${emulator.groups} groups, concurrency ${r.concurrency}) | ${r.rps} | ${r.p50} / ${r.p95} / ${r.p99} |`,
    ),
  ];
}

if (require.main === module) {
  const stack = load<StackResults>("stack.json");
  const emulator = load<EmulatorResults>("emulator.json");
  const storage = load<{ creates: number; rows: StorageRow[] }>("storage.json");
  const grpcFaces = load<GrpcResults>("grpc.json");
  writeFileSync(
    join(RESULTS, "latest.json"),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, stack, emulator, storage, grpc: grpcFaces }, null, 2)}\n`,
  );
  const text = [
    ...(stack?.rows ? stackTables(stack) : []),
    "",
    ...(emulator ? emulatorTable(emulator) : []),
    "",
    ...(storage
      ? [`emulator storage: ${storage.creates} sequential creates`, "", ...storageTable(storage.rows)]
      : []),
    "",
    ...(grpcFaces ? grpcTable(grpcFaces) : []),
  ];
  process.stdout.write(`\n${text.join("\n")}\n\nwritten: bench/results/latest.json\n`);
}
