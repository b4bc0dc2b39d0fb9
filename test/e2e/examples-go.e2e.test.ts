/**
 * examples/go — a Go program on the generated Go SDK (native-sdks/go) — under the real engine, through the native
 * plugin pulumi-resource-platform (installed from its tarball into the stack's PULUMI_HOME) and our Go language
 * host, against an in-process emulator: up, a clean preview, a change behind Pulumi's back that refresh shows and
 * up reverts, destroy. Then `pulumi import` prints the imported resource as code, Go for this Go project and
 * TypeScript for a Node.js one: the GenerateProgram of each of our language hosts.
 *
 * The plugin tarball is built by `npm run plugin` (test/e2e/plugin-tarball.ts).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { startEmulator, type Emulator } from "../../emulator";
import { PulumiStack } from "./harness";
import { buildPluginTarball, installPlugin } from "./plugin-tarball";

jest.setTimeout(600_000);

describe("examples/go through the native plugin", () => {
  let tarball: string;
  let emulator: Emulator;
  let stack: PulumiStack;

  beforeAll(async () => {
    tarball = buildPluginTarball();
    emulator = await startEmulator();
    stack = await PulumiStack.create({
      programDir: "examples/go",
      config: { organization: emulator.orgUid, "platform:apiUrl": emulator.url },
      secrets: { "platform:token": emulator.token },
    });
    await installPlugin(stack, tarball);
  });

  afterAll(async () => {
    await stack?.destroy({ allowFailure: true });
    await stack?.cleanup();
    await emulator?.close();
  });

  test("up creates the folder, the team inside it, the identity and the binding", async () => {
    const result = await stack.up();
    expect(result.stdout).toMatch(/\+ 6 created/); // 5 resources (a GroupAccess among them) and the stack

    const outputs = await stack.outputs();
    const team = await emulator.client.groups.get(outputs["teamUid"] as string);
    expect(team).toMatchObject({ name: "team-a", description: "Team A" });
    expect(team.uid.startsWith(`${outputs["folderUid"] as string}/`)).toBe(true);
    expect(outputs["viewerRoleUid"]).toMatch(/^[0-9a-f]{40}$/);
    const binding = await emulator.client.roleBindings.get(outputs["bindingUid"] as string);
    expect(binding).toMatchObject({
      group: { uid: team.uid },
      identity: { uid: outputs["ciIdentityUid"] },
      role: { uid: outputs["viewerRoleUid"], name: "viewer" },
    });
    const { text } = await stack.exportState();
    expect(text).not.toContain(emulator.token);
  });

  test("a preview right after up expects no changes", async () => {
    await stack.preview();
  });

  test("refresh shows a change made behind Pulumi's back, and up puts it back", async () => {
    const uid = (await stack.outputs())["teamUid"] as string;
    await emulator.client.groups.update(uid, { description: "changed by hand" });

    await stack.refresh();
    const preview = await stack.preview({ expectNoChanges: false });
    expect(preview.stdout).toMatch(/~ 1 to update/);
    await stack.up();

    expect((await emulator.client.groups.get(uid)).description).toBe("Team A");
    await stack.preview();
  });

  test("destroy deletes every object", async () => {
    const uid = (await stack.outputs())["folderUid"] as string;
    await stack.destroy();

    await expect(emulator.client.groups.get(uid)).rejects.toThrow();
    const { state } = await stack.exportState();
    expect(state.deployment.resources ?? []).toEqual([]);
  });

  test("pulumi import prints Go for this Go project", async () => {
    const group = await emulator.client.groups.create(emulator.orgUid, {
      name: "legacy-go",
      description: "By hand",
    });

    const result = await stack.run([
      "import",
      "platform:iam:Group",
      "legacy",
      group.uid,
      "--yes",
      "--protect=false",
    ]);

    expect(result.stdout).toMatch(/= 1 imported/);
    expect(result.stdout).toContain(`iam.NewGroup(ctx, "legacy", &iam.GroupArgs{`);
    expect(result.stdout).toContain(`Name:        pulumi.String("legacy-go"),`);
  });

  test("pulumi import prints TypeScript for a Node.js project", async () => {
    const group = await emulator.client.groups.create(emulator.orgUid, {
      name: "legacy-ts",
      description: "By hand",
    });
    const programDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-import-ts-"));
    fs.writeFileSync(path.join(programDir, "Pulumi.yaml"), "name: import-ts\nruntime: nodejs\n");
    const nodeStack = await PulumiStack.create({
      programDir,
      config: { "platform:apiUrl": emulator.url },
      secrets: { "platform:token": emulator.token },
    });
    try {
      await installPlugin(nodeStack, tarball);

      const result = await nodeStack.run([
        ...["import", "platform:iam:Group", "legacy", group.uid, "--yes", "--protect=false"],
      ]);

      expect(result.stdout).toMatch(/= 1 imported/);
      expect(result.stdout).toContain(`const legacy = new platform.iam.Group("legacy", {`);
      expect(result.stdout).toContain(`name: "legacy-ts",`);
    } finally {
      await nodeStack.cleanup();
      fs.rmSync(programDir, { recursive: true, force: true });
    }
  });
});
