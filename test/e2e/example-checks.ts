/**
 * What the examples' end-to-end files (examples-go, examples-python-yaml) check alike on a deployed example: a
 * preview right after up expects no changes; a change made behind Pulumi's back shows in refresh and the next up
 * puts it back; destroy deletes every object and empties the stack; `pulumi import` of a group made by hand prints
 * it in the project's language.
 */
import type { Emulator } from "../../emulator";
import type { PulumiStack } from "./harness";

/**
 * The tests each example runs right after its first up, in order: a preview expects no changes, then a change made
 * behind Pulumi's back shows in refresh and up puts it back. `deployed` answers the stack and emulator once set up.
 */
export function testsRightAfterUp(deployed: () => { stack: PulumiStack; emulator: Emulator }): void {
  test("a preview right after up expects no changes", async () => {
    await deployed().stack.preview();
  });

  test("refresh shows a change made behind Pulumi's back, and up puts it back", async () => {
    const { stack, emulator } = deployed();
    await expectRefreshShowsAndUpReverts(stack, emulator);
  });
}

/** The team's description changed by hand: refresh takes it in, preview shows one update, up reverts it. */
export async function expectRefreshShowsAndUpReverts(stack: PulumiStack, emulator: Emulator): Promise<void> {
  const uid = (await stack.outputs())["teamUid"] as string;
  await emulator.client.groups.update(uid, { description: "changed by hand" });

  await stack.refresh();
  const preview = await stack.preview({ expectNoChanges: false });
  expect(preview.stdout).toMatch(/~ 1 to update/);
  await stack.up();

  expect((await emulator.client.groups.get(uid)).description).toBe("Team A");
  await stack.preview();
}

/** Destroy deletes the group the output `groupOutput` names, and leaves the stack empty. */
export async function expectDestroyDeletes(
  stack: PulumiStack,
  emulator: Emulator,
  groupOutput: string,
): Promise<void> {
  const uid = (await stack.outputs())[groupOutput] as string;
  await stack.destroy();

  await expect(emulator.client.groups.get(uid)).rejects.toThrow();
  const { state } = await stack.exportState();
  expect(state.deployment.resources ?? []).toEqual([]);
}

/** `pulumi import` of a group made by hand, named `name`, prints each of `lines`. */
export async function expectImportPrints(
  stack: PulumiStack,
  emulator: Emulator,
  name: string,
  lines: string[],
): Promise<void> {
  const group = await emulator.client.groups.create(emulator.orgUid, { name, description: "By hand" });

  const result = await stack.run([
    "import",
    "platform:iam:Group",
    "legacy",
    group.uid,
    "--yes",
    "--protect=false",
  ]);

  expect(result.stdout).toMatch(/= 1 imported/);
  for (const line of lines) expect(result.stdout).toContain(line);
}
