/**
 * What `platform-import`'s commands share: how they print and read the environment (Io), the --bindings form, and
 * writing a file whole (the document, the adoption file).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { PlatformClient } from "../../../sdk";
import { Refusal, type CommandIo } from "../../command";
import type { Parsed } from "../../program";
import type { RunPulumi } from "../../stacks";
import { readAdoption } from "../adoption";
import { BINDINGS_FORMS, type BindingsForm } from "../bindings";
import type { ImportDocument } from "../document";

export interface Io extends CommandIo {
  /** The project directory for `load` (default the process's). */
  cwd?: string;
  /** How `report` and `load` run the engine with a given environment (default the CLI on PATH). */
  engine?: (env: Record<string, string | undefined>) => RunPulumi;
}

/** How each command runs: its parsed command line, where it prints, and the API client made on first use. */
export type RunCommand = (p: Parsed, io: Io, connect: () => PlatformClient) => Promise<number>;

/** --bindings (its default when not given). */
export function bindingsForm(p: Parsed): BindingsForm {
  const value = p.value("--bindings")!;
  const form = BINDINGS_FORMS.find((f) => f === value);
  if (form === undefined)
    throw new Refusal(`--bindings is one of ${BINDINGS_FORMS.join(", ")}, not ${JSON.stringify(value)}`);
  return form;
}

/** --state-out writes the state of what --out writes: refused without it. */
export function refuseStateOutAlone(p: Parsed): void {
  if (p.has("--state-out") && !p.has("--out"))
    throw new Refusal(`--state-out writes the state of the document --out writes: give --out too`);
}

/** Writes the whole file or nothing: a temporary file beside it, renamed over it. */
export function writeWhole(file: string, text: string): void {
  const tmp = path.join(path.dirname(path.resolve(file)), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/** Writes the adoption file of `document` (the state `pulumi import` would record) to `file`. */
export async function writeAdoption(
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
