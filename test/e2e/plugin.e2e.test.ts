/**
 * The native provider plugin `pulumi-resource-platform` under the real engine: built into its tarball (`npm run
 * plugin`), installed into the stack's PULUMI_HOME with `pulumi plugin install resource platform <v> --file`, and
 * driven by test/e2e/fixtures/native, a program of raw CustomResources with the schema's type tokens (no SDK) and a
 * data source through `pulumi.runtime.invoke`. The emulator runs in this process.
 *
 * Covered: up, preview --expect-no-changes, a change behind Pulumi's back that refresh shows, no credential or
 * secret in plaintext in the state, destroy; then import of an existing object of every kind (`pulumi import` for
 * two, the `import` option of a program that declares the same inputs for the rest), followed by a clean preview.
 */
import { randomBytes } from "node:crypto";
import { startEmulator, type Emulator } from "../../emulator";
import { description as groupDescription } from "../../provider/iam/group.implementation";
import { description as identityDescription } from "../../provider/iam/identity.implementation";
import { description as roleDescription } from "../../provider/iam/role.implementation";
import { description as roleBindingDescription } from "../../provider/iam/role-binding.implementation";
import { description as identityProviderDescription } from "../../provider/iam/identity-provider.implementation";
import { description as groupInviteDescription } from "../../provider/iam/group-invite.implementation";
import { description as accountAssociationDescription } from "../../provider/iam/account-association.implementation";
import { tearDown, PulumiStack, type StackState } from "./harness";
import {
  buildPluginTarball,
  handMadeObjectOfEveryKind,
  installPlugin,
  pluginVersion as version,
} from "./plugin-tarball";

jest.setTimeout(600_000);

const programDir = "test/e2e/fixtures/native";
/** How the engine marks an encrypted secret in state. */
const secretSignature = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" };

type Resource = NonNullable<StackState["deployment"]["resources"]>[number];

describe("the native plugin pulumi-resource-platform under the real engine", () => {
  // Random per run: finding one in the state would be a plaintext leak, not a coincidence.
  const clientSecret = `sso-client-secret-${randomBytes(8).toString("hex")}`;
  let emulator: Emulator;
  let stack: PulumiStack;

  const platformResources = async (): Promise<{ resources: Resource[]; text: string }> => {
    const { state, text } = await stack.exportState();
    const resources = (state.deployment.resources ?? []).filter(
      (r) => r.type.startsWith("platform:") || r.type === "pulumi:providers:platform",
    );
    return { resources, text };
  };

  beforeAll(async () => {
    const tarball = buildPluginTarball();
    expect(tarball).toMatch(new RegExp(`pulumi-resource-platform-v${version}-linux-amd64\\.tar\\.gz$`));
    emulator = await startEmulator();
    stack = await PulumiStack.create({
      programDir,
      config: { organization: emulator.orgUid, "platform:apiUrl": emulator.url },
      secrets: { "platform:token": emulator.token, clientSecret },
    });
    await installPlugin(stack, tarball);
  });

  afterAll(() => tearDown(stack, emulator));

  it("up creates one of every kind through the plugin, with the data source's result", async () => {
    // The preview of a create: the plugin answers with the inputs and unknowns for what the service assigns.
    const preview = await stack.preview({ expectNoChanges: false });
    expect(preview.stdout).toMatch(/\+ 10 to create/);
    const result = await stack.up();
    expect(result.stdout).toMatch(/\+ 10 created/); // 8 resources, the explicit provider and the stack
    const { resources } = await platformResources();
    expect(resources.map((r) => r.type).sort()).toEqual(
      [
        "platform:iam:AccountAssociation",
        "platform:iam:Group",
        "platform:iam:Group",
        "platform:iam:GroupInvite",
        "platform:iam:Identity",
        "platform:iam:IdentityProvider",
        "platform:iam:Role",
        "platform:iam:RoleBinding",
        "pulumi:providers:platform",
        "pulumi:providers:platform",
      ].sort(),
    );
    const outputs = await stack.outputs();
    expect(outputs.viewerUid).toMatch(/^[0-9a-f]{40}$/);
    const engineering = await emulator.client.groups.get(outputs.engineeringUid as string);
    expect(engineering).toMatchObject({ name: "engineering", description: "Engineering" });
  });

  it("preview right after up expects no changes", async () => {
    await expect(stack.preview()).resolves.toMatchObject({ exitCode: 0 });
  });

  it("the state holds no credential or secret in plaintext", async () => {
    const outputs = await stack.outputs();
    const code = outputs.inviteCode as string;
    expect(typeof code).toBe("string");
    expect(code.length).toBeGreaterThan(8);
    const { resources, text } = await platformResources();
    for (const plaintext of [emulator.token, clientSecret, code]) expect(text).not.toContain(plaintext);
    const invite = resources.find((r) => r.type === "platform:iam:GroupInvite");
    expect(invite?.outputs?.code).toMatchObject(secretSignature);
    const sso = resources.find((r) => r.type === "platform:iam:IdentityProvider");
    expect(sso?.inputs?.clientSecret).toMatchObject(secretSignature);
    expect(sso?.outputs?.clientSecret).toMatchObject(secretSignature);
    // The default provider (token from secret config) and the explicit one (token given in plain).
    const providers = resources.filter((r) => r.type === "pulumi:providers:platform");
    expect(providers).toHaveLength(2);
    for (const provider of providers) expect(provider.inputs?.token).toMatchObject(secretSignature);
  });

  it("refresh shows a change made behind Pulumi's back, and up puts it back", async () => {
    const uid = (await stack.outputs()).engineeringUid as string;
    await emulator.client.groups.update(uid, { description: "changed by hand" });
    await stack.refresh();
    const { resources } = await platformResources();
    const engineering = resources.find((r) => r.id === uid);
    expect(engineering?.outputs?.description).toBe("changed by hand");
    const preview = await stack.preview({ expectNoChanges: false });
    expect(preview.stdout).toMatch(/~ 1 to update/);
    // The plugin's detailed diff: the one property that changed, nothing else.
    expect(preview.stdout).toMatch(/platform:iam:Group\s+engineering\s+update\s+\[diff: ~description\]/);
    await stack.up();
    expect((await emulator.client.groups.get(uid)).description).toBe("Engineering");
    await expect(stack.preview()).resolves.toMatchObject({ exitCode: 0 });
  });

  it("a replacement that keeps the association's group deletes the old one first, as its preview said", async () => {
    const group = (await stack.outputs()).engineeringUid as string;
    await stack.setConfig("cloud", "azure");
    const preview = await stack.preview({ expectNoChanges: false });
    expect(preview.stdout).toMatch(/engineering-aws\s+replace\s+\[diff: \+azure-amazon\]/);
    // Delete before replace: the old association goes first.
    expect(preview.stdout).toMatch(
      /engineering-aws delete original[\s\S]*engineering-aws create replacement/,
    );
    expect(preview.stdout).toMatch(/\+-\s?1 to replace/);
    const up = await stack.up();
    expect(up.stdout).toMatch(/\+-\s?1 replaced/);
    expect(await emulator.client.accountAssociations.get(group)).toMatchObject({
      azure: { tenantId: "tenant-1" },
    });
    await expect(stack.preview()).resolves.toMatchObject({ exitCode: 0 });
  });

  it("destroy deletes every object", async () => {
    const uid = (await stack.outputs()).engineeringUid as string;
    await stack.destroy();
    await expect(emulator.client.groups.get(uid)).rejects.toThrow();
    expect((await platformResources()).resources).toEqual([]);
  });

  it("imports an existing object of every kind, then previews no changes", async () => {
    const org = emulator.orgUid;
    const client = emulator.client;
    const { group, identity, role, binding, idp, invite, association } = await handMadeObjectOfEveryKind(
      client,
      org,
      clientSecret,
    );

    // The inputs a program that describes these objects gives: what each resource's read rebuilds from them,
    // without the empty values a program leaves out.
    const written = (inputs: object) =>
      Object.fromEntries(
        Object.entries(inputs).filter(
          ([, v]) => v !== "" && v !== undefined && !(Array.isArray(v) && !v.length),
        ),
      );
    const inputs = {
      Group: written(groupDescription.inputsOf(group)),
      Identity: written(identityDescription.inputsOf(identity)),
      Role: written(roleDescription.inputsOf(role)),
      RoleBinding: written(roleBindingDescription.inputsOf(binding)),
      IdentityProvider: written(identityProviderDescription.inputsOf(idp)),
      GroupInvite: written(groupInviteDescription.inputsOf(invite)),
      AccountAssociation: written(accountAssociationDescription.inputsOf(association)),
    };
    const ids = {
      Group: group.uid,
      Identity: identity.uid,
      Role: role.uid,
      RoleBinding: binding.uid,
      IdentityProvider: idp.uid,
      GroupInvite: invite.uid,
      AccountAssociation: association.uid,
    };

    // `pulumi import` (no program run) for two of them, under the names the program then declares them with:
    // the group, and the identity provider, whose clientSecret the API never returns.
    for (const [type, name, id] of [
      ["platform:iam:Group", "imported-group", group.uid],
      ["platform:iam:IdentityProvider", "imported-identityprovider", idp.uid],
    ]) {
      const imported = await stack.run([
        "import",
        type!,
        name!,
        id!,
        "--yes",
        "--generate-code=false",
        "--protect=false",
      ]);
      expect(imported.stdout).toMatch(/= 1 imported/);
    }

    // The rest through the program's `import` option: up fails if the inputs do not match the live objects.
    await stack.setConfig("mode", "import");
    await stack.setConfig("ids", JSON.stringify(ids));
    await stack.setConfig("inputs", JSON.stringify(inputs));
    const up = await stack.up();
    expect(up.stdout).toMatch(/= 5 imported/);

    const { resources, text } = await platformResources();
    expect(
      resources
        .filter((r) => r.type !== "pulumi:providers:platform")
        .map((r) => r.id)
        .sort(),
    ).toEqual(Object.values(ids).sort());
    await expect(stack.preview()).resolves.toMatchObject({ exitCode: 0 });
    expect(text).not.toContain(clientSecret);
    expect(text).not.toContain(emulator.token);
  });
});
