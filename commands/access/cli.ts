#!/usr/bin/env node
/**
 * platform-access: who can do what, where, and why. Reads live data with the caller's own credentials
 * (the environment, as platform-import: PLATFORM_API_URL, PLATFORM_TOKEN, or PLATFORM_IDENTITY with
 * PLATFORM_IDENTITY_TOKEN[_FILE]; sdk/config.ts), one GET and four lists plus pages whatever the organization's size
 * (./read), and answers through the shared access model (sdk/access-model.ts).
 *
 * Its commands, arguments and options are said once, in ./spec (`platform-access --help`, `platform-access review
 * --help`; the tables of docs/access-review.md are generated from it). Each command is a module of ./run, loaded
 * only when chosen: `--help` loads the parser and the spec alone, never the API client, the Pulumi SDK or the page.
 *
 *   review        every identity, role binding and role under a group (./run/review)
 *   who-can       who holds a capability on a group (./run/who-can)
 *   what-can      what an identity holds, where (./run/what-can)
 *   least-privilege  the smallest role a stack's updates need (./run/least-privilege)
 *   plan          what an update changes in who can do what, from pulumi preview --json (./plan-command)
 *
 * Exit code 0; 2 when --fail-on-privileged-workload finds a privileged capability held by a workload identity or an
 * unmanaged one, or --fail-on-new-privileged a privileged capability newly held since the earlier review (for a
 * scheduled CI job); 1 on a refusal, a misspelt command or option included (one line on stderr, nothing written).
 * When the caller may not list everything, the output says what is left out (and stderr says it too).
 */
import { runAsMain, runCommand } from "../command";
import { parseCommandLine } from "../program";
import { ACCESS_TOOL } from "./spec";
import type { Io, RunCommand } from "./run/shared";

export type { Io } from "./run/shared";
export { EXIT_PRIVILEGED } from "./spec";

/** Each command's module, loaded only when it is the one chosen. */
const COMMANDS: Record<string, () => RunCommand> = {
  review: () => (require("./run/review") as typeof import("./run/review")).run,
  "who-can": () => (require("./run/who-can") as typeof import("./run/who-can")).run,
  "what-can": () => (require("./run/what-can") as typeof import("./run/what-can")).run,
  "least-privilege": () => (require("./run/least-privilege") as typeof import("./run/least-privilege")).run,
  plan: () => (require("./run/plan") as typeof import("./run/plan")).run,
};

/** Runs the command; returns the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  return runCommand("platform-access", io, async (connect) => {
    const parsed = parseCommandLine(ACCESS_TOOL, argv, io);
    if (typeof parsed === "number") return parsed;
    const load = Object.hasOwn(COMMANDS, parsed.spec.name) ? COMMANDS[parsed.spec.name] : undefined;
    if (load === undefined) throw new Error(`no module runs ${parsed.spec.name}`);
    return await load()(parsed, io, connect);
  });
}

runAsMain(module, main);
