/**
 * `platform-access review`, against the emulator in its own process (dist/emulator/cli.js):
 *
 * 1. Formats: an organization of 3,000 objects (30% groups, as many workload identities, 50 custom roles and the
 *    rest role bindings, direct and on folders, so most grants are inherited), made through the API. Measures the
 *    API calls (from the emulator's request log) and the wall time of each output format, and fails when a review
 *    makes more than one list per kind plus pages (1 GET + Σ ceil(count / 200) over groups, identities, roles, role
 *    bindings) or takes 2 s or more. Then 50 bindings are made and the review is compared with the first
 *    (`--since`, text and Markdown), under the same limits.
 * 2. The organization of the access page at 3,000 and 30,000 objects (1,000 and 10,000 folders, each with its CI
 *    identity bound there, people at the top: test/commands/access-folders, written straight into the emulator's data
 *    file, which the API would take minutes to fill):
 *    - every output of `review` (text, JSON, CSV, Markdown; `--since` the JSON just written, as Markdown) and
 *      `what-can` of the owner (text, JSON), end to end with the reading: bytes and wall time, best of
 *      BENCH_PAGE_RUNS. Fails over 2 MB or 1.5 s (3,000 objects), 20 MB or 4 s (30,000);
 *    - the HTML page: its size, the time to build it (the review, then the page from it), and in Debian's chromium
 *      (test/e2e/access-page: puppeteer-core, the Performance API) the first paint, the tree drawn and the time to a
 *      filter's result (one identity; a name search), best of BENCH_PAGE_RUNS loads. Fails when the page is over
 *      2 MB (3,000) or 20 MB (30,000), or paint or filter take over 1 s or 3 s.
 *
 * Writes bench/results/access-review.json.
 *
 *   npx tsc -p tsconfig.build.json && TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/access-review.ts
 *
 * Env: BENCH_REVIEW_OBJECTS (3000), BENCH_REVIEW_LIMIT_MS (2000), BENCH_PAGE_FOLDERS (1000,10000; empty: skip the
 * page), BENCH_PAGE_RUNS (2).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../commands/access/cli";
import { reviewHtml } from "../commands/access/html";
import { readAccess } from "../commands/access/read";
import { review } from "../commands/access/review";
import { PlatformClient } from "../sdk";
import { folderOrgDataFile, pool } from "../test/commands/access-folders";
import { launchChromium, openPage, timedFilter } from "../test/e2e/access-page";
import { startCliEmulator } from "./cli-emulator";
import type { Capability } from "../sdk/schemas/capabilities";

const ROOT = join(__dirname, "..");
const OBJECTS = Number(process.env.BENCH_REVIEW_OBJECTS ?? 3000);
const LIMIT_MS = Number(process.env.BENCH_REVIEW_LIMIT_MS ?? 2000);
const PAGE = 200;
const hex16 = () => randomBytes(8).toString("hex");
const PAGE_FOLDERS = (process.env.BENCH_PAGE_FOLDERS ?? "1000,10000")
  .split(",")
  .filter((x) => x !== "")
  .map(Number);
const PAGE_RUNS = Number(process.env.BENCH_PAGE_RUNS ?? 2);
const MB = 1024 * 1024;
/** The page's limits by size: bytes, and ms to first paint and to a filter's result. */
const pageLimits = (folders: number) =>
  folders <= 1000 ? { bytes: 2 * MB, ms: 1000 } : { bytes: 20 * MB, ms: 3000 };
/** Each output's limits by size: bytes, and ms of the command end to end (reading included). */
const outputLimits = (folders: number) =>
  folders <= 1000 ? { bytes: 2 * MB, ms: 1500 } : { bytes: 20 * MB, ms: 4000 };

async function benchFormats(): Promise<{ result: unknown; failed: boolean }> {
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
    const caps: Capability[] = [
      "CAP_IAM_GROUPS_LIST",
      "CAP_REPO_LIST",
      "CAP_TAG_LIST",
      "CAP_IAM_ROLE_BINDINGS_CREATE",
    ];
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
    // `keep`: a file the output is also written to (the last run's), for a later run to read.
    const measure = async (format: string, args: string[], least = minimum, keep?: string) => {
      let best = { ms: Infinity, calls: 0, bytes: 0 };
      for (let run = 0; run < 2; run++) {
        await emulator.clearRequests();
        let bytes = 0;
        const kept: string[] = [];
        const started = process.hrtime.bigint();
        const code = await main(["review", org, ...args], {
          env,
          stdout: (t) => {
            bytes += t.length;
            if (keep !== undefined) kept.push(t);
          },
          stderr: () => undefined,
        });
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (code !== 0) throw new Error(`review ${format} exited ${code}`);
        if (format === "html") bytes = statSync(join(tmp, "review.html")).size;
        if (keep !== undefined) writeFileSync(keep, kept.join(""));
        const calls = (await emulator.requests()).filter((r) => !r.path.startsWith("/_emulator")).length;
        if (ms < best.ms) best = { ms, calls, bytes };
      }
      rows.push({ format, ...best, minimum: least, ms: Math.round(best.ms) });
    };
    const previous = join(tmp, "previous.json");
    await measure("json", ["--json"], minimum, previous);
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
    return { result, failed: bad.length > 0 };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    await emulator.stop();
  }
}

/** One output of a command at one size: bytes written to stdout, and wall ms end to end (best of the runs). */
interface OutputRow {
  output: string;
  bytes: number;
  ms: number;
}

interface PageRow {
  folders: number;
  objects: number;
  /** Every output but the page: review's text, JSON, CSV, Markdown, --since; what-can of the owner. */
  outputs: OutputRow[];
  bytes: number;
  /** `review --html` end to end (reading included), and its two steps alone on data already read. */
  commandMs: number;
  reviewMs: number;
  pageMs: number;
  calls: number;
  firstPaintMs: number;
  treeMs: number;
  identityFilterMs: number;
  searchMs: number;
  /** After choosing one identity, its row is on the first screen (1280 × 800). */
  rowOnFirstScreen: boolean;
}

/** ms of `f`, best of `runs`, with its last result. */
async function best<T>(runs: number, f: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  let ms = Infinity;
  let value: T | undefined;
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    value = await f();
    ms = Math.min(ms, Number(process.hrtime.bigint() - started) / 1e6);
  }
  return { ms: Math.round(ms), value: value as T };
}

/**
 * Every output but the page, at one size: each command end to end (reading included), its bytes and best time. The
 * review's JSON is kept in `previous` for `--since`.
 */
async function benchOutputs(
  env: Record<string, string>,
  org: string,
  owner: string,
  previous: string,
): Promise<OutputRow[]> {
  const rows: OutputRow[] = [];
  const measure = async (output: string, argv: string[], keep?: string) => {
    let bytes = 0;
    let kept: string[] = [];
    const timed = await best(PAGE_RUNS, async () => {
      bytes = 0;
      kept = [];
      const code = await main(argv, {
        env,
        stdout: (t) => {
          bytes += Buffer.byteLength(t);
          if (keep !== undefined) kept.push(t);
        },
        stderr: () => undefined,
      });
      if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}`);
    });
    if (keep !== undefined) writeFileSync(keep, kept.join(""));
    rows.push({ output, bytes, ms: timed.ms });
  };
  await measure("review, text", ["review", org]);
  await measure("review --json", ["review", org, "--json"], previous);
  await measure("review --csv", ["review", org, "--csv"]);
  await measure("review --markdown", ["review", org, "--markdown"]);
  await measure("review --since (JSON above) --markdown", ["review", org, "--since", previous, "--markdown"]);
  await measure("what-can <owner>, text", ["what-can", owner, "--in", org]);
  await measure("what-can <owner> --json", ["what-can", owner, "--in", org, "--json"]);
  return rows;
}

/** The page at one size: built, then loaded and filtered in chromium. */
async function benchPage(folders: number, tmp: string): Promise<PageRow> {
  const dataFile = join(tmp, `org-${folders}.json`);
  const made = await folderOrgDataFile(dataFile, folders);
  const emulator = await startCliEmulator(ROOT, ["--data", dataFile]);
  const chromium = await launchChromium();
  try {
    const env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token };
    const file = join(tmp, `review-${folders}.html`);
    await emulator.clearRequests();
    const command = await best(PAGE_RUNS, async () => {
      const code = await main(["review", made.org, "--html", file], {
        env,
        stdout: () => undefined,
        stderr: () => undefined,
      });
      if (code !== 0) throw new Error(`review --html exited ${code}`);
    });
    const calls =
      (await emulator.requests()).filter((r) => !r.path.startsWith("/_emulator")).length / PAGE_RUNS;
    const outputs = await benchOutputs(
      env,
      made.org,
      made.people[0]!.uid,
      join(tmp, `review-${folders}.json`),
    );
    const client = new PlatformClient({ apiUrl: emulator.url, token: emulator.token });
    const data = await readAccess(client, made.org);
    const reviewed = await best(PAGE_RUNS, () => review(data));
    const built = await best(PAGE_RUNS, () => reviewHtml(reviewed.value));
    const objects = data.groups.length + data.identities.length + data.roles.length + data.bindings.length;

    let load = { firstPaintMs: Infinity, treeMs: Infinity, identityFilterMs: Infinity, searchMs: Infinity };
    let rowOnFirstScreen = true;
    const ci = made.cis[Math.floor(folders / 2)]!;
    for (let run = 0; run < PAGE_RUNS; run++) {
      const opened = await openPage(chromium.browser, file);
      if (opened.requests.length !== 1 || opened.errors.length > 0)
        throw new Error(
          `the page requested ${opened.requests.join(", ")}; errors: ${opened.errors.join("; ")}`,
        );
      const identityFilterMs = await timedFilter(opened.page, "filter-identity", ci.uid);
      const box = await opened.page.$eval(`li.node[data-uid="${ci.folder}"] li.binding`, (row) =>
        JSON.stringify((row as unknown as { getBoundingClientRect(): unknown }).getBoundingClientRect()),
      );
      const { top, bottom } = JSON.parse(box) as { top: number; bottom: number };
      rowOnFirstScreen &&= top >= 0 && bottom <= 800;
      await timedFilter(opened.page, "filter-identity", "");
      const searchMs = await timedFilter(opened.page, "filter-search", "team-42");
      const min = (a: number, b: number) => Math.round(Math.min(a, b));
      load = {
        firstPaintMs: min(load.firstPaintMs, opened.firstPaintMs),
        treeMs: min(load.treeMs, opened.treeMs),
        identityFilterMs: min(load.identityFilterMs, identityFilterMs),
        searchMs: min(load.searchMs, searchMs),
      };
      await opened.page.close();
    }
    return {
      folders,
      objects,
      outputs,
      bytes: statSync(file).size,
      commandMs: command.ms,
      reviewMs: reviewed.ms,
      pageMs: built.ms,
      calls,
      ...load,
      rowOnFirstScreen,
    };
  } finally {
    await chromium.close();
    await emulator.stop();
  }
}

/** The page's and the other outputs' failures at their size, one line each. */
function pageFailures(row: PageRow): string[] {
  const limit = pageLimits(row.folders);
  const out: string[] = [];
  const outputLimit = outputLimits(row.folders);
  for (const o of row.outputs) {
    if (o.bytes > outputLimit.bytes) out.push(`${o.output}: ${o.bytes} bytes (limit ${outputLimit.bytes})`);
    if (o.ms > outputLimit.ms) out.push(`${o.output}: ${o.ms} ms (limit ${outputLimit.ms})`);
  }
  if (row.bytes > limit.bytes) out.push(`${row.bytes} bytes (limit ${limit.bytes})`);
  for (const [what, ms] of [
    ["first paint", row.firstPaintMs],
    ["tree drawn", row.treeMs],
    ["identity filter", row.identityFilterMs],
    ["search", row.searchMs],
  ] as const)
    if (!(ms <= limit.ms)) out.push(`${what} ${ms} ms (limit ${limit.ms})`);
  if (!row.rowOnFirstScreen) out.push("the chosen identity's row is not on the first screen");
  return out.map((line) => `bench: the page of ${row.folders} folders: ${line}`);
}

async function bench(): Promise<number> {
  const formats = await benchFormats();
  const tmp = mkdtempSync(join(tmpdir(), "bench-access-page-"));
  const page: PageRow[] = [];
  try {
    for (const folders of PAGE_FOLDERS) page.push(await benchPage(folders, tmp));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
  writeFileSync(
    join(ROOT, "bench", "results", "access-review.json"),
    `${JSON.stringify({ ...(formats.result as object), page }, null, 2)}\n`,
  );
  if (page.length > 0)
    console.log(
      "\n### every output at the page's sizes (end to end, reading included)\n\n" +
        "| objects | output | bytes | ms |\n| ---: | --- | ---: | ---: |\n" +
        page
          .flatMap((r) => r.outputs.map((o) => `| ${r.objects} | ${o.output} | ${o.bytes} | ${o.ms} |`))
          .join("\n"),
    );
  if (page.length > 0)
    console.log(
      "\n### the review's HTML page (review --html), in chromium\n\n" +
        "| objects | page bytes | review --html ms | review ms | page ms | first paint ms | tree ms | one identity ms | search ms |\n" +
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n" +
        page
          .map(
            (r) =>
              `| ${r.objects} | ${r.bytes} | ${r.commandMs} | ${r.reviewMs} | ${r.pageMs} | ${r.firstPaintMs} | ` +
              `${r.treeMs} | ${r.identityFilterMs} | ${r.searchMs} |`,
          )
          .join("\n"),
    );
  const failures = page.flatMap(pageFailures);
  for (const line of failures) console.error(line);
  return formats.failed || failures.length > 0 ? 1 : 0;
}

bench().then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
