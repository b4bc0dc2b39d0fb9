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
 * propagationDelayMs and tokenLifetimeMs (emulator/README.md).
 */
import { startEmulator, type EmulatorOptions } from "./index";

const USAGE =
  "usage: platform-emulator [--port N] [--data FILE [--data-sync]] [--seed FILE] [--quiet] " +
  "[--propagation-delay-ms N] [--token-lifetime-ms N]";

function integer(flag: string, text: string): number {
  if (!/^\d+$/.test(text)) throw new Error(`${flag} must be a non-negative integer (ms)`);
  return Number(text);
}

function parseArgs(argv: string[]): EmulatorOptions {
  const options: EmulatorOptions = { host: "127.0.0.1", logger: (line) => process.stdout.write(`${line}\n`) };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case "--port": {
        const port = Number(value());
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw new Error("--port must be an integer 0..65535");
        options.port = port;
        break;
      }
      case "--data":
        options.dataFile = value();
        break;
      case "--data-sync":
        if (inline !== undefined) throw new Error("--data-sync takes no value");
        options.dataSync = true;
        break;
      case "--seed":
        options.seed = value();
        break;
      case "--propagation-delay-ms":
        options.propagationDelayMs = integer(flag, value());
        break;
      case "--token-lifetime-ms":
        options.tokenLifetimeMs = integer(flag, value());
        break;
      case "--quiet":
        delete options.logger;
        break;
      case "--help":
      case "-h":
        process.stdout.write(`${USAGE}\n`);
        process.exit(0);
        break;
      default:
        throw new Error(`unknown argument ${arg}`);
    }
  }
  if (options.dataSync === true && options.dataFile === undefined)
    throw new Error("--data-sync needs --data FILE");
  return options;
}

async function main(): Promise<void> {
  const emulator = await startEmulator(parseArgs(process.argv.slice(2)));
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
