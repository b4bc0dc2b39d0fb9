/**
 * The quick start through the native plugin and its generated TypeScript SDK (issue 14): examples/quickstart/index.ts
 * with only its import line changed (`pulumi-platform` -> `pulumi-platform-native`), type-checked against the SDK
 * generated into native-sdks/nodejs (compiled here with tsc), and the plugin installed from its tarball. Up, a
 * no-change preview, a change made by hand that refresh shows and the next up reverts, no credential in plaintext in
 * the state, destroy.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator";
import { PulumiStack, repoRoot } from "./harness";
import { buildPluginTarball, installPlugin } from "./plugin-tarball";

jest.setTimeout(600_000);

const programDir = path.join(repoRoot, "test/e2e/fixtures/native-quickstart");
const sdkSource = path.join(repoRoot, "native-sdks/nodejs");
const sdkInstalled = path.join(programDir, "node_modules", "pulumi-platform-native");

/** The generated SDK compiled and laid out as `npm install` would put its build under node_modules. */
function installGeneratedSdk(): void {
  fs.rmSync(sdkInstalled, { recursive: true, force: true });
  const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");
  execFileSync("node", [tsc, "-p", path.join(sdkSource, "tsconfig.json"), "--outDir", sdkInstalled], {
    cwd: repoRoot,
    stdio: "inherit",
    timeout: 180_000,
  });
  fs.copyFileSync(path.join(sdkSource, "package.json"), path.join(sdkInstalled, "package.json"));
}

describe("the quick start through the generated TypeScript SDK and the native plugin", () => {
  let emulator: Emulator;
  let stack: PulumiStack;

  beforeAll(async () => {
    const quickstart = fs.readFileSync(path.join(repoRoot, "examples/quickstart/index.ts"), "utf8");
    const native = quickstart.replace(
      'import * as platform from "pulumi-platform";',
      'import * as platform from "pulumi-platform-native";',
    );
    expect(native).not.toBe(quickstart); // the one line this test changes is there
    fs.writeFileSync(path.join(programDir, "index.ts"), native);
    installGeneratedSdk();
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

  it("up creates the quick start's resources under the schema's type tokens, with the data sources' results", async () => {
    await stack.up();
    const outputs = await stack.outputs();
    expect(outputs["repoNames"]).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(outputs["bindings"]).toHaveLength(2);
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
});
