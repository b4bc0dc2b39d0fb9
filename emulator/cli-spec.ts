/**
 * `platform-emulator`'s command line, said once: its options with their help and defaults. The parser
 * (../commands/program), `--help` and the options table of emulator/README.md (scripts/generate-cli-docs.js) are
 * made from it; ./cli maps each option to the library's EmulatorOptions. Loaded for `--help`, so it imports nothing
 * but types.
 */
import type { ToolSpec } from "../commands/program";

export const EMULATOR_TOOL: ToolSpec = {
  name: "platform-emulator",
  summary:
    "Starts the emulator of the Platform Management API v2beta1 on 127.0.0.1 and prints its URL, the organization's " +
    "uid and a bootstrap token, then PLATFORM_API_URL=, PLATFORM_TOKEN= and PLATFORM_ORG_UID= lines. Stops on " +
    "SIGINT or SIGTERM.",
  root: {
    name: "",
    summary: "Logs one line per request (method, path, status, ms; never the Authorization header).",
    args: [],
    argsRule: "platform-emulator takes no argument: options only",
    options: [
      { name: "--port", value: "N", default: "0", help: "the port to listen on (0: any free port)" },
      {
        name: "--data",
        value: "FILE",
        defaultSaid: "in memory",
        help: "keep the state in FILE (a snapshot and FILE.journal) and reload it on start",
      },
      {
        name: "--data-sync",
        help: "with --data, wait for the disk (fdatasync) before answering each write",
      },
      {
        name: "--seed",
        value: "FILE",
        help: "seed data (JSON; emulator/README.md), applied on a fresh start",
      },
      { name: "--quiet", help: "no line per request (benchmarks)" },
      {
        name: "--propagation-delay-ms",
        value: "N",
        default: "0",
        help: "ms on the emulator clock before a new group, role or role binding is effective for authorization",
      },
      {
        name: "--token-lifetime-ms",
        value: "N",
        default: "3600000",
        help: "ms on the emulator clock an exchanged token lives (the spec's one hour)",
      },
    ],
  },
  commands: [],
  exitCodes: ["0  stopped by SIGINT or SIGTERM", "1  refused (bad options), or failed to start or to stop"],
};
