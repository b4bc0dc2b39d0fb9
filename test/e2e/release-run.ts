/**
 * What the release e2e files (release, standalone) do alike with scripts/release.js: run it into a folder, and
 * unpack one of the archives it wrote.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoRoot } from "./harness";

/** Runs scripts/release.js into `out`, allowing it `timeoutMs`, and returns the folder it printed last. */
export function runRelease(out: string, timeoutMs: number): string {
  const stdout = execFileSync(process.execPath, [path.join(repoRoot, "scripts", "release.js"), out], {
    cwd: repoRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    timeout: timeoutMs,
  });
  return stdout.trim().split("\n").pop() ?? "";
}

/** Unpacks a .tar.gz into a new directory under `scratch` and returns it. */
export function unpack(archive: string, scratch: string): string {
  const dir = fs.mkdtempSync(path.join(scratch, "unpacked-"));
  execFileSync("tar", ["-xzf", archive, "-C", dir]);
  return dir;
}
