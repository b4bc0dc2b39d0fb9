/**
 * The report of what no stack manages: everything under a group (one listing, as the import walk makes it: one list
 * per kind in pages of 200, however many objects and states) against what the stacks' exported states manage.
 * Lists every object that none of them manages, every managed object the service no longer has, and the coverage of
 * each kind; the import document of exactly the unmanaged objects comes from the same builder as the walk's.
 *
 * A role binding counts as managed when a state holds it as a RoleBinding, or when it is in the scope of an
 * authoritative access resource of a state (a GroupAccess on its group, or on a group above it with the subtree
 * scope; an IdentityAccess of its identity): that resource's refresh shows it, and its `up` removes it if undeclared.
 * The group reported on is the scope, not an object under it (an organization is made by the service); its own
 * account association is on it, and counted.
 *
 * May import: ../../sdk (types), ../../provider/iam/access, ../kinds, ../states, ./bindings, ./document, ./walk.
 */
import type { PlatformClient } from "../../sdk";
import {
  buildDocument,
  keyOf,
  unrecoverableNotes,
  type Found,
  type ImportDocument,
  type Skipped,
} from "./document";
import { KINDS, LISTED_KINDS, type Kind, type ListedKind } from "../kinds";
import { inScope as accessInScope, type Scope } from "../../provider/iam/access";
import type { StateContents } from "../states";
import { withBindingsAs } from "./bindings";
import { bindingsContext, listGroup, type Listing, type WalkOptions } from "./walk";

/** An object under the group that no state manages. */
export interface Unmanaged {
  kind: Kind;
  type: string;
  uid: string;
  /** The object's own name, for the kinds that have one (a role binding and a group invite have none). */
  name?: string;
  /** The uid of the group it lives in. */
  group: string | undefined;
  /** A role binding's identity and role, by uid (its group is `group`). */
  identityUid?: string;
  roleUid?: string;
}

/** An object a state manages that the service no longer has. */
export interface Missing {
  type: string;
  uid: string;
  urn: string;
  /** The state file that manages it. */
  state: string;
}

export interface Coverage {
  managed: number;
  total: number;
}

export interface Report {
  group: { uid: string; name: string };
  states: string[];
  /** API calls the listing made. */
  calls: number;
  coverage: Record<ListedKind, Coverage>;
  unmanaged: Unmanaged[];
  missing: Missing[];
  /** What the listing found but leaves out (service principal identities), with the reason. */
  skipped: Skipped[];
}

export interface ReportResult {
  report: Report;
  /**
   * What a person recognises each unmanaged object by, for the text output (keyed by `keyOf`): its name and where it
   * lives, or for a binding who holds which role on which group. Not in the JSON, whose members are the objects'.
   */
  labels: ReadonlyMap<string, string>;
  /** The `pulumi import --file` document of exactly the unmanaged objects. */
  document: ImportDocument;
  /** The listing of the group (for the fingerprints of a state-first adoption, ./adoption). */
  listing: Listing;
}

/** Whether a uid is in the tree under `groupUid` (the group itself excluded). */
const under = (groupUid: string, uid: string) => uid.startsWith(`${groupUid}/`);

function covers(scope: Scope, binding: Found): boolean {
  return accessInScope(scope, {
    groupUid: binding.group ?? "",
    identityUid: binding.binding?.identity.uid ?? "",
    roleUid: binding.binding?.role.uid ?? "",
  });
}

/** Compares what is under `groupUid` with what the states manage. */
export async function reportUnmanaged(
  client: PlatformClient,
  groupUid: string,
  states: { file: string; contents: StateContents }[],
  options: WalkOptions = {},
): Promise<ReportResult> {
  const listing = await listGroup(client, groupUid, options);
  const managed = states.flatMap((s) => s.contents.managed);
  const access = states.flatMap((s) => s.contents.access);
  const managedKeys = new Set(managed.map(keyOf));

  const objects = listing.found.filter((f) => !(f.kind === "group" && f.uid === groupUid));
  const isManaged = (f: Found): boolean =>
    managedKeys.has(keyOf(f)) || (f.kind === "roleBinding" && access.some((a) => covers(a.scope, f)));
  const unmanagedFound = objects.filter((f) => !isManaged(f));

  const groupNames = new Map<string, string>([[listing.top.uid, listing.top.name]]);
  for (const f of listing.found) if (f.kind === "group") groupNames.set(f.uid, f.outputName ?? f.base);
  const groupName = (uid: string | undefined) => (uid === undefined ? "" : (groupNames.get(uid) ?? uid));
  const describe = (f: Found): string =>
    f.binding !== undefined
      ? `${f.binding.identity.name || f.binding.identity.uid} holds ${f.binding.role.name || f.binding.role.uid} on ${groupName(f.group)}`
      : `${f.outputName ?? f.base}${f.group !== undefined && f.group !== f.uid ? ` in ${groupName(f.group)}` : ""}`;

  // Gone: managed objects in scope the listing does not have (service principals it leaves out still exist).
  const existing = new Set([
    ...listing.found.map(keyOf),
    ...listing.skipped.map((s) => keyOf({ kind: "identity", uid: s.subject })),
  ]);
  const inScope = (uid: string) => uid === groupUid || under(groupUid, uid);
  const missing: Missing[] = managed
    .filter((m) => inScope(m.uid) && !existing.has(keyOf(m)))
    .map((m) => ({ type: m.token, uid: m.uid, urn: m.urn, state: m.state }));
  for (const a of access) {
    const [kind, uid]: [Kind, string] =
      a.scope.kind === "group" ? ["group", a.scope.groupUid] : ["identity", a.scope.identityUid];
    // An access resource whose group or identity is gone holds nothing.
    if (inScope(uid) && !existing.has(keyOf({ kind, uid })))
      missing.push({ type: a.token, uid, urn: a.urn, state: a.state });
  }

  const coverage = Object.fromEntries(
    LISTED_KINDS.map((kind) => {
      const total = objects.filter((f) => f.kind === kind).length;
      const unmanaged = unmanagedFound.filter((f) => f.kind === kind).length;
      return [kind, { managed: total - unmanaged, total }];
    }),
  ) as Record<ListedKind, Coverage>;

  const report: Report = {
    group: { uid: listing.top.uid, name: listing.top.name },
    states: states.map((s) => s.file),
    calls: listing.calls,
    coverage,
    unmanaged: unmanagedFound.map((f) => ({
      kind: f.kind,
      type: KINDS[f.kind].token,
      uid: f.uid,
      ...(f.outputName !== undefined ? { name: f.outputName } : {}),
      group: f.group,
      ...(f.binding !== undefined
        ? { identityUid: f.binding.identity.uid, roleUid: f.binding.role.uid }
        : {}),
    })),
    missing,
    skipped: listing.skipped,
  };
  const { found: taken, warnings } = withBindingsAs(
    options.bindings ?? "role-binding",
    unmanagedFound,
    bindingsContext(listing),
  );
  const document = buildDocument(taken, {
    source: `api ${groupUid}, what ${states.length === 1 ? "this state does" : `these ${states.length} states do`} not manage`,
    notes: (names) => unrecoverableNotes(taken, names),
    skipped: listing.skipped,
    warnings,
  });
  const labels = new Map(unmanagedFound.map((f) => [keyOf(f), describe(f)]));
  return { report, document, labels, listing };
}

/** The report as a person reads it; `labels` (reportUnmanaged's) name each unmanaged object. */
export function reportText(report: Report, labels: ReadonlyMap<string, string> = new Map()): string {
  const lines: string[] = [];
  const states = report.states.length === 1 ? "1 state" : `${report.states.length} states`;
  lines.push(
    `${report.group.name} (${report.group.uid}) against ${states}: ` +
      `${report.unmanaged.length} unmanaged, ${report.missing.length} managed but gone`,
  );
  lines.push("", "coverage (managed / total):");
  const plural = (kind: Kind) => KINDS[kind].label.replace(/y$/, "ie") + "s";
  const width = Math.max(...LISTED_KINDS.map((k) => plural(k).length));
  let managed = 0;
  let total = 0;
  for (const kind of LISTED_KINDS) {
    const c = report.coverage[kind];
    managed += c.managed;
    total += c.total;
    lines.push(`  ${plural(kind).padEnd(width)}  ${String(c.managed).padStart(5)} / ${c.total}`);
  }
  lines.push(`  ${"all".padEnd(width)}  ${String(managed).padStart(5)} / ${total}`);
  if (report.unmanaged.length > 0) {
    lines.push("", `not managed by any stack (${report.unmanaged.length}):`);
    for (const u of report.unmanaged) {
      const label = labels.get(keyOf(u)) ?? u.name ?? "";
      lines.push(`  ${KINDS[u.kind].label}  ${u.uid}  ${label}`.trimEnd());
    }
  }
  if (report.missing.length > 0) {
    lines.push("", `managed by a stack but gone from the service (${report.missing.length}):`);
    for (const m of report.missing) lines.push(`  ${m.type}  ${m.uid}  ${m.urn} (${m.state})`);
  }
  if (report.skipped.length > 0) {
    lines.push("", `left out (${report.skipped.length}):`);
    for (const s of report.skipped) lines.push(`  ${s.subject}: ${s.reason}`);
  }
  return `${lines.join("\n")}\n`;
}
