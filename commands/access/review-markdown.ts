/**
 * The review as GitHub-flavoured Markdown (`platform-access review --markdown`), for a CI job's summary or a
 * pull-request comment: what changed since the earlier review first (when compared), privileged changes first; then
 * the identities with their marks, the bindings (each said once, on the group where it is bound, with how many
 * groups under it inherit it and, when stacks were given, what manages it) and the roles.
 *
 * Every object is written as the text writes it, name and kind (../../sdk/words), then escaped as Markdown.
 */
import { isPrivileged } from "../../sdk/access-model";
import { byName, capabilityText, compareNames, countOf, type Names } from "../../sdk/words";
import { mdBold, mdHeading, mdList, mdParagraph, mdTable, mdText } from "../markdown";
import { sayAlike } from "./alike";
import type { ChangedAccess, ReviewChanges } from "./changes";
import * as changeWords from "./change-words";
import { managedWords, byBinding, reachWords } from "./review-text";
import { groupBy } from "./grouping";
import { marks, namesOf, type Writer } from "./review-names";
import { managerResource } from "./page-data";
import type { Grant, Review, ReviewedBinding } from "./review";

/** Objects as Markdown: named as text names them, escaped. */
const markdownWriter =
  (names: Names): Writer =>
  (kind, uid) =>
    mdText(names.named(kind, uid));

/** Capabilities as inline Markdown (written as text writes them, escaped), privileged ones in bold. */
function capabilitiesMd(capabilities: readonly string[]): string {
  return capabilities
    .map((c) => mdText(capabilityText(c)))
    .map((md, i) => (isPrivileged(capabilities[i]!) ? mdBold(md) : md))
    .join(", ");
}

function readAsMd(at: string, caller: string | undefined, names: Names): string {
  return `read ${mdText(at)}${caller === undefined ? "" : ` as ${mdText(names.identity(caller))}`}`;
}

/** A whole role's size in Markdown: its count, its privileged capabilities named in bold. */
const sizeMd = (capabilities: readonly string[]) =>
  changeWords.roleSize(capabilities, (c) => mdBold(mdText(capabilityText(c))));

/** The cells of a change (./format's changeWords.changeCells), written as Markdown. */
function cellsOf(c: ChangedAccess, names: Names): { what: string; through: string } {
  return changeWords.changeCells(c, markdownWriter(names), capabilitiesMd, sizeMd, "; ");
}

const ACCESS_COLUMNS = ["identity", "on", "change", "through"];

function accessRow(c: ChangedAccess, names: Names): string[] {
  const cells = cellsOf(c, names);
  return [
    mdText(names.identity(c.identity)),
    changeWords.whereWords(c, markdownWriter(names)),
    cells.what,
    cells.through,
  ];
}

function accessTable(list: readonly ChangedAccess[], names: Names): string {
  return mdTable(
    ACCESS_COLUMNS,
    list.map((c) => accessRow(c, names)),
  );
}

/** The other changes, like ones in one row (./alike): who and how many, where, what, the first few by name. */
function othersTable(list: readonly ChangedAccess[], newness: changeWords.Newness, names: Names): string {
  const write = markdownWriter(names);
  return mdTable(
    ACCESS_COLUMNS,
    sayAlike(list, (c) => changeWords.changeShape(c, newness)).map((said) => {
      if ("alone" in said) return accessRow(said.alone, names);
      const w = changeWords.alikeWords(
        said.alike,
        newness,
        write,
        (kind, uid) => mdText(names.name(kind, uid)),
        capabilitiesMd,
        sizeMd,
      );
      return [
        `${mdText(w.who)}: ${w.names}`,
        mdText(w.where),
        w.what,
        cellsOf(said.alike[0]!, names).through,
      ];
    }),
  );
}

/** Each role said whole in the changes, once, with every capability it grants: the list one step away. */
function wholeRolesTable(c: ReviewChanges, names: Names): string {
  const roles = new Map<string, string[]>();
  for (const a of c.access)
    for (const t of a.through) if (t.whole && !roles.has(t.role)) roles.set(t.role, t.capabilities);
  if (roles.size === 0) return "";
  const rows = [...roles]
    .map(([uid, capabilities]) => ({ uid, name: names.rawName("role", uid), capabilities }))
    .sort(byName);
  return (
    mdHeading(3, "Roles said by name") +
    mdTable(
      ["role", "capabilities"],
      rows.map((r) => [mdText(names.role(r.uid)), capabilitiesMd([...r.capabilities].sort())]),
    )
  );
}

/** The changes since an earlier review, as Markdown sections (level 2 and 3 headings). */
export function changesMarkdown(c: ReviewChanges, names: Names): string {
  let out = mdHeading(2, `Changes since the review ${readAsMd(c.since.at, c.since.caller, names)}`);
  out += mdParagraph(mdText(changeWords.changesSummary(c)));
  if (c.partial)
    out += mdParagraph(
      `${mdBold("Partial:")} one of the two reviews could not list everything; a change may be one of visibility.`,
    );
  const privileged = c.access.filter((a) => a.privileged);
  const others = c.access.filter((a) => !a.privileged);
  if (privileged.length > 0) out += mdHeading(3, "Privileged changes") + accessTable(privileged, names);
  if (others.length > 0)
    out += mdHeading(3, "Other changes of access") + othersTable(others, changeWords.newnessOf(c), names);
  out += wholeRolesTable(c, names);
  const more = (list: readonly unknown[]) => Math.max(0, list.length - changeWords.LISTED);
  const identities = (["new", "gone"] as const).flatMap((change) => [
    ...c.identities[change]
      .slice(0, changeWords.LISTED)
      .map((i) => [change, mdText(names.identity(i.uid)), i.privileged ? mdBold("privileged") : ""]),
    ...(more(c.identities[change]) > 0 ? [[change, `and ${more(c.identities[change])} more`, ""]] : []),
  ]);
  if (identities.length > 0)
    out += mdHeading(3, "Identities new and gone") + mdTable(["change", "identity", "marks"], identities);
  const groups = (["new", "gone"] as const).flatMap((change) => [
    ...c.groups[change]
      .slice(0, changeWords.LISTED)
      .map((g) => [
        change,
        mdText(names.group(g.uid)),
        g.parent === undefined ? "" : mdText(names.group(g.parent)),
      ]),
    ...(more(c.groups[change]) > 0 ? [[change, `and ${more(c.groups[change])} more`, ""]] : []),
  ]);
  if (groups.length > 0)
    out += mdHeading(3, "Groups new and gone") + mdTable(["change", "group", "under"], groups);
  if (c.roles.length > 0)
    out +=
      mdHeading(3, "Roles changed") +
      mdTable(
        ["role", "gains", "loses"],
        c.roles.map((r) => [mdText(names.role(r.uid)), capabilitiesMd(r.added), capabilitiesMd(r.removed)]),
      );
  return out;
}

/**
 * The bindings that apply in the subtree, each once where it is bound: privileged roles first. With stacks given, a
 * column says what manages each ("managed by <stack>: <resource>", or "no stack").
 */
function bindingsTable(r: Review, names: Names): string {
  const roles = new Map(r.roles.map((x) => [x.uid, x]));
  const managed = r.states.length > 0;
  const rows = r.bindings.map((b) => {
    const role = roles.get(b.role);
    const privileged = role?.capabilities.filter(isPrivileged) ?? [];
    const managers = b.managedBy?.map((m) => ({ stack: m.stack, resource: managerResource(m) })) ?? null;
    return {
      privileged: privileged.length > 0,
      name: names.rawName("identity", b.identity),
      key: `${b.identity}\u0000${b.group}`,
      cells: [
        mdText(names.identity(b.identity)),
        mdText(names.role(b.role)),
        mdText(names.group(b.group)) + (b.above ? " (above the group reviewed)" : ""),
        String(b.below),
        role === undefined ? "not visible to the caller" : capabilitiesMd(privileged),
        ...(managed ? [managedWords(managers, mdText)] : []),
      ],
    };
  });
  rows.sort(
    (a, b) =>
      Number(b.privileged) - Number(a.privileged) ||
      compareNames(a.name, b.name) ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  return mdTable(
    [
      "identity",
      "role",
      "bound on",
      "groups under it",
      "privileged capabilities",
      ...(managed ? ["managed by"] : []),
    ],
    capped(
      rows.map((row) => row.cells),
      (n) => [`and ${countOf(n, "more binding")}`, ...Array<string>(managed ? 5 : 4).fill("")],
    ),
  );
}

/**
 * How many rows a table of the review names (privileged ones first); the rest are counted, in a row of their own.
 * The JSON, the CSV and the page hold every one: a pull request's comment stays short.
 */
export const MARKDOWN_ROWS = 50;

function capped(rows: string[][], more: (n: number) => string[]): string[][] {
  return rows.length <= MARKDOWN_ROWS
    ? rows
    : [...rows.slice(0, MARKDOWN_ROWS), more(rows.length - MARKDOWN_ROWS)];
}

/** The review, and what changed since an earlier one, as GitHub-flavoured Markdown. */
export function reviewMarkdown(r: Review): string {
  const names = namesOf(r);
  let out = mdHeading(1, `Access review of ${mdText(names.group(r.group.uid))}`);
  out += mdParagraph(
    `${r.groups.length} groups, ${r.identities.length} identities with access through ${r.bindings.length} ` +
      `role bindings; ` +
      `${readAsMd(r.at, r.caller, names)} with ${r.calls} API calls. ` +
      (r.states.length > 0
        ? `States compared: ${r.states.map(mdText).join(", ")}.`
        : "No state given, so unmanaged identities are not marked."),
  );
  if (r.partial.length > 0)
    out +=
      mdParagraph(
        `${mdBold("Partial:")} the caller may not list everything; what it cannot see is not shown:`,
      ) + mdList(r.partial.map(mdText));
  if (r.changes !== undefined) out += changesMarkdown(r.changes, names);
  out += mdHeading(2, "Identities");
  const identities = [...r.identities].sort(
    (a, b) =>
      Number(b.privileged) - Number(a.privileged) ||
      compareNames(names.rawName("identity", a.uid), names.rawName("identity", b.uid)) ||
      (a.uid < b.uid ? -1 : 1),
  );
  out += mdTable(
    ["identity", "marks", "last seen"],
    capped(
      identities.map((i) => [
        mdText(names.identity(i.uid)),
        marks(i)
          .map((m) => (m === "privileged" ? mdBold(m) : mdText(m)))
          .join(", "),
        i.kind === "workload" ? mdText(i.lastSeenTime ?? "never") : "",
      ]),
      (n) => [`and ${countOf(n, "more identity")}`, "", ""],
    ),
  );
  out += mdHeading(2, "Bindings");
  out += mdParagraph(
    "A binding grants its role's capabilities on the group it is bound on and on every group below it.",
  );
  out += bindingsTable(r, names);
  out += mdHeading(2, "Roles");
  out += mdTable(
    ["role", "capabilities", "privileged capabilities"],
    [...r.roles]
      .sort((a, b) =>
        byName(
          { name: names.rawName("role", a.uid), uid: a.uid },
          { name: names.rawName("role", b.uid), uid: b.uid },
        ),
      )
      .map((role) => [
        mdText(names.role(role.uid)),
        String(role.capabilities.length),
        capabilitiesMd(role.capabilities.filter(isPrivileged)),
      ]),
  );
  return out;
}

/** What the caller may not list, as a paragraph and a list (nothing when the review is whole). */
function partialMd(r: Review): string {
  if (r.partial.length === 0) return "";
  return (
    mdParagraph(
      `${mdBold("Partial:")} the caller may not list everything; what it cannot see is not shown:`,
    ) + mdList(r.partial.map(mdText))
  );
}

/**
 * What an identity holds under a group (`what-can --markdown`), each binding once where it is bound: a heading with
 * the identity's marks, a table of where each binding reaches and through which role, then each role once with its
 * capabilities (privileged ones in bold). The text's words (./format `whatCanText`), as Markdown.
 */
export function whatCanMarkdown(identity: string, bindings: readonly ReviewedBinding[], r: Review): string {
  const names = namesOf(r);
  const i = r.identities.find((x) => x.uid === identity);
  const marked = i === undefined ? [] : marks(i);
  let out =
    mdHeading(3, `What ${mdText(names.identity(identity))} holds under ${mdText(names.group(r.group.uid))}`) +
    (marked.length === 0 ? "" : mdParagraph(marked.map(mdText).join(", "))) +
    partialMd(r);
  if (bindings.length === 0) return out + mdParagraph("Nothing.");
  const listed = new Set(r.groups.map((g) => g.uid));
  out += mdTable(
    ["where", "role"],
    bindings.map((b) => [mdText(reachWords(b, r, listed, names)), mdText(names.role(b.role))]),
  );
  const readable = new Map(r.roles.map((role) => [role.uid, role]));
  const used = [...new Set(bindings.map((b) => b.role))]
    .map((uid) => ({ uid, name: names.rawName("role", uid) }))
    .sort(byName);
  return (
    out +
    mdTable(
      ["role", "capabilities"],
      used.map(({ uid }) => {
        const role = readable.get(uid);
        return [
          mdText(names.role(uid)),
          role === undefined ? "not visible to the caller" : capabilitiesMd(role.capabilities) || "none",
        ];
      }),
    )
  );
}

/**
 * Who holds a capability on a group (`who-can --markdown`): one row per identity, group and binding, the identity's
 * marks beside it. The text's words (./format `grantsText`), as Markdown.
 */
export function whoCanMarkdown(capability: string, group: string, grants: Grant[], r: Review): string {
  const names = namesOf(r);
  const ids = new Map(r.identities.map((i) => [i.uid, i]));
  const out =
    mdHeading(3, `Who holds ${mdText(capabilityText(capability))} on ${mdText(names.group(group))}`) +
    partialMd(r);
  if (grants.length === 0) return out + mdParagraph("Nobody.");
  const rows: string[][] = [];
  for (const here of groupBy(grants, (g) => `${g.group}\u0000${g.identity}`).values()) {
    const { group: on, identity } = here[0]!;
    const marked = ids.has(identity) ? marks(ids.get(identity)!) : [];
    for (const [, b] of byBinding(here))
      rows.push([
        mdText(names.identity(identity)),
        marked.map((m) => (m === "privileged" ? mdBold(m) : mdText(m))).join(", "),
        mdText(names.group(on)),
        mdText(names.role(b.role)),
        b.inherited ? `inherited from ${mdText(names.group(b.boundOn))}` : "bound on this group",
      ]);
  }
  return out + mdTable(["identity", "marks", "on", "through", "bound"], rows);
}
