#!/usr/bin/env node
/**
 * platform-import: writes a `pulumi import --file` document of everything under a group (read through the API), or
 * of the resources in a Terraform state of the platform's Terraform provider.
 *
 *   platform-import <group uid> [--bindings role-binding|group-access|identity-access] [--out import.json]
 *   platform-import --terraform-state terraform.tfstate [--out import.json]
 *   platform-import --terraform-state terraform.tfstate --addresses     (the mapped addresses, one a line)
 *   platform-import report <group uid> [--backend URL] [--stacks PATTERN]... [--state stack.json]... [--json]
 *                          [--out import.json]
 *   platform-import ... --out import.json --state-out adopted.json    (also the state, for a state-first adoption)
 *   platform-import load adopted.json [--stack NAME]                  (loads it into the stack: ./load)
 *
 * `report` names the stack and resource that manage each object under the group, what no stack manages, what they
 * manage that is gone, the coverage of each kind and the conflicts between stacks (./conflicts), as text (or JSON
 * with --json) on stdout; --out writes the import document of exactly the unmanaged objects. The stacks are every
 * stack of a backend (--backend URL, else the engine's current one; those matching --stacks PATTERN), read through
 * the engine (../stacks), or state files exported by hand (--state, offline; with --backend or --stacks, both).
 * Exit code 0 when every object is managed, none is gone and every stack was read; 3 on a conflict; else 2 (for a
 * scheduled CI job); 1 on a refusal. --bindings writes the role bindings as one RoleBinding each (the default), one
 * GroupAccess per group, or one IdentityAccess per identity (./bindings).
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
 *
 * May import: ../../sdk, ../command, ../kinds, ../stacks, ./walk, ./terraform, ./document, ./bindings, ./report, ./adoption, ./load.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { PlatformClient } from "../../sdk";
import { Refusal, readText, runAsMain, runCommand, type CommandIo } from "../command";
import type { ImportDocument } from "./document";
import { KINDS, LISTED_KINDS, type ListedKind } from "../kinds";
import { BINDINGS_FORMS, type BindingsForm } from "./bindings";
import { reportText, reportUnmanaged } from "./report";
import { pulumiCli, readSources, sourcesSaid, type RunPulumi } from "../stacks";
import { mapTerraformState } from "./terraform";
import { walkGroup } from "./walk";
import { fingerprints, listScope, readAdoption, scopeOf } from "./adoption";
import { loadAdoption, readAdoptionFile } from "./load";

const USAGE =
  "usage: platform-import <group uid> [--bindings FORM] [--out FILE]" +
  " | platform-import --terraform-state FILE [--out FILE | --addresses]" +
  " | platform-import report <group uid> [--backend URL] [--stacks PATTERN]... [--state FILE]... [--json]" +
  " [--bindings FORM] [--out FILE]" +
  " (each with [--state-out FILE] beside --out)" +
  " | platform-import load FILE [--stack NAME]" +
  ` (FORM: ${BINDINGS_FORMS.join(", ")})`;

function bindingsForm(value: string): BindingsForm {
  const form = BINDINGS_FORMS.find((f) => f === value);
  if (form === undefined)
    throw new Refusal(`--bindings is one of ${BINDINGS_FORMS.join(", ")}, not ${JSON.stringify(value)}`);
  return form;
}

/** The exit code of a report that finds an object no stack manages, a managed one gone, or a stack it cannot read. */
export const EXIT_UNMANAGED = 2;

/** The exit code of a report that finds two resources managing the same thing (it wins over EXIT_UNMANAGED). */
export const EXIT_CONFLICT = 3;

interface ReportArgs {
  groupUid: string;
  states: string[];
  backend?: string;
  stacks: string[];
  json: boolean;
  out?: string;
  stateOut?: string;
  bindings: BindingsForm;
}

function parseReportArgs(argv: string[]): ReportArgs {
  let groupUid: string | undefined;
  const states: string[] = [];
  const stacks: string[] = [];
  let backend: string | undefined;
  let json = false;
  let out: string | undefined;
  let stateOut: string | undefined;
  let bindings: BindingsForm = "role-binding";
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined || v === "") throw new Refusal(`${arg} needs a value; ${USAGE}`);
      return v;
    };
    if (arg === "--state") states.push(value());
    else if (arg.startsWith("--state=")) states.push(arg.slice("--state=".length));
    else if (arg === "--backend") backend = value();
    else if (arg.startsWith("--backend=")) backend = arg.slice("--backend=".length);
    else if (arg === "--stacks") stacks.push(value());
    else if (arg.startsWith("--stacks=")) stacks.push(arg.slice("--stacks=".length));
    else if (arg === "--out" || arg === "-o") out = value();
    else if (arg.startsWith("--out=")) out = arg.slice("--out=".length);
    else if (arg === "--state-out") stateOut = value();
    else if (arg.startsWith("--state-out=")) stateOut = arg.slice("--state-out=".length);
    else if (arg === "--json") json = true;
    else if (arg === "--bindings") bindings = bindingsForm(value());
    else if (arg.startsWith("--bindings=")) bindings = bindingsForm(arg.slice("--bindings=".length));
    else if (arg === "--help" || arg === "-h") throw new Refusal(USAGE);
    else if (arg.startsWith("-")) throw new Refusal(`unknown option ${arg}; ${USAGE}`);
    else if (groupUid === undefined) groupUid = arg;
    else throw new Refusal(`one group uid only, got ${groupUid} and ${arg}; ${USAGE}`);
  }
  if (groupUid === undefined) throw new Refusal(`report needs a group uid; ${USAGE}`);
  if (backend === "") throw new Refusal(`--backend needs a URL; ${USAGE}`);
  if (stateOut !== undefined && out === undefined)
    throw new Refusal(`--state-out writes the state of the document --out writes: give --out too`);
  return {
    groupUid,
    states,
    stacks,
    ...(backend !== undefined ? { backend } : {}),
    json,
    bindings,
    ...(out !== undefined ? { out } : {}),
    ...(stateOut !== undefined ? { stateOut } : {}),
  };
}

interface Args {
  groupUid?: string;
  terraformState?: string;
  out?: string;
  stateOut?: string;
  addresses: boolean;
  bindings?: BindingsForm;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { addresses: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined || v === "") throw new Refusal(`${arg} needs a value; ${USAGE}`);
      return v;
    };
    if (arg === "--out" || arg === "-o") args.out = value();
    else if (arg.startsWith("--out=")) args.out = arg.slice("--out=".length);
    else if (arg === "--state-out") args.stateOut = value();
    else if (arg.startsWith("--state-out=")) args.stateOut = arg.slice("--state-out=".length);
    else if (arg === "--terraform-state") args.terraformState = value();
    else if (arg.startsWith("--terraform-state="))
      args.terraformState = arg.slice("--terraform-state=".length);
    else if (arg === "--addresses") args.addresses = true;
    else if (arg === "--bindings") args.bindings = bindingsForm(value());
    else if (arg.startsWith("--bindings=")) args.bindings = bindingsForm(arg.slice("--bindings=".length));
    else if (arg === "--help" || arg === "-h") throw new Refusal(USAGE);
    else if (arg.startsWith("-")) throw new Refusal(`unknown option ${arg}; ${USAGE}`);
    else if (args.groupUid === undefined) args.groupUid = arg;
    else throw new Refusal(`one group uid only, got ${args.groupUid} and ${arg}; ${USAGE}`);
  }
  if ((args.groupUid === undefined) === (args.terraformState === undefined))
    throw new Refusal(
      `give a group uid or --terraform-state, not ${args.groupUid ? "both" : "neither"}; ${USAGE}`,
    );
  if (args.addresses && args.terraformState === undefined)
    throw new Refusal(`--addresses lists Terraform addresses: it needs --terraform-state`);
  if (args.addresses && args.out !== undefined) throw new Refusal(`--addresses prints to stdout: drop --out`);
  if (args.stateOut !== undefined && args.out === undefined)
    throw new Refusal(`--state-out writes the state of the document --out writes: give --out too`);
  if (args.bindings !== undefined && args.terraformState !== undefined)
    throw new Refusal(`--bindings shapes what the API walk finds: a Terraform state keeps its role bindings`);
  return args;
}

export interface Io extends CommandIo {
  /** The project directory for `load` (default the process's). */
  cwd?: string;
  /** How `report` and `load` run the engine with a given environment (default the CLI on PATH). */
  engine?: (env: Record<string, string | undefined>) => RunPulumi;
}

interface LoadArgs {
  file: string;
  stack?: string;
}

function parseLoadArgs(argv: string[]): LoadArgs {
  let file: string | undefined;
  let stack: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined || v === "") throw new Refusal(`${arg} needs a value; ${USAGE}`);
      return v;
    };
    if (arg === "--stack" || arg === "-s") stack = value();
    else if (arg.startsWith("--stack=")) stack = arg.slice("--stack=".length);
    else if (arg === "--help" || arg === "-h") throw new Refusal(USAGE);
    else if (arg.startsWith("-")) throw new Refusal(`unknown option ${arg}; ${USAGE}`);
    else if (file === undefined) file = arg;
    else throw new Refusal(`one adoption file only, got ${file} and ${arg}; ${USAGE}`);
  }
  if (file === undefined)
    throw new Refusal(`load needs the adoption file (platform-import --state-out); ${USAGE}`);
  return { file, ...(stack !== undefined ? { stack } : {}) };
}

/** Writes the adoption file of `document` (the state `pulumi import` would record) to `file`. */
async function writeAdoption(
  file: string,
  document: ImportDocument,
  scope: { scope: string; fingerprints: Record<string, string> },
  io: Io,
): Promise<void> {
  const started = Date.now();
  const { file: adoption, calls } = await readAdoption(document, scope, {
    env: io.env,
    progress: (line) => io.stderr(line),
  });
  writeWhole(file, `${JSON.stringify(adoption, null, 2)}\n`);
  io.stderr(
    `wrote ${file} (the state of ${adoption.resources.length} resources; ${calls} API calls, ` +
      `${Date.now() - started} ms): load it with platform-import load ${file}`,
  );
}

/** `load`: the adoption file merged into the stack. */
async function runLoad(args: LoadArgs, connect: () => PlatformClient, io: Io): Promise<number> {
  const adoption = readAdoptionFile(readText(args.file), args.file);
  const cwd = io.cwd ?? process.cwd();
  const engine = io.engine ?? ((env) => pulumiCli(cwd, env));
  const started = Date.now();
  const result = await loadAdoption(adoption, {
    pulumi: engine(io.env),
    cwd,
    client: connect(),
    progress: (line) => io.stderr(line),
    ...(args.stack !== undefined ? { stack: args.stack } : {}),
  });
  io.stderr(
    `loaded ${result.added} resources into the stack (${result.total} in all` +
      `${result.providerAdded ? ", with the default platform provider" : ""}; ${result.calls} API calls, ` +
      `${Date.now() - started} ms): now pulumi import --file <the document> --preview-only --out <program> ` +
      `prints the program, and pulumi preview --expect-no-changes proves it`,
  );
  return 0;
}

function summary(counts: Record<ListedKind, number>): string {
  return LISTED_KINDS.filter((k) => counts[k] > 0)
    .map((k) => `${counts[k]} ${KINDS[k].label}${counts[k] === 1 ? "" : "s"}`)
    .join(", ");
}

function report(document: ImportDocument, io: Io): void {
  const { notes, skipped, warnings } = document.platformImport;
  for (const warning of warnings) io.stderr(`warning: ${warning}`);
  if (notes.length > 0) {
    io.stderr(`not recoverable (${notes.length}):`);
    for (const note of notes)
      io.stderr(`  ${note.name} (${note.type} ${note.id}): ${note.what}. To do: ${note.todo}`);
  }
  if (skipped.length > 0) {
    io.stderr(`not imported (${skipped.length}):`);
    for (const s of skipped) io.stderr(`  ${s.subject}: ${s.reason}`);
  }
}

/** Writes the whole file or nothing: a temporary file beside it, renamed over it. */
function writeWhole(file: string, text: string): void {
  const tmp = path.join(path.dirname(path.resolve(file)), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/**
 * The report: the states read first (a bad file refuses before any API call; the backend's stacks through the
 * engine when asked, or when no file is given), then one listing.
 */
async function runReport(args: ReportArgs, connect: () => PlatformClient, io: Io): Promise<number> {
  // With no --state, the backend is read even without --backend or --stacks (readSources reads it for either).
  const fromBackend = args.backend !== undefined || args.states.length === 0;
  const sources = await readSources({
    files: args.states,
    ...(fromBackend ? { backend: args.backend ?? true } : {}),
    patterns: args.stacks,
    env: io.env,
    ...(io.engine !== undefined ? { engine: io.engine } : {}),
  });
  for (const line of sourcesSaid(sources)) io.stderr(line);
  const started = Date.now();
  const { report, document, labels, listing } = await reportUnmanaged(
    connect(),
    args.groupUid,
    sources.states,
    {
      progress: (line) => io.stderr(line),
      bindings: args.bindings,
      ...(sources.backend !== undefined ? { backend: sources.backend } : {}),
      unreadable: sources.unreadable,
    },
  );
  io.stderr(`${args.groupUid}: ${report.calls} API calls, ${Date.now() - started} ms`);
  io.stdout(args.json ? `${JSON.stringify(report, null, 2)}\n` : reportText(report, labels));
  if (args.out !== undefined) {
    writeWhole(args.out, `${JSON.stringify(document, null, 2)}\n`);
    io.stderr(
      `wrote ${args.out} (${document.resources.length} unmanaged objects)` +
        (document.resources.length > 0 ? `: adopt them with pulumi import --file ${args.out}` : ""),
    );
    if (args.stateOut !== undefined)
      await writeAdoption(
        args.stateOut,
        document,
        { scope: args.groupUid, fingerprints: fingerprints(listing) },
        io,
      );
  }
  if (report.conflicts.length > 0) return EXIT_CONFLICT;
  const complete =
    report.unmanaged.length === 0 && report.missing.length === 0 && report.unreadable.length === 0;
  return complete ? 0 : EXIT_UNMANAGED;
}

/** Runs the command; returns the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  return runCommand("platform-import", io, async (connect) => {
    if (argv[0] === "report") return await runReport(parseReportArgs(argv.slice(1)), connect, io);
    if (argv[0] === "load") return await runLoad(parseLoadArgs(argv.slice(1)), connect, io);
    const args = parseArgs(argv);
    let document: ImportDocument;
    let addresses: string[] = [];
    let scope: { scope: string; fingerprints: Record<string, string> } | undefined;
    if (args.terraformState !== undefined) {
      const result = mapTerraformState(readText(args.terraformState), args.terraformState);
      document = result.document;
      addresses = result.addresses;
      io.stderr(`${args.terraformState}: ${summary(result.counts) || "nothing to import"}`);
    } else {
      const started = Date.now();
      const result = await walkGroup(connect(), args.groupUid!, {
        progress: (line) => io.stderr(line),
        ...(args.bindings !== undefined ? { bindings: args.bindings } : {}),
      });
      document = result.document;
      scope = { scope: args.groupUid!, fingerprints: fingerprints(result.listing) };
      io.stderr(
        `${args.groupUid}: ${summary(result.counts)} (${result.calls} API calls, ${Date.now() - started} ms)`,
      );
    }
    if (args.addresses) {
      io.stdout(addresses.map((a) => `${a}\n`).join(""));
      return 0;
    }
    report(document, io);
    const text = `${JSON.stringify(document, null, 2)}\n`;
    if (args.out !== undefined && args.stateOut !== undefined) {
      if (scope === undefined) {
        // A Terraform state: the scope is the organization its objects are in, listed before the reads.
        const root = scopeOf(document);
        if (root === undefined) throw new Refusal(`nothing to adopt: the document is empty`);
        scope = { scope: root, fingerprints: (await listScope(connect(), root)).fingerprints };
      }
      await writeAdoption(args.stateOut, document, scope, io);
      writeWhole(args.out, text);
      io.stderr(`wrote ${args.out} (${document.resources.length} resources)`);
    } else if (args.out !== undefined) {
      writeWhole(args.out, text);
      io.stderr(
        `wrote ${args.out} (${document.resources.length} resources): now run pulumi import --file ${args.out}`,
      );
    } else {
      io.stdout(text);
    }
    return 0;
  });
}

runAsMain(module, main);
