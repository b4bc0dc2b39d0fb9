#!/usr/bin/env node
/**
 * platform-emulator [--port N] [--data FILE [--data-sync]] [--seed FILE] [--quiet] [--propagation-delay-ms N]
 *                   [--token-lifetime-ms N]
 *
 * Starts the emulator on 127.0.0.1, prints the base URL (token exchange and gRPC are on the same host), the organization
 * uid and the bootstrap token, then machine-readable PLATFORM_API_URL= / PLATFORM_TOKEN= / PLATFORM_ORG_UID=
 * lines. Logs one line per request (method, path, status, ms; never the Authorization header). Stops on
 * SIGINT/SIGTERM. --quiet drops the per-request lines (benchmarks). --data-sync waits for the disk before answering
 * each write (see EmulatorOptions.dataSync). --propagation-delay-ms and --token-lifetime-ms are the library's
 * propagationDelayMs and tokenLifetimeMs (emulator/README.md). The options are said once, in ./cli-spec
 * (`platform-emulator --help`; the table of emulator/README.md is generated from it).
 */
import { stopQuietlyWhenReaderGoes } from "../commands/command";
import { parseCommandLine, type Parsed } from "../commands/program";
import type { EmulatorOptions } from "./index";
import { EMULATOR_TOOL } from "./cli-spec";

function integer(flag: `--${string}`, p: Parsed): number {
  const text = p.value(flag)!;
  if (!/^\d+$/.test(text)) throw new Error(`${flag} must be a non-negative integer (ms)`);
  return Number(text);
}

/** The library's options from the command line (./cli-spec); undefined when it only printed (--help, --version). */
function parseArgs(argv: string[]): EmulatorOptions | undefined {
  const p = parseCommandLine(EMULATOR_TOOL, argv, {
    stdout: (text) => process.stdout.write(text),
    stderr: (line) => process.stderr.write(`${line}\n`),
  });
  if (typeof p === "number") {
    process.exitCode = p;
    return undefined;
  }
  const port = Number(p.value("--port"));
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error("--port must be an integer 0..65535");
  const dataFile = p.value("--data");
  const seed = p.value("--seed");
  if (p.has("--data-sync") && dataFile === undefined) throw new Error("--data-sync needs --data FILE");
  return {
    host: "127.0.0.1",
    port,
    ...(dataFile !== undefined ? { dataFile } : {}),
    ...(p.has("--data-sync") ? { dataSync: true } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(p.has("--quiet") ? {} : { logger: (line: string) => process.stdout.write(`${line}\n`) }),
    propagationDelayMs: integer("--propagation-delay-ms", p),
    tokenLifetimeMs: integer("--token-lifetime-ms", p),
  };
}

async function main(): Promise<void> {
  stopQuietlyWhenReaderGoes();
  const options = parseArgs(process.argv.slice(2));
  if (options === undefined) return;
  // The emulator (its server, store and schemas) is loaded only once the command line is read.
  const { startEmulator } = require("./index") as typeof import("./index");
  const emulator = await startEmulator(options);
  process.stdout.write(
    [
      `platform-emulator listening on ${emulator.url} (token exchange: ${emulator.authUrl}/sts/exchange)`,
      `gRPC on the same address (plaintext HTTP/2): ${new URL(emulator.url).host}`,
      `organization: ${emulator.orgUid} (demo-org)`,
      `bootstrap token (emulator only): ${emulator.token}`,
      `PLATFORM_API_URL=${emulator.url}`,
      `PLATFORM_TOKEN=${emulator.token}`,
      `PLATFORM_ORG_UID=${emulator.orgUid}`,
      "",
    ].join("\n"),
  );
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`received ${signal}, stopping\n`);
    emulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`platform-emulator: error while stopping: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

main().catch((error: unknown) => {
  process.stderr.write(`platform-emulator: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
