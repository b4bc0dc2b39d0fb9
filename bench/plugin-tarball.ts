/** The plugin tarball a bench installs: BENCH_PLUGIN_TARBALL when set, else the one scripts/build-plugin.js builds. */
import { execFileSync } from "node:child_process";
import { join } from "node:path";

/** The tarball's path; `root` is the repository's root. */
export function benchPluginTarball(root: string): string {
  return (
    process.env.BENCH_PLUGIN_TARBALL ||
    execFileSync("node", [join(root, "scripts", "build-plugin.js")], { cwd: root, encoding: "utf8" })
      .trim()
      .split("\n")
      .pop()!
  );
}
