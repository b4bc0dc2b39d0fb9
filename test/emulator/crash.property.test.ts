/**
 * A SIGKILL at any moment loses no acknowledged write and leaves a state that loads (fast-check, fixed
 * seed). The CLI emulator runs as a child process on a data file; concurrent workers stream writes (creates,
 * deletes, updates, seeds, and requests that fail: a create with an unknown field, a seed whose last entry is bad)
 * until it is killed after a generated delay, then it is restarted on the same file. After every restart:
 *   - every acknowledged write is there (a created or seeded group exists as sent, a deleted one is gone, an
 *     updated one has its new description), and every group untouched since the last restart is as it was;
 *   - nothing else is: no group of a refused request, no group the test did not create;
 *   - a write in flight at the kill is either there or not, but whole (a seed's three groups all or none);
 *   - the organization, the bootstrap token (signing keys and meta) and the clock (no createTime goes back)
 *     survive.
 * The journal's compaction bound is lowered (PLATFORM_EMULATOR_JOURNAL_BYTES) for some histories so kills also
 * land during compactions. The CLI is bundled once with esbuild so a restart costs a process start, not a compile.
 */
import { buildSync } from "esbuild";
import fc from "fast-check";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const CRASH_RUNS = 6;
const MAX_WRITES = 400;

const ROOT = join(__dirname, "..", "..");
let dir: string;
let cli: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "emulator-crash-"));
  cli = join(dir, "cli.js");
  buildSync({
    entryPoints: [join(ROOT, "emulator", "cli.ts")],
    bundle: true,
    platform: "node",
    target: "node20",
    packages: "external",
    outfile: cli,
    logLevel: "silent",
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Running {
  child: ChildProcess;
  url: string;
  token: string;
  org: string;
}

async function launch(dataFile: string, journalBytes: number | undefined): Promise<Running> {
  const child = spawn(process.execPath, [cli, "--port", "0", "--quiet", "--data", dataFile], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_PATH: join(ROOT, "node_modules"),
      ...(journalBytes === undefined ? {} : { PLATFORM_EMULATOR_JOURNAL_BYTES: String(journalBytes) }),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const deadline = Date.now() + 20_000;
  while (!/PLATFORM_ORG_UID=\S+/.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`the emulator did not start on ${dataFile}:\n${out}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const read = (name: string): string => new RegExp(`${name}=(\\S+)`).exec(out)![1]!;
  return {
    child,
    url: read("PLATFORM_API_URL"),
    token: read("PLATFORM_TOKEN"),
    org: read("PLATFORM_ORG_UID"),
  };
}

async function kill(running: Running): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  const exited = new Promise((resolve) => running.child.on("exit", resolve));
  running.child.kill("SIGKILL");
  await exited;
}

/** The answer's status, or undefined when the process died before answering (the write was in flight). */
async function send(
  running: Running,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> } | undefined> {
  try {
    const response = await fetch(`${running.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${running.token}`, "content-type": "application/json" },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>),
    };
  } catch {
    return undefined;
  }
}

interface Group {
  uid: string;
  name: string;
  description: string;
  createTime: string;
}

async function listGroups(running: Running): Promise<Map<string, Group>> {
  const groups = new Map<string, Group>();
  let pageToken = "";
  do {
    const answer = await send(
      running,
      "GET",
      `/iam/v2beta1/groups?uidp.descendants_of=${running.org}&page_size=200${pageToken === "" ? "" : `&page_token=${encodeURIComponent(pageToken)}`}`,
    );
    expect(answer?.status).toBe(200);
    for (const group of answer!.body.groups as Group[])
      groups.set(group.name, { ...group, description: group.description ?? "" });
    pageToken = (answer!.body.nextPageToken as string | undefined) ?? "";
  } while (pageToken !== "");
  return groups;
}

type OpKind = "create" | "delete" | "update" | "seed" | "badCreate" | "badSeed";

const round = fc.record({
  ops: fc.array(
    fc.constantFrom<OpKind>("create", "create", "create", "delete", "update", "seed", "badCreate", "badSeed"),
    { minLength: 1, maxLength: 12 },
  ),
  workers: fc.integer({ min: 1, max: 4 }),
  killAfterMs: fc.integer({ min: 0, max: 250 }),
});
const history = fc.record({
  journalBytes: fc.constantFrom<number | undefined>(undefined, 512, 4096),
  rounds: fc.array(round, { minLength: 1, maxLength: 3 }),
});

/** What one write did, as the client saw it. */
interface Outcome {
  kind: OpKind;
  /** Names it creates (create, seed) or must never create (bad ones). */
  names: string[];
  /** The group it deletes or updates, and the description it sets. */
  target?: Group;
  description?: string;
  /** The answer's status; undefined: in flight at the kill. */
  status: number | undefined;
}

describe("SIGKILL during a stream of writes", () => {
  test(`${CRASH_RUNS} generated histories lose no acknowledged write and keep no refused one`, async () => {
    await fc.assert(
      fc.asyncProperty(history, async ({ journalBytes, rounds }) => {
        const runDir = mkdtempSync(join(dir, "run-"));
        const dataFile = join(runDir, "state.json");
        let running = await launch(dataFile, journalBytes);
        const { org, token } = running;
        let confirmed = await listGroups(running); // the state every later restart must keep
        let counter = 0;
        let latestCreateTime = "";
        try {
          for (const { ops, workers, killAfterMs } of rounds) {
            const targets = [...confirmed.values()].filter(
              (g) => g.name.startsWith("c") || g.name.startsWith("s"),
            );
            const outcomes: Outcome[] = [];
            let next = 0;
            const current = running;
            const worker = async (): Promise<void> => {
              // The generated operations, over and over, until the kill (at most MAX_WRITES per round).
              while (next < MAX_WRITES) {
                let kind = ops[next++ % ops.length]!;
                const n = counter++;
                if ((kind === "delete" || kind === "update") && targets.length === 0) kind = "create";
                const outcome: Outcome = { kind, names: [], status: undefined };
                outcomes.push(outcome);
                let answer: Awaited<ReturnType<typeof send>>;
                if (kind === "create") {
                  outcome.names = [`c${n}`];
                  outcome.description = `made ${n}`;
                  answer = await send(current, "POST", `/iam/v2beta1/groups/${org}`, {
                    name: `c${n}`,
                    description: `made ${n}`,
                  });
                } else if (kind === "badCreate") {
                  outcome.names = [`bad ${n}`];
                  answer = await send(current, "POST", `/iam/v2beta1/groups/${org}`, {
                    name: `bad ${n}`,
                    notAField: true,
                  });
                } else if (kind === "seed" || kind === "badSeed") {
                  const prefix = kind === "seed" ? "s" : "f";
                  outcome.names = [`${prefix}${n}a`, `${prefix}${n}b`, `${prefix}${n}c`];
                  const groups = outcome.names.map((name) => ({ name }));
                  if (kind === "badSeed") groups[2] = { name: "NOT VALID" };
                  answer = await send(current, "POST", "/_emulator/seed", { groups });
                } else {
                  outcome.target = targets.shift()!;
                  const path = `/iam/v2beta1/groups/${outcome.target.uid}`;
                  if (kind === "delete") answer = await send(current, "DELETE", path);
                  else {
                    outcome.description = `updated ${n}`;
                    answer = await send(current, "PATCH", path, { description: outcome.description });
                  }
                }
                outcome.status = answer?.status;
                if (answer === undefined) return; // the emulator is gone
              }
            };
            const streaming = Promise.all(Array.from({ length: workers }, worker));
            await new Promise((r) => setTimeout(r, killAfterMs));
            await kill(current);
            await streaming;

            running = await launch(dataFile, journalBytes);
            expect(running.org).toBe(org);
            expect(running.token).toBe(token);
            const after = await listGroups(running);
            const allowed = new Set(confirmed.keys());
            for (const o of outcomes) {
              const acked = o.status === 200;
              if (o.status !== undefined)
                expect([o.kind, o.status]).toEqual([o.kind, o.kind.startsWith("bad") ? 400 : 200]);
              if (o.kind === "create") {
                const made = after.get(o.names[0]!);
                if (acked) expect(made).toBeDefined();
                if (made !== undefined) expect(made.description).toBe(o.description);
                allowed.add(o.names[0]!);
              } else if (o.kind === "seed") {
                const present = o.names.filter((name) => after.has(name));
                expect(present).toEqual(acked || present.length > 0 ? o.names : []);
                o.names.forEach((name) => allowed.add(name));
              } else if (o.kind === "badCreate" || o.kind === "badSeed") {
                for (const name of o.names) expect(after.has(name)).toBe(false);
              } else if (o.kind === "delete") {
                if (acked) expect(after.has(o.target!.name)).toBe(false);
              } else {
                const now = after.get(o.target!.name);
                expect(now).toBeDefined();
                expect([o.target!.description, o.description]).toContain(now!.description);
                if (acked) expect(now!.description).toBe(o.description);
              }
            }
            // Untouched groups are as they were; nothing the test did not write appears.
            const touched = new Set(outcomes.flatMap((o) => (o.target ? [o.target.name] : [])));
            for (const [name, group] of confirmed)
              if (!touched.has(name)) expect(after.get(name)).toEqual(group);
            for (const name of after.keys()) expect(allowed.has(name)).toBe(true);
            // The clock never goes back across the kill.
            for (const group of after.values())
              if (group.createTime > latestCreateTime) latestCreateTime = group.createTime;
            const probe = await send(running, "POST", `/iam/v2beta1/groups/${org}`, {
              name: `p${counter++}`,
            });
            expect(probe?.status).toBe(200);
            expect((probe!.body.createTime as string) >= latestCreateTime).toBe(true);
            latestCreateTime = probe!.body.createTime as string;
            confirmed = await listGroups(running);
          }
        } finally {
          await kill(running);
          rmSync(runDir, { recursive: true, force: true });
        }
      }),
      // endOnFailure: the outcome depends on timing, so shrinking would replay different interleavings.
      { seed: 23, numRuns: CRASH_RUNS, endOnFailure: true },
    );
  }, 120_000);
});
