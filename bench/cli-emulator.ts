/**
 * The emulator as a separate process (dist/emulator/cli.js), so neither the Pulumi engine nor the raw-SDK
 * comparison shares its event loop, and its control endpoints (request log, seed) over HTTP.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, unknown>;
  status: number;
}

export interface CliEmulator {
  url: string;
  token: string;
  orgUid: string;
  requests(): Promise<LoggedRequest[]>;
  clearRequests(): Promise<void>;
  seed(data: unknown): Promise<Record<string, number>>;
  /**
   * The emulator process's CPU time so far, in milliseconds, all its threads (the event loop, GC, libuv's pool):
   * from /proc/<pid>/task/<tid>/schedstat, nanosecond counters (Linux; /proc/<pid>/stat's 10 ms ticks are too coarse).
   */
  cpuMs(): number;
  stop(): Promise<void>;
}

/** The process's CPU time in ms: the sum of its threads' run time (the first schedstat field, in ns). */
export function processCpuMs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // A thread that ended between the listing and the read ran no more.
    }
  }
  return ns / 1e6;
}

/** Starts the emulator's CLI; `args` are more of its options (e.g. `--data FILE`). */
export async function startCliEmulator(root: string, args: string[] = []): Promise<CliEmulator> {
  const cli = join(root, "dist", "emulator", "cli.js");
  if (!existsSync(cli)) throw new Error("dist/emulator/cli.js is missing: npx tsc -p tsconfig.build.json");
  // BENCH_EMULATOR_NODE_ARGS: Node options for the emulator alone, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.BENCH_EMULATOR_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "");
  const child = spawn(process.execPath, [...nodeArgs, cli, "--port", "0", "--quiet", ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const deadline = Date.now() + 15_000;
  while (!/PLATFORM_ORG_UID=\S+/.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error("the emulator did not start");
    await new Promise((r) => setTimeout(r, 25));
  }
  const read = (name: string): string => new RegExp(`${name}=(\\S+)`).exec(out)![1]!;
  const url = read("PLATFORM_API_URL");
  const control = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${url}/_emulator/${path}`, {
      method,
      ...(body !== undefined
        ? { body: JSON.stringify(body), headers: { "content-type": "application/json" } }
        : {}),
    });
    const text = await response.text();
    if (!response.ok)
      throw new Error(`${method} /_emulator/${path}: ${response.status} ${text.slice(0, 300)}`);
    return text === "" ? {} : JSON.parse(text);
  };
  return {
    url,
    token: read("PLATFORM_TOKEN"),
    orgUid: read("PLATFORM_ORG_UID"),
    requests: async () => ((await control("GET", "requests")) as { requests: LoggedRequest[] }).requests,
    clearRequests: async () => void (await control("DELETE", "requests")),
    seed: async (data) => (await control("POST", "seed", data)) as Record<string, number>,
    cpuMs: () => processCpuMs(child.pid!),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.on("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
