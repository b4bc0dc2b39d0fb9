/**
 * What a preview says about access, under the real engine, in TypeScript (the dynamic package) and YAML (the native
 * plugin), against an in-process emulator (docs/guide.md, "What a preview says about access", "Preflight"):
 *   - the quick start's `up` (examples/quickstart, examples/yaml) prints a named line for each of its bindings,
 *     the one to the custom role `deployer` it creates in the same update included, and no uid where a name is
 *     known;
 *   - adding a capability to a custom role bound to two identities prints two gain lines, each naming its
 *     identity (by name), the capability and the group;
 *   - the program with a new group, run with the token of an identity that holds only viewer on the organization,
 *     fails at preview with one line naming CAP_IAM_GROUPS_CREATE and the group, and nothing is written (preview
 *     nor up);
 *   - the same program run as the owner passes and applies.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { startEmulator, type Emulator } from "../../emulator";
import { tearDown, installLocalPackage, PulumiStack, repoRoot } from "./harness";
import { buildPluginTarball, installPlugin } from "./plugin-tarball";

jest.setTimeout(900_000);

/** The access lines of a command's output, each once, from "access: " on. */
function accessLines(result: { stdout: string; stderr: string }): string[] {
  const lines = `${result.stdout}\n${result.stderr}`.split("\n").filter((l) => l.includes("access: "));
  return [...new Set(lines.map((l) => l.slice(l.indexOf("access: ")).trimEnd()))];
}

/** Every uid a stack's outputs hold (strings and lists of them). */
function uidsIn(outputs: Record<string, unknown>): string[] {
  return Object.values(outputs)
    .flatMap((value) => (Array.isArray(value) ? value : [value]))
    .filter(
      (value): value is string => typeof value === "string" && /^[0-9a-f]{40}(\/[0-9a-f]{16})*$/.test(value),
    );
}

describe.each([
  { front: "typescript (dynamic)", example: "examples/quickstart", plugin: false },
  { front: "yaml (native plugin)", example: "examples/yaml", plugin: true },
])("the quick start's up, $front", ({ example, plugin }) => {
  let emulator: Emulator;
  let stack: PulumiStack;
  let programDir: string;

  beforeAll(async () => {
    if (plugin) {
      programDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-access-quickstart-"));
      fs.cpSync(path.join(repoRoot, example), programDir, { recursive: true });
    } else {
      installLocalPackage(path.join(repoRoot, example), { build: false });
      // The root Pulumi.yaml is the quick start's project; its `main` is examples/quickstart.
      programDir = repoRoot;
    }
    emulator = await startEmulator({ seed: path.join(repoRoot, "examples/quickstart/seed.json") });
    stack = await PulumiStack.create({
      programDir,
      config: { organization: emulator.orgUid, "platform:apiUrl": emulator.url },
      secrets: { "platform:token": emulator.token },
    });
    if (plugin) await installPlugin(stack, buildPluginTarball());
  });

  afterAll(async () => {
    await tearDown(stack, emulator);
    if (plugin) fs.rmSync(programDir, { recursive: true, force: true });
  });

  test("names the binding to the role it creates in the same update, and every other change of access", async () => {
    // `up` as a user runs it: a preview, then the update in a new provider process.
    const up = await stack.run(["up", "--yes"]);
    const lines = accessLines(up);
    const label = (type: string, name: string) => `platform:iam:${type}${plugin ? ` "${name}"` : ""}`;
    const escaped = (text: string) => text.replace(/[()\[\]."*+?^$|\\]/g, "\\$&");
    // The custom role, the identity and the folder are all created by this update: named all the same.
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          // A new binding gives the whole role: said by its name, and, as the update makes the role, with what it
          // holds (the quick start's deployer).
          "^access: workload identity github-actions-deployer becomes role deployer " +
            "\\(3 capabilities: CAP_IAM_GROUPS_LIST, CAP_REPO_LIST, CAP_TAG_LIST\\) " +
            "on folder engineering( and the 1 folder under it)? " +
            `\\(${escaped(label("RoleBinding", "ci-deploys-engineering"))}\\)$`,
        ),
      ),
    );
    // The built-in viewer, on the other folder (the YAML example binds it on team-a, and through a GroupAccess).
    const viewerOn = plugin
      ? [
          ["team-a", label("RoleBinding", "ci-views-team-a")],
          ["operations", label("GroupAccess", "operations-access")],
        ]
      : [["operations", label("RoleBinding", "ci-views-operations")]];
    for (const [folder, resource] of viewerOn)
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(
            // The whole of viewer, or (under the folder where deployer is bound) the part deployer does not give.
            `^access: workload identity github-actions-deployer (becomes built-in role viewer \\(11 capabilities\\) ` +
              `on folder ${folder}|gains CAP_[A-Z_, ]+ on folder ${folder}, through built-in role viewer) ` +
              `\\(${escaped(resource!)}\\)$`,
          ),
        ),
      );
    expect(lines).toHaveLength(1 + viewerOn.length);
    // No uid where a name is known: every object a line names was made or read by this update.
    const uids = [emulator.orgUid, ...uidsIn(await stack.outputs())];
    expect(uids.length).toBeGreaterThan(4);
    for (const line of lines) for (const uid of uids) expect(line).not.toContain(uid);
  });
});

describe.each([
  {
    front: "typescript (dynamic)",
    fixture: "test/e2e/fixtures/access-preview",
    program: "index.ts",
    group: undefined,
  },
  {
    front: "yaml (native plugin)",
    fixture: "test/e2e/fixtures/access-preview-yaml",
    program: "Pulumi.yaml",
    group: `  team:\n    type: platform:iam:Group\n    properties:\n      parentUid: \${organization}\n      name: team\n`,
  },
])("access review at preview, $front", ({ fixture, program, group }) => {
  let emulator: Emulator;
  let stack: PulumiStack;
  let programDir: string;
  let alice: { uid: string };
  let bob: { uid: string };

  const writes = () => emulator.requestLog().filter((r) => r.method !== "GET" && r.path.startsWith("/iam/"));

  beforeAll(async () => {
    // The TypeScript program runs in place (its package resolves from the repo); the YAML one in a copy it edits.
    if (program === "index.ts") {
      programDir = path.join(repoRoot, fixture);
      installLocalPackage(programDir);
    } else {
      programDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-access-preview-"));
      fs.cpSync(path.join(repoRoot, fixture), programDir, { recursive: true });
    }
    emulator = await startEmulator();
    alice = emulator.createUser("alice");
    bob = emulator.createUser("bob");
    stack = await PulumiStack.create({
      programDir,
      config: {
        organization: emulator.orgUid,
        "platform:apiUrl": emulator.url,
        caps: "CAP_REPO_LIST",
        alice: alice.uid,
        bob: bob.uid,
      },
      secrets: { "platform:token": emulator.token },
    });
    if (program === "Pulumi.yaml") await installPlugin(stack, buildPluginTarball());
    await stack.up();
  });

  afterAll(async () => {
    await tearDown(stack, emulator);
    if (program !== "index.ts") fs.rmSync(programDir, { recursive: true, force: true });
  });

  test("a capability added to a role bound to two identities: two gain lines", async () => {
    await stack.setConfig("caps", "CAP_REPO_LIST,CAP_IAM_ROLE_BINDINGS_CREATE");
    const preview = await stack.preview({ expectNoChanges: false });
    const gains = accessLines(preview).filter((l) => l.includes(" gains "));
    expect(gains).toHaveLength(2);
    // Each by name (their bindings name them), none by uid.
    for (const who of ["alice", "bob"])
      expect(gains.filter((l) => l.startsWith(`access: user ${who} `))).toEqual([
        expect.stringMatching(
          /gains CAP_IAM_ROLE_BINDINGS_CREATE \(privileged!\) on organization demo-org, through role deployer \(/,
        ),
      ]);
    for (const uid of [alice.uid, bob.uid, emulator.orgUid]) expect(gains.join("\n")).not.toContain(uid);
    await stack.up();
    await stack.setConfig("caps", "CAP_REPO_LIST");
    await stack.up();
  });

  test("run as a viewer, a new group fails at preview, one line, no write; as the owner it applies", async () => {
    if (group === undefined) await stack.setConfig("team", "yes");
    else fs.appendFileSync(path.join(programDir, program), group);
    const viewer = emulator.createUser("viewer-only");
    const viewerRole = (await emulator.client.roles.list({ name: "viewer" })).items[0]!;
    await emulator.client.roleBindings.create(emulator.orgUid, {
      identityUid: viewer.uid,
      roleUid: viewerRole.uid,
    });
    await stack.setConfig("platform:token", viewer.token, { secret: true });
    emulator.clearRequestLog();
    const preview = await stack.preview({ expectNoChanges: false, allowFailure: true });
    expect(preview.exitCode).not.toBe(0);
    const output = `${preview.stdout}\n${preview.stderr}`;
    const refusals = [
      ...new Set(
        output
          .split("\n")
          .filter((l) => l.includes("needs CAP_"))
          .map((l) => l.slice(l.indexOf("needs CAP_"))),
      ),
    ];
    expect(refusals).toEqual([
      expect.stringMatching(
        /^needs CAP_IAM_GROUPS_CREATE on organization demo-org, which user viewer-only \(the identity this provider runs as\) lacks there; built-in role editor grants it/,
      ),
    ]);
    const up = await stack.run(["up", "--yes"], { allowFailure: true });
    expect(up.exitCode).not.toBe(0);
    expect(writes()).toEqual([]);

    await stack.setConfig("platform:token", emulator.token, { secret: true });
    await stack.run(["up", "--yes"]);
    const groups = await emulator.client.groups.list({ childrenOf: emulator.orgUid, name: "team" });
    expect(groups.items.map((g) => g.name)).toEqual(["team"]);
  });
});
