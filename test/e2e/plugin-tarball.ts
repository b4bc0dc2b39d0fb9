/**
 * The native plugin for end-to-end tests: its tarball built once per run (`npm run plugin`: a few seconds),
 * `pulumi plugin install resource platform <version> --file <tarball>` into a stack's PULUMI_HOME, as a user
 * installs it, its generated TypeScript SDK compiled into a program's node_modules, and objects made by hand to
 * import.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Emulator } from "../../emulator";
import type { PlatformClient } from "../../sdk";
import { everyKind } from "../commands/fixtures";
import { oncePerRun, PulumiStack, repoRoot } from "./harness";

export const pluginVersion = (require("../../package.json") as { version: string }).version;

/** Builds the plugin tarball (once per run) and returns its path: the last line `npm run plugin` prints. */
export function buildPluginTarball(): string {
  const build = () => {
    const stdout = execFileSync("node", [path.join(repoRoot, "scripts", "build-plugin.js")], {
      cwd: repoRoot,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      timeout: 5 * 60_000,
    });
    return stdout.trim().split("\n").pop() ?? "";
  };
  const tarball = oncePerRun("plugin-tarball", build);
  return fs.existsSync(tarball) ? tarball : build();
}

/**
 * A stack of a program on the plugin against an emulator, configured as a user would: `organization`,
 * `platform:apiUrl` and the secret `platform:token` (and `config`, `secrets`, `env` beside them), with the plugin
 * installed from its tarball.
 */
export async function pluginStack(
  programDir: string,
  emulator: Pick<Emulator, "orgUid" | "url" | "token">,
  options: {
    config?: Record<string, string>;
    secrets?: Record<string, string>;
    env?: Record<string, string>;
  } = {},
): Promise<PulumiStack> {
  const stack = await PulumiStack.create({
    programDir,
    config: { organization: emulator.orgUid, "platform:apiUrl": emulator.url, ...options.config },
    secrets: { "platform:token": emulator.token, ...options.secrets },
    ...(options.env !== undefined ? { env: options.env } : {}),
  });
  try {
    await installPlugin(stack, buildPluginTarball());
  } catch (error) {
    await stack.cleanup();
    throw error;
  }
  return stack;
}

/** Installs the tarball into the stack's PULUMI_HOME. */
export async function installPlugin(stack: PulumiStack, tarball: string): Promise<void> {
  await stack.run(["plugin", "install", "resource", "platform", pluginVersion, "--file", tarball], {
    stackless: true,
  });
}

/**
 * native-sdks/nodejs compiled with tsc and laid out as `npm install` puts a built package under a program's
 * node_modules (`pulumi-platform-native`).
 */
export function installGeneratedSdk(programDir: string): void {
  const installed = path.join(programDir, "node_modules", "pulumi-platform-native");
  fs.rmSync(installed, { recursive: true, force: true });
  const run = process.env["PULUMI_PLATFORM_E2E_RUN_DIR"];
  if (!run) {
    compileGeneratedSdk(installed);
    return;
  }
  // Compiled once per run, then copied: every program gets a real directory of its own, as npm would lay it out.
  const compiled = oncePerRun("generated-sdk-nodejs", () => {
    const dir = path.join(run, "pulumi-platform-native");
    compileGeneratedSdk(dir);
    return dir;
  });
  fs.cpSync(compiled, installed, { recursive: true });
}

/** native-sdks/nodejs compiled into `outDir`, with its package.json. */
function compileGeneratedSdk(outDir: string): void {
  const source = path.join(repoRoot, "native-sdks", "nodejs");
  const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");
  execFileSync("node", [tsc, "-p", path.join(source, "tsconfig.json"), "--outDir", outDir], {
    cwd: repoRoot,
    stdio: "inherit",
    timeout: 180_000,
  });
  fs.copyFileSync(path.join(source, "package.json"), path.join(outDir, "package.json"));
}

/**
 * One object of every resource kind, made by hand (straight through the API) under `org`, for the import tests:
 * a group with an identity, a custom role, a binding, an invite and an account association in it, and an identity
 * provider in the organization.
 */
export async function handMadeObjectOfEveryKind(client: PlatformClient, org: string, clientSecret: string) {
  const { viewer: _viewer, ...made } = await everyKind(client, org, clientSecret);
  return made;
}
