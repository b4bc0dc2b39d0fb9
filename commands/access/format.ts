/**
 * The access tools' output as text (for a person at a terminal), CSV (one row per capability held and binding that
 * grants it, for a spreadsheet) and JSON (the review as it is). The HTML page is ./html.
 *
 * May import: ../states (resource names), ./review.
 */
import { resourceName } from "../states";
import type { Grant, Review, ReviewedIdentity } from "./review";

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

/** "name (uid)" of an identity, or the uid alone. */
function who(identities: Map<string, ReviewedIdentity>, uid: string): string {
  const i = identities.get(uid);
  return i !== undefined && i.name !== uid ? `${i.name} (${uid})` : uid;
}

/** The marks of an identity, in words. */
export function marks(i: ReviewedIdentity): string[] {
  const out: string[] = [i.kind];
  if (i.privileged) out.push("privileged");
  if (i.unused === true) out.push(i.lastSeenTime === undefined ? "unused (never seen)" : "unused");
  if (i.unmanaged === true) out.push("unmanaged");
  return out;
}

/** The bindings of a set of grants, each with the capabilities it grants: "role on group". */
function byBinding(grants: Grant[]) {
  const bindings = new Map<
    string,
    {
      roleName: string;
      role: string;
      boundOn: string;
      boundOnName: string;
      inherited: boolean;
      caps: string[];
    }
  >();
  for (const g of grants)
    for (const t of g.through) {
      const entry = bindings.get(t.binding) ?? {
        roleName: t.roleName,
        role: t.role,
        boundOn: t.boundOn,
        boundOnName: t.boundOnName,
        inherited: t.inherited,
        caps: [],
      };
      entry.caps.push(g.privileged ? `${g.capability}*` : g.capability);
      bindings.set(t.binding, entry);
    }
  return [...bindings.entries()];
}

const LEGEND =
  "Legend: a binding on a group grants its role's capabilities there and on every group below it; " +
  '"inherited from G" means the binding is on the ancestor G. * marks a privileged capability (one with ' +
  "which access can be granted). person: a root-level user; workload: an identity under a group.";

function header(r: Review): string[] {
  const lines = [
    `access review of ${r.group.name} (${r.group.uid}): ${r.groups.length} groups, ` +
      `${r.identities.length} identities with access, ${r.grants.length} grants (${r.calls} API calls)`,
    r.states.length > 0
      ? `states: ${r.states.join(", ")}`
      : "states: none given, so unmanaged identities are not marked (--backend URL, --stacks PATTERN or --state FILE)",
    `unused: no token exchange in ${r.unusedAfterDays} days (or never)`,
  ];
  if (r.partial.length > 0) {
    lines.push("PARTIAL: the caller may not list everything; what it cannot see is not shown:");
    for (const p of r.partial) lines.push(`  - ${p}`);
  }
  lines.push(LEGEND);
  return lines;
}

/** Which stacks manage a binding, for its line: " [managed by stack: resource]", " [no stack]", or nothing. */
function managedText(i: ReviewedIdentity | undefined, binding: string): string {
  const by = i?.managedBy?.bindings.find((b) => b.binding === binding)?.by;
  if (by === undefined) return "";
  if (by.length === 0) return " [no stack]";
  return ` [managed by ${by.map((m) => `${m.stack}: ${resourceName(m.urn)}`).join(", ")}]`;
}

/** The review as a person reads it: the identities with their marks, then the tree with who holds what where. */
export function reviewText(r: Review): string {
  const ids = new Map(r.identities.map((i) => [i.uid, i]));
  const lines = header(r);
  lines.push("", `identities (${r.identities.length}):`);
  for (const i of r.identities)
    lines.push(
      `  ${who(ids, i.uid)}: ${marks(i).join(", ")}` +
        (i.kind === "workload" ? `; last seen ${i.lastSeenTime ?? "never"}` : ""),
    );
  lines.push("", "by group:");
  const byGroup = groupBy(r.grants, (x) => x.group);
  for (const g of r.groups) {
    const pad = "  ".repeat(g.depth + 1);
    lines.push(`${pad}${g.name} (${g.uid})`);
    const holders = groupBy(byGroup.get(g.uid) ?? [], (x) => x.identity);
    if (holders.size === 0) lines.push(`${pad}  nobody`);
    for (const [h, mine] of holders) {
      lines.push(`${pad}  ${who(ids, h)} [${marks(ids.get(h)!).join(", ")}]`);
      for (const [uid, b] of byBinding(mine)) {
        const from = b.inherited ? `inherited from ${b.boundOnName}` : "bound here";
        lines.push(`${pad}    ${b.roleName} (${from})${managedText(ids.get(h), uid)}: ${b.caps.join(" ")}`);
      }
    }
  }
  return `${lines.join("\n")}\n`;
}

/** The grants as a person reads them, one line per identity and binding (who-can, what-can). */
export function grantsText(title: string, grants: Grant[], r: Review): string {
  const ids = new Map(r.identities.map((i) => [i.uid, i]));
  const groupName = new Map(r.groups.map((g) => [g.uid, g.name]));
  const lines = [title];
  if (r.partial.length > 0) {
    lines.push("PARTIAL: the caller may not list everything; what it cannot see is not shown:");
    for (const p of r.partial) lines.push(`  - ${p}`);
  }
  if (grants.length === 0) lines.push("  nobody / nothing");
  for (const here of groupBy(grants, (g) => `${g.group}\u0000${g.identity}`).values()) {
    const { group, identity } = here[0]!;
    const i = ids.get(identity);
    lines.push(
      `  on ${groupName.get(group) ?? group} (${group}): ${who(ids, identity)}` +
        (i !== undefined ? ` [${marks(i).join(", ")}]` : ""),
    );
    for (const [uid, b] of byBinding(here)) {
      const from = b.inherited ? `inherited from ${b.boundOnName} (${b.boundOn})` : "bound on this group";
      lines.push(`    through binding ${uid}: role ${b.roleName}, ${from}: ${b.caps.join(" ")}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

const CSV_COLUMNS = [
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
] as const;

/** RFC 4180: quoted when it holds a comma, quote or line break; a leading = + - @ is defused for spreadsheets. */
function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One row per capability held and binding that grants it. */
export function grantsCsv(grants: Grant[], r: Review): string {
  const ids = new Map(r.identities.map((i) => [i.uid, i]));
  const groupName = new Map(r.groups.map((g) => [g.uid, g.name]));
  const flag = (v: boolean | null | undefined) => (v === null || v === undefined ? "" : String(v));
  const rows: string[][] = [[...CSV_COLUMNS]];
  for (const g of grants)
    for (const t of g.through) {
      const i = ids.get(g.identity);
      rows.push([
        g.group,
        groupName.get(g.group) ?? "",
        g.identity,
        i?.name ?? "",
        i?.kind ?? "",
        g.capability,
        String(g.privileged),
        t.role,
        t.roleName,
        t.boundOn,
        String(t.inherited),
        t.binding,
        flag(i?.unused),
        flag(i?.unmanaged),
      ]);
    }
  return rows.map((row) => row.map(csvField).join(",")).join("\r\n") + "\r\n";
}
