/**
 * `platform-import report <group uid>`: what no stack manages under the group, what stacks manage that is gone, the
 * coverage of each kind and the conflicts (../report); --out the import document of exactly the unmanaged objects.
 * The states are read first (a bad file refuses before any API call; the backend's stacks through the engine when
 * asked, or when no file is given), then one listing.
 */
import { readSources, sourcesSaid } from "../../stacks";
import { fingerprints } from "../adoption";
import { reportText, reportUnmanaged } from "../report";
import { EXIT_CONFLICT, EXIT_UNMANAGED } from "../spec";
import { bindingsForm, refuseStateOutAlone, writeAdoption, writeWhole, type RunCommand } from "./shared";

export const run: RunCommand = async (p, io, connect) => {
  const groupUid = p.args[0]!;
  const bindings = bindingsForm(p);
  refuseStateOutAlone(p);
  const states = p.values("--state");
  const backend = p.value("--backend");
  const out = p.value("--out");
  const stateOut = p.value("--state-out");
  // With no --state, the backend is read even without --backend or --stacks (readSources reads it for either).
  const fromBackend = backend !== undefined || states.length === 0;
  const sources = await readSources({
    files: [...states],
    ...(fromBackend ? { backend: backend ?? true } : {}),
    patterns: [...p.values("--stacks")],
    env: io.env,
    ...(io.engine !== undefined ? { engine: io.engine } : {}),
  });
  for (const line of sourcesSaid(sources)) io.stderr(line);
  const started = Date.now();
  const { report, document, labels, listing } = await reportUnmanaged(connect(), groupUid, sources.states, {
    progress: (line) => io.stderr(line),
    bindings,
    ...(sources.backend !== undefined ? { backend: sources.backend } : {}),
    unreadable: sources.unreadable,
  });
  io.stderr(`${groupUid}: ${report.calls} API calls, ${Date.now() - started} ms`);
  io.stdout(p.has("--json") ? `${JSON.stringify(report, null, 2)}\n` : reportText(report, labels));
  if (out !== undefined) {
    writeWhole(out, `${JSON.stringify(document, null, 2)}\n`);
    io.stderr(
      `wrote ${out} (${document.resources.length} unmanaged objects)` +
        (document.resources.length > 0 ? `: adopt them with pulumi import --file ${out}` : ""),
    );
    if (stateOut !== undefined)
      await writeAdoption(stateOut, document, { scope: groupUid, fingerprints: fingerprints(listing) }, io);
  }
  if (report.conflicts.length > 0) return EXIT_CONFLICT;
  const complete =
    report.unmanaged.length === 0 && report.missing.length === 0 && report.unreadable.length === 0;
  return complete ? 0 : EXIT_UNMANAGED;
};
