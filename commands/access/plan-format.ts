/**
 * An access plan (./plan) in words: the per-update summary ("this update grants … and revokes …") with one line
 * per identity and group, the bindings the update creates, and what cannot be known at preview; as text (the policy
 * pack's lines, `platform-access plan`) or as GitHub-flavoured Markdown (a pull request's comment: headings and
 * tables, privileged gains first).
 *
 * Every identity, group and role is named by its name ("workload identity ci-robot", "folder platform", "role
 * deployer"), "(new)" when the update creates it; a uid only tells two of the same name apart, or stands where no
 * name is known. A name is data: one that is not a plain word is quoted with its control and invisible characters
 * escaped (it cannot forge a line), and in Markdown every punctuation character is escaped (it cannot break a
 * table, open a code span, write HTML or mention anyone).
 *
 * May import: ../../sdk/access-model, ./plan.
 */
import { isPrivileged } from "../../sdk/access-model";
import type { AccessPlan, Named, PlanChange, PlannedBinding, PlanNote } from "./plan";

/** How many changes (and created bindings) are named; the rest are counted. */
export const NAMED_CHANGES = 100;

const PLAIN = /^[A-Za-z0-9][A-Za-z0-9._@-]*$/;
/** Control, format (bidirectional overrides, zero-width) and line-separator characters. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

const escapeInvisible = (s: string) => s.replace(INVISIBLE, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);

/** A name as text: as it is when plain, else quoted with `"`, `\` and invisible characters escaped. */
export function nameText(name: string): string {
  if (PLAIN.test(name)) return name;
  return `"${escapeInvisible(name.replace(/\\/g, "\\\\").replace(/"/g, '\\"'))}"`;
}

/** How a summary writes what comes from outside (names, uids, capabilities): as text, or escaped for Markdown. */
export type Escape = (data: string) => string;
const asText: Escape = (data) => data;

/** A resource of the program as the pack's lines name it: `RoleBinding 'ci-deployer'`. */
export function resourceText(resource: { kind: string; name: string }, esc: Escape = asText): string {
  return `${resource.kind} '${esc(escapeInvisible(resource.name.replace(/\\/g, "\\\\").replace(/'/g, "\\'")))}'`;
}

/** Which names stand for more than one object (then the uid, or the program's resource, tells them apart). */
function ambiguousNames(plan: AccessPlan): Set<string> {
  const uids = new Map<string, Set<string>>();
  const add = (n: Named | undefined) => {
    if (n?.name === undefined) return;
    const key = `${n.noun}\u0000${n.name}`;
    uids.set(key, (uids.get(key) ?? new Set()).add(n.uid));
  };
  for (const c of plan.changes) [c.identity, c.group, ...c.roles].forEach(add);
  for (const b of plan.created) [b.identity, b.group, b.role].forEach(add);
  return new Set([...uids].filter(([, set]) => set.size > 1).map(([key]) => key));
}

/** How one summary names things. */
interface Style {
  name: (named: Named) => string;
  resource: (resource: { kind: string; name: string }) => string;
  capability: (capability: string) => string;
}

/** Names objects: `workload identity ci-robot (new)`, `organization acme`, `role 5e1f…/89ab` where nameless. */
function styleOf(plan: AccessPlan, esc: Escape, capability: (c: string) => string): Style {
  const ambiguous = ambiguousNames(plan);
  const resource = (r: { kind: string; name: string }) => resourceText(r, esc);
  const name = (n: Named) => {
    const marks = `${n.isNew ? " (new)" : ""}${n.isGone ? " (deleted)" : ""}`;
    if (n.name === undefined) {
      if (n.resource !== undefined && n.uid.includes("~"))
        return `${n.noun} of ${resource(n.resource)}${marks}`;
      return `${n.noun} ${esc(n.uid)}${marks}`;
    }
    let tell = "";
    if (ambiguous.has(`${n.noun}\u0000${n.name}`))
      tell =
        n.uid.includes("~") && n.resource !== undefined ? ` (${resource(n.resource)})` : ` (${esc(n.uid)})`;
    return `${n.noun} ${esc(nameText(n.name))}${marks}${tell}`;
  };
  return { name, resource, capability };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

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
      : `grants ${plural(gains.capabilities, "capability", "capabilities")}` +
        `${gains.privileged > 0 ? ` (${gains.privileged} privileged)` : ""} to ${plural(gains.identities, "identity", "identities")}`;
  const revokes =
    losses.capabilities === 0
      ? "revokes none"
      : `revokes ${plural(losses.capabilities, "capability", "capabilities")} from ${plural(losses.identities, "identity", "identities")}`;
  return `this update ${grants} and ${revokes}`;
}

/** Changes with privileged gains first, then other gains, then losses only; stable within each. */
export function ordered(changes: readonly PlanChange[]): PlanChange[] {
  const rank = (c: PlanChange) => (c.gained.some(isPrivileged) ? 0 : c.gained.length > 0 ? 1 : 2);
  return [...changes].sort((a, b) => rank(a) - rank(b));
}

const where = (c: PlanChange, style: Style) =>
  c.alsoUnder.length === 0
    ? style.name(c.group)
    : `${style.name(c.group)} and the ${plural(c.alsoUnder.length, "group")} under it`;

const through = (c: PlanChange, style: Style) =>
  [...c.roles.map(style.name), ...c.bindings.map((b) => style.resource(b.resource!))].join(", ");

/** A capability as given: a well-formed one as it is, anything else quoted like a name. */
const capabilityText = (capability: string) =>
  /^CAP_[A-Z0-9_]+$/.test(capability) ? capability : nameText(capability);

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
  return `shown by uid: ${plural(count, "object")} whose name is not known here; ${hint}`;
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
    lines.push(`  and ${plural(changes.length - NAMED_CHANGES, "more change")}`);
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

/** Data as Markdown that renders as itself: invisible characters escaped, every ASCII punctuation backslashed. */
export function markdownText(data: string): string {
  return escapeInvisible(data).replace(/[!-/:-@[-`{-~]/g, (c) => `\\${c}`);
}

const code = (capability: string) =>
  /^CAP_[A-Z0-9_]+$/.test(capability) ? `\`${capability}\`` : markdownText(nameText(capability));

function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(" | ")} |`,
    `| ${header.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ];
}

/** The summary as a pull request's comment: a heading, the headline, then tables, privileged gains first. */
export function planMarkdown(plan: AccessPlan, hint = UNNAMED_HINT): string {
  const style = styleOf(plan, markdownText, code);
  const via = (c: PlanChange) => through(c, style) || "—";
  const changes = ordered(plan.changes).slice(0, NAMED_CHANGES);
  const out = ["### Access changes", "", `${headline(plan).replace(/^this/, "This")}.`];
  const section = (heading: string, header: string[], rows: string[][]) => {
    if (rows.length === 0) return;
    out.push("", `#### ${heading}`, "", ...table(header, rows));
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
    out.push("", `And ${plural(plan.changes.length - NAMED_CHANGES, "more change")}.`);
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
    out.push("", `And ${plural(plan.created.length - NAMED_CHANGES, "more binding")}.`);
  const unnamed = unnamedLine(plan, hint);
  if (plan.notes.length > 0 || unnamed !== undefined) {
    out.push("", "#### Not known at preview", "");
    for (const n of plan.notes) out.push(`- ${noteText(n, style)}`);
    if (unnamed !== undefined) out.push(`- ${unnamed}`);
  }
  return `${out.join("\n")}\n`;
}
