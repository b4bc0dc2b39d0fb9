/**
 * Upgrading changes nothing in the organization.
 *
 * The dynamic package from 0.1.0: a stack whose state was written by the previous release (each resource's provider
 * stored as serializeFunction's ~280-byte wrapper, and outputs this release no longer keeps: a binding's hydrated
 * identity, group and role, an invite's role, updateTime, lastSeenTime, resourceLimits) previews no change, updates
 * nothing, refreshes into the lean form and is destroyed by the provider reference the old state holds.
 *
 * The native plugin and its TypeScript SDK, after providertest's recorded upgrade previews: the state a released
 * plugin made is recorded once into the repository (test/e2e/fixtures/upgrade-plugin/recorded/<version>/: the
 * `pulumi stack export`, the emulator's objects, what made them), imported into a fresh stack against an emulator
 * holding those same objects (same uids), and previewed under the current plugin and SDK: no change, nothing sent
 * but reads; then an `up` that changes nothing, a refresh and a clean preview, a destroy.
 * `PULUMI_PLATFORM_RECORD_UPGRADE=1` records the current release first (once per release, then commit the folder);
 * a missing recording fails the test.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator";
import { installLocalPackage, PulumiStack, repoRoot, type StackState } from "./harness";
import { buildPluginTarball, installGeneratedSdk, installPlugin, pluginVersion } from "./plugin-tarball";

jest.setTimeout(600_000);

const programDir = "test/e2e/fixtures/every-kind";

/** `pulumi preview --expect-no-changes`, during which the emulator gets no request but GETs. */
async function expectNoChangeAndOnlyReads(stack: PulumiStack, emulator: Emulator): Promise<void> {
  emulator.clearRequestLog();
  await stack.preview(); // --expect-no-changes
  expect(emulator.requestLog().filter((r) => r.method !== "GET")).toEqual([]);
}

/** What 0.1.0 stored under `__provider`: `pulumi.runtime.serializeFunction(() => provider)` of the module. */
function releasedProviderText(module: string): string {
  return [
    "exports.handler = __f0;",
    "",
    `const __provider = require("pulumi-platform/dist/provider/${module}.js");`,
    "",
    "function __f0() {",
    "  return (function() {",
    "    with({ provider: __provider, this: undefined, arguments: undefined }) {",
    "",
    "return () => provider;",
    "",
    "    }",
    "  }).apply(undefined, undefined).apply(this, arguments);",
    "}",
    "",
  ].join("\n");
}

/** Type token -> provider module, e.g. pulumi-nodejs:dynamic/iam:RoleBinding -> iam/role-binding.provider. */
function moduleOf(type: string): string {
  const [, module, kind] = /^pulumi-nodejs:dynamic\/(\w+):(\w+)$/.exec(type)!;
  return `${module}/${kind!.replace(/(.)([A-Z])/g, "$1-$2").toLowerCase()}.provider`;
}

/** The state as 0.1.0 wrote it. */
function asReleased(state: StackState): StackState {
  const copy = JSON.parse(JSON.stringify(state)) as StackState;
  for (const r of copy.deployment.resources ?? []) {
    if (!r.type.startsWith("pulumi-nodejs:dynamic/")) continue;
    const text = releasedProviderText(moduleOf(r.type));
    r.inputs!["__provider"] = text;
    const outputs = r.outputs!;
    outputs["__provider"] = text;
    outputs["updateTime"] = "2026-01-01T00:00:00Z";
    if (r.type.endsWith(":RoleBinding")) {
      outputs["identity"] = { uid: outputs["identityUid"], name: "ci" };
      outputs["group"] = { uid: outputs["groupUid"], name: "old-name" };
      outputs["role"] = { uid: outputs["roleUid"], name: "old-name" };
    }
    if (r.type.endsWith(":Group")) outputs["resourceLimits"] = {};
  }
  return copy;
}

describe("a stack written by 0.1.0", () => {
  let emulator: Emulator;
  let stack: PulumiStack;

  beforeAll(async () => {
    installLocalPackage(programDir, { build: false });
    emulator = await startEmulator();
    stack = await PulumiStack.create({
      programDir,
      config: { organization: emulator.orgUid, "platform:apiUrl": emulator.url, change: "none" },
      secrets: { "platform:token": emulator.token, clientSecret: "sso-client-secret" },
    });
    await stack.up();
    await stack.importState(asReleased((await stack.exportState()).state));
  });

  afterAll(async () => {
    await stack?.cleanup();
    await emulator?.close();
  });

  it("previews no change and sends nothing but reads", async () => {
    await expectNoChangeAndOnlyReads(stack, emulator);
  });

  it("refreshes into the lean form: no copies that go stale, the short provider reference", async () => {
    await stack.run(["refresh", "--yes", "--skip-preview"]);
    const { state } = await stack.exportState();
    const ours = (state.deployment.resources ?? []).filter((r) =>
      r.type.startsWith("pulumi-nodejs:dynamic/"),
    );
    expect(ours.length).toBeGreaterThan(5);
    for (const r of ours) {
      for (const gone of ["identity", "group", "role", "updateTime", "resourceLimits", "lastSeenTime"]) {
        expect(r.outputs).not.toHaveProperty(gone);
      }
    }
    await stack.preview();
  });

  it("is destroyed, through the provider reference the old state holds", async () => {
    await stack.importState(asReleased((await stack.exportState()).state));
    await stack.run(["destroy", "--yes", "--skip-preview"]);
    const left = await emulator.client.groups.list({ childrenOf: emulator.orgUid, pageSize: 200 });
    expect(left.items).toEqual([]);
  });
});

const pluginProgram = "test/e2e/fixtures/upgrade-plugin";
/** The release whose recorded stack the current plugin and SDK must preview with no change. */
const baselineVersion = "0.1.0";
const recordingDir = path.join(repoRoot, pluginProgram, "recorded", baselineVersion);
/** URNs carry the stack's name: the recording and the test use the same one. */
const recordedStackName = "upgrade";
/** A made-up value, not a credential: the identity provider's client secret in the program's secret config. */
const ssoClientSecret = "sso-client-secret";

/** The part of the emulator's data file (emulator/store.ts) the recording keeps: objects, never keys or tokens. */
interface EmulatorObjects {
  organization: string;
  objects: Record<string, Array<{ uid: string; fields: Record<string, unknown> }>>;
}
interface EmulatorDataFile extends Pick<EmulatorObjects, "objects"> {
  meta: { bootstrapIdentityUid?: string };
}

/** The program's stack: credentials from the environment, so its state holds none, nor the emulator's port. */
function pluginStack(emulator: Emulator, organization: string): Promise<PulumiStack> {
  return PulumiStack.create({
    programDir: pluginProgram,
    stackName: recordedStackName,
    config: { organization },
    secrets: { clientSecret: ssoClientSecret },
    env: { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token },
  });
}

/** Records the current release into recorded/<baselineVersion>/ (PULUMI_PLATFORM_RECORD_UPGRADE=1). */
async function recordPluginStack(tarball: string): Promise<void> {
  if (pluginVersion !== baselineVersion) {
    throw new Error(
      `this is ${pluginVersion}: a recording of ${baselineVersion} must be made by ${baselineVersion}`,
    );
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "upgrade-record-"));
  const dataFile = path.join(scratch, "emulator.json");
  const emulator = await startEmulator({ dataFile });
  let open = true;
  let stack: PulumiStack | undefined;
  try {
    stack = await pluginStack(emulator, emulator.orgUid);
    await installPlugin(stack, tarball);
    await stack.up();
    const { text } = await stack.exportState();
    for (const plaintext of [emulator.token, ssoClientSecret]) {
      if (text.includes(plaintext))
        throw new Error("the state to record holds a credential or secret in plaintext");
    }
    const engine = (await stack.run(["version"], { stackless: true })).stdout.trim();
    await emulator.close();
    open = false;
    const data = JSON.parse(fs.readFileSync(dataFile, "utf8")) as EmulatorDataFile;
    const organization = emulator.orgUid;
    const objects: EmulatorObjects["objects"] = {};
    for (const [kind, list] of Object.entries(data.objects)) {
      // What the stack made, in the organization; not the bootstrap user, its owner binding or the organization.
      const made = list.filter(
        (o) =>
          o.uid.startsWith(`${organization}/`) &&
          !(kind === "roleBindings" && o.fields["identityUid"] === data.meta.bootstrapIdentityUid),
      );
      if (made.length > 0) objects[kind] = made;
    }
    fs.mkdirSync(recordingDir, { recursive: true });
    fs.writeFileSync(path.join(recordingDir, "stack.json"), text.endsWith("\n") ? text : `${text}\n`);
    const world: EmulatorObjects = { organization, objects };
    fs.writeFileSync(path.join(recordingDir, "emulator-objects.json"), `${JSON.stringify(world, null, 2)}\n`);
    const recording = {
      pluginVersion,
      sdk: `pulumi-platform-native ${pluginVersion} (native-sdks/nodejs)`,
      engine,
      program: pluginProgram,
      stack: recordedStackName,
      secrets: "passphrase provider, the e2e harness's fixed non-secret passphrase",
      credentials: "PLATFORM_API_URL and PLATFORM_TOKEN in the environment: none in the state",
      recordedBy:
        "PULUMI_PLATFORM_RECORD_UPGRADE=1 npx jest --selectProjects e2e test/e2e/upgrade.e2e.test.ts",
    };
    fs.writeFileSync(path.join(recordingDir, "recording.json"), `${JSON.stringify(recording, null, 2)}\n`);
  } finally {
    await stack?.cleanup();
    if (open) await emulator.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * An emulator holding the recorded objects under their recorded uids: a fresh emulator's data file (its own keys
 * and token) with its organization's uid changed to the recorded one, the recorded objects added, started again.
 */
async function emulatorWithRecordedObjects(world: EmulatorObjects, dataFile: string): Promise<Emulator> {
  const fresh = await startEmulator({ dataFile });
  const freshOrganization = fresh.orgUid;
  await fresh.close();
  const text = fs.readFileSync(dataFile, "utf8").replaceAll(freshOrganization, world.organization);
  const data = JSON.parse(text) as EmulatorDataFile;
  for (const [kind, list] of Object.entries(world.objects)) {
    const present = new Set((data.objects[kind] ?? []).map((o) => o.uid));
    data.objects[kind] = [...(data.objects[kind] ?? []), ...list.filter((o) => !present.has(o.uid))];
  }
  fs.writeFileSync(dataFile, JSON.stringify(data));
  return startEmulator({ dataFile });
}

describe(`a stack written by the plugin ${baselineVersion} and its TypeScript SDK`, () => {
  let scratch: string;
  let emulator: Emulator;
  let stack: PulumiStack;
  let world: EmulatorObjects;
  let recordedText: string;

  beforeAll(async () => {
    const tarball = buildPluginTarball();
    installGeneratedSdk(path.join(repoRoot, pluginProgram));
    if (process.env["PULUMI_PLATFORM_RECORD_UPGRADE"] === "1") await recordPluginStack(tarball);
    if (!fs.existsSync(path.join(recordingDir, "stack.json"))) {
      throw new Error(
        `no recording in ${path.relative(repoRoot, recordingDir)}: make it with ${baselineVersion} checked out ` +
          "and PULUMI_PLATFORM_RECORD_UPGRADE=1, then commit it",
      );
    }
    recordedText = fs.readFileSync(path.join(recordingDir, "stack.json"), "utf8");
    world = JSON.parse(
      fs.readFileSync(path.join(recordingDir, "emulator-objects.json"), "utf8"),
    ) as EmulatorObjects;
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "upgrade-plugin-"));
    emulator = await emulatorWithRecordedObjects(world, path.join(scratch, "emulator.json"));
    stack = await pluginStack(emulator, world.organization);
    await installPlugin(stack, tarball);
    await stack.importState(JSON.parse(recordedText) as StackState);
  });

  afterAll(async () => {
    await stack?.cleanup();
    await emulator?.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it("was recorded by that release: an object of every kind, no credential, secrets encrypted", () => {
    const recording = JSON.parse(fs.readFileSync(path.join(recordingDir, "recording.json"), "utf8")) as {
      pluginVersion: string;
    };
    expect(recording.pluginVersion).toBe(baselineVersion);
    const state = JSON.parse(recordedText) as StackState;
    const resources = state.deployment.resources ?? [];
    const kinds = resources.filter((r) => r.type.startsWith("platform:iam:")).map((r) => r.type);
    expect([...new Set(kinds)].sort()).toEqual(
      [
        "AccountAssociation",
        "Group",
        "GroupInvite",
        "Identity",
        "IdentityProvider",
        "Role",
        "RoleBinding",
      ].map((k) => `platform:iam:${k}`),
    );
    const provider = resources.find((r) => r.type === "pulumi:providers:platform");
    expect(provider?.inputs).toMatchObject({ version: baselineVersion });
    for (const setting of ["apiUrl", "authUrl", "token", "identityToken", "profiles"]) {
      expect(provider?.inputs).not.toHaveProperty(setting);
    }
    expect(recordedText).not.toContain(ssoClientSecret);
    const sso = resources.find((r) => r.type === "platform:iam:IdentityProvider");
    expect(sso?.inputs?.["clientSecret"]).toHaveProperty("ciphertext");
    const invite = resources.find((r) => r.type === "platform:iam:GroupInvite");
    expect(invite?.outputs?.["code"]).toHaveProperty("ciphertext");
    // Every object the state names is in the emulator's recorded world.
    const uids = new Set(Object.values(world.objects).flatMap((list) => list.map((o) => o.uid)));
    for (const r of resources.filter((r) => r.type.startsWith("platform:iam:"))) expect(uids).toContain(r.id);
  });

  it("previews no change under the current plugin and SDK, and sends nothing but reads", async () => {
    await expectNoChangeAndOnlyReads(stack, emulator);
  });

  it("updates nothing under the current plugin: up moves the stack onto it", async () => {
    // After a version bump, refresh and destroy of the recorded state would load the old plugin (its default
    // provider is default_<old version>); a user's first `up` moves every resource onto the current one.
    emulator.clearRequestLog();
    await stack.run(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect(emulator.requestLog().filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("refreshes under the current plugin, then still previews no change", async () => {
    await stack.refresh();
    await expectNoChangeAndOnlyReads(stack, emulator);
  });

  it("is destroyed by the current plugin: nothing it made is left", async () => {
    await stack.destroy();
    const left = await emulator.client.groups.list({ childrenOf: world.organization, pageSize: 200 });
    expect(left.items).toEqual([]);
    const roles = await emulator.client.roles.list({ childrenOf: world.organization, pageSize: 200 });
    expect(roles.items).toEqual([]);
  });
});
