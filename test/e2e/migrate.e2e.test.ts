/**
 * Migrating a dynamic stack to the native plugin recreates nothing (README, "Migrating a dynamic stack"): the quick
 * start deployed through the dynamic package, its state backed up, the dynamic resources forgotten (`pulumi state
 * delete --all`: the objects stay), then the same program on the generated SDK with `adopt: true` (a stack
 * transform, added to the program for the migration run) takes each object over by its natural key. The migration
 * run sends no create and no delete, keeps every uid, and the program without the transform then previews no change.
 */
import * as path from "node:path";
import type { Emulator } from "../../emulator";
import type { PulumiStack } from "./harness";
import {
  NATIVE_IMPORT,
  nativeProgram,
  nativeQuickstart,
  quickstartProgram,
  writeProgram,
} from "./native-quickstart";

jest.setTimeout(600_000);

const migrationProgram = nativeProgram.replace(
  NATIVE_IMPORT,
  `${NATIVE_IMPORT}

// The migration run only: take over the objects the dynamic stack made instead of creating them again.
pulumi.runtime.registerResourceTransform((args) =>
  args.type.startsWith("platform:iam:") ? { props: { ...args.props, adopt: true }, opts: args.opts } : undefined,
);`,
);

describe("migrating the quick start from the dynamic package to the native plugin", () => {
  let emulator: Emulator;
  let stack: PulumiStack;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    ({ emulator, stack, cleanup } = await nativeQuickstart(quickstartProgram, { dynamicPackage: true }));
  });

  afterAll(async () => {
    await cleanup?.();
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
    writeProgram(migrationProgram);
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

    writeProgram(nativeProgram);
    await stack.preview(); // --expect-no-changes
  });
});
