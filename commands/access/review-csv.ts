/**
 * The access tools' CSV, for a spreadsheet: the review's and what-can's (one row per role binding, said once on the
 * group it is bound on), the expanded grants (one row per grant), and the changes since an earlier review (one row
 * per change). CSV keeps the names as they are, with the uid columns beside them for machines.
 */
import { isPrivileged } from "../../sdk/access-model";
import { identityKind, type NamedKind, type Names } from "../../sdk/words";
import type { ChangedAccess, ReviewChanges } from "./changes";
import { resourceName } from "../states";
import type { Grant, Review, ReviewedBinding } from "./review";
import { namesOf } from "./review-names";

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
