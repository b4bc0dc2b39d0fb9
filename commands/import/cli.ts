#!/usr/bin/env node
/**
 * platform-import: writes a `pulumi import --file` document of everything under a group (read through the API), or
 * of the resources in a Terraform state of the platform's Terraform provider.
 *
 *   platform-import <group uid> | --terraform-state FILE   the document (./run/walk)
 *   platform-import report <group uid>                     what no stack manages (./run/report)
 *   platform-import load FILE                              the adoption file loaded into the stack (./run/load)
 *
 * Its commands, arguments and options are said once, in ./spec (`platform-import --help`, `platform-import report
 * --help`; the tables of docs/adopting.md are generated from it). Each command is a module of ./run, loaded only
 * when chosen: `--help` loads the parser and the spec alone.
 *
 * `report` names the stack and resource that manage each object under the group, what no stack manages, what they
 * manage that is gone, the coverage of each kind and the conflicts between stacks (./conflicts), as text (or JSON
 * with --json) on stdout; --out writes the import document of exactly the unmanaged objects. The stacks are every
 * stack of a backend (--backend URL, else the engine's current one; those matching --stacks PATTERN), read through
 * the engine (../stacks), or state files exported by hand (--state, offline; with --backend or --stacks, both).
 * Exit code 0 when every object is managed, none is gone and every stack was read; 3 on a conflict; else 2 (for a
 * scheduled CI job); 1 on a refusal, a misspelt command or option included. --bindings writes the role bindings as
 * one RoleBinding each (the default), one GroupAccess per group, or one IdentityAccess per identity (./bindings).
 *
 * The document goes to --out (written whole, only on success) or stdout; progress, what cannot be recovered and
 * what was not imported go to stderr. Credentials come from the environment as for the provider (PLATFORM_API_URL,
 * PLATFORM_TOKEN, or PLATFORM_IDENTITY with PLATFORM_IDENTITY_TOKEN[_FILE]; sdk/config.ts) and are never printed.
 * A refusal is one line on stderr, exit code 1, and nothing written.
 *
 * --state-out (with --out) also writes the adopted resources' Pulumi state, read through the provider's own read
 * (./adoption, one GET per resource), for `platform-import load`, which merges it into the stack with one
 * `pulumi stack import` (./load); `pulumi import --file import.json --preview-only --out FILE` then prints the
 * program from the loaded state without reading anything. Docs: docs/adopting.md, "State-first adoption".
 */
import { runAsMain, runCommand } from "../command";
import { parseCommandLine } from "../program";
import { IMPORT_TOOL } from "./spec";
import type { Io, RunCommand } from "./run/shared";

export type { Io } from "./run/shared";
export { EXIT_CONFLICT, EXIT_UNMANAGED } from "./spec";

/** Each command's module (the walk's without a command), loaded only when it is the one chosen. */
const COMMANDS: Record<string, () => RunCommand> = {
  "": () => (require("./run/walk") as typeof import("./run/walk")).run,
  report: () => (require("./run/report") as typeof import("./run/report")).run,
  load: () => (require("./run/load") as typeof import("./run/load")).run,
};

/** Runs the command; returns the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  return runCommand("platform-import", io, async (connect) => {
    const parsed = parseCommandLine(IMPORT_TOOL, argv, io);
    if (typeof parsed === "number") return parsed;
    const load = Object.hasOwn(COMMANDS, parsed.spec.name) ? COMMANDS[parsed.spec.name] : undefined;
    if (load === undefined) throw new Error(`no module runs ${parsed.spec.name}`);
    return await load()(parsed, io, connect);
  });
}

runAsMain(module, main);
