/**
 * `platform-access least-privilege` under the real engine, both directions:
 *
 *   - enough: the role it prints for the quick start's stack (examples/quickstart, from that stack's exported state,
 *     plus --need for what its data sources read), created with the printed bindings for a root-level user bound to
 *     nothing else, lets that user's token run preview, up from empty, refresh (with --expect-no-changes: nothing
 *     the stack holds went out of sight) and destroy, leaving the organization as it was;
 *   - necessary: the access model says each capability of that role is needed by some step of the quick start's
 *     life (for every stack, not only this one: test/commands/least-privilege.property.test.ts; the emulator
 *     enforces the model: test/emulator/access-model.property.test.ts), and two samples show the real engine fail
 *     at the step the model names when one capability is taken out: one needed to bind the built-in viewer role (no
 *     escalation), which `up` hits, and one that only `destroy` needs. "Fails" means a command exits non-zero, or
 *     the lifecycle does not do its job: refresh changes the state (an object the stack holds became invisible, so
 *     refresh dropped it) or destroy leaves an object behind.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator";
import { main } from "../../commands/access/cli";
import { stackObjects, type LeastPrivilege, type StackObject } from "../../commands/access/least-privilege";
import type { Need } from "../../sdk/access-model";
import { lifecycleOperations, refusedOverLifecycle } from "../commands/stack-lifecycle-model";
import { installLocalPackage, PulumiStack, repoRoot } from "./harness";

jest.setTimeout(1_800_000);

const quickstartDir = "examples/quickstart";
const seedFile = path.join(repoRoot, quickstartDir, "seed.json");

describe("least-privilege under the real engine", () => {
  let emulator: Emulator;
  let tmp: string;
  const figures: string[] = [];

  /** The quick start's proposal, the operations of its life, and what its data sources read. */
  let quickstart: {
    lp: LeastPrivilege;
    operations: ReturnType<typeof lifecycleOperations>;
    dataSourceNeeds: Need[];
  };

  beforeAll(async () => {
    installLocalPackage(quickstartDir, { build: false });
    emulator = await startEmulator({ seed: seedFile });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "least-privilege-"));
    const org = emulator.orgUid;
    // A state does not record reads: what the data sources read is given with --need.
    const reads = [`CAP_REPO_LIST@${org}`, `CAP_ADVISORIES_LIST@${org}`];
    const { lp, objects } = await leastFor(".", reads);
    const dataSourceNeeds = reads.map((n) => {
      const [capability, group] = n.split("@") as [string, string];
      return { capability, group, reason: "a data source" };
    });
    // The roles the stack binds that it does not hold (the built-in viewer), read as least-privilege reads them.
    const granted = new Map<string, readonly string[]>();
    for (const o of objects)
      if (o.grantsRole !== undefined && !objects.some((r) => r.uid === o.grantsRole))
        granted.set(o.grantsRole, (await emulator.client.roles.get(o.grantsRole)).capabilities ?? []);
    quickstart = { lp, operations: lifecycleOperations(objects, (uid) => granted.get(uid)), dataSourceNeeds };
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

  /**
   * Deploys the program as the owner, exports its state, destroys it, and asks least-privilege about the state:
   * what it proposes, and the stack's objects as it read them.
   */
  async function leastFor(
    programDir: string,
    needs: string[],
  ): Promise<{ lp: LeastPrivilege; objects: StackObject[] }> {
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
      return { lp: JSON.parse(out.join("")) as LeastPrivilege, objects: stackObjects(text, file).objects };
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
    const { lp } = quickstart;
    expect(lp.grants.map((g) => g.group)).toEqual([emulator.orgUid]);
    expect(lp.roles).toHaveLength(1);
    // What the quick start does: folders, a workload identity, a custom role, bindings (one of viewer, so every
    // viewer capability: no escalation), and reads of repos and advisories.
    expect(lp.roles[0]!.capabilities).toEqual(
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
    figures.push(
      `quick start least privilege (${lp.roles[0]!.capabilities.length}): ${lp.roles[0]!.capabilities.join(" ")}`,
    );
    const user = await deployerWith(lp);
    const started = Date.now();
    expect(await lifecycle(".", user.token, user.uid)).toEqual({ failed: undefined, why: "" });
    figures.push(`quick start lifecycle as the deployer: ${Date.now() - started} ms`);
    expect(figures.join("\n")).toContain('"repoNames":["nginx","node","python"]');
  });

  /** The steps of the quick start's life the model says fail without `capability`, in the order they run. */
  function refusedWithout(capability: string): string[] {
    const { lp, operations, dataSourceNeeds } = quickstart;
    const role = lp.roles.find((r) => r.capabilities.includes(capability))!;
    return refusedOverLifecycle(lp, operations, dataSourceNeeds, { role: role.name, capability }).map(
      (r) => r.step,
    );
  }

  it("each capability of the quick start's role is needed: without any one, the model refuses a step", () => {
    const { lp, operations, dataSourceNeeds } = quickstart;
    expect(refusedOverLifecycle(lp, operations, dataSourceNeeds)).toEqual([]);
    const outcomes = lp.roles[0]!.capabilities.map(
      (capability) => `without ${capability}: ${refusedWithout(capability)[0] ?? "NOTHING REFUSED"}`,
    );
    figures.push(...outcomes);
    expect(outcomes.filter((o) => o.endsWith("NOTHING REFUSED"))).toEqual([]);
  });

  // Samples under the real engine: the step the model says is refused first is the step that fails.
  it.each([
    ["CAP_MANIFEST_LIST", "up"], // viewer's: binding viewer needs it (no escalation)
    ["CAP_IAM_GROUPS_DELETE", "destroy"],
  ])("without %s, the real engine fails at %s, as the model says", async (capability, step) => {
    expect(refusedWithout(capability)[0]).toBe(step);
    emulator.reset();
    const user = await deployerWith(quickstart.lp, capability);
    const outcome = await lifecycle(".", user.token, user.uid);
    figures.push(`without ${capability} under the engine: ${outcome.failed ?? "NOTHING FAILED"}`);
    expect(outcome.failed).toBe(step);
  });
});
