/**
 * A GroupAccess `up` that cannot finish, under the real engine, on both fronts (TypeScript on the dynamic provider,
 * YAML on the native plugin): one of its three batches is refused outright, so the `up` fails; the state then holds
 * the resource, with its initErrors and exactly the bindings that exist (nothing created is lost), and the next
 * `up` creates only what is missing and converges, after which a refreshing preview finds no change.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { startEmulator, type Emulator } from "../../emulator";
import { BUILTIN_ROLES } from "../../emulator/access";
import { tearDown, PulumiStack, installLocalPackage, repoRoot } from "./harness";
import { frontStack, type FrontProgram } from "./fronts";
import { buildPluginTarball, installPlugin } from "./plugin-tarball";

jest.setTimeout(900_000);

const VIEWER = BUILTIN_ROLES.find((r) => r.name === "viewer")!.uid;

interface Front extends FrontProgram {
  declare(stack: PulumiStack, groupUid: string, identities: string[]): Promise<void>;
  cleanup(): void;
}

const bindingsOf = (identities: string[]) =>
  identities.map((identityUid) => ({ identityUid, roleUid: VIEWER }));

const typescript = (): Front => {
  const dir = path.join(repoRoot, "test", "e2e", "fixtures", "group-access");
  return {
    programDir: () => dir,
    prepare: async () => installLocalPackage(dir, { build: false }),
    declare: (stack, groupUid, identities) =>
      stack.setConfig(
        "spec",
        JSON.stringify({
          groupAccess: [{ name: "folder-access", groupUid, bindings: bindingsOf(identities) }],
        }),
      ),
    cleanup: () => fs.rmSync(path.join(dir, "node_modules"), { recursive: true, force: true }),
  };
};

const yaml = (): Front => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-access-partial-"));
  const write = (resources: Record<string, unknown>) =>
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      JSON.stringify({ name: "access-partial-yaml", runtime: "yaml", resources }),
    );
  write({});
  return {
    programDir: () => dir,
    prepare: async (stack) => installPlugin(stack, buildPluginTarball()),
    declare: async (_stack, groupUid, identities) =>
      write({
        "folder-access": {
          type: "platform:iam:GroupAccess",
          properties: { groupUid, bindings: bindingsOf(identities) },
        },
      }),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
};

describe.each([
  { language: "typescript", makeFront: typescript },
  { language: "yaml", makeFront: yaml },
])("a GroupAccess up that cannot finish keeps what it created ($language)", ({ makeFront }) => {
  let front: Front;
  let emulator: Emulator;
  let stack: PulumiStack;
  let folder: string;
  const identities: string[] = [];

  const live = async () =>
    (await emulator.client.roleBindings.list({ group: folder, pageSize: 200 }).all())
      .map((b) => b.identity!.uid)
      .sort();

  beforeAll(async () => {
    front = makeFront();
    emulator = await startEmulator();
    folder = (await emulator.client.groups.create(emulator.orgUid, { name: "governed" })).uid;
    for (let i = 0; i < 60; i++)
      identities.push(
        (
          await emulator.client.identities.create(emulator.orgUid, {
            name: `member-${i}`,
            claimMatch: { issuer: "https://issuer.example", subject: `member-${i}` },
          })
        ).uid,
      );
    stack = await frontStack(front, emulator);
    await front.declare(stack, folder, identities);
  });

  afterAll(async () => {
    emulator?.faults.clear();
    await tearDown(stack, emulator);
    front?.cleanup();
  });

  it("the failed up records the resource with exactly the bindings that exist", async () => {
    emulator.faults.add({ path: "batchCreate$", action: "status", status: 403, times: 1 });
    const failed = await stack.up({ allowFailure: true });
    emulator.faults.clear();
    expect(failed.exitCode).not.toBe(0);
    const exists = await live();
    expect([35, 50]).toContain(exists.length);
    const { state } = await stack.exportState();
    const resource = (state.deployment.resources ?? []).find((r) => r.urn.endsWith("::folder-access"));
    expect(resource?.id).toBe(folder);
    expect(Array.isArray(resource?.initErrors) && (resource!.initErrors as unknown[]).length).toBeTruthy();
    const recorded = (resource!.outputs!.bindings as { identityUid: string }[])
      .map((b) => b.identityUid)
      .sort();
    expect(recorded).toEqual(exists);
  });

  it("the next up creates only what is missing, and a refreshing preview then finds no change", async () => {
    const before = (await live()).length;
    emulator.clearRequestLog();
    await stack.up();
    const posts = emulator.requestLog().filter((r) => r.method === "POST");
    expect(posts.map((r) => r.path)).toEqual(
      Array(Math.ceil((60 - before) / 25)).fill("/iam/v2beta1/roleBindings:batchCreate"),
    );
    expect(emulator.requestLog().filter((r) => r.method === "DELETE")).toEqual([]);
    expect(await live()).toEqual([...identities].sort());
    await expect(stack.run(["preview", "--refresh", "--expect-no-changes"])).resolves.toMatchObject({
      exitCode: 0,
    });
  });
});
