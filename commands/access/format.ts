/**
 * The access tools' output as text (for a person at a terminal) and CSV (for a spreadsheet); JSON is the review as it
 * is. The HTML page is ./html, Markdown ./review-markdown. Each grant is said once, where it is bound: the review's
 * text puts each role binding under the group it is bound on, "and the N groups below" said on the group, and each
 * role's capabilities once; its CSV is one row per binding. Only who-can (one capability on one group) and the
 * expanded grants (`--expand`) are one row per grant. The changes since an earlier review are one row per change.
 * Everything is named by name with its kind, as every output writes it (../../sdk/words): a uid only to tell two
 * apart, or when no name is known. CSV keeps the names as they are, and the uid columns beside them for machines.
 */
import { isPrivileged } from "../../sdk/access-model";
import {
  IDENTITY_NOUNS,
  andFoldersUnder,
  capabilityText,
  countOf,
  identityKind,
  lineText,
  nounOf,
  withArticle,
  type NamedKind,
  type Names,
} from "../../sdk/words";
import { firstNames, sayAlike } from "./alike";
import type { ChangedAccess, ChangedGroup, ChangedIdentity, ChangedThrough, ReviewChanges } from "./changes";
import { namesFrom, type NameSources } from "./names";
import { resourceName } from "../states";
import { pageData, type PageBinding, type PageData } from "./page-data";
import type { Grant, Review, ReviewedBinding, ReviewedIdentity } from "./review";
import { parentOf } from "../../sdk/uidp";

/** Items by key, in their order. */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list === undefined) out.set(k, [item]);
    else list.push(item);
  }
  return out;
}

/** The caller a review was read as, with its name when known (none when the caller is not known). */
const callerOf = (r: { caller?: string | undefined; callerName?: string | undefined }) =>
  r.caller === undefined ? [] : [{ uid: r.caller, name: r.callerName }];

/**
 * What a review's changes name: gone identities and groups are known only from the earlier review, and so is the
 * caller it was read as.
 */
function changesSources(c: ReviewChanges): NameSources {
  return {
    identities: [
      ...callerOf(c.since),
      ...c.access.map((a) => ({ uid: a.identity, name: a.identityName })),
      ...c.identities.new,
      ...c.identities.gone,
    ],
    groups: [
      ...c.access.flatMap((a) => [
        { uid: a.group, name: a.groupName },
        ...a.under,
        ...a.through.map((t) => ({ uid: t.boundOn, name: t.boundOnName })),
      ]),
      ...c.groups.new,
      ...c.groups.gone,
    ],
    roles: [
      ...c.access.flatMap((a) => a.through.map((t) => ({ uid: t.role, name: t.roleName }))),
      ...c.roles,
    ],
  };
}

/**
 * The names a review's outputs use: its identities, groups and roles, those its bindings name, the caller it was read
 * as, and its changes'.
 */
export function namesOf(r: Review): Names {
  const sources: NameSources = {
    identities: [
      // An identity the review knows by uid alone has its uid as its name: Names takes that as none.
      ...r.identities,
      ...r.withoutAccess,
      ...r.bindings.map((b) => ({ uid: b.identity, name: b.identityName })),
      ...callerOf(r),
    ],
    groups: [...r.groups, ...r.bindings.map((b) => ({ uid: b.group, name: b.groupName }))],
    roles: [...r.roles, ...r.bindings.map((b) => ({ uid: b.role, name: b.roleName }))],
  };
  return r.changes === undefined ? namesFrom(sources) : namesFrom(sources, changesSources(r.changes));
}

/** How an output writes an object by name with its kind: as text, or escaped for Markdown or HTML. */
export type Writer = (kind: NamedKind, uid: string) => string;

/** The marks of an identity, in words (its kind is said with its name). */
export function marks(i: ReviewedIdentity): string[] {
  const out: string[] = [];
  if (i.privileged) out.push("privileged");
  if (i.unused === true) out.push(i.lastSeenTime === undefined ? "unused (never seen)" : "unused");
  if (i.unmanaged === true) out.push("unmanaged");
  return out;
}

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

/** A capability as text (`capabilityText`): a privileged one ends in `*`. */
const capability = (c: string) => (isPrivileged(c) ? `${capabilityText(c)}*` : capabilityText(c));

/** Where a change happens: "folder eng and the 3 folders under it", the group written by `write`. */
export function whereWords(c: ChangedAccess, write: Writer): string {
  return `${write("group", c.group)}${andFoldersUnder(c.under.length)}`;
}

/**
 * What a change says, binding by binding: a role changing hands whole (`whole`: said by its name; the decision is
 * the model's, ./changes), then the other bindings with the capabilities only they give or took (those a whole role
 * of the same side covers are said by the role). Gains first.
 */
export function changeParts(c: ChangedAccess): { through: ChangedThrough; capabilities: string[] }[] {
  const parts: { through: ChangedThrough; capabilities: string[] }[] = [];
  for (const change of ["gained", "lost"] as const) {
    const side = c.through.filter((t) => t.change === change);
    const covered = new Set(side.filter((t) => t.whole).flatMap((t) => t.capabilities));
    const wholeRoles = new Set<string>();
    for (const t of side.filter((x) => x.whole))
      if (!wholeRoles.has(t.role)) {
        wholeRoles.add(t.role);
        parts.push({ through: t, capabilities: t.capabilities });
      }
    for (const t of side.filter((x) => !x.whole)) {
      const own = t.capabilities.filter((cap) => !covered.has(cap));
      if (own.length > 0) parts.push({ through: t, capabilities: own });
    }
  }
  return parts;
}

/**
 * A whole role's size, as every output says it: "3 capabilities", "24 capabilities, 6 privileged: A, B, …" (the
 * privileged ones named, written by `cap`, joined by `join`).
 */
export function roleSize(
  capabilities: readonly string[],
  cap: (capability: string) => string,
  join = ", ",
): string {
  const privileged = capabilities.filter(isPrivileged);
  return (
    countOf(capabilities.length, "capability") +
    (privileged.length === 0 ? "" : `, ${privileged.length} privileged: ${privileged.map(cap).join(join)}`)
  );
}

/** The verb of a part: a whole role is become or left, capabilities are gained or lost. */
export function partVerb(part: { through: ChangedThrough }): string {
  if (part.through.whole) return part.through.change === "gained" ? "becomes" : "is no longer";
  return part.through.change === "gained" ? "gains" : "loses";
}

/**
 * Each part of a change in words: "becomes role deployer (3 capabilities)" (", bound on folder eng" where the
 * binding is on another group than the change's), "gains CAP_A CAP_B through role deployer bound on folder eng";
 * objects written by `write`, a role's size by `size`, capabilities by `caps`.
 */
export function partWords(
  c: ChangedAccess,
  write: Writer,
  caps: (capabilities: readonly string[]) => string,
  size: (capabilities: readonly string[]) => string,
): string[] {
  return changeParts(c).map((part) => {
    const t = part.through;
    if (t.whole)
      return (
        `${partVerb(part)} ${write("role", t.role)} (${size(t.capabilities)})` +
        (t.boundOn === c.group ? "" : `, bound on ${write("group", t.boundOn)}`)
      );
    return `${partVerb(part)} ${caps(part.capabilities)} through ${write("role", t.role)} bound on ${write("group", t.boundOn)}`;
  });
}

/**
 * The cells of one change in a table, each its own fact: what changes ("becomes role editor (24 capabilities, 6
 * privileged: …)", "gains CAP_A, CAP_B") and through which binding (a role said whole is not said again: only where
 * it is bound; "this group" when on the group of the change). Objects written by `write`, a role's size by `size`,
 * capabilities by `caps`, the parts of a cell joined by `separator`, and after a whole role's size what `expand`
 * adds (the page: every capability, one click away): the Markdown and the page say them alike.
 */
export function changeCells(
  c: ChangedAccess,
  write: Writer,
  caps: (capabilities: readonly string[]) => string,
  size: (capabilities: readonly string[]) => string,
  separator: string,
  expand: (capabilities: readonly string[]) => string = () => "",
): { what: string; through: string } {
  const parts = changeParts(c);
  const where = (group: string) => (group === c.group ? "this group" : write("group", group));
  return {
    what: parts
      .map((p) =>
        p.through.whole
          ? `${partVerb(p)} ${write("role", p.through.role)} (${size(p.capabilities)})${expand(p.capabilities)}`
          : `${partVerb(p)} ${caps(p.capabilities)}`,
      )
      .join(separator),
    through: parts
      .map((p) =>
        p.through.whole
          ? `bound on ${where(p.through.boundOn)}`
          : `${write("role", p.through.role)} bound on ${where(p.through.boundOn)}`,
      )
      .join(separator),
  };
}

const capabilitiesText = (list: readonly string[]) => list.map(capability).join(" ");
const sizeText = (list: readonly string[]) => roleSize(list, capabilityText, " ");

/** One change of access in words: who, where, which roles it becomes (or leaves) and which capabilities. */
export function changeLine(c: ChangedAccess, names: Names): string {
  const write: Writer = (kind, uid) => names.named(kind, uid);
  return `${names.identity(c.identity)} on ${whereWords(c, write)}: ${partWords(c, write, capabilitiesText, sizeText).join("; ")}`;
}

/** Which identities and groups of a comparison are new (a change's shape says so). */
export interface Newness {
  identities: ReadonlySet<string>;
  groups: ReadonlySet<string>;
}

export const newnessOf = (c: ReviewChanges): Newness => ({
  identities: new Set(c.identities.new.map((i) => i.uid)),
  groups: new Set(c.groups.new.map((g) => g.uid)),
});

/**
 * What makes changes of access alike (./alike): everything but the names of the identity and the group. A
 * privileged change, or one said capability by capability, is said alone.
 */
export function changeShape(c: ChangedAccess, newness: Newness): string | undefined {
  if (c.privileged || c.through.some((t) => !t.whole)) return undefined;
  return JSON.stringify([
    c.identityKind,
    newness.identities.has(c.identity),
    newness.groups.has(c.group),
    parentOf(c.identity) === c.group,
    c.under.length,
    changeParts(c).map((p) => [
      p.through.change,
      p.through.role,
      p.through.boundOn === c.group ? "" : p.through.boundOn,
    ]),
  ]);
}

/**
 * How like changes are said together (./alike): who ("each of 297 new workload identities"), what (the first
 * change's parts: alike, they say the same), where ("its own new folder") and the first few by name.
 */
export function alikeWords(
  alike: readonly ChangedAccess[],
  newness: Newness,
  write: Writer,
  name: (kind: NamedKind, uid: string) => string,
  caps: (capabilities: readonly string[]) => string,
  size: (capabilities: readonly string[]) => string,
): { who: string; what: string; where: string; names: string } {
  const first = alike[0]!;
  const fresh = (isNew: boolean) => (isNew ? "new " : "");
  const own = parentOf(first.identity) === first.group;
  const groupNoun = `${fresh(newness.groups.has(first.group))}${nounOf("group", first.group)}`;
  const identityNoun = `${fresh(newness.identities.has(first.identity))}${IDENTITY_NOUNS[first.identityKind]}`;
  return {
    who: `each of ${countOf(alike.length, identityNoun)}`,
    what: partWords(first, write, caps, size).join("; "),
    where: `${own ? `its own ${groupNoun}` : withArticle(groupNoun)}${andFoldersUnder(first.under.length)}`,
    names: firstNames(
      alike,
      (c) => `${name("identity", c.identity)} ${own ? "in" : "on"} ${name("group", c.group)}`,
    ),
  };
}

/** How many identities and groups new or gone the text and Markdown name; the JSON and CSV hold every one. */
export const LISTED = 10;

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

/** How many of each kind of change, in one line. */
export function changesSummary(c: ReviewChanges): string {
  const privileged = c.access.filter((a) => a.privileged).length;
  return [
    `${countOf(c.access.length, "change")} of access (${privileged} privileged)`,
    `${countOf(c.identities.new.length, "identity")} new, ${c.identities.gone.length} gone`,
    `${countOf(c.groups.new.length, "group")} new, ${c.groups.gone.length} gone`,
    `${countOf(c.roles.length, "role")} changed`,
  ].join(", ");
}

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

/**
 * The columns of the review's CSV and what-can's: one row per role binding, said once on the group it is bound on,
 * with the groups of the review below it, its role's capabilities, the identity's marks and what manages it.
 */
export const BINDINGS_CSV_COLUMNS = [
  "binding",
  "group",
  "group_name",
  "groups_below",
  "bound_above",
  "identity",
  "identity_name",
  "identity_kind",
  "identity_privileged",
  "identity_unused",
  "identity_unmanaged",
  "role",
  "role_name",
  "capabilities",
  "privileged_capabilities",
  "managed",
  "managed_by",
] as const;

/** The columns of who-can's CSV and of the expanded grants (`--expand`): one row per grant and binding. */
export const GRANTS_CSV_COLUMNS = [
  "group",
  "group_name",
  "identity",
  "identity_name",
  "identity_kind",
  "capability",
  "privileged",
  "role",
  "role_name",
  "bound_on",
  "inherited",
  "binding",
  "unused",
  "unmanaged",
  // After the first columns, so that a script reading them by position still reads them.
  "bound_on_name",
] as const;

/** RFC 4180: quoted when it holds a comma, quote or line break; a leading = + - @ is defused for spreadsheets. */
function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const csv = (rows: string[][]) => rows.map((row) => row.map(csvField).join(",")).join("\r\n") + "\r\n";

/** A name as the service gave it, for a CSV column (the CSV writer quotes it), or "" when none is known. */
const asIs = (names: Names, kind: NamedKind, uid: string) => names.nameOf(kind, uid) ?? "";

const flag = (v: boolean | null | undefined) => (v === null || v === undefined ? "" : String(v));

/** The BINDINGS_CSV_COLUMNS of each binding. */
function bindingRows(bindings: readonly ReviewedBinding[], r: Review): string[][] {
  const ids = new Map([...r.identities, ...r.withoutAccess].map((i) => [i.uid, i]));
  const roles = new Map(r.roles.map((role) => [role.uid, role]));
  const names = namesOf(r);
  return bindings.map((b) => {
    const i = ids.get(b.identity);
    const capabilities = roles.get(b.role)?.capabilities ?? [];
    return [
      b.uid,
      b.group,
      asIs(names, "group", b.group),
      String(b.below),
      String(b.above),
      b.identity,
      asIs(names, "identity", b.identity),
      i?.kind ?? identityKind(b.identity),
      flag(i?.privileged),
      flag(i?.unused),
      flag(i?.unmanaged),
      b.role,
      asIs(names, "role", b.role),
      capabilities.join(" "),
      capabilities.filter(isPrivileged).join(" "),
      flag(b.managedBy === null ? null : b.managedBy.length > 0),
      (b.managedBy ?? []).map((m) => `${m.stack}: ${resourceName(m.urn)}`).join("; "),
    ];
  });
}

/** One row per role binding (BINDINGS_CSV_COLUMNS): the review's, or what-can's. */
export function bindingsCsv(bindings: readonly ReviewedBinding[], r: Review): string {
  return csv([[...BINDINGS_CSV_COLUMNS], ...bindingRows(bindings, r)]);
}

/** One row per capability held and binding that grants it (GRANTS_CSV_COLUMNS): who-can's, or expanded. */
export function grantsCsv(grants: Grant[], r: Review): string {
  return csv([[...GRANTS_CSV_COLUMNS], ...grantRows(grants, r)]);
}

/**
 * Several answers in one table (what-can for a person, one answer per organization the caller sees): each row starts
 * with the organization it is in, by uid and name; binding rows, or grant rows when expanded.
 */
export function csvByOrganization(
  answers: {
    organization: { uid: string; name: string };
    bindings: ReviewedBinding[];
    grants?: Grant[];
    review: Review;
  }[],
  expanded: boolean,
): string {
  const columns = expanded ? GRANTS_CSV_COLUMNS : BINDINGS_CSV_COLUMNS;
  return csv([
    ["organization", "organization_name", ...columns],
    ...answers.flatMap(({ organization, bindings, grants, review }) =>
      (expanded ? grantRows(grants ?? [], review) : bindingRows(bindings, review)).map((row) => [
        organization.uid,
        organization.name,
        ...row,
      ]),
    ),
  ]);
}

/** The GRANTS_CSV_COLUMNS of each capability held and binding that grants it. */
function grantRows(grants: Grant[], r: Review): string[][] {
  const ids = new Map(r.identities.map((i) => [i.uid, i]));
  const names = namesOf(r);
  const rows: string[][] = [];
  for (const g of grants)
    for (const t of g.through) {
      const i = ids.get(g.identity);
      rows.push([
        g.group,
        asIs(names, "group", g.group),
        g.identity,
        asIs(names, "identity", g.identity),
        i?.kind ?? "",
        g.capability,
        String(g.privileged),
        t.role,
        asIs(names, "role", t.role),
        t.boundOn,
        String(t.inherited),
        t.binding,
        flag(i?.unused),
        flag(i?.unmanaged),
        asIs(names, "group", t.boundOn),
      ]);
    }
  return rows;
}

/**
 * The columns of the changes CSV: one row per capability gained or lost and binding through which it is gained (in
 * the later review) or was held (the earlier one), said once on the group where it happens (`groups_under`: how
 * many groups under it change the same way; `whole_role`: the role changes hands whole, every capability it grants,
 * so the other outputs say it by name); one row per identity and group new or gone; one per capability a role
 * gained or lost. Privileged changes first, as in every output.
 */
export const CHANGES_CSV_COLUMNS = [
  "change",
  "privileged",
  "identity",
  "identity_name",
  "identity_kind",
  "group",
  "group_name",
  "groups_under",
  "capability",
  "role",
  "role_name",
  "binding",
  "bound_on",
  "bound_on_name",
  // After the first columns, so that a script reading them by position still reads them.
  "whole_role",
] as const;

type ChangesRow = Partial<Record<(typeof CHANGES_CSV_COLUMNS)[number], string>>;

function accessRows(a: ChangedAccess): ChangesRow[] {
  return a.through.flatMap((t) =>
    t.capabilities.map((cap) => ({
      change: t.change,
      privileged: String(isPrivileged(cap)),
      identity: a.identity,
      identity_name: a.identityName,
      identity_kind: a.identityKind,
      group: a.group,
      group_name: a.groupName,
      groups_under: String(a.under.length),
      capability: cap,
      role: t.role,
      role_name: t.roleName,
      binding: t.binding,
      bound_on: t.boundOn,
      bound_on_name: t.boundOnName,
      whole_role: String(t.whole),
    })),
  );
}

/** The changes since an earlier review, one row per fact (CHANGES_CSV_COLUMNS). */
export function changesCsv(c: ReviewChanges): string {
  // Privileged gains first, then privileged losses, each in the order of the changes.
  const rank = (row: ChangesRow) => (row.privileged === "true" ? (row.change === "gained" ? 0 : 1) : 2);
  const rows: ChangesRow[] = [
    ...c.access.flatMap(accessRows).sort((a, b) => rank(a) - rank(b)),
    ...(["new", "gone"] as const).flatMap((change) =>
      c.identities[change].map((i) => ({
        change: `identity ${change}`,
        privileged: String(i.privileged),
        identity: i.uid,
        identity_name: i.name,
        identity_kind: i.kind,
      })),
    ),
    ...(["new", "gone"] as const).flatMap((change) =>
      c.groups[change].map((g) => ({ change: `group ${change}`, group: g.uid, group_name: g.name })),
    ),
    ...c.roles.flatMap((role) =>
      (["added", "removed"] as const).flatMap((side) =>
        role[side].map((cap) => ({
          change: `role capability ${side}`,
          privileged: String(isPrivileged(cap)),
          capability: cap,
          role: role.uid,
          role_name: role.name,
        })),
      ),
    ),
  ];
  return csv([[...CHANGES_CSV_COLUMNS], ...rows.map((row) => CHANGES_CSV_COLUMNS.map((k) => row[k] ?? ""))]);
}
