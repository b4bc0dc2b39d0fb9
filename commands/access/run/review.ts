/**
 * `platform-access review <group uid>`: every identity, role binding and role under the group, each grant said once
 * where it is bound, as text, JSON, CSV, Markdown or a page; marked with what the stacks given manage (../../stacks)
 * and compared with an earlier review (--since); --fail-on-* for a scheduled CI job (exit code 2).
 */
import { readText, Refusal } from "../../command";
import type { Parsed } from "../../program";
import { readSources, sourcesSaid } from "../../stacks";
import { newPrivileged, readPreviousReview } from "../changes";
import { bindingsCsv, changesCsv, grantsCsv } from "../review-csv";
import { changeLine } from "../change-words";
import { namesOf } from "../review-names";
import { reviewText } from "../review-text";
import { privilegedFindings, review } from "../review";
import {
  EXIT_PRIVILEGED,
  expandOf,
  formatOf,
  readGroup,
  warnPartial,
  writeWhole,
  type RunCommand,
} from "./shared";

/** `90d`, `12h`, `30` (days) → days. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(d|h)?$/.exec(text);
  if (match === null)
    throw new Refusal(`--unused-after is a number of days (90d) or hours (36h), not ${JSON.stringify(text)}`);
  const n = Number(match[1]);
  return match[2] === "h" ? n / 24 : n;
}

/** --as-of as a time (now when not given). */
function asOfTime(p: Parsed): Date {
  const asOf = p.value("--as-of");
  const now = asOf === undefined ? new Date() : new Date(asOf);
  if (Number.isNaN(now.getTime()))
    throw new Refusal(`--as-of is an RFC 3339 time (2026-01-31T12:00:00Z), not ${JSON.stringify(asOf)}`);
  return now;
}

export const run: RunCommand = async (p, io, connect) => {
  const html = p.value("--html");
  const format = formatOf(p);
  const expand = expandOf(p, format);
  const unusedAfterDays = parseDuration(p.value("--unused-after")!);
  const now = asOfTime(p);
  const group = p.args[0]!;
  const sinceFile = p.value("--since");
  if (p.has("--fail-on-new-privileged") && sinceFile === undefined)
    throw new Refusal("--fail-on-new-privileged needs --since PREVIOUS.json (an earlier review --json)");
  const since =
    sinceFile === undefined ? undefined : readPreviousReview(readText(sinceFile), sinceFile, group);
  const backend = p.value("--backend");
  const sources = await readSources({
    files: [...p.values("--state")],
    ...(backend !== undefined ? { backend } : {}),
    patterns: [...p.values("--stacks")],
    env: io.env,
    ...(io.engine !== undefined ? { engine: io.engine } : {}),
  });
  for (const line of sourcesSaid(sources)) io.stderr(line);
  const data = await readGroup(group, io, connect);
  const r = review(data, {
    states: sources.states,
    unusedAfterDays,
    now,
    expand,
    ...(since !== undefined ? { since } : {}),
  });
  warnPartial(r, io);
  if (format === "json") io.stdout(`${JSON.stringify(r, null, 2)}\n`);
  // One CSV is one table: with --since it is the changes (docs/access-review.md), else the bindings (the grants when
  // expanded).
  else if (format === "csv")
    io.stdout(
      r.changes !== undefined
        ? changesCsv(r.changes)
        : r.grants !== undefined
          ? grantsCsv(r.grants, r)
          : bindingsCsv(r.bindings, r),
    );
  else if (format === "markdown") {
    const { reviewMarkdown } = require("../review-markdown") as typeof import("../review-markdown");
    io.stdout(reviewMarkdown(r));
  } else if (format === "html") {
    // The page and its script are loaded only for the page.
    const { reviewHtml } = require("../html") as typeof import("../html");
    writeWhole(html!, reviewHtml(r));
    io.stderr(`wrote ${html} (${r.groups.length} groups, ${r.bindings.length} role bindings)`);
  } else io.stdout(reviewText(r));
  if (p.has("--fail-on-privileged-workload")) {
    const names = namesOf(r);
    const findings = privilegedFindings(r);
    for (const f of findings)
      io.stderr(
        `privileged: ${names.identity(f.uid)}${f.unmanaged === true ? " is unmanaged and" : ""} ` +
          `holds a privileged capability`,
      );
    if (findings.length > 0) return EXIT_PRIVILEGED;
  }
  if (p.has("--fail-on-new-privileged") && r.changes !== undefined) {
    const found = newPrivileged(r.changes);
    const names = namesOf(r);
    for (const c of found) io.stderr(`new privileged: ${changeLine(c, names)}`);
    if (found.length > 0) return EXIT_PRIVILEGED;
  }
  return 0;
};
