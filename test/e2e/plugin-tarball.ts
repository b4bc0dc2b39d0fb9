/**
 * The native plugin for end-to-end tests: its tarball built once per test file (`npm run plugin`: a few seconds),
 * `pulumi plugin install resource platform <version> --file <tarball>` into a stack's PULUMI_HOME, as a user
 * installs it, and its generated TypeScript SDK compiled into a program's node_modules.
 *
 * May import: node built-ins, ./harness.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { PulumiStack, repoRoot } from "./harness";

export const pluginVersion = (require("../../package.json") as { version: string }).version;

/** Builds the plugin tarball and returns its path: the last line `npm run plugin` prints. */
export function buildPluginTarball(): string {
  const stdout = execFileSync("node", [path.join(repoRoot, "scripts", "build-plugin.js")], {
    cwd: repoRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 5 * 60_000,
  });
  return stdout.trim().split("\n").pop() ?? "";
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
  const source = path.join(repoRoot, "native-sdks", "nodejs");
  const installed = path.join(programDir, "node_modules", "pulumi-platform-native");
  fs.rmSync(installed, { recursive: true, force: true });
  const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");
  execFileSync("node", [tsc, "-p", path.join(source, "tsconfig.json"), "--outDir", installed], {
    cwd: repoRoot,
    stdio: "inherit",
    timeout: 180_000,
  });
  fs.copyFileSync(path.join(source, "package.json"), path.join(installed, "package.json"));
}
