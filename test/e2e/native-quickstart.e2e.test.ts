/**
 * The quick start through the native plugin and its generated TypeScript SDK: examples/quickstart/index.ts
 * with only its import line changed (`pulumi-platform` -> `pulumi-platform-native`), type-checked against the SDK
 * generated into native-sdks/nodejs (compiled here with tsc), and the plugin installed from its tarball. Up, a
 * no-change preview, a change made by hand that refresh shows and the next up reverts, no credential in plaintext in
 * the state, destroy. Then `pulumi import` of an existing object of every kind, printing TypeScript (our Node
 * language host's GenerateProgram), and that printed code, run as the program, previews no change.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Emulator } from "../../emulator";
import type { PulumiStack } from "./harness";
import { nativeProgram, nativeQuickstart, programDir } from "./native-quickstart";
import { handMadeObjectOfEveryKind } from "./plugin-tarball";

jest.setTimeout(600_000);

describe("the quick start through the generated TypeScript SDK and the native plugin", () => {
  let emulator: Emulator;
  let stack: PulumiStack;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    ({ emulator, stack, cleanup } = await nativeQuickstart(nativeProgram));
  });

  afterAll(async () => {
    await cleanup?.();
  });

  it("up creates the quick start's resources under the schema's type tokens, with the data sources' results", async () => {
    await stack.up();
    const outputs = await stack.outputs();
    expect(outputs["repoNames"]).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(outputs["bindings"]).toHaveLength(2);
    // getEffectiveAccess through the plugin: what CI holds on engineering, and through which role.
    expect(outputs["ciAccessOnEngineering"]).toEqual([
      "CAP_IAM_GROUPS_LIST via deployer",
      "CAP_REPO_LIST via deployer",
      "CAP_TAG_LIST via deployer",
    ]);
    const engineering = await emulator.client.groups.get(outputs["engineeringUid"] as string);
    expect(engineering).toMatchObject({ name: "engineering", description: "Product engineering" });
    const { state, text } = await stack.exportState();
    const types = (state.deployment.resources ?? [])
      .map((r) => r.type)
      .filter((t) => t.startsWith("platform:"));
    expect(types.sort()).toEqual([
      "platform:iam:Group",
      "platform:iam:Group",
      "platform:iam:Identity",
      "platform:iam:Role",
      "platform:iam:RoleBinding",
      "platform:iam:RoleBinding",
    ]);
    expect(text).not.toContain(emulator.token);
  });

  it("previews no change", async () => {
    await stack.preview(); // --expect-no-changes
  });

  it("refresh shows a change made by hand, and the next up reverts it", async () => {
    const outputs = await stack.outputs();
    await emulator.client.groups.update(outputs["engineeringUid"] as string, {
      description: "changed by hand",
    });
    const refresh = await stack.run(["refresh", "--yes", "--skip-preview"]);
    expect(refresh.stdout).toMatch(/engineering/);
    expect(refresh.stdout).toMatch(/~ 1 updated|1 updated/);
    const preview = await stack.preview({ expectNoChanges: false });
    expect(preview.stdout).toMatch(/~ 1 to update|1 to update/);
    await stack.up();
    const engineering = await emulator.client.groups.get(outputs["engineeringUid"] as string);
    expect(engineering.description).toBe("Product engineering");
    await stack.preview();
  });

  it("destroy removes everything it created", async () => {
    const outputs = await stack.outputs();
    await stack.destroy();
    await expect(emulator.client.groups.get(outputs["engineeringUid"] as string)).rejects.toThrow();
    await expect(emulator.client.identities.get(outputs["ciIdentityUid"] as string)).rejects.toThrow();
  });

  it("imports an object of every kind with the printed code, which then previews no change", async () => {
    const org = emulator.orgUid;
    const client = emulator.client;
    const { group, identity, role, binding, idp, invite, association } = await handMadeObjectOfEveryKind(
      client,
      org,
      "hand-made-secret",
    );
    const resources = [
      ["platform:iam:Group", "legacy", group.uid],
      ["platform:iam:Identity", "legacy-ci", identity.uid],
      ["platform:iam:Role", "legacy-role", role.uid],
      ["platform:iam:RoleBinding", "legacy-binding", binding.uid],
      ["platform:iam:IdentityProvider", "legacy-sso", idp.uid],
      ["platform:iam:GroupInvite", "legacy-invite", invite.uid],
      ["platform:iam:AccountAssociation", "legacy-aws", association.uid],
    ].map(([type, name, id]) => ({ type, name, id }));
    const importFile = path.join(stack.stateDir, "import.json");
    const printed = path.join(stack.stateDir, "printed.ts");
    fs.writeFileSync(importFile, JSON.stringify({ resources }));
    fs.writeFileSync(path.join(programDir, "index.ts"), "export {};\n");

    const imported = await stack.run([
      "import",
      "--file",
      importFile,
      "--out",
      printed,
      "--protect=false",
      "--yes",
    ]);
    expect(imported.stdout).toMatch(/= 7 imported/);
    const code = fs.readFileSync(printed, "utf8");
    expect(code).toContain('import * as platform from "pulumi-platform-native";');
    for (const { name } of resources) expect(code).toContain(`"${name}"`);

    // The printed code is the program now: type-checked against the generated SDK, and nothing to change.
    fs.writeFileSync(path.join(programDir, "index.ts"), code);
    await stack.preview(); // --expect-no-changes
    // Printed code names its references by uid, so the engine knows no order between the objects: the group may be
    // deleted alongside what is in it, and refused. A second destroy finishes (README: replace the uids with
    // references after an import).
    await stack.destroy({ allowFailure: true });
    await stack.destroy();
    await expect(client.groups.get(group.uid)).rejects.toThrow();
  });
});
