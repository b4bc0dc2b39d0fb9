/**
 * The quick start and every example under the project's own policy pack (docs/policy-pack.md): `pulumi preview
 * --policy-pack policy` of each, under the real engine, against an in-process emulator. Each passes every rule but
 * one: its workload identity sets no `audience`, which `identity-audience-required` reports (each example says why
 * in one comment at the identity). The preview runs with that rule made advisory, so its exit code shows that no
 * other mandatory rule fails, and the violation lines printed must be exactly that one per example: the escalation
 * rules (`workload-identity-privileged`, `workload-identity-no-takeover`) find nothing in them.
 *
 * Fronts: the quick start (the root Pulumi.yaml) and examples/access on the dynamic resources; examples/yaml,
 * examples/python and examples/go on the native plugin.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { startEmulator, type Emulator } from "../../emulator";
import { installLocalPackage, PulumiStack, repoRoot, type CommandResult } from "./harness";
import { buildPluginTarball, installPlugin } from "./plugin-tarball";
import { pythonEnvironment } from "./python-env";

const { bundlePolicy } = require("../../scripts/build-policy.js") as { bundlePolicy: () => Promise<string> };

jest.setTimeout(900_000);

const policyPack = path.join(repoRoot, "policy");

/** The distinct violation lines of a run: `[rule] Kind 'name': ...`. */
function violationLines(result: CommandResult): string[] {
  const lines = (result.stdout + result.stderr)
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /^\[[a-z-]+\] [A-Za-z]+ "(?:[^"\\]|\\.)+": /.test(l));
  return [...new Set(lines)].sort();
}

interface Example {
  name: string;
  programDir: string;
  /** The example's workload identity, as the pack names it. */
  identity: string;
  native: boolean;
  config?: (emulator: Emulator) => Record<string, string>;
  secrets?: Record<string, string>;
  env?: () => Record<string, string>;
}

const EXAMPLES: Example[] = [
  { name: "the quick start", programDir: ".", identity: "ci", native: false },
  {
    name: "examples/access",
    programDir: "examples/access",
    identity: "partner-ci",
    native: false,
    config: (emulator) => ({ "access:organization": emulator.orgUid }),
    secrets: { "access:clientSecret": "not-a-real-secret" },
  },
  { name: "examples/yaml", programDir: "examples/yaml", identity: "ci", native: true },
  {
    name: "examples/python",
    programDir: "examples/python",
    identity: "ci",
    native: true,
    env: () => ({ VIRTUAL_ENV: pythonEnvironment() }),
  },
  { name: "examples/go", programDir: "examples/go", identity: "ci", native: true },
];

let emulator: Emulator;
let tarball: string;
let configFile: string;
let configDir: string;

beforeAll(async () => {
  await bundlePolicy();
  tarball = buildPluginTarball();
  installLocalPackage("examples/quickstart");
  installLocalPackage("examples/access", { build: false });
  emulator = await startEmulator();
  configDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-policy-examples-"));
  configFile = path.join(configDir, "policy-config.json");
  fs.writeFileSync(configFile, JSON.stringify({ "identity-audience-required": "advisory" }));
});
afterAll(async () => {
  await emulator?.close();
  if (configDir !== undefined) fs.rmSync(configDir, { recursive: true, force: true });
});

describe.each(EXAMPLES)("$name", (example) => {
  let stack: PulumiStack;

  beforeAll(async () => {
    stack = await PulumiStack.create({
      programDir: example.programDir,
      config: example.config?.(emulator) ?? {
        organization: emulator.orgUid,
        "platform:apiUrl": emulator.url,
      },
      secrets: example.secrets ?? { "platform:token": emulator.token },
      env: {
        ...(example.config === undefined
          ? {}
          : { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token }),
        ...(example.env?.() ?? {}),
      },
    });
    if (example.native) await installPlugin(stack, tarball);
  });
  afterAll(async () => {
    await stack?.cleanup();
  });

  test("passes the pack, but for the one audience line its comment explains", async () => {
    const result = await stack.run(
      ["preview", "--policy-pack", policyPack, "--policy-pack-config", configFile],
      { timeoutMs: 600_000 },
    );
    expect(result.exitCode).toBe(0);
    expect(violationLines(result)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\[identity-audience-required\\] Identity "${example.identity}": claimMatch has no audience`,
        ),
      ),
    ]);
  });
});
