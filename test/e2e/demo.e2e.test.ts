/**
 * The README's first command, `npm run demo` (scripts/demo.sh), run as a user runs it: it must deploy the quick
 * start, show the outputs, pass a no-change preview, and leave nothing behind (no emulator process, no stack
 * file in the repository), without printing a token.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

import { engineBinDir, repoRoot } from "./harness";

jest.setTimeout(300_000);

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test("npm run demo deploys the quick start, previews no change, and leaves nothing behind", () => {
  const env = { ...process.env, PULUMI_PLATFORM_ENGINE_BIN: engineBinDir(), NO_COLOR: "1" };
  const run = spawnSync("bash", [path.join(repoRoot, "scripts", "demo.sh")], {
    cwd: repoRoot,
    env,
    encoding: "utf8",
    timeout: 280_000,
  });
  const output = `${run.stdout}\n${run.stderr}`;
  if (run.status !== 0) throw new Error(`demo exited ${run.status}:\n${output}`);

  expect(output).toMatch(/\+ 7 created/);
  expect(output).toMatch(/repoNames\s+\["nginx","node","python"\]/);
  expect(output).toMatch(/viewerRoleUid\s+[0-9a-f]{40}/);
  expect(output).toMatch(/7 unchanged/);
  expect(output).toMatch(/platform:token=\[secret\]/);
  // The emulator's tokens are JWTs (header.claims.signature, base64url); none may be shown.
  expect(output).not.toMatch(/eyJ[\w-]{10,}\.eyJ[\w-]{10,}\.[\w-]{20,}/);

  const pid = Number(/emulator \(pid (\d+)\)/.exec(output)?.[1]);
  expect(pid).toBeGreaterThan(0);
  expect(isRunning(pid)).toBe(false);
  expect(fs.existsSync(path.join(repoRoot, "Pulumi.demo.yaml"))).toBe(false);
});
