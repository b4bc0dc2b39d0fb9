/**
 * What a preview says about access, under the real engine, in TypeScript (the dynamic package) and YAML (the native
 * plugin), against an in-process emulator (docs/guide.md, "What a preview says about access", "Preflight"):
 *   - adding a capability to a custom role bound to two identities prints two gain lines, each naming its
 *     identity, the capability and the group;
 *   - the program with a new group, run with the token of an identity that holds only viewer on the organization,
 *     fails at preview with one line naming CAP_IAM_GROUPS_CREATE and the group, and nothing is written (preview
 *     nor up);
 *   - the same program run as the owner passes and applies.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { startEmulator, type Emulator } from "../../emulator";
import { installLocalPackage, PulumiStack, repoRoot } from "./harness";
import { buildPluginTarball, installPlugin } from "./plugin-tarball";

jest.setTimeout(900_000);

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
    await stack?.destroy({ allowFailure: true });
    await stack?.cleanup();
    await emulator?.close();
    if (program !== "index.ts") fs.rmSync(programDir, { recursive: true, force: true });
  });

  test("a capability added to a role bound to two identities: two gain lines", async () => {
    await stack.setConfig("caps", "CAP_REPO_LIST,CAP_IAM_ROLE_BINDINGS_CREATE");
    const preview = await stack.preview({ expectNoChanges: false });
    const lines = `${preview.stdout}\n${preview.stderr}`
      .split("\n")
      .filter((l) => l.includes("access: ") && l.includes(" gains "));
    const gains = [...new Set(lines.map((l) => l.slice(l.indexOf("access: "))))];
    expect(gains).toHaveLength(2);
    for (const who of [alice, bob])
      expect(gains.filter((l) => l.includes(who.uid))).toEqual([
        expect.stringMatching(
          new RegExp(
            `gains CAP_IAM_ROLE_BINDINGS_CREATE \\(privileged!\\) on demo-org \\(${emulator.orgUid}\\)`,
          ),
        ),
      ]);
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
        new RegExp(`^needs CAP_IAM_GROUPS_CREATE on ${emulator.orgUid}, which ${viewer.uid}`),
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
