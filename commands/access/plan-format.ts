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
 */
import { isPrivileged } from "../../sdk/access-model";
import {
  Names,
  andFoldersUnder,
  capabilityText,
  compareNames,
  countOf,
  LISTED_CAPABILITIES,
  nameText,
  nounOf,
  resourceText,
  roleHoldings,
} from "../../sdk/words";
import { mdHeading, mdList, mdParagraph, mdTable, mdText } from "../markdown";
import { firstNames, sayAlike, type Said } from "./alike";
import type { AccessPlan, Named, PlanChange, PlannedBinding, PlanNote } from "./plan";
import { parentOf } from "../../sdk/uidp";

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
  /** The name alone, without its kind and marks (a list of like changes' names). */
  bare: (named: Named) => string;
  resource: (resource: { kind: string; name: string }) => string;
  capability: (capability: string) => string;
  /** A privileged capability as it stands out. */
  privileged: (written: string) => string;
  /** Every capability of a role said whole (`--expand`), not only its count and privileged ones. */
  expand: boolean;
  /**
   * A role with what it holds: `capabilities` for a role said whole ("role deployer (3 capabilities)"); a role the
   * update makes or edits is said with every capability the first time this summary names it (`Named.holds`).
   */
  role: (role: Named, capabilities?: readonly string[]) => string;
}

/** Names objects: `workload identity ci-robot (new)`, `organization acme`, `role 5e1f…/89ab` where nameless. */
function styleOf(
  plan: AccessPlan,
  esc: Escape,
  capability: (c: string) => string,
  privileged: (written: string) => string,
  expand: boolean,
): Style {
  const names = namesOf(plan);
  const resource = (r: { kind: string; name: string }) => esc(resourceOf(r));
  const name = (n: Named) => {
    const marks = `${n.isNew ? " (new)" : ""}${n.isEdited === true ? " (edited)" : ""}${n.isGone ? " (deleted)" : ""}`;
    if (n.kind === "binding") return `binding ${esc(nameText(n.uid))}${marks}`;
    const noun = nounOf(n.kind, n.uid);
    if (n.name === undefined && standIn(n)) return `${noun} of ${resource(n.resource!)}${marks}`;
    return `${noun} ${esc(names.name(n.kind, n.uid))}${marks}`;
  };
  const bare = (n: Named) =>
    n.kind !== "binding" && (n.name !== undefined || !standIn(n))
      ? esc(names.name(n.kind, n.uid))
      : n.resource !== undefined
        ? resource(n.resource)
        : esc(nameText(n.uid));
  const told = new Set<string>();
  const holdings = {
    capability,
    isPrivileged,
    marked: (written: string) => privileged(`${written} (privileged)`),
    named: privileged,
  };
  const role = (n: Named, capabilities?: readonly string[]) => {
    const first = n.holds !== undefined && !told.has(n.uid);
    if (first) told.add(n.uid);
    const listUpTo = expand ? Infinity : first ? LISTED_CAPABILITIES : 0;
    const holds = capabilities ?? (first ? n.holds : undefined);
    return holds === undefined ? name(n) : `${name(n)} (${roleHoldings(holds, listUpTo, holdings)})`;
  };
  return { name, bare, resource, capability, privileged, expand, role };
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

/** A plan's name for ordering: the object's name, else its uid. */
const sortName = (n: Named) => n.name ?? n.uid;

/**
 * Changes with privileged gains first, then other gains, then losses only; within each, by the identity's name and
 * then the group's in the one order (../../sdk/words `compareNames`).
 */
export function ordered(changes: readonly PlanChange[]): PlanChange[] {
  const rank = (c: PlanChange) => (c.gained.some(isPrivileged) ? 0 : c.gained.length > 0 ? 1 : 2);
  return [...changes].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      compareNames(sortName(a.identity), sortName(b.identity)) ||
      compareNames(sortName(a.group), sortName(b.group)),
  );
}

const where = (c: PlanChange, style: Style) => `${style.name(c.group)}${andFoldersUnder(c.alsoUnder.length)}`;

/** The roles not said whole (those are said by name already) and the plan's bindings the change comes through. */
const through = (c: PlanChange, style: Style) => {
  const whole = new Set(c.wholeRoles.map((w) => w.role.uid));
  return [
    ...c.roles
      .filter((r) => !whole.has(r.uid))
      .sort((a, b) => compareNames(sortName(a), sortName(b)))
      .map((r) => style.role(r)),
    ...c.bindings.map((b) => style.resource(b.resource!)),
  ].join(", ");
};

function capabilityList(capabilities: readonly string[], mark: boolean, style: Style): string {
  return capabilities
    .map((c) =>
      mark && isPrivileged(c) ? style.privileged(`${style.capability(c)} (privileged)`) : style.capability(c),
    )
    .join(", ");
}

/**
 * What a change does: "becomes role deployer (3 capabilities)" for each role gained whole (said with every
 * capability where the update makes or edits it: `Style.role`), "gains CAP_A, CAP_B" for what no such role covers,
 * then "is no longer …" and "loses …".
 */
function whatText(c: PlanChange, style: Style): string {
  const whole = (change: "gained" | "lost", verb: string) =>
    c.wholeRoles
      .filter((w) => w.change === change)
      .map((w) => `${verb} ${style.role(w.role, w.capabilities)}`);
  return [
    ...whole("gained", "becomes"),
    ...(c.rest.gained.length > 0 ? [`gains ${capabilityList(c.rest.gained, true, style)}`] : []),
    ...whole("lost", "is no longer"),
    ...(c.rest.lost.length > 0 ? [`loses ${capabilityList(c.rest.lost, false, style)}`] : []),
  ].join(" and ");
}

/** One change in words: "workload identity ci-robot (new) becomes role deployer (3 capabilities) on folder …". */
function changeText(c: PlanChange, style: Style): string {
  const via = through(c, style);
  return `${style.name(c.identity)} ${whatText(c, style)} on ${where(c, style)}${via === "" ? "" : `, through ${via}`}`;
}

/**
 * What makes changes alike (./alike): everything but the names of the identity, the group and the plan's binding
 * resources. A privileged change, or one said capability by capability, is said alone.
 */
function shapeOf(c: PlanChange): string | undefined {
  if ([...c.gained, ...c.lost].some(isPrivileged)) return undefined;
  if (c.rest.gained.length > 0 || c.rest.lost.length > 0 || c.wholeRoles.length === 0) return undefined;
  const whole = new Set(c.wholeRoles.map((w) => w.role.uid));
  if (c.roles.some((r) => !whole.has(r.uid))) return undefined;
  return JSON.stringify([
    nounOf("identity", c.identity.uid),
    c.identity.isNew,
    c.identity.isGone,
    nounOf("group", c.group.uid),
    c.group.isNew,
    c.group.isGone,
    parentOf(c.identity.uid) === c.group.uid,
    c.alsoUnder.length,
    c.wholeRoles.map((w) => [w.change, w.role.uid]),
    c.bindings.length,
  ]);
}

/** The changes, like ones together (./alike). */
const saidOf = (changes: readonly PlanChange[]): Said<PlanChange>[] => sayAlike(changes, shapeOf);

/** Like changes in words: who and how many, what, where, the first few by name. */
function alikeText(
  alike: readonly PlanChange[],
  style: Style,
): { who: string; what: string; where: string; names: string } {
  const first = alike[0]!;
  const fresh = (n: Named) => (n.isNew ? "new " : n.isGone ? "deleted " : "");
  const own = parentOf(first.identity.uid) === first.group.uid;
  const groupNoun = `${fresh(first.group)}${nounOf("group", first.group.uid)}`;
  return {
    who: `each of ${countOf(alike.length, `${fresh(first.identity)}${nounOf("identity", first.identity.uid)}`)}`,
    what: whatText(first, style),
    where: `${own ? `its own ${groupNoun}` : `a ${groupNoun}`}${andFoldersUnder(first.alsoUnder.length)}`,
    names: firstNames(alike, (c) => `${style.bare(c.identity)} ${own ? "in" : "on"} ${style.bare(c.group)}`),
  };
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

const textStyle = (plan: AccessPlan, expand = false) =>
  styleOf(plan, asText, capabilityText, (written) => written, expand);

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
export function planText(plan: AccessPlan, hint = UNNAMED_HINT, expand = false): string[] {
  const style = textStyle(plan, expand);
  const said = saidOf(ordered(plan.changes));
  const lines = [`access plan: ${headline(plan)}`];
  for (const s of said.slice(0, NAMED_CHANGES)) {
    if ("alone" in s) lines.push(`  ${changeText(s.alone, style)}`);
    else {
      const w = alikeText(s.alike, style);
      lines.push(`  ${w.who} ${w.what} on ${w.where}: ${w.names}`);
    }
  }
  const rest = said.slice(NAMED_CHANGES).reduce((n, s) => n + ("alone" in s ? 1 : s.alike.length), 0);
  if (rest > 0) lines.push(`  and ${countOf(rest, "more change")}`);
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

/**
 * What makes bindings the update creates alike (./alike): the same role, the same kinds of identity and group, new
 * or not, the identity under the group or not; only the names differ.
 */
function bindingShape(b: PlannedBinding): string | undefined {
  if (b.identity === undefined || b.role === undefined || b.group === undefined) return undefined;
  return JSON.stringify([
    b.role.uid,
    nounOf("identity", b.identity.uid),
    b.identity.isNew,
    nounOf("group", b.group.uid),
    b.group.isNew,
    parentOf(b.identity.uid) === b.group.uid,
    b.resource.kind,
  ]);
}

/** Like bindings in words: "each of 1000 new workload identities", the role, where, the first few by name. */
function alikeBindings(alike: readonly PlannedBinding[], style: Style) {
  const first = alike[0]!;
  const fresh = (n: Named) => (n.isNew ? "new " : "");
  const own = parentOf(first.identity!.uid) === first.group!.uid;
  const groupNoun = `${fresh(first.group!)}${nounOf("group", first.group!.uid)}`;
  return {
    resources: countOf(alike.length, `${first.resource.kind} resource`),
    who: `each of ${countOf(alike.length, `${fresh(first.identity!)}${nounOf("identity", first.identity!.uid)}`)}`,
    role: style.name(first.role!),
    where: own ? `its own ${groupNoun}` : `a ${groupNoun}`,
    names: firstNames(
      alike,
      (b) => `${style.bare(b.identity!)} ${own ? "in" : "on"} ${style.bare(b.group!)}`,
    ),
  };
}

/**
 * The bindings the update creates, as `platform-access plan` prints them after the summary: one line each, like
 * ones in one line ("will bind each of 1000 new workload identities to role deployer on its own new folder: …").
 * The pack prints one line per resource instead (`createdBindingLines`), each its resource's.
 */
export function createdBindingsText(plan: AccessPlan): string[] {
  const style = textStyle(plan);
  return sayAlike(
    plan.created.filter((b) => b.hadUnknown),
    bindingShape,
  ).map((said) => {
    if ("alone" in said) return `${bindingText(said.alone, style)} (${bindingAt(said.alone, style)})`;
    const w = alikeBindings(said.alike, style);
    return `will bind ${w.who} to ${w.role} on ${w.where}: ${w.names} (${w.resources})`;
  });
}

// ---------------------------------------------------------------------------------------------------------------
// GitHub-flavoured Markdown.

const code = (capability: string) =>
  /^CAP_[A-Z0-9_]+$/.test(capability) ? `\`${capability}\`` : mdText(nameText(capability));

/**
 * The summary as a pull request's comment: a heading, the headline, then tables, privileged gains first, like
 * changes in one row; every capability of a role said whole with `expand`.
 */
export function planMarkdown(plan: AccessPlan, hint = UNNAMED_HINT, expand = false): string {
  const style = styleOf(plan, mdText, code, (written) => written, expand);
  const via = (c: PlanChange) => through(c, style) || "—";
  const changes = ordered(plan.changes);
  let out = mdHeading(3, "Access changes") + mdParagraph(`${headline(plan).replace(/^this/, "This")}.`);
  const section = (heading: string, header: string[], rows: string[][]) => {
    if (rows.length > 0) out += mdHeading(4, heading) + mdTable(header, rows);
  };
  const columns = ["Identity", "Change", "On", "Through"];
  const row = (s: Said<PlanChange>) => {
    if ("alone" in s)
      return [style.name(s.alone.identity), whatText(s.alone, style), where(s.alone, style), via(s.alone)];
    const w = alikeText(s.alike, style);
    return [
      `${mdText(w.who)}: ${w.names}`,
      w.what,
      mdText(w.where),
      s.alike[0]!.bindings.length === 0 ? "—" : "each its own binding",
    ];
  };
  const said = saidOf(changes);
  const privileged = said.filter((s) => "alone" in s && s.alone.gained.some(isPrivileged));
  const others = said.filter((s) => !("alone" in s && s.alone.gained.some(isPrivileged)));
  section("Privileged gains", columns, privileged.slice(0, NAMED_CHANGES).map(row));
  section("Other changes", columns, others.slice(0, Math.max(0, NAMED_CHANGES - privileged.length)).map(row));
  const shown = [
    ...privileged.slice(0, NAMED_CHANGES),
    ...others.slice(0, Math.max(0, NAMED_CHANGES - privileged.length)),
  ];
  const rest = plan.changes.length - shown.reduce((n, s) => n + ("alone" in s ? 1 : s.alike.length), 0);
  if (rest > 0) out += mdParagraph(`And ${countOf(rest, "more change")}.`);
  const createdSaid = sayAlike(plan.created, bindingShape);
  section(
    "Bindings this update creates",
    ["Resource", "Identity", "Role", "On"],
    createdSaid.slice(0, NAMED_CHANGES).map((said) => {
      if ("alone" in said) {
        const b = said.alone;
        return [
          bindingAt(b, style),
          refText(b.identity, "identity", style),
          refText(b.role, "role", style),
          refText(b.group, "group", style),
        ];
      }
      const w = alikeBindings(said.alike, style);
      return [mdText(w.resources), `${mdText(w.who)}: ${w.names}`, w.role, mdText(w.where)];
    }),
  );
  const createdRest = createdSaid
    .slice(NAMED_CHANGES)
    .reduce((n, said) => n + ("alone" in said ? 1 : said.alike.length), 0);
  if (createdRest > 0) out += mdParagraph(`And ${countOf(createdRest, "more binding")}.`);
  const unnamed = unnamedLine(plan, hint);
  if (plan.notes.length > 0 || unnamed !== undefined)
    out +=
      mdHeading(4, "Not known at preview") +
      mdList([...plan.notes.map((n) => noteText(n, style)), ...(unnamed === undefined ? [] : [unnamed])]);
  return `${out.trimEnd()}\n`;
}
