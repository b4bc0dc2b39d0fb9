/**
 * The Python environment for end-to-end tests: scripts/python-env.sh --sdk, the virtual environment (cached beside
 * the engine) with pulumi<=<engine version> (the newest on PyPI) and the wheel of the generated Python SDK (native-sdks/python)
 * installed. The script rebuilds the wheel only when native-sdks/python changed, so suites share one build per run.
 */
import { execFileSync } from "node:child_process";
import * as path from "node:path";

import { repoRoot } from "./harness";

/** The virtual environment's directory (the last line python-env.sh prints), for VIRTUAL_ENV. */
export function pythonEnvironment(): string {
  const stdout = execFileSync("bash", [path.join(repoRoot, "scripts", "python-env.sh"), "--sdk"], {
    cwd: repoRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 10 * 60_000,
  });
  return stdout.trim().split("\n").pop() ?? "";
}
