/**
 * Upgrading from 0.1.0 changes nothing in the organization: a stack whose state was written by the previous release
 * (each resource's provider stored as serializeFunction's ~280-byte wrapper, and outputs this release no longer
 * keeps: a binding's hydrated identity, group and role, an invite's role, updateTime, lastSeenTime,
 * resourceLimits) previews no change, updates nothing, refreshes into the lean form and is destroyed by the provider
 * reference the old state holds.
 */
import { startEmulator, type Emulator } from "../../emulator";
import { installLocalPackage, PulumiStack, type StackState } from "./harness";

jest.setTimeout(600_000);

const programDir = "test/e2e/fixtures/every-kind";

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
    emulator.clearRequestLog();
    await stack.preview(); // --expect-no-changes
    expect(emulator.requestLog().filter((r) => r.method !== "GET")).toEqual([]);
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
