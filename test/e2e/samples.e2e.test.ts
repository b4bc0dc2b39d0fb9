/**
 * What a user runs, in brief: the samples scripts/test.sh runs again on each other supported Node.js and on the
 * oldest engine, after the whole suite has run on the current LTS and the newest engine. Each program goes up,
 * previews no change, and is destroyed: the quick start on the dynamic front (examples/quickstart, the package
 * installed as a user would), and on the native plugin the quick start in TypeScript (the generated SDK),
 * examples/go, examples/python and examples/yaml. Then the three command-line tools, each started as a user would
 * (its bin file, whose `#!/usr/bin/env node` finds `node` on PATH): `platform-emulator` seeded with the quick
 * start's organization, `platform-access review` and `platform-import` against it.
 *
 * The Node.js that runs this file is the one the programs run: the test checks that the `node` the engine's
 * language hosts find on PATH is this process's version, and, when scripts/test.sh names them
 * (PULUMI_PLATFORM_SAMPLE_NODE, PULUMI_PLATFORM_SAMPLE_ENGINE), that Node.js and the engine are the ones asked for.
 * The whole suite covers all of this and more; this file is left out of its run (scripts/test.sh).
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";

import { startEmulator } from "../../emulator";
import { engineBinDir, installLocalPackage, PulumiStack, repoRoot } from "./harness";
import { nativeProgram, nativeQuickstart } from "./native-quickstart";
import { pluginStack } from "./plugin-tarball";
import { pythonEnvironment } from "./python-env";

jest.setTimeout(600_000);

const seedFile = path.join(repoRoot, "examples/quickstart/seed.json");

/** Up (expecting `created` resources, the stack included), a no-change preview, destroy; then the stack removed. */
async function upPreviewDestroy(stack: PulumiStack, created: number): Promise<void> {
  try {
    // Generous: a Go program's first build compiles the Pulumi Go SDK (minutes on a busy machine, cold).
    const up = await stack.up({ timeoutMs: 600_000 });
    expect(up.stdout).toMatch(new RegExp(`\\+ ${created} created`));
    await stack.preview(); // --expect-no-changes
    const destroy = await stack.destroy();
    expect(destroy.stdout).toMatch(new RegExp(`- ${created} deleted`));
  } finally {
    await stack.cleanup();
  }
}

describe("the Node.js and the engine the samples run on", () => {
  it("the programs' `node` is this process's, and the engine is the one asked for", async () => {
    const stack = await PulumiStack.create({ programDir: "." });
    try {
      const node = await stack.shell("node -p process.versions.node");
      expect(node.stdout.trim()).toBe(process.versions.node);
      const wanted = process.env["PULUMI_PLATFORM_SAMPLE_NODE"];
      if (wanted) expect(process.versions.node.split(".")[0]).toBe(wanted);

      const version = await stack.run(["version"], { stackless: true });
      const engine = process.env["PULUMI_PLATFORM_SAMPLE_ENGINE"];
      if (engine) expect(version.stdout.trim()).toBe(`v${engine}`);
      console.info(
        `samples on Node.js ${process.version}, engine ${version.stdout.trim()} (${engineBinDir()})`,
      );
    } finally {
      await stack.cleanup();
    }
  });
});

describe("the quick start on the dynamic front", () => {
  it("up, a no-change preview, destroy", async () => {
    installLocalPackage("examples/quickstart", { build: false });
    const emulator = await startEmulator({ seed: seedFile });
    try {
      const stack = await PulumiStack.create({
        programDir: ".", // the root Pulumi.yaml; its `main` is examples/quickstart
        config: { organization: emulator.orgUid, "platform:apiUrl": emulator.url },
        secrets: { "platform:token": emulator.token },
      });
      await upPreviewDestroy(stack, 7);
    } finally {
      await emulator.close();
    }
  });
});

describe("programs on the native plugin", () => {
  it("TypeScript: the quick start on the generated SDK", async () => {
    const { stack, cleanup } = await nativeQuickstart(nativeProgram);
    try {
      await upPreviewDestroy(stack, 7);
    } finally {
      await cleanup();
    }
  });

  it.each([
    ["examples/go", false, 6, () => ({})],
    ["examples/python", true, 9, () => ({ VIRTUAL_ENV: pythonEnvironment() })],
    ["examples/yaml", true, 9, () => ({})],
  ])("%s", async (example, copy, created, env) => {
    // Go builds the example where it is (its go.mod finds native-sdks/go by a relative path); the others run a copy.
    const programDir = copy ? fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-sample-")) : example;
    if (copy) fs.cpSync(path.join(repoRoot, example), programDir, { recursive: true });
    const emulator = await startEmulator();
    try {
      await upPreviewDestroy(await pluginStack(programDir, emulator, { env: env() }), created);
    } finally {
      await emulator.close();
      if (copy) fs.rmSync(programDir, { recursive: true, force: true });
    }
  });
});

/** What `platform-emulator` prints when it is ready: its `NAME=value` lines. */
async function startEmulatorCli(): Promise<{ child: ChildProcess; env: Record<string, string> }> {
  const bin = path.join(repoRoot, "dist/emulator/cli.js");
  const child = spawn(bin, ["--port", "0", "--seed", seedFile], { stdio: ["ignore", "pipe", "inherit"] });
  const env: Record<string, string> = {};
  const lines = readline.createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) =>
      reject(new Error(`platform-emulator exited with ${code} before it was ready`)),
    );
    lines.on("line", (line) => {
      const pair = /^(PLATFORM_[A-Z_]+)=(.+)$/.exec(line);
      if (pair) env[pair[1]!] = pair[2]!;
      if (env["PLATFORM_API_URL"] && env["PLATFORM_TOKEN"] && env["PLATFORM_ORG_UID"]) resolve();
    });
  });
  return { child, env };
}

/** Runs a tool's bin file with `args`, in the environment `env` adds to; resolves to its exit code and output. */
function runTool(
  tool: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(path.join(repoRoot, tool), args, { env: { ...process.env, ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("the command-line tools", () => {
  let emulator: { child: ChildProcess; env: Record<string, string> };
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-sample-tools-"));
    emulator = await startEmulatorCli();
  });

  afterAll(() => {
    emulator?.child.kill("SIGTERM");
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("platform-access review lists the seeded organization's access", async () => {
    const org = emulator.env["PLATFORM_ORG_UID"]!;
    const review = await runTool("dist/commands/access/cli.js", ["review", org, "--json"], emulator.env);
    expect({ code: review.code, stderr: review.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    expect(JSON.parse(review.stdout)).toEqual(expect.any(Object));
  });

  it("platform-import writes the import file of the seeded organization", async () => {
    const org = emulator.env["PLATFORM_ORG_UID"]!;
    const out = path.join(dir, "import.json");
    const result = await runTool("dist/commands/import/cli.js", [org, "--out", out], emulator.env);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const file = JSON.parse(fs.readFileSync(out, "utf8")) as { resources: unknown[] };
    expect(file.resources.length).toBeGreaterThan(0);
  });
});
