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
import { expectDestroyDeletes, expectImportPrints, testsRightAfterUp } from "./example-checks";
import { tearDown, type PulumiStack } from "./harness";
import { pluginStack } from "./plugin-tarball";

jest.setTimeout(600_000);

describe("examples/go through the native plugin", () => {
  let emulator: Emulator;
  let stack: PulumiStack;

  beforeAll(async () => {
    emulator = await startEmulator();
    stack = await pluginStack("examples/go", emulator);
  });

  afterAll(() => tearDown(stack, emulator));

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

  testsRightAfterUp(() => ({ stack, emulator }));

  test("destroy deletes every object", async () => {
    await expectDestroyDeletes(stack, emulator, "folderUid");
  });

  test("pulumi import prints Go for this Go project", async () => {
    await expectImportPrints(stack, emulator, "legacy-go", [
      `iam.NewGroup(ctx, "legacy", &iam.GroupArgs{`,
      `Name:        pulumi.String("legacy-go"),`,
    ]);
  });

  test("pulumi import prints TypeScript for a Node.js project", async () => {
    const programDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-import-ts-"));
    fs.writeFileSync(path.join(programDir, "Pulumi.yaml"), "name: import-ts\nruntime: nodejs\n");
    const nodeStack = await pluginStack(programDir, emulator);
    try {
      await expectImportPrints(nodeStack, emulator, "legacy-ts", [
        `const legacy = new platform.iam.Group("legacy", {`,
        `name: "legacy-ts",`,
      ]);
    } finally {
      await nodeStack.cleanup();
      fs.rmSync(programDir, { recursive: true, force: true });
    }
  });
});
