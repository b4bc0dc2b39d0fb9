/**
 * `platform-access least-privilege` under the real engine, both directions:
 *
 *   - enough: the role it prints for the quick start's stack (examples/quickstart, from that stack's exported state,
 *     plus --need for what its data sources read), created with the printed bindings for a root-level user bound to
 *     nothing else, lets that user's token run preview, up from empty, refresh (with --expect-no-changes: nothing
 *     the stack holds went out of sight) and destroy, leaving the organization as it was;
 *   - necessary: without any one of its capabilities, one of those fails: the full lifecycle of the quick start, one
 *     capability removed at a time, on a reset emulator each time (a lifecycle takes seconds). "Fails" means a
 *     command exits non-zero, or the lifecycle does not do its job: refresh changes the state (an object the stack
 *     holds became invisible, so refresh dropped it) or destroy leaves an object behind.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator";
import { main } from "../../commands/access/cli";
import type { LeastPrivilege } from "../../commands/access/least-privilege";
import { installLocalPackage, PulumiStack, repoRoot } from "./harness";

jest.setTimeout(1_800_000);

const quickstartDir = "examples/quickstart";
const seedFile = path.join(repoRoot, quickstartDir, "seed.json");

describe("least-privilege under the real engine", () => {
  let emulator: Emulator;
  let tmp: string;
  const figures: string[] = [];

  beforeAll(async () => {
    installLocalPackage(quickstartDir, { build: false });
    emulator = await startEmulator({ seed: seedFile });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "least-privilege-"));
  });
  afterAll(async () => {
    await emulator?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    if (figures.length > 0) console.info(figures.join("\n"));
  });

  const ownerEnv = () => ({ PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token });

  /** Everything in the organization that is not the deployer's (its user, role and bindings). */
  const contents = (deployer?: string) => {
    const s = emulator.snapshot();
    const keep = (o: { uid: string; fields: Record<string, unknown> }) =>
      o.fields["identityUid"] !== deployer && !String(o.fields["name"] ?? "").startsWith("stack-deployer");
    return {
      groups: s.groups.map((o) => o.uid),
      identities: s.identities.filter((o) => o.uid.includes("/")).map((o) => o.uid),
      roles: s.roles.filter(keep).map((o) => o.uid),
      roleBindings: s.roleBindings.filter(keep).map((o) => o.uid),
    };
  };

  /** Deploys the program as the owner, exports its state, destroys it, and asks least-privilege about the state. */
  async function leastFor(programDir: string, needs: string[]): Promise<LeastPrivilege> {
    const stack = await PulumiStack.create({
      programDir,
      config: { organization: emulator.orgUid },
      env: ownerEnv(),
    });
    try {
      await stack.up();
      const { text } = await stack.exportState();
      await stack.destroy();
      const file = path.join(tmp, `${path.basename(programDir)}.json`);
      fs.writeFileSync(file, text);
      const out: string[] = [];
      const err: string[] = [];
      const args = [
        "least-privilege",
        "--state",
        file,
        "--format",
        "json",
        ...needs.flatMap((n) => ["--need", n]),
      ];
      const io = {
        env: ownerEnv(),
        stdout: (t: string) => void out.push(t),
        stderr: (l: string) => void err.push(l),
      };
      expect([await main(args, io), err]).toEqual([0, []]);
      return JSON.parse(out.join("")) as LeastPrivilege;
    } finally {
      await stack.cleanup();
    }
  }

  /** A root-level user bound only to the printed roles (as printed: each role where it says, bound where it says). */
  async function deployerWith(lp: LeastPrivilege, without?: string): Promise<{ uid: string; token: string }> {
    const user = emulator.createUser("deployer");
    for (const role of lp.roles) {
      const made = await emulator.client.roles.create(role.parentUid, {
        name: role.name,
        capabilities: role.capabilities.filter((c) => c !== without),
      });
      for (const group of role.bindOn)
        await emulator.client.roleBindings.create(group, { identityUid: user.uid, roleUid: made.uid });
    }
    return user;
  }

  /** preview, up, refresh (expecting no change), destroy with the deployer's token; what failed, if anything. */
  async function lifecycle(programDir: string, token: string, deployer: string) {
    const before = contents(deployer);
    const env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: token };
    const stack = await PulumiStack.create({ programDir, config: { organization: emulator.orgUid }, env });
    try {
      const steps: [string, string[]][] = [
        ["preview", ["preview"]],
        ["up", ["up", "--yes", "--skip-preview"]],
        ["refresh", ["refresh", "--yes", "--skip-preview", "--expect-no-changes"]],
        ["destroy", ["destroy", "--yes", "--skip-preview"]],
      ];
      for (const [name, args] of steps) {
        const result = await stack.run(args, { allowFailure: true });
        if (result.exitCode !== 0)
          return {
            failed: name,
            why: `${result.stdout}\n${result.stderr}`.trim().split("\n").slice(-6).join("\n"),
          };
        if (name === "up" && programDir === ".")
          figures.push(`quick start outputs: ${JSON.stringify(await stack.outputs())}`);
      }
      const after = contents(deployer);
      if (JSON.stringify(after) !== JSON.stringify(before))
        return { failed: "destroy (left objects behind)", why: "" };
      return { failed: undefined, why: "" };
    } finally {
      await stack.cleanup();
    }
  }

  it("the quick start's role is enough: preview, up, refresh and destroy succeed with it alone", async () => {
    const org = emulator.orgUid;
    // getRepos and getAdvisories read the organization's repos and advisories; a state does not record reads.
    const lp = await leastFor(".", [`CAP_REPO_LIST@${org}`, `CAP_ADVISORIES_LIST@${org}`]);
    expect(lp.grants.map((g) => g.group)).toEqual([org]);
    expect(lp.roles).toHaveLength(1);
    figures.push(
      `quick start least privilege (${lp.roles[0]!.capabilities.length}): ${lp.roles[0]!.capabilities.join(" ")}`,
    );
    const user = await deployerWith(lp);
    const started = Date.now();
    expect(await lifecycle(".", user.token, user.uid)).toEqual({ failed: undefined, why: "" });
    figures.push(`quick start lifecycle as the deployer: ${Date.now() - started} ms`);
    expect(figures.join("\n")).toContain('"repoNames":["nginx","node","python"]');
  });

  it("each capability of the quick start's role is needed: without any one, one step fails", async () => {
    const org = emulator.orgUid;
    const lp = await leastFor(".", [`CAP_REPO_LIST@${org}`, `CAP_ADVISORIES_LIST@${org}`]);
    const capabilities = lp.roles.flatMap((r) => r.capabilities);
    // What the quick start does: folders, a workload identity, a custom role, bindings (one of viewer, so every
    // viewer capability: no escalation), and reads of repos and advisories.
    expect(capabilities).toEqual(
      expect.arrayContaining([
        "CAP_IAM_GROUPS_CREATE",
        "CAP_IAM_GROUPS_DELETE",
        "CAP_IAM_IDENTITY_CREATE",
        "CAP_IAM_ROLES_CREATE",
        "CAP_IAM_ROLE_BINDINGS_CREATE",
        "CAP_IAM_ROLE_BINDINGS_DELETE",
        "CAP_MANIFEST_LIST",
        "CAP_ADVISORIES_LIST",
      ]),
    );
    const outcomes: string[] = [];
    for (const capability of capabilities) {
      emulator.reset();
      const user = await deployerWith(lp, capability);
      const outcome = await lifecycle(".", user.token, user.uid);
      outcomes.push(`without ${capability}: ${outcome.failed ?? "NOTHING FAILED"}`);
    }
    figures.push(...outcomes);
    expect(outcomes.filter((o) => o.endsWith("NOTHING FAILED"))).toEqual([]);
  });
});
