/**
 * Reviews over time under the real engine: the quick start is brought up, its organization reviewed
 * (`platform-access review --json`, the built command as a scheduled job runs it), and then changed outside the
 * stack, through the API, as a person would in the console: the stack's CI identity is made editor of the
 * engineering folder. The next `review --since` reports that change by name, privileged first, and
 * `--fail-on-new-privileged` exits 2 on it, while a review with no change in between exits 0.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { BUILTIN_ROLES, startEmulator, type Emulator } from "../../emulator";
import type { Review } from "../../commands/access/review";
import { isPrivileged } from "../../sdk/access-model";
import { tearDown, installLocalPackage, PulumiStack, repoRoot } from "./harness";

jest.setTimeout(600_000);

const editor = BUILTIN_ROLES.find((r) => r.name === "editor")!;
const cli = path.join(repoRoot, "dist", "commands", "access", "cli.js");

describe("platform-access review --since around a change made outside the stack", () => {
  let emulator: Emulator;
  let stack: PulumiStack;
  let tmp: string;
  let outputs: Record<string, unknown>;
  let first: string;

  /** The built command, as a scheduled job runs it: its exit code, stdout and stderr. */
  const access = (args: string[]) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [cli, ...args], {
        env: { ...process.env, PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token },
      });
      let out = "";
      let err = "";
      child.stdout.on("data", (c: Buffer) => void (out += c.toString("utf8")));
      child.stderr.on("data", (c: Buffer) => void (err += c.toString("utf8")));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, out, err }));
    });

  beforeAll(async () => {
    if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
    installLocalPackage("examples/quickstart", { build: false });
    emulator = await startEmulator({ seed: path.join(repoRoot, "examples", "quickstart", "seed.json") });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "access-since-"));
    stack = await PulumiStack.create({
      programDir: ".", // the root Pulumi.yaml; its `main` is examples/quickstart
      config: { organization: emulator.orgUid, "platform:apiUrl": emulator.url },
      secrets: { "platform:token": emulator.token },
    });
    await stack.up();
    outputs = await stack.outputs();
    const review = await access(["review", emulator.orgUid, "--json"]);
    expect(review.code).toBe(0);
    first = path.join(tmp, "first.json");
    fs.writeFileSync(first, review.out);
  });

  afterAll(async () => {
    await tearDown(stack, emulator);
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("a review with no change in between reports none, and --fail-on-new-privileged passes", async () => {
    const again = await access(["review", emulator.orgUid, "--since", first, "--fail-on-new-privileged"]);
    expect([again.code, again.err]).toEqual([0, expect.not.stringContaining("new privileged")]);
    expect(again.out).toMatch(
      /^changes since the review read \S+ as user demo-user: 0 changes of access \(0 privileged\), 0 identities new, 0 gone, 0 groups new, 0 gone, 0 roles changed$/m,
    );
  });

  it("reports the change made outside the stack by name, and --fail-on-new-privileged exits 2", async () => {
    const engineering = String(outputs["engineeringUid"]);
    const ci = String(outputs["ciIdentityUid"]);
    // In the console, someone makes CI an editor of engineering.
    const binding = await emulator.client.roleBindings.create(engineering, {
      identityUid: ci,
      roleUid: editor.uid,
    });
    try {
      const json = await access(["review", emulator.orgUid, "--since", first, "--json"]);
      expect(json.code).toBe(0);
      const changes = (JSON.parse(json.out) as Review).changes!;
      expect(changes.access.map((a) => [a.identityName, a.groupName, a.privileged])).toEqual([
        ["github-actions-deployer", "engineering", true],
      ]);
      const [change] = changes.access;
      // What editor adds to what the stack's deployer role already gave CI there, through the new binding.
      expect(change!.gained).toEqual(
        editor.capabilities.filter(
          (c) => !["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", "CAP_TAG_LIST"].includes(c),
        ),
      );
      expect(change!.through).toEqual([
        expect.objectContaining({
          change: "gained",
          binding: binding.uid,
          roleName: "editor",
          boundOnName: "engineering",
        }),
      ]);

      const job = await access(["review", emulator.orgUid, "--since", first, "--fail-on-new-privileged"]);
      expect(job.code).toBe(2);
      const privileged = change!.gained.filter(isPrivileged).join("\\* .*");
      expect(job.out).toMatch(
        new RegExp(
          `^ {4}workload identity github-actions-deployer on folder engineering: gains .*${privileged}\\* .*through built-in role editor bound on folder engineering$`,
          "m",
        ),
      );
      expect(job.err).toMatch(
        /^new privileged: workload identity github-actions-deployer on folder engineering: gains /m,
      );
      // Named by name: no uid where no two share a name.
      const section = job.out.slice(0, job.out.indexOf("\nidentities ("));
      for (const uid of [emulator.orgUid, engineering, ci, binding.uid]) expect(section).not.toContain(uid);
    } finally {
      await emulator.client.roleBindings.delete(binding.uid);
    }
  });
});
