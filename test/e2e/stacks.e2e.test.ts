/**
 * Many stacks on one shared backend under the real engine: the DIY backend on PostgreSQL (a server this test starts
 * and stops, test/e2e/postgres.ts) and a file backend. Three stacks manage parts of one organization (an in-process
 * emulator): the platform's (TypeScript, the dynamic provider: folders, a role, its CI, a GroupAccess on team-a),
 * team A's (YAML, the plugin: a robot and its RoleBinding on team-a, inside the platform's GroupAccess) and team B's
 * (Python, the plugin: a robot and its binding; under a passphrase the report never has), beside another project's
 * stack with nothing of this package. Objects made by hand beside them. The stacks are made and run on PostgreSQL, then copied into the file backend with the engine's own
 * `stack export` and `stack import`, so both backends hold the same stacks over the same organization.
 *
 * On each backend, `platform-import report --backend URL`, run with no passphrase at all (so no stack's secrets can
 * be opened), names exactly the hand-made objects as unmanaged and every other object with its stack and resource;
 * reports team A's binding as in the platform's GroupAccess scope (exit code 3) while the binding still exists,
 * before the platform's next up (whose preview, after a refresh, shows it would delete it); reads every stack with
 * one `stack ls` and one `stack export` each. `platform-access review --backend URL` names the managing stack of
 * each binding through which a grant is held.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { startEmulator, type Emulator } from "../../emulator";
import { BUILTIN_ROLES } from "../../emulator/access";
import type { Report } from "../../commands/import/report";
import type { Review } from "../../commands/access/review";
import { PulumiStack, engineBinDir, installLocalPackage, repoRoot } from "./harness";
import { buildPluginTarball, installPlugin } from "./plugin-tarball";
import { startPostgres, type Postgres } from "./postgres";
import { pythonEnvironment } from "./python-env";

jest.setTimeout(900_000);

const VIEWER = BUILTIN_ROLES.find((r) => r.name === "viewer")!.uid;
const TEAM_B_PASSPHRASE = "team-b-has-its-own-passphrase";

const TEAM_A_PROGRAM = `# Team A's stack: its CI robot and what it may do on the team's folder.
name: team-a
runtime: yaml
config:
  teamUid:
    type: string
  roleUid:
    type: string
resources:
  a-ci:
    type: platform:iam:Identity
    properties:
      parentUid: \${teamUid}
      name: a-ci
      claimMatch:
        issuer: https://token.actions.githubusercontent.com
        subject: repo:acme/team-a:ref:refs/heads/main
  a-ci-deploys:
    type: platform:iam:RoleBinding
    properties:
      groupUid: \${teamUid}
      identityUid: \${a-ci.uid}
      roleUid: \${roleUid}
`;

const TEAM_B_PROGRAM = `"""Team B's stack: its CI robot and what it may do on the team's folder."""
import pulumi
import pulumi_platform_native as platform

config = pulumi.Config()
team = config.require("teamUid")
b_ci = platform.iam.Identity(
    "b-ci",
    parent_uid=team,
    name="b-ci",
    claim_match=platform.iam.ClaimMatchArgs(
        issuer="https://token.actions.githubusercontent.com",
        subject="repo:acme/team-b:ref:refs/heads/main",
    ),
)
platform.iam.RoleBinding("b-ci-deploys", group_uid=team, identity_uid=b_ci.uid, role_uid=config.require("roleUid"))
`;

/** Runs one of the package's commands as a user would, through the offline engine environment; never throws. */
function command(cli: string, args: string[], env: Record<string, string>) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "platform-stacks-cli-"));
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...env,
    PULUMI_PLATFORM_ENGINE_BIN: engineBinDir(),
    PULUMI_PLATFORM_STATE_DIR: scratch,
    // No passphrase: the commands must not need one to read any stack.
    PULUMI_CONFIG_PASSPHRASE: "",
  };
  delete childEnv["PULUMI_BACKEND_URL"];
  delete childEnv["PULUMI_CONFIG_PASSPHRASE_FILE"];
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(
      "bash",
      [
        path.join(repoRoot, "scripts", "pulumi-env.sh"),
        "node",
        path.join(repoRoot, "dist", "commands", cli, "cli.js"),
        ...args,
      ],
      { cwd: scratch, env: childEnv, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("close", (code) => {
      fs.rmSync(scratch, { recursive: true, force: true });
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

describe("many stacks on a shared backend: who manages what, and which stacks fight", () => {
  let emulator: Emulator;
  let postgres: Postgres;
  let fileBackend: string;
  const dirs: string[] = [];
  const stacks: PulumiStack[] = [];
  let platform: PulumiStack;
  let teamA: PulumiStack;
  let teamB: PulumiStack;
  let outputs: Record<string, string>;
  /** What was made by hand. */
  let byHand: { shadow: string; robot: string; binding: string; owner: string };

  const platformDir = path.join(repoRoot, "test", "e2e", "fixtures", "stacks-platform");
  const program = (name: string, files: Record<string, string>) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `platform-stacks-${name}-`));
    for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
    dirs.push(dir);
    return dir;
  };

  beforeAll(async () => {
    emulator = await startEmulator();
    postgres = startPostgres();
    fileBackend = `file://${program("file-backend", {})}`;
    const tarball = buildPluginTarball();
    installLocalPackage(platformDir, { build: false });
    const provider = {
      config: { "platform:apiUrl": emulator.url },
      secrets: { "platform:token": emulator.token },
    };
    platform = await PulumiStack.create({
      programDir: platformDir,
      backendUrl: postgres.url,
      config: { organization: emulator.orgUid, ...provider.config },
      secrets: provider.secrets,
      env: { PULUMI_NODEJS_TRANSPILE_ONLY: "true" },
    });
    stacks.push(platform);
    teamA = await PulumiStack.create({
      programDir: program("team-a", { "Pulumi.yaml": TEAM_A_PROGRAM }),
      backendUrl: postgres.url,
      ...provider,
    });
    stacks.push(teamA);
    teamB = await PulumiStack.create({
      programDir: program("team-b", {
        "Pulumi.yaml": "name: team-b\nruntime: python\n",
        "__main__.py": TEAM_B_PROGRAM,
      }),
      backendUrl: postgres.url,
      passphrase: TEAM_B_PASSPHRASE,
      env: { VIRTUAL_ENV: pythonEnvironment() },
      ...provider,
    });
    stacks.push(teamB);
    for (const stack of [teamA, teamB]) await installPlugin(stack, tarball);
    // Another project's stack, with nothing of this package: read, and no part of the report. It makes four stacks,
    // as many as the engine's PostgreSQL store has connections on two cores (commands/stacks.ts, engineEnv).
    stacks.push(
      await PulumiStack.create({
        programDir: program("unrelated", { "Pulumi.yaml": "name: unrelated\nruntime: yaml\n" }),
        backendUrl: postgres.url,
      }),
    );
  });

  afterAll(async () => {
    for (const stack of stacks) await stack.cleanup();
    postgres?.stop();
    await emulator?.close();
    fs.rmSync(path.join(platformDir, "node_modules"), { recursive: true, force: true });
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  test("the three stacks come up on PostgreSQL, and objects are made by hand beside them", async () => {
    await platform.up();
    outputs = (await platform.outputs()) as Record<string, string>;
    for (const stack of [teamA, teamB]) {
      await stack.setConfig("teamUid", stack === teamA ? outputs["teamAUid"]! : outputs["teamBUid"]!);
      await stack.setConfig("roleUid", outputs["deployerRoleUid"]!);
      await stack.up();
    }
    const c = emulator.client;
    const robot = await c.identities.create(outputs["teamBUid"]!, {
      name: "by-hand",
      claimMatch: { issuer: "https://issuer.example", subject: "by-hand" },
    });
    byHand = {
      shadow: (await c.groups.create(emulator.orgUid, { name: "shadow" })).uid,
      robot: robot.uid,
      binding: (
        await c.roleBindings.create(outputs["teamBUid"]!, { identityUid: robot.uid, roleUid: VIEWER })
      ).uid,
      // The organization's owner binding, made with the organization.
      owner: (await c.roleBindings.list({ childrenOf: emulator.orgUid })).items[0]!.uid,
    };
  });

  test("the same stacks are copied into a file backend by the engine (stack export, stack import)", async () => {
    for (const stack of stacks) {
      const { text } = await stack.exportState();
      // Team B's state holds secrets (its provider's token) under a passphrase the report never has.
      if (stack === teamB) expect(text).toContain('"ciphertext"');
      const file = path.join(stack.stateDir, "copy.json");
      fs.writeFileSync(file, text);
      const env = { PULUMI_BACKEND_URL: fileBackend };
      await stack.run(["stack", "init"], { env });
      await stack.run(["stack", "import", "--file", file], { env });
    }
  });

  /** Every object's managers, as `stack resource-name`, from the report's JSON. */
  const managers = (r: Report) =>
    new Map(
      r.managed.map((m) => [
        m.uid,
        m.managedBy.map((b) => `${b.stack.split("/")[1]} ${b.urn.split("::").pop()}`),
      ]),
    );

  describe.each([
    ["PostgreSQL", () => postgres.url],
    ["file", () => fileBackend],
  ])("on the %s backend", (_backend, url) => {
    const env = () => ({ PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token });

    test("the report names each object's stack, the hand-made ones unmanaged, and the fight (exit 3)", async () => {
      const run = await command("import", ["report", emulator.orgUid, "--backend", url(), "--json"], env());
      expect(run.stderr).toMatch(/: 4 stacks read, 0 not \(5 engine invocations, \d+ ms\)/);
      const report = JSON.parse(run.stdout) as Report;
      expect(report.states.map((s) => s.split("/")[1]).sort()).toEqual([
        "platform",
        "team-a",
        "team-b",
        "unrelated",
      ]);
      expect(report.unreadable).toEqual([]);
      expect(report.unmanaged.map((u) => u.uid).sort()).toEqual(Object.values(byHand).sort());

      const c = emulator.client;
      const byName = async <T extends { uid: string; name: string }>(
        list: AsyncIterable<T>,
        name: string,
      ) => {
        for await (const item of list) if (item.name === name) return item.uid;
        throw new Error(`no ${name}`);
      };
      const org = emulator.orgUid;
      const identity = (name: string) =>
        byName(c.identities.list({ descendantsOf: org, pageSize: 200 }), name);
      const group = (name: string) => byName(c.groups.list({ descendantsOf: org, pageSize: 200 }), name);
      const bindingOf = async (identityUid: string) =>
        (await c.roleBindings.list({ identity: identityUid, pageSize: 200 })).items.map((b) => b.uid);
      const [aCi, bCi, platformCi] = [
        await identity("a-ci"),
        await identity("b-ci"),
        await identity("platform-ci"),
      ];
      const [aDeploys] = await bindingOf(aCi);
      const [bDeploys] = await bindingOf(bCi);
      const [platformViews] = await bindingOf(platformCi);
      expect(managers(report)).toEqual(
        new Map([
          [await group("teams"), ["platform teams"]],
          [outputs["teamAUid"], ["platform team-a"]],
          [outputs["teamBUid"], ["platform team-b"]],
          [outputs["deployerRoleUid"], ["platform deployer"]],
          [platformCi, ["platform platform-ci"]],
          [platformViews, ["platform team-a-access"]],
          [aCi, ["team-a a-ci"]],
          [aDeploys, ["team-a a-ci-deploys", "platform team-a-access"]],
          [bCi, ["team-b b-ci"]],
          [bDeploys, ["team-b b-ci-deploys"]],
        ]),
      );
      // Team A's binding lies in the platform's GroupAccess scope: reported, and still there.
      expect(report.conflicts).toEqual([
        expect.objectContaining({
          conflict: "binding-in-scope",
          uid: aDeploys,
          resources: [
            expect.objectContaining({
              urn: expect.stringMatching(/::platform:iam:RoleBinding::a-ci-deploys$/),
            }),
            expect.objectContaining({
              urn: expect.stringMatching(/::pulumi-nodejs:dynamic\/iam:GroupAccess::team-a-access$/),
              scope: { kind: "group", groupUid: outputs["teamAUid"], subtree: false },
            }),
          ],
        }),
      ]);
      expect(run.code).toBe(3);
      await c.roleBindings.get(aDeploys!);
      expect(run.stdout + run.stderr).not.toContain(emulator.token);
    });

    test("the report as text: the conflict first, each stack with what it manages", async () => {
      const run = await command("import", ["report", emulator.orgUid, "--backend", url()], env());
      expect(run.code).toBe(3);
      expect(run.stdout).toMatch(/against 4 stacks of .*: 4 unmanaged, 0 managed but gone, 1 conflict\n/);
      expect(run.stdout).toMatch(
        /conflicts \(1\):\n {2}role binding workload identity a-ci holds role deployer on folder team-a \(.*\): declared by organization\/team-a\/.*: a-ci-deploys \(RoleBinding\), and in the scope of organization\/platform\/.*: team-a-access \(GroupAccess\)/,
      );
      expect(run.stdout).toMatch(
        /\n {2}organization\/team-b\/e2e-\w+ \(2\):\n {4}identity {2}\S+ {2}b-ci in folder team-b {2}\[b-ci, Identity\]\n/,
      );
    });

    test("the review names the stack managing each binding, on the binding", async () => {
      const run = await command("access", ["review", emulator.orgUid, "--backend", url(), "--json"], env());
      expect(run.code).toBe(0);
      const review = JSON.parse(run.stdout) as Review;
      // Each binding says what manages it, once, on the binding.
      const by = new Map(
        review.bindings.map((b) => [b.uid, b.managedBy!.map((m) => m.stack.split("/")[1]).sort()]),
      );
      const named = (name: string) => review.identities.find((i) => i.name === name)!;
      const bindingsOf = (name: string) =>
        review.bindings.filter((b) => b.identity === named(name).uid).map((b) => by.get(b.uid));
      expect(bindingsOf("a-ci")).toEqual([["platform", "team-a"]]);
      expect(bindingsOf("b-ci")).toEqual([["team-b"]]);
      expect(named("by-hand")).toMatchObject({ unmanaged: true, managedBy: [] });
      expect(bindingsOf("by-hand")).toEqual([[]]);
    });
  });

  test("the platform's next up would delete team A's binding: the conflict was real", async () => {
    // The GroupAccess sees team A's binding as drift in its scope: what its next up removes.
    const aCi = (await emulator.client.identities.list({ childrenOf: outputs["teamAUid"]! })).items[0]!.uid;
    const refresh = await platform.run(["refresh", "--preview-only", "--diff"]);
    expect(refresh.stdout).toContain(aCi);
    expect(refresh.stdout).toMatch(/team-a-access/);
  });
});
