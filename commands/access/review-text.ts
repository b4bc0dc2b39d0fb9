/**
 * The access tools' output as text, for a person at a terminal (JSON is the review as it is; the HTML page is ./html,
 * Markdown ./review-markdown, CSV ./review-csv). Each grant is said once, where it is bound: the review's text puts
 * each role binding under the group it is bound on, "and the N groups below" said on the group, and each role's
 * capabilities once. Only who-can (one capability on one group) and the expanded grants (`--expand`) are one line
 * per grant. Everything is named by name with its kind, as every output writes it (../../sdk/words): a uid only to
 * tell two apart, or when no name is known.
 */
import {
  IDENTITY_NOUNS,
  andFoldersUnder,
  capabilityText,
  countOf,
  lineText,
  type Names,
} from "../../sdk/words";
import { sayAlike } from "./alike";
import type { ChangedAccess, ChangedGroup, ChangedIdentity, ReviewChanges } from "./changes";
import { pageData, type PageBinding, type PageData } from "./page-data";
import type { Grant, Review, ReviewedBinding } from "./review";
import { groupBy } from "./grouping";
import { namesOf, type Writer, marks } from "./review-names";
import {
  capability,
  capabilitiesText,
  sizeText,
  changeLine,
  type Newness,
  newnessOf,
  changeShape,
  alikeWords,
  LISTED,
  changesSummary,
} from "./change-words";

/** The bindings of a set of grants, each with the capabilities it grants: "role on group". */
export function byBinding(grants: Grant[]) {
  const bindings = new Map<string, { role: string; boundOn: string; inherited: boolean; caps: string[] }>();
  for (const g of grants)
    for (const t of g.through) {
      const entry = bindings.get(t.binding) ?? {
        role: t.role,
        boundOn: t.boundOn,
        inherited: t.inherited,
        caps: [],
      };
      entry.caps.push(g.privileged ? `${capabilityText(g.capability)}*` : capabilityText(g.capability));
      bindings.set(t.binding, entry);
    }
  return [...bindings];
}

const LEGEND =
  "Legend: a role binding grants its role's capabilities on the group it is bound on and on every group below it; " +
  "each is shown once, under the group it is bound on, and each role's capabilities once, under roles. * marks a " +
  `privileged capability (one with which access can be granted). A ${IDENTITY_NOUNS.person} is a root-level ` +
  `identity (a person); a ${IDENTITY_NOUNS.workload} is an identity under a group.`;

/** "read <time> as <caller>" of a review or of the one it is compared with. */
function readAs(at: string, caller: string | undefined, names: Names): string {
  return `read ${at}${caller === undefined ? "" : ` as ${names.identity(caller)}`}`;
}

function partialLines(r: Review): string[] {
  if (r.partial.length === 0) return [];
  return [
    "PARTIAL: the caller may not list everything; what it cannot see is not shown:",
    ...r.partial.map((p) => `  - ${lineText(p)}`),
  ];
}

function header(r: Review, names: Names): string[] {
  const people = r.identities.filter((i) => i.kind === "person").length;
  return [
    `access review of ${names.group(r.group.uid)}: ${countOf(r.groups.length, "group")}, ` +
      `${countOf(people, IDENTITY_NOUNS.person)} and ${countOf(r.identities.length - people, IDENTITY_NOUNS.workload)} with access ` +
      `through ${countOf(r.bindings.length, "role binding")} of ${countOf(r.roles.length, "role")} ` +
      `(${readAs(r.at, r.caller, names)}, ${r.calls} API calls)`,
    r.states.length > 0
      ? `states: ${r.states.map(lineText).join(", ")}`
      : "states: none given, so unmanaged identities are not marked (--backend URL, --stacks PATTERN or --state FILE)",
    `unused: no token exchange in ${r.unusedAfterDays} days (or never)`,
    ...partialLines(r),
    LEGEND,
  ];
}

/**
 * What manages a binding, in words written with `esc`: "managed by <stack>: <resource>, ...", "no stack", or "" when
 * no state was given (text, Markdown; the page's script says the same). Each resource is written already
 * (./page-data `managerResource`: its type and quoted logical name), so that it reads as the program's resource.
 */
export function managedWords(
  managedBy: readonly { stack: string; resource: string }[] | null,
  esc: (text: string) => string,
): string {
  if (managedBy === null) return "";
  if (managedBy.length === 0) return "no stack";
  return `managed by ${managedBy.map((m) => `${esc(m.stack)}: ${esc(m.resource)}`).join(", ")}`;
}

/** A page binding's managers by name (./page-data keeps them as indices). */
function managersOf(data: PageData, b: PageBinding) {
  return b.managedBy?.map((m) => ({ stack: data.stacks[m.stack]!, resource: m.resource })) ?? null;
}

/**
 * The role bindings as a tree: each under the group it is bound on ("and the N groups below" said once, on the
 * group), groups by name; a group only when a binding is on it or below it.
 */
function bindingsTree(r: Review, data: PageData, names: Names): string[] {
  const onGroup = data.groups.map((): PageBinding[] => []);
  for (const b of data.bindings) onGroup[b.group]!.push(b);
  // A group is shown when a binding is on it or below it: mark each such group and the path up to it.
  const shown = new Uint8Array(data.groups.length);
  for (const b of data.bindings)
    for (let g = b.group; g >= 0 && shown[g] === 0; g = data.groups[g]!.parent) shown[g] = 1;
  const depth = new Array<number>(data.groups.length).fill(0);
  const lines = [`role bindings (${r.bindings.length}), each under the group it is bound on:`];
  let hidden = 0;
  data.groups.forEach((g, i) => {
    if (i > 0) depth[i] = depth[g.parent]! + 1;
    if (shown[i] === 0) return void hidden++;
    const pad = "  ".repeat(depth[i]! + 1);
    const here = onGroup[i]!;
    const heading = names.group(g.uid);
    lines.push(
      here.length === 0
        ? `${pad}${heading} (nothing bound here)`
        : `${pad}${heading}${andFoldersUnder(g.below)}:`,
    );
    for (const b of here) {
      const role = data.roles[b.role]!;
      const managed = managedWords(managersOf(data, b), lineText);
      lines.push(
        `${pad}  ${names.identity(data.identities[b.identity]!.uid)}: ` +
          `${names.role(role.uid)}${elsewhereWords(b, names)}${managed === "" ? "" : ` [${managed}]`}`,
      );
    }
  });
  if (hidden > 0) lines.push(`  (${countOf(hidden, "group")} with nothing bound on or below it not shown)`);
  return lines;
}

/** Where a binding shown on a group is bound when not on that group: above the review, or on a group not listed. */
function elsewhereWords(b: PageBinding, names: Names): string {
  const at = b.elsewhere;
  if (at === undefined) return "";
  const group = names.group(at.uid);
  return at.above
    ? `, bound on ${group} above this review`
    : `, bound on ${group} below, which the credentials used may not list`;
}

/** Each role of the bindings once, with its capabilities (privileged ones marked `*`). */
function rolesLines(data: PageData, names: Names): string[] {
  return [
    `roles (${data.roles.length}), each with its capabilities:`,
    ...data.roles.map(
      (role) =>
        `  ${names.role(role.uid)}: ` +
        (role.capabilities === null
          ? "not visible to the caller"
          : role.capabilities
              .map((c) => data.capabilities[c]!.name)
              .map(capability)
              .join(" ") || "none"),
    ),
  ];
}

/**
 * The review as a person reads it: what changed since an earlier review (when compared), the identities with their
 * marks, the role bindings under the groups they are bound on, and the roles with their capabilities.
 */
export function reviewText(r: Review): string {
  const names = namesOf(r);
  const lines = header(r, names);
  if (r.changes !== undefined) lines.push("", ...changesLines(r.changes, names));
  lines.push("", `identities (${r.identities.length}), users first, then by name:`);
  const data = pageData(r);
  const holding = new Map(r.identities.map((i) => [i.uid, i]));
  for (const i of data.identities.flatMap((x) => holding.get(x.uid) ?? [])) {
    const said = [
      ...(marks(i).length > 0 ? [marks(i).join(", ")] : []),
      ...(i.kind === "workload"
        ? [`last seen ${i.lastSeenTime === undefined ? "never" : lineText(i.lastSeenTime)}`]
        : []),
    ];
    lines.push(`  ${names.identity(i.uid)}${said.length === 0 ? "" : `: ${said.join("; ")}`}`);
  }
  lines.push("", ...bindingsTree(r, data, names), "", ...rolesLines(data, names));
  return `${lines.join("\n")}\n`;
}

/**
 * Where a binding grants its role, as one phrase for a line of its own: "on folder eng and the 3 folders under it";
 * for one above the group reviewed, "on <the group reviewed> and the N folders under it (bound on organization
 * acme, above it)"; for one on a group the caller may not list, that group and the folders under it the review
 * lists.
 */
export function reachWords(b: ReviewedBinding, r: Review, listed: ReadonlySet<string>, names: Names): string {
  const group = names.group(b.group);
  if (b.above)
    return `on ${names.group(r.group.uid)}${andFoldersUnder(b.below - 1)} (bound on ${group}, above it)`;
  if (!listed.has(b.group))
    return `on ${group}, which the credentials used may not list${b.below === 0 ? "" : `,${andFoldersUnder(b.below)}`}`;
  return `on ${group}${andFoldersUnder(b.below)}`;
}

/**
 * What an identity holds under a group, each binding once where it is bound (what-can): a title with the identity's
 * marks, a line per binding (where it reaches, through which role), then each of those roles once with its
 * capabilities.
 */
export function whatCanText(identity: string, bindings: readonly ReviewedBinding[], r: Review): string {
  const names = namesOf(r);
  const i = r.identities.find((x) => x.uid === identity);
  const marked = i === undefined ? [] : marks(i);
  const lines = [
    `what ${names.identity(identity)} holds under ${names.group(r.group.uid)}` +
      `${marked.length === 0 ? "" : ` [${marked.join(", ")}]`}:`,
    ...partialLines(r),
  ];
  if (bindings.length === 0) lines.push("  nothing");
  const listed = new Set(r.groups.map((g) => g.uid));
  for (const b of bindings) lines.push(`  ${reachWords(b, r, listed, names)}, through ${names.role(b.role)}`);
  const used = new Set(bindings.map((b) => b.role));
  const readable = new Map(r.roles.map((role) => [role.uid, role]));
  for (const uid of used) {
    const role = readable.get(uid);
    lines.push(
      `  ${names.role(uid)}: ` +
        (role === undefined
          ? "capabilities not visible to the caller"
          : role.capabilities.map(capability).join(" ") || "none"),
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The grants as a person reads them, one line per identity and binding (who-can, what-can). */
export function grantsText(title: string, grants: Grant[], r: Review): string {
  const names = namesOf(r);
  const ids = new Map(r.identities.map((i) => [i.uid, i]));
  const lines = [title, ...partialLines(r)];
  if (grants.length === 0) lines.push("  nobody / nothing");
  for (const here of groupBy(grants, (g) => `${g.group}\u0000${g.identity}`).values()) {
    const { group, identity } = here[0]!;
    const marked = ids.has(identity) ? marks(ids.get(identity)!) : [];
    lines.push(
      `  on ${names.group(group)}: ${names.identity(identity)}` +
        (marked.length > 0 ? ` [${marked.join(", ")}]` : ""),
    );
    for (const [, b] of byBinding(here)) {
      const from = b.inherited ? `inherited from ${names.group(b.boundOn)}` : "bound on this group";
      lines.push(`    through ${names.role(b.role)}, ${from}: ${b.caps.join(" ")}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

/** The changes of access that are not privileged, like ones said together (./alike). */
function othersLines(others: readonly ChangedAccess[], newness: Newness, names: Names): string[] {
  const write: Writer = (kind, uid) => names.named(kind, uid);
  return sayAlike(others, (a) => changeShape(a, newness)).map((said) => {
    if ("alone" in said) return `    ${changeLine(said.alone, names)}`;
    const w = alikeWords(
      said.alike,
      newness,
      write,
      (kind, uid) => names.name(kind, uid),
      capabilitiesText,
      sizeText,
    );
    return `    ${w.who} ${w.what} on ${w.where}: ${w.names}`;
  });
}

const identityList = (list: readonly ChangedIdentity[], names: Names) =>
  list.map((i) => names.identity(i.uid) + (i.privileged ? " [privileged]" : "")).join(", ");

const groupList = (list: readonly ChangedGroup[], names: Names) =>
  list
    .map((g) => names.group(g.uid) + (g.parent === undefined ? "" : ` (under ${names.group(g.parent)})`))
    .join(", ");

/** The changes since an earlier review, privileged ones first. */
function changesLines(c: ReviewChanges, names: Names): string[] {
  const lines = [
    `changes since the review ${readAs(c.since.at, c.since.caller, names)}: ${changesSummary(c)}`,
  ];
  if (c.partial)
    lines.push(
      "  PARTIAL: one of the two reviews could not list everything; a change may be one of visibility",
    );
  const privileged = c.access.filter((a) => a.privileged);
  const others = c.access.filter((a) => !a.privileged);
  if (privileged.length > 0)
    lines.push("  privileged:", ...privileged.map((a) => `    ${changeLine(a, names)}`));
  if (others.length > 0) lines.push("  access:", ...othersLines(others, newnessOf(c), names));
  const listed = <T>(title: string, list: readonly T[], write: (items: readonly T[]) => string) => {
    if (list.length === 0) return;
    const shown = list.slice(0, LISTED);
    const more = list.length - shown.length;
    lines.push(`  ${title} (${list.length}): ${write(shown)}${more > 0 ? ` and ${more} more` : ""}`);
  };
  listed("identities new", c.identities.new, (l) => identityList(l, names));
  listed("identities gone", c.identities.gone, (l) => identityList(l, names));
  listed("groups new", c.groups.new, (l) => groupList(l, names));
  listed("groups gone", c.groups.gone, (l) => groupList(l, names));
  for (const role of c.roles) {
    const what = [
      ...(role.added.length > 0 ? [`gains ${capabilitiesText(role.added)}`] : []),
      ...(role.removed.length > 0 ? [`loses ${capabilitiesText(role.removed)}`] : []),
    ];
    lines.push(`  ${names.role(role.uid)} ${what.join(", ")}`);
  }
  return lines;
}
