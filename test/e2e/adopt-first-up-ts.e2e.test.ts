/**
 * The first update after state-first adoption in a TypeScript program (docs/adopting.md, "The first update after a
 * state-first adoption"), beside adopt-first-up.e2e's YAML one: the program registers its resources through the
 * generated SDK, which asks for the package's version and download URL, so the engine gives them the default
 * provider named after both; `platform-import load` records that provider, and the export after `load` equals the
 * export after a no-change `up` (but for what the run stamps), the first `up` writing the checkpoint no more often
 * than the second.
 */
import * as path from "node:path";
import type { Emulator } from "../../emulator";
import { registrationOf } from "../../commands/import/load";
import { AdoptionProject, checkpointWrites, comparable } from "./adoption";
import { repoRoot } from "./harness";

jest.setTimeout(600_000);

const programDir = path.join(repoRoot, "test/e2e/fixtures/adopt-first-up-ts");

describe("the first update after state-first adoption, in a TypeScript program", () => {
  let project: AdoptionProject;
  let emulator: Emulator;
  let env: Record<string, string>;

  beforeAll(async () => {
    project = await AdoptionProject.create(programDir, ["index.ts", "import.json", "adopted.json"]);
    emulator = project.emulator;
    env = {
      PLATFORM_API_URL: emulator.url,
      PLATFORM_TOKEN: emulator.token,
      PATH: `${project.bin}:${process.env["PATH"] ?? ""}`,
    };
  });

  afterAll(async () => {
    await project?.cleanup();
  });

  it("load records the SDK's default provider: a no-change up keeps the state as loaded", async () => {
    const stack = await project.freshStack();
    await stack.shell(`platform-import ${emulator.orgUid} --out import.json --state-out adopted.json`, {
      dir: programDir,
      env,
    });
    await stack.shell("platform-import load adopted.json", { dir: programDir, env });
    const loaded = (await stack.exportState()).state;
    await stack.run(["import", "--file", "import.json", "--preview-only", "--out", "index.ts"], { env });

    const verbose = ["up", "--yes", "--skip-preview", "-v=7", "--logtostderr"];
    const first = await stack.run(verbose, { env });
    expect(first.stdout).toMatch(/\d+ unchanged/);
    expect(first.stdout).not.toMatch(/\d+ (created|updated|deleted|replaced)/);
    const afterFirst = (await stack.exportState()).state;
    const second = await stack.run(verbose, { env });
    const afterSecond = (await stack.exportState()).state;

    const adopted = (loaded.deployment.resources ?? []).filter((r) => r.type.startsWith("platform:iam:"));
    const writes = { first: checkpointWrites(first.stderr), second: checkpointWrites(second.stderr) };
    console.log(
      `${adopted.length} adopted (TypeScript): first up ${first.durationMs} ms, ${writes.first} checkpoint ` +
        `writes; second up ${second.durationMs} ms, ${writes.second}`,
    );
    const provider = `::pulumi:providers:platform::${registrationOf("nodejs").provider.name}::`;
    expect(adopted.length).toBeGreaterThan(0);
    for (const resource of adopted) expect(resource.provider).toContain(provider);
    expect(writes.second).toBeGreaterThan(0); // the log line is still the engine's
    expect(writes.first).toBeLessThanOrEqual(writes.second);
    expect(comparable(loaded)).toEqual(comparable(afterFirst));
    expect(comparable(afterSecond)).toEqual(comparable(afterFirst));
  });
});
