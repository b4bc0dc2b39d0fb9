/**
 * The report of who manages what: everything under a group (one listing, as the import walk makes it: one list per
 * kind in pages of 200, however many objects and states) against what the stacks' exported states manage. Names the
 * stack and resource that manage each object, every object that none of them manages, every managed object the
 * service no longer has, the coverage of each kind, the stacks (or their resources) that could not be read, and the
 * conflicts between resources (./conflicts); the import document of exactly the unmanaged objects comes from the same
 * builder as the walk's.
 *
 * A role binding counts as managed when a state holds it as a RoleBinding, or when it is in the scope of an
 * authoritative access resource of a state (a GroupAccess on its group, or on a group above it with the subtree
 * scope; an IdentityAccess of its identity): that resource's refresh shows it, and its `up` removes it if undeclared.
 * The group reported on is the scope, not an object under it (an organization is made by the service); its own
 * account association is on it, and counted.
 *
 * Objects are named as every output names them (../../sdk/words); the uid stands beside each, as the import id.
 */
import type { PlatformClient } from "../../sdk";
import { Names, nameText, pluralOf } from "../../sdk/words";
import {
  buildDocument,
  keyOf,
  unrecoverableNotes,
  type Found,
  type ImportDocument,
  type Skipped,
} from "./document";
import { IMPORT_KINDS, LISTED_KINDS, type ImportKind, type ListedKind } from "../kinds";
import type { Binding, Scope } from "../../provider/iam/access";
import { Managers, resourceName, type Manager, type StateContents } from "../states";
import type { UnreadableStack } from "../stacks";
import { withBindingsAs } from "./bindings";
import { findConflicts, type Conflict } from "./conflicts";
import { bindingsContext, listGroup, type Listing, type WalkOptions } from "./walk";
import { isBelow } from "../../sdk/uidp";

/** An object under the group that no state manages. */
export interface Unmanaged {
  kind: ImportKind;
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

/** An object under the group that some resource manages, with every resource that does. */
export interface ManagedObject extends Omit<Unmanaged, "kind"> {
  kind: ListedKind;
  managedBy: Manager[];
}

/** What could not be read: a stack the engine could not export, or a resource of a stack whose part a secret hides. */
export interface Unreadable {
  stack: string;
  urn?: string;
  reason: string;
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
  /** The backend whose stacks were read (a password masked); absent when only files were given. */
  backend?: string;
  /** The states read: stacks by name, files as given. */
  states: string[];
  unreadable: Unreadable[];
  /** API calls the listing made. */
  calls: number;
  coverage: Record<ListedKind, Coverage>;
  conflicts: Conflict[];
  unmanaged: Unmanaged[];
  missing: Missing[];
  managed: ManagedObject[];
  /** What the listing found but leaves out (service principal identities), with the reason. */
  skipped: Skipped[];
}

export interface ReportResult {
  report: Report;
  /**
   * What a person recognises each object by, for the text output (keyed by `keyOf`): its name and where it lives,
   * or for a binding who holds which role on which group. Not in the JSON, whose members are the objects'.
   */
  labels: ReadonlyMap<string, string>;
  /** The `pulumi import --file` document of exactly the unmanaged objects. */
  document: ImportDocument;
  /** The listing of the group (for the fingerprints of a state-first adoption, ./adoption). */
  listing: Listing;
}

/** Whether a uid is in the tree under `groupUid` (the group itself excluded). */
const under = (groupUid: string, uid: string) => isBelow(uid, groupUid);

/** A listed role binding's key, from what the service returned. */
function bindingOf(f: Found): Binding | undefined {
  return f.binding === undefined
    ? undefined
    : { groupUid: f.group ?? "", identityUid: f.binding.identity.uid, roleUid: f.binding.role.uid };
}

/** The JSON members of a listed object (a role binding carries its identity's and role's uids, not a name). */
function objectOf(f: Found): Unmanaged {
  return {
    kind: f.kind,
    type: IMPORT_KINDS[f.kind].token,
    uid: f.uid,
    ...(f.outputName !== undefined ? { name: f.outputName } : {}),
    group: f.group,
    ...(f.binding !== undefined ? { identityUid: f.binding.identity.uid, roleUid: f.binding.role.uid } : {}),
  };
}

export interface ReportOptions extends WalkOptions {
  /** The backend read, as shown. */
  backend?: string;
  /** Stacks the engine could not export. */
  unreadable?: readonly UnreadableStack[];
}

/** Compares what is under `groupUid` with what the states manage. */
export async function reportUnmanaged(
  client: PlatformClient,
  groupUid: string,
  states: { file: string; contents: StateContents }[],
  options: ReportOptions = {},
): Promise<ReportResult> {
  const listing = await listGroup(client, groupUid, options);
  const managers = new Managers(states);
  const managed = states.flatMap((s) => s.contents.managed);
  const access = states.flatMap((s) => s.contents.access);

  const objects = listing.found.filter((f) => !(f.kind === "group" && f.uid === groupUid));
  const managedBy = new Map<string, Manager[]>();
  for (const f of objects) {
    if (f.kind === "groupAccess" || f.kind === "identityAccess") continue;
    managedBy.set(keyOf(f), managers.managersOf(f.kind, f.uid, bindingOf(f)));
  }
  const isManaged = (f: Found): boolean => (managedBy.get(keyOf(f)) ?? []).length > 0;
  const unmanagedFound = objects.filter((f) => !isManaged(f));

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
    const [kind, uid]: [ImportKind, string] =
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

  const live = objects.flatMap((f) => {
    const binding = bindingOf(f);
    return f.kind === "groupAccess" || f.kind === "identityAccess"
      ? []
      : [{ kind: f.kind, uid: f.uid, ...(binding ? { binding } : {}) }];
  });
  const report: Report = {
    group: { uid: listing.top.uid, name: listing.top.name },
    ...(options.backend !== undefined ? { backend: options.backend } : {}),
    states: states.map((s) => s.file),
    unreadable: [
      ...(options.unreadable ?? []),
      ...states.flatMap((s) =>
        s.contents.unreadable.map(({ state, urn, reason }) => ({ stack: state, urn, reason })),
      ),
    ],
    calls: listing.calls,
    coverage,
    conflicts: findConflicts(states, managers, live, groupUid),
    unmanaged: unmanagedFound.map(objectOf),
    missing,
    managed: objects.filter(isManaged).map((f) => ({
      ...objectOf(f),
      kind: f.kind as ListedKind,
      managedBy: managedBy.get(keyOf(f))!,
    })),
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
  const labels = labelsOf(listing, objects);
  return { report, document, labels, listing };
}

const isNamedKind = (kind: ImportKind): kind is "group" | "identity" | "role" =>
  kind === "group" || kind === "identity" || kind === "role";

/** The names of what the listing found: its groups, identities and roles, and those its bindings carry. */
function namesOf(listing: Listing): Names {
  const names = new Names().add("group", listing.top.uid, listing.top.name);
  for (const f of listing.found) {
    if (isNamedKind(f.kind)) names.add(f.kind, f.uid, f.outputName ?? f.base);
    if (f.binding !== undefined) {
      names.add("identity", f.binding.identity.uid, f.binding.identity.name);
      names.add("role", f.binding.role.uid, f.binding.role.name);
    }
  }
  return names;
}

/**
 * What a person recognises each object by, keyed by `keyOf`: its name and where it lives ("ci in folder platform"),
 * or for a role binding who holds which role where, each object named as every output names it.
 */
export function labelsOf(listing: Listing, objects: readonly Found[]): Map<string, string> {
  const names = namesOf(listing);
  const describe = (f: Found): string => {
    if (f.binding !== undefined)
      return `${names.identity(f.binding.identity.uid)} holds ${names.role(f.binding.role.uid)} on ${names.group(f.group ?? "")}`;
    const own = isNamedKind(f.kind) ? names.name(f.kind, f.uid) : nameText(f.outputName ?? f.base);
    return `${own}${f.group !== undefined && f.group !== f.uid ? ` in ${names.group(f.group)}` : ""}`;
  };
  return new Map(objects.map((f) => [keyOf(f), describe(f)]));
}

/** `platform:iam:GroupAccess` -> `GroupAccess`: a type token as a person reads it. */
const typeText = (token: string): string => token.slice(token.lastIndexOf(":") + 1);

/** A resource as a person reads it: its stack, its name, its type. */
function resourceText(m: Manager): string {
  return `${m.stack}: ${resourceName(m.urn)} (${typeText(m.type)})`;
}

/** One conflict on one line: what is fought over, by which resources, and what the next up does. */
function conflictText(c: Conflict, label: (kind: ImportKind, uid: string) => string): string {
  if (c.conflict === "duplicate")
    return (
      `${IMPORT_KINDS[c.kind].label} ${label(c.kind, c.uid)}: held by ${c.resources.length} resources, ` +
      `${c.resources.map(resourceText).join(", ")}: each up of one undoes the other's changes`
    );
  const scopeText = (m: Manager & { scope: Scope }) => {
    const scope = m.scope;
    const what =
      scope.kind === "identity"
        ? `every binding of identity ${label("identity", scope.identityUid)}`
        : `the bindings on group ${label("group", scope.groupUid)}${scope.subtree ? " and every group under it" : ""}`;
    return `${resourceText(m)}, which holds ${what}`;
  };
  if (c.conflict === "binding-in-scope") {
    const [declared, ...holders] = c.resources;
    return (
      `role binding ${label("roleBinding", c.uid)}: declared by ${resourceText(declared)}, and in the scope of ` +
      `${holders.map(scopeText).join("; and of ")}: its next up deletes the binding unless it declares it, and ` +
      `the other's next up makes it again`
    );
  }
  return (
    `overlapping scopes: ${scopeText(c.resources[0])}; and ${scopeText(c.resources[1])}: each up removes the ` +
    `bindings only the other declares`
  );
}

/** The report as a person reads it; `labels` (reportUnmanaged's) name each object. */
export function reportText(report: Report, labels: ReadonlyMap<string, string> = new Map()): string {
  const lines: string[] = [];
  const label = (kind: ImportKind, uid: string) => {
    const known = labels.get(keyOf({ kind, uid }));
    return known === undefined ? uid : `${known} (${uid})`;
  };
  const states =
    report.backend !== undefined
      ? `${report.states.length} ${report.states.length === 1 ? "stack" : "stacks"} of ${report.backend}`
      : report.states.length === 1
        ? "1 state"
        : `${report.states.length} states`;
  lines.push(
    `${new Names().add("group", report.group.uid, report.group.name).group(report.group.uid)} against ${states}: ` +
      `${report.unmanaged.length} unmanaged, ${report.missing.length} managed but gone, ` +
      `${report.conflicts.length} ${report.conflicts.length === 1 ? "conflict" : "conflicts"}` +
      (report.unreadable.length > 0 ? `, ${report.unreadable.length} not read` : ""),
  );
  if (report.conflicts.length > 0) {
    lines.push("", `conflicts (${report.conflicts.length}):`);
    for (const c of report.conflicts) lines.push(`  ${conflictText(c, label)}`);
  }
  if (report.unreadable.length > 0) {
    lines.push(
      "",
      `not read (${report.unreadable.length}): what they manage may be reported unmanaged below`,
    );
    for (const u of report.unreadable)
      lines.push(`  ${u.stack}${u.urn !== undefined ? ` ${resourceName(u.urn)}` : ""}: ${u.reason}`);
  }
  lines.push("", "coverage (managed / total):");
  const plural = (kind: ImportKind) => pluralOf(IMPORT_KINDS[kind].label);
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
      const text = labels.get(keyOf(u)) ?? (u.name === undefined ? "" : nameText(u.name));
      lines.push(`  ${IMPORT_KINDS[u.kind].label}  ${u.uid}  ${text}`.trimEnd());
    }
  }
  if (report.missing.length > 0) {
    lines.push("", `managed by a stack but gone from the service (${report.missing.length}):`);
    for (const m of report.missing) lines.push(`  ${m.type}  ${m.uid}  ${m.urn} (${m.state})`);
  }
  const byStack = new Map<string, string[]>(report.states.map((s) => [s, []]));
  for (const o of report.managed)
    for (const m of o.managedBy) {
      const text = labels.get(keyOf(o)) ?? (o.name === undefined ? "" : nameText(o.name));
      byStack
        .get(m.stack)
        ?.push(
          `    ${IMPORT_KINDS[o.kind].label}  ${o.uid}  ${text}  [${resourceName(m.urn)}, ${typeText(m.type)}]`,
        );
    }
  if (report.managed.length > 0) {
    lines.push("", `managed, by stack (${report.managed.length} objects):`);
    for (const [stack, held] of byStack) {
      if (held.length === 0) continue;
      lines.push(`  ${stack} (${held.length}):`, ...held);
    }
  }
  if (report.skipped.length > 0) {
    lines.push("", `left out (${report.skipped.length}):`);
    for (const s of report.skipped) lines.push(`  ${s.subject}: ${s.reason}`);
  }
  return `${lines.join("\n")}\n`;
}
