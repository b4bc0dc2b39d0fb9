/**
 * Migrating a dynamic stack to the native plugin recreates nothing (README, "Migrating a dynamic stack"): the quick
 * start deployed through the dynamic package, its state backed up, the dynamic resources forgotten (`pulumi state
 * delete --all`: the objects stay), then the same program on the generated SDK with `adopt: true` (a stack
 * transform, added to the program for the migration run) takes each object over by its natural key. The migration
 * run sends no create and no delete, keeps every uid, and the program without the transform then previews no change.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator";
import { installLocalPackage, PulumiStack, repoRoot } from "./harness";
import { buildPluginTarball, installGeneratedSdk, installPlugin } from "./plugin-tarball";

jest.setTimeout(600_000);

const programDir = path.join(repoRoot, "test/e2e/fixtures/native-quickstart");
const quickstart = fs.readFileSync(path.join(repoRoot, "examples/quickstart/index.ts"), "utf8");
const DYNAMIC_IMPORT = 'import * as platform from "pulumi-platform";';
const nativeProgram = quickstart.replace(
  DYNAMIC_IMPORT,
  'import * as platform from "pulumi-platform-native";',
);
const migrationProgram = nativeProgram.replace(
  'import * as platform from "pulumi-platform-native";',
  `import * as platform from "pulumi-platform-native";

// The migration run only: take over the objects the dynamic stack made instead of creating them again.
pulumi.runtime.registerResourceTransform((args) =>
  args.type.startsWith("platform:iam:") ? { props: { ...args.props, adopt: true }, opts: args.opts } : undefined,
);`,
);

describe("migrating the quick start from the dynamic package to the native plugin", () => {
  let emulator: Emulator;
  let stack: PulumiStack;
  const write = (program: string) => fs.writeFileSync(path.join(programDir, "index.ts"), program);

  beforeAll(async () => {
    expect(nativeProgram).not.toBe(quickstart);
    write(quickstart);
    installLocalPackage(programDir, { build: false });
    installGeneratedSdk(programDir);
    const tarball = buildPluginTarball();
    emulator = await startEmulator({ seed: path.join(repoRoot, "examples/quickstart/seed.json") });
    stack = await PulumiStack.create({
      programDir,
      config: { organization: emulator.orgUid, "platform:apiUrl": emulator.url },
      secrets: { "platform:token": emulator.token },
    });
    await installPlugin(stack, tarball);
  });

  afterAll(async () => {
    await stack?.destroy({ allowFailure: true });
    await stack?.cleanup();
    await emulator?.close();
    fs.rmSync(path.join(programDir, "node_modules"), { recursive: true, force: true });
    fs.rmSync(path.join(programDir, "index.ts"), { force: true });
  });

  it("moves every object to the plugin with no create and no delete", async () => {
    await stack.up();
    const before = await stack.outputs();
    const dynamicState = (await stack.exportState()).state;
    const dynamicIds = (dynamicState.deployment.resources ?? [])
      .filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/"))
      .map((r) => r.id)
      .sort();
    expect(dynamicIds).toHaveLength(6);

    await stack.run(["stack", "export", "--file", path.join(stack.stateDir, "before-migration.json")]);
    await stack.run(["state", "delete", "--all", "--yes"]);
    write(migrationProgram);
    emulator.clearRequestLog();
    await stack.up();
    const writes = emulator.requestLog().filter((r) => r.method === "POST" || r.method === "DELETE");
    expect(writes.filter((r) => !r.path.startsWith("/sts/"))).toEqual([]);

    const nativeIds = ((await stack.exportState()).state.deployment.resources ?? [])
      .filter((r) => r.type.startsWith("platform:iam:"))
      .map((r) => r.id)
      .sort();
    expect(nativeIds).toEqual(dynamicIds);
    expect(await stack.outputs()).toEqual(before);

    write(nativeProgram);
    await stack.preview(); // --expect-no-changes
  });
});
