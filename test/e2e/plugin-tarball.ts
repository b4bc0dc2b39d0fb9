/**
 * The native plugin for end-to-end tests: its tarball built once per test file (`npm run plugin`: a few seconds),
 * and `pulumi plugin install resource platform <version> --file <tarball>` into a stack's PULUMI_HOME, as a user
 * installs it.
 *
 * May import: node built-ins, ./harness.
 */
import { execFileSync } from "node:child_process";
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
