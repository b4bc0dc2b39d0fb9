/**
 * What `platform-access`'s commands share: how they print and read the environment (Io), the group read with its
 * one line of cost on stderr, the output format chosen by --json / --csv / --markdown / --html and --expand, and
 * writing a file whole.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { PlatformClient } from "../../../sdk";
import { Names, lineText } from "../../../sdk/words";
import { Refusal, type CommandIo } from "../../command";
import type { Parsed } from "../../program";
import type { RunPulumi } from "../../stacks";
import { callerOf, readAccess, type AccessData } from "../read";
import type { Review } from "../review";

export interface Io extends CommandIo {
  /** How `review` runs the engine with a given environment (default the CLI on PATH). */
  engine?: (env: Record<string, string | undefined>) => RunPulumi;
}

/** How each command runs: its parsed command line, where it prints, and the API client made on first use. */
export type RunCommand = (p: Parsed, io: Io, connect: () => PlatformClient) => Promise<number>;

export { EXIT_PRIVILEGED } from "../spec";

/** Reads everything under `group` (./read), saying on stderr how many API calls and milliseconds it took. */
export async function readGroup(group: string, io: Io, connect: () => PlatformClient): Promise<AccessData> {
  const started = Date.now();
  const caller = callerOf(io.env);
  const data = await readAccess(connect(), group, {
    ...(caller !== undefined ? { caller } : {}),
    progress: (line) => io.stderr(line),
  });
  const top = new Names().add("group", data.top.uid, data.top.name).group(data.top.uid);
  io.stderr(`${top}: ${data.calls} API calls, ${Date.now() - started} ms`);
  return data;
}

export type Format = "text" | "json" | "csv" | "markdown" | "html";

/** One output format of --json, --csv (and --markdown, --html FILE for review). */
export function formatOf(p: Parsed): Format {
  const has = (name: `--${string}`) => p.spec.options.some((o) => o.name === name) && p.has(name);
  const chosen = [
    has("--json") && "json",
    has("--csv") && "csv",
    has("--markdown") && "markdown",
    has("--html") && "html",
  ].filter((x): x is Format => typeof x === "string");
  if (chosen.length > 1)
    throw new Refusal(
      `choose one of --json, --csv${has("--markdown") || has("--html") ? ", --markdown, --html" : ""}`,
    );
  return chosen[0] ?? "text";
}

/**
 * Whether --expand was given, and refused where it means nothing: it expands the JSON and the CSV only (the text,
 * Markdown and page say each grant once), and with --since the CSV is the changes, not the grants.
 */
export function expandOf(p: Parsed, format: Format): boolean {
  if (!p.has("--expand")) return false;
  if (format !== "json" && format !== "csv")
    throw new Refusal(
      "--expand takes --json or --csv: the text, Markdown and page say each grant once, where it is bound",
    );
  if (format === "csv" && p.spec.options.some((o) => o.name === "--since") && p.has("--since"))
    throw new Refusal(
      "--expand with --since: the CSV is then the changes; run without --since for the grants",
    );
  return true;
}

/** Writes the whole file or nothing: a temporary file beside it, renamed over it. */
export function writeWhole(file: string, text: string): void {
  const tmp = path.join(path.dirname(path.resolve(file)), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/** What the review could not see, one line each on stderr. */
export function warnPartial(r: Review, io: Io): void {
  for (const p of r.partial) io.stderr(`partial: ${lineText(p)}`);
}
