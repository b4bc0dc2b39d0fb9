/**
 * examples/python (on the generated Python SDK, native-sdks/python, installed from its wheel) and examples/yaml (no
 * SDK: the plugin's schema) under the real engine, through the native plugin pulumi-resource-platform (installed
 * from its tarball into each stack's PULUMI_HOME) and our Python host or upstream's YAML host, against an
 * in-process emulator: what the quick start does (folders, a team, a workload identity, a custom role, bindings, a
 * role looked up by name), then a clean preview, a change behind Pulumi's back that refresh shows and up reverts,
 * an input change previewed as an update and a parent change previewed as a replace (each then applied, with
 * exactly the steps the preview showed), destroy. Then `pulumi import` prints the imported resource in the
 * project's language. The stack runs a temporary copy of the example, whose program text the changes edit.
 *
 * The plugin tarball is built by `npm run plugin` (test/e2e/plugin-tarball.ts), the Python environment by
 * scripts/python-env.sh (test/e2e/python-env.ts), both cached across suites.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { startEmulator, type Emulator } from "../../emulator";
import { expectDestroyDeletes, expectImportPrints, testsRightAfterUp } from "./example-checks";
import { tearDown, repoRoot, type PulumiStack } from "./harness";
import { appliedPlan, changed, previewPlan } from "./plans";
import { pluginStack } from "./plugin-tarball";
import { pythonEnvironment } from "./python-env";

jest.setTimeout(600_000);

describe.each([
  {
    language: "python",
    env: (): Record<string, string> => ({ VIRTUAL_ENV: pythonEnvironment() }),
    imported: [`legacy = platform.iam.Group("legacy",`, `name="legacy-python",`],
    program: "__main__.py",
    describe: ['description="Product engineering",', 'description="Product engineering, changed",'],
    move: [
      'parent_uid=engineering.uid,\n    name="team-a",',
      'parent_uid=operations.uid,\n    name="team-a",',
    ],
  },
  {
    language: "yaml",
    env: (): Record<string, string> => ({}),
    imported: [`type: platform:iam:Group`, `name: legacy-yaml`],
    program: "Pulumi.yaml",
    describe: ["description: Product engineering\n", "description: Product engineering, changed\n"],
    move: [
      "parentUid: ${engineering.uid}\n      name: team-a",
      "parentUid: ${operations.uid}\n      name: team-a",
    ],
  },
])("examples/$language through the native plugin", ({ language, env, imported, ...edits }) => {
  let emulator: Emulator;
  let stack: PulumiStack;
  let programDir: string;

  /** Replaces `from` (which must occur exactly once) with `to` in the copy's program. */
  function editProgram([from, to]: string[]): void {
    const file = path.join(programDir, edits.program);
    const text = fs.readFileSync(file, "utf8");
    expect(text.split(from ?? "").length - 1).toBe(1);
    fs.writeFileSync(file, text.replace(from ?? "", to ?? ""));
  }

  /** Previews, then applies, the program as it now is; returns the changed steps, checked to be the same. */
  async function previewThenApply(): Promise<Record<string, string>> {
    emulator.clearRequestLog();
    const preview = previewPlan((await stack.run(["preview", "--json"])).stdout);
    // A preview changes nothing.
    expect(emulator.requestLog().filter((r) => r.method !== "GET")).toEqual([]);
    const applied = appliedPlan((await stack.run(["up", "--json", "--yes", "--skip-preview"])).stdout);
    expect(changed(applied)).toEqual(changed(preview));
    await stack.preview();
    return changed(applied);
  }

  beforeAll(async () => {
    programDir = fs.mkdtempSync(path.join(os.tmpdir(), `pulumi-platform-example-${language}-`));
    fs.cpSync(path.join(repoRoot, "examples", language), programDir, { recursive: true });
    emulator = await startEmulator();
    stack = await pluginStack(programDir, emulator, { env: env() });
  });

  afterAll(async () => {
    await tearDown(stack, emulator);
    fs.rmSync(programDir, { recursive: true, force: true });
  });

  test("up lays out the folders, the identity, the custom role and the bindings", async () => {
    const result = await stack.up();
    expect(result.stdout).toMatch(/\+ 9 created/); // 8 resources (a GroupAccess among them) and the stack

    const outputs = await stack.outputs();
    const engineering = await emulator.client.groups.get(outputs["engineeringUid"] as string);
    expect(engineering).toMatchObject({ name: "engineering", description: "Product engineering" });
    const team = await emulator.client.groups.get(outputs["teamUid"] as string);
    expect(team).toMatchObject({ name: "team-a", description: "Team A" });
    expect(team.uid.startsWith(`${engineering.uid}/`)).toBe(true);
    const deployer = await emulator.client.roles.get(outputs["deployerRoleUid"] as string);
    expect(deployer.capabilities).toEqual(["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", "CAP_TAG_LIST"]);
    expect(outputs["viewerRoleUid"]).toMatch(/^[0-9a-f]{40}$/);
    const [deploys, views] = (outputs["bindings"] as string[]).map((uid) =>
      emulator.client.roleBindings.get(uid),
    );
    expect(await deploys).toMatchObject({
      group: { uid: engineering.uid },
      identity: { uid: outputs["ciIdentityUid"] },
      role: { uid: deployer.uid },
    });
    expect(await views).toMatchObject({
      group: { uid: team.uid },
      identity: { uid: outputs["ciIdentityUid"] },
      role: { uid: outputs["viewerRoleUid"], name: "viewer" },
    });
    if (language === "yaml") {
      // getEffectiveAccess: on team-a CI holds the deployer role's capabilities through engineering (inherited)
      // and the viewer role's through the binding on team-a; each capability with the bindings granting it.
      const access = outputs["ciAccessOnTeam"] as {
        capability: string;
        grants: { roleName: string; group: string; inherited: boolean }[];
      }[];
      const viewer = (await emulator.client.roles.get(outputs["viewerRoleUid"] as string)).capabilities!;
      expect(access.map((c) => c.capability)).toEqual(
        [...new Set([...viewer, ...deployer.capabilities!])].sort(),
      );
      expect(access.find((c) => c.capability === "CAP_REPO_LIST")!.grants).toEqual([
        expect.objectContaining({ roleName: "viewer", group: team.uid, inherited: false }),
        expect.objectContaining({ roleName: "deployer", group: engineering.uid, inherited: true }),
      ]);
    }
    const { text } = await stack.exportState();
    expect(text).not.toContain(emulator.token);
  });

  testsRightAfterUp(() => ({ stack, emulator }));

  test("an input change is previewed as an update, and up does just that", async () => {
    const uid = (await stack.outputs())["engineeringUid"] as string;
    editProgram(edits.describe);

    expect(await previewThenApply()).toEqual({ engineering: "update" });

    expect(await emulator.client.groups.get(uid)).toMatchObject({
      uid,
      description: "Product engineering, changed",
    });
  });

  test("moving the team under another folder is previewed as a replace, and up does just that", async () => {
    const before = await stack.outputs();
    editProgram(edits.move);

    // A group's parent and a binding's group are immutable: the team and its binding are replaced, nothing else.
    expect(await previewThenApply()).toEqual({ "team-a": "replace", "ci-views-team-a": "replace" });

    const after = await stack.outputs();
    const team = await emulator.client.groups.get(after["teamUid"] as string);
    expect(team).toMatchObject({ name: "team-a", description: "Team A" });
    expect(team.uid.startsWith(`${after["operationsUid"] as string}/`)).toBe(true);
    await expect(emulator.client.groups.get(before["teamUid"] as string)).rejects.toThrow();
    const binding = await emulator.client.roleBindings.get((after["bindings"] as string[])[1] ?? "");
    expect(binding).toMatchObject({ group: { uid: team.uid }, role: { uid: after["viewerRoleUid"] } });
  });

  test("destroy deletes every object", async () => {
    await expectDestroyDeletes(stack, emulator, "engineeringUid");
  });

  test(`pulumi import prints ${language} for this project`, async () => {
    await expectImportPrints(stack, emulator, `legacy-${language}`, imported);
  });
});
