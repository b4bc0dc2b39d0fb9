/**
 * What the project's command-line tools (`platform-import`, `platform-access`) share around their own work: where
 * they print, one client made on first use from the environment, the one-line error (credentials masked) and the exit
 * code, how a module becomes the process's command (stopping quietly when its reader goes away), masking secrets in a text, reading a file given on the command
 * line, and running work a few at a time.
 *
 * Loaded before a tool knows what it will do (for `--help` too), so the API client (../sdk, its schemas) is loaded
 * on first use, by `connect`.
 */
import * as fs from "node:fs";
import type { PlatformClient } from "../sdk";

/** A refusal: one line, and nothing written. */
export class Refusal extends Error {
  override name = "Refusal";
}

/** Where a command prints and what environment it reads. */
export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (line: string) => void;
  env: Record<string, string | undefined>;
}

/** The environment variables whose values never reach an error line. */
const SECRET_VARIABLES = ["PLATFORM_TOKEN", "PLATFORM_IDENTITY_TOKEN"];

/**
 * Runs `body` with a `connect` that makes the API client from the environment on first use (a configuration error
 * is a refusal, said as it is) and closes it at the end. A failure becomes one line on stderr, `<name>: <message>`,
 * with every credential of the environment masked, and exit code 1.
 */
export async function runCommand(
  name: string,
  io: CommandIo,
  body: (connect: () => PlatformClient) => Promise<number>,
): Promise<number> {
  const secrets = SECRET_VARIABLES.map((variable) => io.env[variable]).filter(
    (value): value is string => value !== undefined,
  );
  let client: PlatformClient | undefined;
  const connect = (): PlatformClient => {
    if (client !== undefined) return client;
    const { ConfigurationError, PlatformClient } = require("../sdk") as typeof import("../sdk");
    try {
      return (client = new PlatformClient({ env: io.env }));
    } catch (err) {
      if (ConfigurationError.isInstance(err)) throw new Refusal((err as Error).message);
      throw err;
    }
  };
  try {
    return await body(connect);
  } catch (err) {
    const message =
      err instanceof Refusal ? err.message : `failed: ${(err as Error)?.message ?? String(err)}`;
    io.stderr(`${name}: ${maskSecrets(message, secrets).split("\n")[0]}`);
    return 1;
  } finally {
    await client?.close();
  }
}

/**
 * `text` with every occurrence of each secret replaced by `***`. A value shorter than four characters is left: masking
 * it would mask every word that holds it, and it guards nothing.
 */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  return secrets.filter((s) => s.length >= 4).reduce((t, s) => t.split(s).join("***"), text);
}

/** The exit code of a tool whose reader went away: what the shell reports for git or gh stopped by SIGPIPE. */
export const EXIT_READER_GONE = 128 + 13;

const quietStreams = new WeakSet<NodeJS.WriteStream>();

/**
 * Makes a closed pipe on the process's stdout or stderr (its reader went away: `| head`) stop the process at once,
 * writing nothing, with EXIT_READER_GONE, as git and gh stop; Node would otherwise die of the unhandled `EPIPE` with a
 * stack trace. Any other error of the stream is thrown as before. Every command-line tool calls it first (runAsMain,
 * and the emulator's CLI).
 */
export function stopQuietlyWhenReaderGoes(
  streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr],
): void {
  for (const stream of streams) {
    if (quietStreams.has(stream)) continue;
    quietStreams.add(stream);
    stream.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "EPIPE") process.exit(EXIT_READER_GONE);
      throw err;
    });
  }
}

/**
 * Runs `main` as the process's command when `module` is the entry point: the process's streams (a reader that goes
 * away stops it quietly), its exit code.
 */
export function runAsMain(
  module: NodeJS.Module,
  main: (argv: string[], io: CommandIo) => Promise<number>,
): void {
  if (require.main !== module) return;
  stopQuietlyWhenReaderGoes();
  void main(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (line) => process.stderr.write(`${line}\n`),
    env: process.env,
  }).then((code) => {
    process.exitCode = code;
  });
}

/** The text of a file the caller named; one that cannot be read is a refusal naming it and why (ENOENT, EACCES). */
export function readText(file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new Refusal(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
}

/** Runs `work` over `items`, at most `limit` at a time, results in the items' order. */
export async function pooled<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
