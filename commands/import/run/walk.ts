/**
 * `platform-import <group uid>` and `platform-import --terraform-state FILE`: the import document of everything
 * under a group (../walk, read through the API) or of a Terraform state (../terraform, offline); --addresses the
 * Terraform addresses it maps; --state-out (with --out) the adopted resources' state too (../adoption).
 */
import { Refusal, readText } from "../../command";
import { IMPORT_KINDS, LISTED_KINDS, type ListedKind } from "../../kinds";
import type { Parsed } from "../../program";
import { fingerprints, listScope, scopeOf } from "../adoption";
import type { ImportDocument } from "../document";
import { mapTerraformState } from "../terraform";
import { walkGroup } from "../walk";
import {
  bindingsForm,
  refuseStateOutAlone,
  writeAdoption,
  writeWhole,
  type Io,
  type RunCommand,
} from "./shared";

function summary(counts: Record<ListedKind, number>): string {
  return LISTED_KINDS.filter((k) => counts[k] > 0)
    .map((k) => `${counts[k]} ${IMPORT_KINDS[k].label}${counts[k] === 1 ? "" : "s"}`)
    .join(", ");
}

/** What the document could not recover and did not import, on stderr. */
function sayLeftOut(document: ImportDocument, io: Io): void {
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

/** The combinations of the walk's options that mean nothing, refused before anything is read. */
function refuseMismatches(p: Parsed): void {
  const groupUid = p.args[0];
  const terraformState = p.value("--terraform-state");
  if ((groupUid === undefined) === (terraformState === undefined))
    throw new Refusal(
      `give a group uid or --terraform-state, not ${groupUid !== undefined ? "both" : "neither"}`,
    );
  if (p.has("--addresses") && terraformState === undefined)
    throw new Refusal(`--addresses lists Terraform addresses: it needs --terraform-state`);
  if (p.has("--addresses") && p.has("--out")) throw new Refusal(`--addresses prints to stdout: drop --out`);
  refuseStateOutAlone(p);
  if (p.has("--bindings") && terraformState !== undefined)
    throw new Refusal(`--bindings shapes what the API walk finds: a Terraform state keeps its role bindings`);
}

export const run: RunCommand = async (p, io, connect) => {
  const bindings = p.has("--bindings") ? bindingsForm(p) : undefined;
  refuseMismatches(p);
  const groupUid = p.args[0];
  const terraformState = p.value("--terraform-state");
  const out = p.value("--out");
  const stateOut = p.value("--state-out");
  let document: ImportDocument;
  let addresses: string[] = [];
  let scope: { scope: string; fingerprints: Record<string, string> } | undefined;
  if (terraformState !== undefined) {
    const result = mapTerraformState(readText(terraformState), terraformState);
    document = result.document;
    addresses = result.addresses;
    io.stderr(`${terraformState}: ${summary(result.counts) || "nothing to import"}`);
  } else {
    const started = Date.now();
    const result = await walkGroup(connect(), groupUid!, {
      progress: (line) => io.stderr(line),
      ...(bindings !== undefined ? { bindings } : {}),
    });
    document = result.document;
    scope = { scope: groupUid!, fingerprints: fingerprints(result.listing) };
    io.stderr(
      `${groupUid}: ${summary(result.counts)} (${result.calls} API calls, ${Date.now() - started} ms)`,
    );
  }
  if (p.has("--addresses")) {
    io.stdout(addresses.map((a) => `${a}\n`).join(""));
    return 0;
  }
  sayLeftOut(document, io);
  const text = `${JSON.stringify(document, null, 2)}\n`;
  if (out !== undefined && stateOut !== undefined) {
    if (scope === undefined) {
      // A Terraform state: the scope is the organization its objects are in, listed before the reads.
      const root = scopeOf(document);
      if (root === undefined) throw new Refusal(`nothing to adopt: the document is empty`);
      scope = { scope: root, fingerprints: (await listScope(connect(), root)).fingerprints };
    }
    await writeAdoption(stateOut, document, scope, io);
    writeWhole(out, text);
    io.stderr(`wrote ${out} (${document.resources.length} resources)`);
  } else if (out !== undefined) {
    writeWhole(out, text);
    io.stderr(`wrote ${out} (${document.resources.length} resources): now run pulumi import --file ${out}`);
  } else {
    io.stdout(text);
  }
  return 0;
};
