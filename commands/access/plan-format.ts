/**
 * An access plan (./plan) in words: the per-update summary ("this update grants … and revokes …") with one line
 * per identity and group, the bindings the update creates, and what cannot be known at preview; as text (the policy
 * pack's lines, `platform-access plan`) or as GitHub-flavoured Markdown (a pull request's comment: headings and
 * tables, privileged gains first).
 *
 * Every identity, group and role is named as every output names it (../../sdk/words: "workload identity
 * ci-robot", "folder platform", "role deployer"), "(new)" when the update creates it; a uid (or, for an object the
 * update makes, its resource) only tells two of the same name apart, or stands where no name is known. In Markdown
 * (../markdown) every punctuation character is escaped besides: a name cannot break a table, open a code span,
 * write HTML or mention anyone.
 *
 * May import: ../../sdk/access-model, ../../sdk/words, ../markdown, ./plan.
 */
import { isPrivileged } from "../../sdk/access-model";
import {
  Names,
  andFoldersUnder,
  capabilityText,
  countOf,
  nameText,
  nounOf,
  resourceText,
} from "../../sdk/words";
import { mdHeading, mdList, mdParagraph, mdTable, mdText } from "../markdown";
import type { AccessPlan, Named, PlanChange, PlannedBinding, PlanNote } from "./plan";

/** How many changes (and created bindings) are named; the rest are counted. */
export const NAMED_CHANGES = 100;

/** How a summary writes what comes from outside (names, uids, capabilities): as text, or escaped for Markdown. */
export type Escape = (data: string) => string;
const asText: Escape = (data) => data;

/** A resource of the program, by its kind and name (../../sdk/words). */
const resourceOf = (resource: { kind: string; name: string }) => resourceText(resource.kind, resource.name);

/** Whether `n` is an object the update makes (its uid a stand-in), which its resource names until it exists. */
const standIn = (n: Named) => n.uid.includes("~") && n.resource !== undefined;

/** The names of the objects the plan mentions, each told apart from another of its name by uid or resource. */
function namesOf(plan: AccessPlan): Names {
  const names = new Names();
  const add = (n: Named | undefined) => {
    if (n === undefined || n.kind === "binding") return;
    names.add(n.kind, n.uid, n.name);
    if (standIn(n)) names.tellApartBy(n.kind, n.uid, resourceOf(n.resource!));
  };
  for (const c of plan.changes) [c.identity, c.group, ...c.roles].forEach(add);
  for (const b of plan.created) [b.identity, b.group, b.role].forEach(add);
  return names;
}

/** How one summary names things. */
interface Style {
  name: (named: Named) => string;
  resource: (resource: { kind: string; name: string }) => string;
  capability: (capability: string) => string;
}

/** Names objects: `workload identity ci-robot (new)`, `organization acme`, `role 5e1f…/89ab` where nameless. */
function styleOf(plan: AccessPlan, esc: Escape, capability: (c: string) => string): Style {
  const names = namesOf(plan);
  const resource = (r: { kind: string; name: string }) => esc(resourceOf(r));
  const name = (n: Named) => {
    const marks = `${n.isNew ? " (new)" : ""}${n.isGone ? " (deleted)" : ""}`;
    if (n.kind === "binding") return `binding ${esc(nameText(n.uid))}${marks}`;
    const noun = nounOf(n.kind, n.uid);
    if (n.name === undefined && standIn(n)) return `${noun} of ${resource(n.resource!)}${marks}`;
    return `${noun} ${esc(names.name(n.kind, n.uid))}${marks}`;
  };
  return { name, resource, capability };
}

/** "this update grants 3 capabilities (1 privileged) to 2 identities and revokes none". */
export function headline(plan: AccessPlan): string {
  const count = (pick: (c: PlanChange) => string[]) => {
    const changes = plan.changes.filter((c) => pick(c).length > 0);
    const capabilities = changes.reduce((n, c) => n + pick(c).length, 0);
    const privileged = changes.reduce((n, c) => n + pick(c).filter(isPrivileged).length, 0);
    const identities = new Set(changes.map((c) => c.identity.uid)).size;
    return { capabilities, privileged, identities };
  };
  const gains = count((c) => c.gained);
  const losses = count((c) => c.lost);
  if (gains.capabilities === 0 && losses.capabilities === 0) return "this update changes no access";
  const grants =
    gains.capabilities === 0
      ? "grants none"
      : `grants ${countOf(gains.capabilities, "capability")}` +
        `${gains.privileged > 0 ? ` (${gains.privileged} privileged)` : ""} to ${countOf(gains.identities, "identity")}`;
  const revokes =
    losses.capabilities === 0
      ? "revokes none"
      : `revokes ${countOf(losses.capabilities, "capability")} from ${countOf(losses.identities, "identity")}`;
  return `this update ${grants} and ${revokes}`;
}

/** Changes with privileged gains first, then other gains, then losses only; stable within each. */
export function ordered(changes: readonly PlanChange[]): PlanChange[] {
  const rank = (c: PlanChange) => (c.gained.some(isPrivileged) ? 0 : c.gained.length > 0 ? 1 : 2);
  return [...changes].sort((a, b) => rank(a) - rank(b));
}

const where = (c: PlanChange, style: Style) => `${style.name(c.group)}${andFoldersUnder(c.alsoUnder.length)}`;

const through = (c: PlanChange, style: Style) =>
  [...c.roles.map(style.name), ...c.bindings.map((b) => style.resource(b.resource!))].join(", ");

function capabilityList(capabilities: readonly string[], mark: boolean, style: Style): string {
  return capabilities
    .map((c) => `${style.capability(c)}${mark && isPrivileged(c) ? " (privileged)" : ""}`)
    .join(", ");
}

/** One change in words: "workload identity ci-robot (new) gains … on folder platform (new), through …". */
function changeText(c: PlanChange, style: Style): string {
  const what = [
    ...(c.gained.length > 0 ? [`gains ${capabilityList(c.gained, true, style)}`] : []),
    ...(c.lost.length > 0 ? [`loses ${capabilityList(c.lost, false, style)}`] : []),
  ].join(" and ");
  const via = through(c, style);
  return `${style.name(c.identity)} ${what} on ${where(c, style)}${via === "" ? "" : `, through ${via}`}`;
}

const unknownRef = (what: string) => `a ${what} not known until the update`;
const refText = (n: Named | undefined, what: string, style: Style) =>
  n === undefined ? unknownRef(what) : style.name(n);

/** A binding the update creates: "will bind workload identity ci-robot (new) to role deployer (new) on …". */
function bindingText(b: PlannedBinding, style: Style): string {
  return `will bind ${refText(b.identity, "identity", style)} to ${refText(b.role, "role", style)} on ${refText(b.group, "group", style)}`;
}

const bindingAt = (b: PlannedBinding, style: Style) =>
  `${style.resource(b.resource)}${b.at === "" ? "" : ` ${b.at}`}`;
const noteText = (n: PlanNote, style: Style) => `${style.resource(n.resource)}: ${n.says}`;

const textStyle = (plan: AccessPlan) => styleOf(plan, asText, capabilityText);

/** How many objects the summary shows by uid because their name is not known where it was made. */
export function unnamedCount(plan: AccessPlan): number {
  const uids = new Set<string>();
  const add = (n: Named | undefined) => {
    if (n !== undefined && n.name === undefined && !n.uid.includes("~")) uids.add(n.uid);
  };
  for (const c of plan.changes) [c.identity, c.group, ...c.alsoUnder, ...c.roles].forEach(add);
  for (const b of plan.created) [b.identity, b.group, b.role].forEach(add);
  return uids.size;
}

/** The line saying some objects are shown by uid, and where their names are (`hint`). */
function unnamedLine(plan: AccessPlan, hint: string): string | undefined {
  const count = unnamedCount(plan);
  if (count === 0) return undefined;
  return `shown by uid: ${countOf(count, "object")} whose name is not known here; ${hint}`;
}

/**
 * The summary as text, one line each: the headline, each change (indented), what is not known (`hint` says where
 * the names of objects shown by uid can be read).
 */
export function planText(plan: AccessPlan, hint = UNNAMED_HINT): string[] {
  const style = textStyle(plan);
  const changes = ordered(plan.changes);
  const lines = [`access plan: ${headline(plan)}`];
  for (const c of changes.slice(0, NAMED_CHANGES)) lines.push(`  ${changeText(c, style)}`);
  if (changes.length > NAMED_CHANGES)
    lines.push(`  and ${countOf(changes.length - NAMED_CHANGES, "more change")}`);
  const unnamed = unnamedLine(plan, hint);
  if (plan.notes.length > 0 || unnamed !== undefined) {
    lines.push("not known at preview:");
    for (const n of plan.notes) lines.push(`  ${noteText(n, style)}`);
    if (unnamed !== undefined) lines.push(`  ${unnamed}`);
  }
  return lines;
}

/** Where the names of objects shown by uid are, by default: in the organization, for a reader allowed to list it. */
export const UNNAMED_HINT = "the credentials that read the organization may not list them";

/**
 * The per-resource lines: each binding the update creates whose references had no uid yet, by name. They do not
 * start with `Kind 'name':`, the form of the pack's violations, because they are not one.
 */
export function createdBindingLines(plan: AccessPlan): Array<{ key: string; line: string }> {
  const style = textStyle(plan);
  return plan.created
    .filter((b) => b.hadUnknown)
    .map((b) => ({ key: b.resource.key, line: `${bindingText(b, style)} (${bindingAt(b, style)})` }));
}

// ---------------------------------------------------------------------------------------------------------------
// GitHub-flavoured Markdown.

const code = (capability: string) =>
  /^CAP_[A-Z0-9_]+$/.test(capability) ? `\`${capability}\`` : mdText(nameText(capability));

/** The summary as a pull request's comment: a heading, the headline, then tables, privileged gains first. */
export function planMarkdown(plan: AccessPlan, hint = UNNAMED_HINT): string {
  const style = styleOf(plan, mdText, code);
  const via = (c: PlanChange) => through(c, style) || "—";
  const changes = ordered(plan.changes).slice(0, NAMED_CHANGES);
  let out = mdHeading(3, "Access changes") + mdParagraph(`${headline(plan).replace(/^this/, "This")}.`);
  const section = (heading: string, header: string[], rows: string[][]) => {
    if (rows.length > 0) out += mdHeading(4, heading) + mdTable(header, rows);
  };
  const caps = (list: string[]) => list.map(code).join(", ");
  const row = (c: PlanChange, capabilities: string[]) => [
    style.name(c.identity),
    caps(capabilities),
    where(c, style),
    via(c),
  ];
  section(
    "Privileged gains",
    ["Identity", "Gains", "On", "Through"],
    changes.filter((c) => c.gained.some(isPrivileged)).map((c) => row(c, c.gained.filter(isPrivileged))),
  );
  section(
    "Other gains",
    ["Identity", "Gains", "On", "Through"],
    changes
      .filter((c) => c.gained.some((g) => !isPrivileged(g)))
      .map((c) =>
        row(
          c,
          c.gained.filter((g) => !isPrivileged(g)),
        ),
      ),
  );
  section(
    "Losses",
    ["Identity", "Loses", "On", "Through"],
    changes.filter((c) => c.lost.length > 0).map((c) => row(c, c.lost)),
  );
  if (plan.changes.length > NAMED_CHANGES)
    out += mdParagraph(`And ${countOf(plan.changes.length - NAMED_CHANGES, "more change")}.`);
  section(
    "Bindings this update creates",
    ["Resource", "Identity", "Role", "On"],
    plan.created
      .slice(0, NAMED_CHANGES)
      .map((b) => [
        bindingAt(b, style),
        refText(b.identity, "identity", style),
        refText(b.role, "role", style),
        refText(b.group, "group", style),
      ]),
  );
  if (plan.created.length > NAMED_CHANGES)
    out += mdParagraph(`And ${countOf(plan.created.length - NAMED_CHANGES, "more binding")}.`);
  const unnamed = unnamedLine(plan, hint);
  if (plan.notes.length > 0 || unnamed !== undefined)
    out +=
      mdHeading(4, "Not known at preview") +
      mdList([...plan.notes.map((n) => noteText(n, style)), ...(unnamed === undefined ? [] : [unnamed])]);
  return `${out.trimEnd()}\n`;
}
