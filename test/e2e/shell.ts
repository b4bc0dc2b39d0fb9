/** Shell scripts as the READMEs' readers run them (first-hour, templates): bash through scripts/pulumi-env.sh. */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { repoRoot } from "./harness";

export interface Ran {
  output: string;
  seconds: number;
}

/**
 * Runs `script` with bash (-e, pipefail) through scripts/pulumi-env.sh in `cwd`, `stdin` on its standard input (none
 * when not given); resolves with its output and how long it took, rejects with the output when it fails.
 */
export function sh(script: string, cwd: string, env: Record<string, string>, stdin?: string): Promise<Ran> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      "bash",
      [path.join(repoRoot, "scripts/pulumi-env.sh"), "bash", "-e", "-o", "pipefail", "-c", script],
      {
        cwd,
        env: { ...process.env, ...env, NO_COLOR: "1" },
        stdio: [stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout!.on("data", (c: Buffer) => (output += c.toString("utf8")));
    child.stderr!.on("data", (c: Buffer) => (output += c.toString("utf8")));
    if (stdin !== undefined) child.stdin?.end(stdin);
    child.on("close", (code) =>
      code === 0
        ? resolve({ output, seconds: (Date.now() - started) / 1000 })
        : reject(new Error(`\`${script}\` exited ${code}:\n${output}`)),
    );
  });
}
