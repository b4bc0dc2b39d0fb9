/**
 * Every command-line tool stops quietly when its reader goes away (`platform-access review ORG --json | head -c 100`):
 * no `EPIPE` stack trace on stderr (nothing at all where the tool had nothing to say there), and the exit code a shell reports for git or gh
 * stopped by SIGPIPE (commands/command.ts, stopQuietlyWhenReaderGoes). Each tool's TypeScript entry is spawned with
 * its stdout a pipe whose reading end the test closes before the tool writes, so its first write meets a closed pipe.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { EXIT_READER_GONE } from "../../commands/command";
import { startEmulator, type Emulator } from "../../emulator";

const root = path.resolve(__dirname, "..", "..");

/** What Node writes when it dies of the unhandled write error: the error's name and a stack frame. */
const TRACE = /EPIPE|^\s+at /m;

/** Runs `entry` with `argv`, its reader gone from the start: its exit code and everything it wrote on stderr. */
function withReaderGone(
  entry: string,
  argv: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--require", "ts-node/register/transpile-only", path.join(root, entry), ...argv],
      { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
    );
    child.stdout.destroy();
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe("a tool whose reader goes away", () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });

  it("platform-access review ORG --json stops without a trace", async () => {
    const env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token };
    const run = await withReaderGone("commands/access/cli", ["review", emulator.orgUid, "--json"], env);
    expect(run.code).toBe(EXIT_READER_GONE);
    expect(run.stderr).not.toMatch(TRACE);
  }, 40_000);

  it.each([
    ["platform-access", "commands/access/cli", ["--help"]],
    ["platform-import", "commands/import/cli", ["report", "--help"]],
    ["platform-emulator", "emulator/cli", ["--port", "0", "--quiet"]],
  ])(
    "%s stops without a trace",
    async (_tool, entry, argv) => {
      const run = await withReaderGone(entry, argv);
      expect(run).toEqual({ code: EXIT_READER_GONE, stderr: "" });
    },
    40_000,
  );
});
