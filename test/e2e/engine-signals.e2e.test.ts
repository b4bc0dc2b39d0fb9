/**
 * Every process the engine stops stops at once, however the engine was started. The engine stops a plugin (a
 * language host, a resource plugin, the policy pack's analyzer) by sending SIGINT to the plugin's process group,
 * and kills it only 5 s later. Started with SIGINT ignored (a shell's background job, some CI step runners), a
 * process keeps ignoring it unless it asks for the signal, so a plugin that does not would cost 5 s each time the
 * engine stops it, several times per Pulumi command.
 *
 * Each program's preview runs here with SIGINT ignored from the start (`trap "" INT` before exec); meanwhile the
 * test watches its own descendant processes, and the engine's verbose log says when it sent each plugin SIGINT
 * ("killing plugin <path>"). Every plugin process must be gone well within the engine's 5 s. The programs
 * (fixtures/signals) start our Node.js and Go language hosts, upstream's YAML host, the dynamic-provider
 * launcher, the native plugin and the policy pack's analyzer. (Our Python host shares the Go host's signal
 * handling, scripts/engine/langhost/internal/host, whose unit tests cover it.)
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator";
import { PulumiStack, repoRoot, type CommandResult } from "./harness";
import { pluginStack } from "./plugin-tarball";

jest.setTimeout(600_000);

const fixtures = "test/e2e/fixtures/signals";

/** Runs the command with SIGINT ignored from its start, as a background job or some CI runners start it. */
const ignoringSigint = ["bash", "-c", 'trap "" INT; exec "$@"', "ignoring-sigint"];

/** How long after the engine's SIGINT a plugin may take to exit: well under the 5 s after which it kills it. */
const promptMs = 2_500;

/** A process seen below the test: its command line, and when it was first and last seen. */
interface Seen {
  pid: number;
  parent: number;
  command: string;
  firstSeen: number;
  lastSeen: number;
}

/** The pids of the children of `pid` (every thread's), or none once it is gone. */
function childrenOf(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/))
      .filter((p) => p !== "")
      .map(Number);
  } catch {
    return [];
  }
}

/** Watches the descendants of this process every 20 ms until stopped (stopping twice is stopping once). */
function watchDescendants(): { stop: () => Seen[] } {
  const seen = new Map<number, Seen>();
  const poll = () => {
    const now = Date.now();
    const stack = childrenOf(process.pid).map((pid) => [pid, process.pid] as const);
    while (stack.length > 0) {
      const [pid, parent] = stack.pop()!;
      stack.push(...childrenOf(pid).map((child) => [child, pid] as const));
      let command: string;
      try {
        // Read each time: a child shows its parent's command line until it execs its own.
        command = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
      } catch {
        continue; // gone between the listing and the read
      }
      const known = seen.get(pid);
      if (command === "") continue; // a zombie: it has exited, only its parent has not collected it yet
      if (known) Object.assign(known, { command, lastSeen: now });
      else seen.set(pid, { pid, parent, command, firstSeen: now, lastSeen: now });
    }
  };
  const timer = setInterval(poll, 20);
  poll();
  let stopped = false;
  return {
    stop: () => {
      if (!stopped) poll();
      stopped = true;
      clearInterval(timer);
      return [...seen.values()];
    },
  };
}

/** When the engine sent SIGINT to each plugin, from its -v=9 log on stderr: [plugin path, time]. */
function killsOf(result: CommandResult): [string, number][] {
  const kills: [string, number][] = [];
  for (const line of result.stderr.split("\n")) {
    if (!line.includes("killing plugin")) continue;
    const entry = JSON.parse(line) as { time: string; msg: string };
    kills.push([entry.msg.replace("killing plugin", "").trim(), Date.parse(entry.time)]);
  }
  return kills;
}

/** A command line as a person reads it: the executable and its first argument, each by its last path segments. */
const shortCommand = (command: string) =>
  command
    .split(" ")
    .slice(0, 2)
    .map((arg) => arg.split("/").slice(-3).join("/"))
    .join(" ");

/**
 * How long each plugin the engine stopped, and what it ran, outlived its SIGINT: for each "killing plugin <path>",
 * the processes running that plugin when it was sent and their descendants then, each with the last time the test
 * saw it alive (a process not seen again exited within one poll).
 */
function exitDelays(result: CommandResult, processes: Seen[]): { process: string; ms: number }[] {
  const aliveAt = (p: Seen, at: number) => p.firstSeen <= at && p.lastSeen >= at - 100;
  const withDescendants = (roots: Seen[], at: number): Seen[] => {
    const below = processes.filter((p) => roots.some((r) => r.pid === p.parent) && aliveAt(p, at));
    return below.length === 0 ? roots : [...roots, ...withDescendants(below, at)];
  };
  // Kills come in time order; a process answers for the first SIGINT sent to it, its descendants with it.
  const stoppedAlready = new Set<number>();
  return killsOf(result).flatMap(([plugin, at]) => {
    // Of the processes of that plugin running then, the one stopped is the first to go (others may run on).
    const [stopped] = processes
      .filter((p) => p.command.includes(plugin) && aliveAt(p, at) && !stoppedAlready.has(p.pid))
      .sort((a, b) => a.lastSeen - b.lastSeen);
    if (stopped === undefined) return [];
    const gone = withDescendants([stopped], at).filter((p) => !stoppedAlready.has(p.pid));
    for (const p of gone) stoppedAlready.add(p.pid);
    return gone.map((p) => ({
      process: `${path.basename(plugin)}: ${shortCommand(p.command)} (pid ${p.pid})`,
      ms: Math.max(0, p.lastSeen - at),
    }));
  });
}

/** A preview of the program with SIGINT ignored, watched: how long each process the engine stopped outlived it. */
async function previewIgnoringSigint(stack: PulumiStack, extraArgs: string[] = []) {
  const watch = watchDescendants();
  try {
    const result = await stack.run(["preview", "-v=9", "--logtostderr", ...extraArgs], {
      wrapper: ignoringSigint,
    });
    return exitDelays(result, watch.stop());
  } finally {
    watch.stop();
  }
}

describe("every process the engine stops exits promptly on its SIGINT, even when started with SIGINT ignored", () => {
  let emulator: Emulator;
  const figures: string[] = [];

  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterAll(async () => {
    await emulator?.close();
    if (figures.length > 0) console.info(figures.join("\n"));
  });

  /** Runs `body` on a stack (made by `create`, default a plain one of the program), then removes the stack. */
  async function withStack(
    programDir: string,
    body: (stack: PulumiStack) => Promise<void>,
    create: (programDir: string) => Promise<PulumiStack> = (dir) => PulumiStack.create({ programDir: dir }),
  ): Promise<void> {
    const stack = await create(programDir);
    try {
      await body(stack);
    } finally {
      await stack.cleanup();
    }
  }

  function expectPrompt(program: string, delays: { process: string; ms: number }[], plugins: string[]) {
    figures.push(`${program}:`, ...delays.map((d) => `  ${d.process} exited ${d.ms} ms after SIGINT`));
    for (const plugin of plugins)
      expect(delays.map((d) => d.process)).toContainEqual(expect.stringContaining(plugin));
    expect(delays.filter((d) => d.ms > promptMs)).toEqual([]);
  }

  it("Node.js: the language host, the dynamic-provider launcher and the policy pack's analyzer", async () => {
    await withStack(`${fixtures}/node`, async (stack) => {
      const policyPack = path.join(repoRoot, "policy");
      const delays = await previewIgnoringSigint(stack, ["--policy-pack", policyPack]);
      // The analyzer runs under a language host (RunPlugin), so it is among that host's descendants.
      expectPrompt("node", delays, [
        "pulumi-language-nodejs",
        "pulumi-resource-pulumi-nodejs",
        "run-policy-pack",
      ]);
    });
  });

  it("YAML: upstream's language host and the native plugin", async () => {
    await withStack(
      `${fixtures}/yaml`,
      async (stack) => {
        const delays = await previewIgnoringSigint(stack);
        expectPrompt("yaml", delays, ["pulumi-language-yaml", "pulumi-resource-platform"]);
      },
      (dir) => pluginStack(dir, emulator),
    );
  });

  it("Go: our Go language host", async () => {
    await withStack(`${fixtures}/go`, async (stack) => {
      const delays = await previewIgnoringSigint(stack);
      expectPrompt("go", delays, ["pulumi-language-go"]);
    });
  });
});
