/**
 * The first update after state-first adoption (docs/adopting.md, "State-first, for large organizations") under the
 * real engine: `platform-import load` writes the state the engine keeps, so the first no-change `pulumi up` finds
 * nothing to write for any resource.
 *
 * An organization of a few hundred objects (folders, each with an identity and a binding of one custom role), adopted
 * as the document says into a YAML project on the plugin: the export after `load` equals the export after a
 * no-change `up`, but for what the program's run itself stamps on each resource it registers (`sourcePosition` and
 * `stackTrace`: where in the language host the registration came from, which no state written before the program
 * exists can know, and which the engine never compares), and the first `up` writes the checkpoint no more often than
 * the second (counted from the file backend's own log line for each write, `pulumi -v=7`).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator";
import { checkpointWrites, comparable } from "./adoption";
import { buildOncePerRun, PulumiStack, repoRoot } from "./harness";
import { buildPluginTarball, installPlugin } from "./plugin-tarball";

jest.setTimeout(900_000);

/** Folders of the organization, each with an identity and a binding: 3 objects each, plus the role and the organization's own. */
const FOLDERS = 100;
const CLI = path.join(repoRoot, "dist/commands/import/cli.js");

describe("the first update after state-first adoption", () => {
  let emulator: Emulator;
  let stack: PulumiStack;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    buildOncePerRun(); // platform-import is dist/'s
    const tarball = buildPluginTarball();
    emulator = await startEmulator();
    const client = emulator.client;
    const role = await client.roles.create(emulator.orgUid, {
      name: "deployer",
      capabilities: ["CAP_REPO_LIST"],
    });
    for (let i = 0; i < FOLDERS; i++) {
      const folder = await client.groups.create(emulator.orgUid, {
        name: `team-${i}`,
        description: `Team ${i}`,
      });
      const identity = await client.identities.create(folder.uid, {
        name: `robot-${i}`,
        claimMatch: { issuer: "https://issuer.example.com", subject: `robot-${i}` },
      });
      await client.roleBindings.create(folder.uid, { identityUid: identity.uid, roleUid: role.uid });
    }
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "platform-adopt-first-up-"));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: platform-adopt-first-up\nruntime: yaml\n");
    env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token };
    stack = await PulumiStack.create({ programDir: dir, env, timeoutMs: 600_000 });
    await installPlugin(stack, tarball);
  });

  afterAll(async () => {
    await stack?.cleanup();
    await emulator?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("load writes what a no-change up keeps, and the first up writes the checkpoint no more than the second", async () => {
    await stack.shell(`node ${CLI} ${emulator.orgUid} --out import.json --state-out adopted.json`, {
      dir,
      env,
    });
    await stack.shell(`node ${CLI} load adopted.json`, { dir, env });
    const loaded = (await stack.exportState()).state;
    await stack.run(["import", "--file", "import.json", "--preview-only", "--out", "program.yaml"], { env });
    fs.renameSync(path.join(dir, "program.yaml"), path.join(dir, "Main.yaml"));
    const adopted = (loaded.deployment.resources ?? []).filter((r) => r.type.startsWith("platform:iam:"));
    expect(adopted.length).toBeGreaterThanOrEqual(3 * FOLDERS + 2);

    const verbose = ["up", "--yes", "--skip-preview", "-v=7", "--logtostderr"];
    const first = await stack.run(verbose, { env });
    expect(first.stdout).toMatch(/\d+ unchanged/);
    expect(first.stdout).not.toMatch(/\d+ (created|updated|deleted|replaced)/);
    const afterFirst = (await stack.exportState()).state;
    const second = await stack.run(verbose, { env });
    const afterSecond = (await stack.exportState()).state;

    const writes = { first: checkpointWrites(first.stderr), second: checkpointWrites(second.stderr) };
    console.log(
      `${adopted.length} adopted: first up ${first.durationMs} ms, ${writes.first} checkpoint writes; ` +
        `second up ${second.durationMs} ms, ${writes.second}`,
    );
    expect(writes.second).toBeGreaterThan(0); // the log line is still the engine's
    expect(writes.first).toBeLessThanOrEqual(writes.second);
    expect(comparable(loaded)).toEqual(comparable(afterFirst));
    expect(comparable(afterSecond)).toEqual(comparable(afterFirst));
    // The program refers to groups, identities and the role by reference: the resources have dependencies.
    expect(adopted.filter((r) => Array.isArray(r["dependencies"])).length).toBeGreaterThanOrEqual(
      3 * FOLDERS,
    );
  });
});
