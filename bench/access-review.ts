/**
 * `platform-access review` of an organization of 3,000 objects (BENCH_REVIEW_GROUPS groups, as many workload
 * identities, 50 custom roles and the rest role bindings, direct and on folders, so most grants are inherited)
 * against the emulator in its own process (dist/emulator/cli.js). Measures the API calls (from the emulator's
 * request log) and the wall time of each output format, and fails when a review makes more than one list per kind
 * plus pages (1 GET + Σ ceil(count / 200) over groups, identities, roles, role bindings) or takes 2 s or more.
 * Then 50 bindings are made and the review is compared with the first (`--since`, text and Markdown), under the
 * same limits. Writes bench/results/access-review.json.
 *
 *   npx tsc -p tsconfig.build.json && TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/access-review.ts
 *
 * Env: BENCH_REVIEW_OBJECTS (3000), BENCH_REVIEW_LIMIT_MS (2000).
 *
 * May import: ../commands/access, ../sdk, ./cli-emulator, node built-ins.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../commands/access/cli";
import { PlatformClient } from "../sdk";
import { startCliEmulator } from "./cli-emulator";

const ROOT = join(__dirname, "..");
const OBJECTS = Number(process.env.BENCH_REVIEW_OBJECTS ?? 3000);
const LIMIT_MS = Number(process.env.BENCH_REVIEW_LIMIT_MS ?? 2000);
const PAGE = 200;
const hex16 = () => randomBytes(8).toString("hex");

/** Runs `n` tasks, `width` at a time. */
async function pool<T>(n: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array<T>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

async function bench(): Promise<number> {
  const emulator = await startCliEmulator(ROOT);
  const tmp = mkdtempSync(join(tmpdir(), "bench-access-review-"));
  try {
    const org = emulator.orgUid;
    const client = new PlatformClient({ apiUrl: emulator.url, token: emulator.token });
    // The organization: 10 folders, the other groups under them; identities, roles, bindings through the API.
    const groupCount = Math.floor(OBJECTS * 0.3);
    const identityCount = Math.floor(OBJECTS * 0.3);
    const roleCount = 50;
    const bindingCount = OBJECTS - groupCount - identityCount - roleCount;
    const folders = Array.from({ length: 10 }, () => `${org}/${hex16()}`);
    const groups = [
      ...folders.map((uid, i) => ({ uid, name: `folder-${i}`, parent: org })),
      ...Array.from({ length: groupCount - folders.length }, (_, i) => {
        const parent = folders[i % folders.length]!;
        return { uid: `${parent}/${hex16()}`, name: `team-${i}`, parent };
      }),
    ];
    await emulator.seed({ groups });
    const setupStarted = Date.now();
    const identities = await pool(identityCount, 16, (i) =>
      client.identities.create(groups[i % groups.length]!.uid, {
        name: `wl-${i}`,
        claimMatch: { issuer: "https://issuer.example.com", subject: `wl-${i}` },
      }),
    );
    const caps = ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", "CAP_TAG_LIST", "CAP_IAM_ROLE_BINDINGS_CREATE"];
    const roles = await pool(roleCount, 16, (i) =>
      client.roles.create(org, { name: `role-${i}`, capabilities: caps.slice(0, 1 + (i % caps.length)) }),
    );
    await pool(bindingCount, 16, (i) =>
      client.roleBindings.create(
        i % 3 === 0 ? folders[i % folders.length]! : groups[i % groups.length]!.uid,
        {
          identityUid: identities[(i * 7) % identities.length]!.uid,
          roleUid: roles[i % roles.length]!.uid,
        },
      ),
    );
    const setupMs = Date.now() - setupStarted;
    const counts = {
      groups: groups.length + 1,
      identities: identities.length,
      roles: roles.length + 4, // the built-in roles are listed too
      roleBindings: bindingCount + 1, // and the owner's binding on the organization (50 more for --since)
    };
    const minimum = 1 + Object.values(counts).reduce((n, c) => n + Math.max(1, Math.ceil(c / PAGE)), 0);

    const env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token };
    const rows: { format: string; ms: number; calls: number; minimum: number; bytes: number }[] = [];
    const measure = async (format: string, args: string[], least = minimum) => {
      let best = { ms: Infinity, calls: 0, bytes: 0 };
      for (let run = 0; run < 2; run++) {
        await emulator.clearRequests();
        let bytes = 0;
        const started = process.hrtime.bigint();
        const code = await main(["review", org, ...args], {
          env,
          stdout: (t) => void (bytes += t.length),
          stderr: () => undefined,
        });
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (code !== 0) throw new Error(`review ${format} exited ${code}`);
        if (format === "html") bytes = statSync(join(tmp, "review.html")).size;
        const calls = (await emulator.requests()).filter((r) => !r.path.startsWith("/_emulator")).length;
        if (ms < best.ms) best = { ms, calls, bytes };
      }
      rows.push({ format, ...best, minimum: least, ms: Math.round(best.ms) });
    };
    const previous = join(tmp, "previous.json");
    await measure("json", ["--json"]);
    let first = "";
    await main(["review", org, "--json"], { env, stdout: (t) => void (first += t), stderr: () => undefined });
    writeFileSync(previous, first);
    await measure("text", []);
    await measure("csv", ["--csv"]);
    await measure("markdown", ["--markdown"]);
    await measure("html", ["--html", join(tmp, "review.html")]);
    // Fifty changes since the first review: each identity bound to viewer on a group of its own.
    const viewer = (await client.roles.list({ name: "viewer", pageSize: PAGE })).items.find(
      (r) => r.name === "viewer",
    )!;
    await pool(50, 16, (i) =>
      client.roleBindings.create(groups[(i * 13) % groups.length]!.uid, {
        identityUid: identities[(i * 11) % identities.length]!.uid,
        roleUid: viewer.uid,
      }),
    );
    const pages = (n: number) => Math.max(1, Math.ceil(n / PAGE));
    const after = minimum - pages(counts.roleBindings) + pages(counts.roleBindings + 50);
    await measure("since, text (50 bindings)", ["--since", previous], after);
    await measure("since, markdown (50 bindings)", ["--since", previous, "--markdown"], after);
    const result = {
      objects: Object.values(counts).reduce((a, b) => a + b, 0),
      counts,
      minimumCalls: minimum,
      limitMs: LIMIT_MS,
      setupMs,
      rows,
    };
    mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
    writeFileSync(
      join(ROOT, "bench", "results", "access-review.json"),
      `${JSON.stringify(result, null, 2)}\n`,
    );
    console.log(
      `\n### platform-access review of ${result.objects} objects (${JSON.stringify(counts)})\n\n` +
        "| format | wall ms | API calls | minimum | output bytes |\n| --- | ---: | ---: | ---: | ---: |\n" +
        rows.map((r) => `| ${r.format} | ${r.ms} | ${r.calls} | ${r.minimum} | ${r.bytes} |`).join("\n"),
    );
    const bad = rows.filter((r) => r.calls > r.minimum || r.ms >= LIMIT_MS);
    for (const r of bad)
      console.error(
        `bench: review --${r.format}: ${r.calls} calls (minimum ${r.minimum}), ${r.ms} ms (limit ${LIMIT_MS})`,
      );
    return bad.length === 0 ? 0 : 1;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    await emulator.stop();
  }
}

bench().then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
