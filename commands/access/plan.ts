/**
 * The access an update changes, by name: from a plan (each resource of a stack that holds or grants access, with
 * its operation, its inputs before and after, and the resources each input comes from) and the organization as read
 * before the update, where known, which capabilities each identity gains and loses on each group, through which
 * role and binding. Pure: the policy pack's `access-plan` rule (from the resources the engine gives an analyzer) and
 * `platform-access plan` (from `pulumi preview --json` and the organization read through the API) both call it, so
 * they say the same thing. Access itself is the shared model's: `accessDiff` between the model before and the model
 * after (../../sdk/access-model.ts), where a change can reach (./difference); this module only builds the two sets
 * of facts and names what it finds.
 *
 * An object the plan creates has no uid yet: it gets a stand-in position under its parent's (`<parent>/~<n>`), so
 * "below" holds for it. A value not known until the update (UNKNOWN: a uid the service has not assigned) is tied to
 * the resource of the plan that produces it through the input's property dependencies: the one resource of the
 * right kind among them. What cannot be tied or known is said in `notes`, never guessed.
 */
import {
  byWholeRoles,
  changedRoles,
  collapseInherited,
  grantsOn,
  isAtOrBelow,
  underAny,
  type BindingFacts,
  type RoleFacts,
} from "../../sdk/access-model";
import { accessDifference } from "./difference";
import { parentOf } from "../../sdk/uidp";

/** A value the plan does not know until the update runs (a uid the service has not assigned yet). */
export const UNKNOWN: unique symbol = Symbol("known after the update");

export const PLAN_KINDS = [
  "Group",
  "Identity",
  "Role",
  "RoleBinding",
  "GroupAccess",
  "IdentityAccess",
] as const;
export type PlanKind = (typeof PLAN_KINDS)[number];

export function isPlanKind(kind: string | undefined): kind is PlanKind {
  return (PLAN_KINDS as readonly string[]).includes(kind ?? "");
}

export type PlanOperation = "create" | "update" | "replace" | "delete" | "same";

type Props = Readonly<Record<string, unknown>>;

/** One resource of the plan. */
export interface PlannedResource {
  /** Its URN: what property dependencies name. */
  key: string;
  /** The program's name for it. */
  name: string;
  kind: PlanKind;
  op: PlanOperation;
  /** The object's uid before the update (update, replace, delete, same), when known. */
  uid?: string | undefined;
  /** The inputs after the update (absent for a delete); UNKNOWN where not known yet. */
  news?: Props | undefined;
  /** What the stack recorded before the update (inputs and outputs), when known. */
  olds?: Props | undefined;
  /** The resources (keys) each input's value comes from. */
  dependencies?: ReadonlyMap<string, readonly string[]> | undefined;
}

/** The organization as read before the update: what the reader may list. */
export interface Organization {
  /** Read from the service: its bindings are the truth (else only what the plan records is known). */
  listed: boolean;
  groups: ReadonlyArray<{ uid: string; name?: string | undefined }>;
  identities: ReadonlyArray<{ uid: string; name?: string | undefined }>;
  roles: readonly RoleFacts[];
  bindings: ReadonlyArray<BindingFacts & { identityName?: string | undefined }>;
}

export const NO_ORGANIZATION: Organization = {
  listed: false,
  groups: [],
  identities: [],
  roles: [],
  bindings: [],
};

export type ObjectKind = "identity" | "group" | "role" | "binding";

/** An object a summary names (with its kind, ../../sdk/words): by its name, or by its uid where no name is known. */
export interface Named {
  kind: ObjectKind;
  /** The model's uid: the real one, or a stand-in (`…/~<n>`) for an object the plan creates. */
  uid: string;
  name: string | undefined;
  /** Made by this update. */
  isNew: boolean;
  /** Deleted by this update. */
  isGone: boolean;
  /** A role this update edits (its capabilities change). */
  isEdited?: boolean;
  /**
   * What a role this update makes or edits holds after it, sorted: the reader cannot know it by the role's name, so
   * a summary says it (once) where it names the role.
   */
  holds?: string[];
  /** The plan's resource that makes or holds it. */
  resource?: { key: string; name: string; kind: PlanKind } | undefined;
}

/** One identity's gains and losses on a group, and on the groups under it that change the same way. */
export interface PlanChange {
  identity: Named;
  group: Named;
  /** The groups under `group` that inherit the same change. */
  alsoUnder: Named[];
  gained: string[];
  lost: string[];
  /** The roles, and the bindings of the plan, granting the gains after the update or the losses before it. */
  roles: Named[];
  bindings: Named[];
  /**
   * The roles gained or lost whole (every capability they grant changes hands: sdk/access-model `byWholeRoles`),
   * each with its capabilities, said by name; `rest` is what no such role covers, said capability by capability.
   */
  wholeRoles: { change: "gained" | "lost"; role: Named; capabilities: string[] }[];
  rest: { gained: string[]; lost: string[] };
}

/** A binding the plan creates, as its resource will make it. */
export interface PlannedBinding {
  resource: { key: string; name: string; kind: PlanKind };
  /** The entry of an access set (`bindings[i]`), or "" for a RoleBinding. */
  at: string;
  identity: Named | undefined;
  role: Named | undefined;
  group: Named | undefined;
  /** Some of its references were unknown at preview (no uid yet) and are named through the plan. */
  hadUnknown: boolean;
}

/** Something the plan cannot tell: about a resource of the plan (named by the renderer), in our own words. */
export interface PlanNote {
  resource: { key: string; name: string; kind: PlanKind };
  says: string;
}

export interface AccessPlan {
  changes: PlanChange[];
  created: PlannedBinding[];
  notes: PlanNote[];
}

// ---------------------------------------------------------------------------------------------------------------
// Facts: what the model is built from, with a name for every object.

interface Facts {
  groups: Map<string, Named>;
  identities: Map<string, Named>;
  roles: Map<string, RoleFacts>;
  bindings: Map<string, BindingFacts>;
}

const cloneFacts = (f: Facts): Facts => ({
  groups: new Map(f.groups),
  identities: new Map(f.identities),
  roles: new Map(f.roles),
  bindings: new Map(f.bindings),
});

function namedObject(kind: Exclude<ObjectKind, "binding">, uid: string, name: string | undefined): Named {
  return { kind, uid, name, isNew: false, isGone: false };
}
const groupNamed = (uid: string, name: string | undefined) => namedObject("group", uid, name);
const identityNamed = (uid: string, name: string | undefined) => namedObject("identity", uid, name);
const roleNamed = (uid: string, name: string | undefined) => namedObject("role", uid, name);

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((v) => typeof v === "string") ? (value as string[]) : undefined;

/** A plan being read: its resources by key, and where each object of it is before and after the update. */
class PlanReader {
  readonly byKey = new Map<string, PlannedResource>();
  readonly notes: PlanNote[] = [];
  private readonly after = new Map<string, string | undefined>();
  private standIns = 0;

  constructor(readonly plan: readonly PlannedResource[]) {
    for (const resource of plan) this.byKey.set(resource.key, resource);
  }

  note(resource: PlannedResource, says: string): void {
    if (!this.notes.some((n) => n.resource.key === resource.key && n.says === says))
      this.notes.push({ resource: planResource(resource), says });
  }

  /** A fresh stand-in segment, unique in this plan. */
  nextStandIn(mark: string): string {
    return `~${mark}${++this.standIns}`;
  }

  /** The resource of the plan an UNKNOWN input comes from: the one of `kinds` among its dependencies. */
  producer(
    resource: PlannedResource,
    field: string,
    kinds: readonly PlanKind[],
  ): PlannedResource | undefined {
    const candidates = (resource.dependencies?.get(field) ?? [])
      .map((key) => this.byKey.get(key))
      .filter((r): r is PlannedResource => r !== undefined && kinds.includes(r.kind));
    const unique = [...new Set(candidates)];
    return unique.length === 1 ? unique[0] : undefined;
  }

  /**
   * The uid (or stand-in) a reference names after the update: a known value as it is, an UNKNOWN one through the
   * resource producing it; undefined when absent or when it cannot be told.
   */
  reference(
    resource: PlannedResource,
    props: Props | undefined,
    field: string,
    kinds: readonly PlanKind[],
    value: unknown = props?.[field],
  ): { uid: string | undefined; unknown: boolean } {
    if (typeof value === "string") return { uid: value === "" ? undefined : value, unknown: false };
    if (value !== UNKNOWN) return { uid: undefined, unknown: false };
    const producer = this.producer(resource, field, kinds);
    return { uid: producer === undefined ? undefined : this.afterUid(producer), unknown: true };
  }

  /** Where a resource's object is after the update: its uid, a stand-in for a new one, undefined when gone. */
  afterUid(resource: PlannedResource, depth = 0): string | undefined {
    if (this.after.has(resource.key)) return this.after.get(resource.key);
    this.after.set(resource.key, undefined); // a cycle of references places nothing
    let uid: string | undefined;
    if (resource.op === "delete") uid = undefined;
    else if ((resource.op === "same" || resource.op === "update") && resource.uid !== undefined)
      uid = resource.uid;
    else if (depth < 64) uid = this.standIn(resource, depth);
    this.after.set(resource.key, uid);
    return uid;
  }

  private standIn(resource: PlannedResource, depth: number): string | undefined {
    const at = (parent: string | undefined, mark: string) =>
      parent === undefined ? this.nextStandIn(mark) : `${parent}/${this.nextStandIn(mark)}`;
    const news = resource.news;
    switch (resource.kind) {
      case "Group":
      case "Identity":
      case "Role": {
        const value = news?.parentUid;
        if (value === undefined || value === "") return at(undefined, "");
        const parent =
          value === UNKNOWN
            ? this.placed(this.producer(resource, "parentUid", ["Group"]), depth)
            : typeof value === "string"
              ? value
              : undefined;
        return parent === undefined ? undefined : at(parent, "");
      }
      case "RoleBinding": {
        const group = this.reference(resource, news, "groupUid", ["Group"]).uid;
        return group === undefined ? undefined : at(group, "b");
      }
      default:
        return this.nextStandIn(resource.kind);
    }
  }

  private placed(resource: PlannedResource | undefined, depth: number): string | undefined {
    return resource === undefined ? undefined : this.afterUid(resource, depth + 1);
  }
}

const planResource = (r: PlannedResource) => ({ key: r.key, name: r.name, kind: r.kind });

/** The facts before the update: the organization as read, and what the plan's existing objects recorded. */
function factsBefore(reader: PlanReader, live: Organization): Facts {
  const facts: Facts = { groups: new Map(), identities: new Map(), roles: new Map(), bindings: new Map() };
  for (const g of live.groups) facts.groups.set(g.uid, groupNamed(g.uid, g.name));
  for (const i of live.identities) facts.identities.set(i.uid, identityNamed(i.uid, i.name));
  for (const r of live.roles) facts.roles.set(r.uid, { ...r, capabilities: [...r.capabilities] });
  for (const b of live.bindings) {
    facts.bindings.set(b.uid, { uid: b.uid, group: b.group, identity: b.identity, role: b.role });
    if (b.identityName !== undefined && !facts.identities.has(b.identity))
      facts.identities.set(b.identity, identityNamed(b.identity, b.identityName));
  }
  for (const resource of reader.plan) {
    const uid = resource.uid;
    if (resource.op === "create" || uid === undefined) continue;
    const olds = resource.olds ?? (resource.op === "same" ? resource.news : undefined);
    const name = text(olds?.name);
    switch (resource.kind) {
      case "Group":
        if (!facts.groups.has(uid)) facts.groups.set(uid, groupNamed(uid, name));
        facts.groups.get(uid)!.resource = planResource(resource);
        break;
      case "Identity":
        if (!facts.identities.has(uid)) facts.identities.set(uid, identityNamed(uid, name));
        facts.identities.get(uid)!.resource = planResource(resource);
        break;
      case "Role": {
        if (facts.roles.has(uid)) break;
        const capabilities = strings(olds?.capabilities);
        if (capabilities !== undefined) facts.roles.set(uid, { uid, name, capabilities });
        break;
      }
      case "RoleBinding": {
        if (facts.bindings.has(uid)) break;
        const [group, identity, role] = ["groupUid", "identityUid", "roleUid"].map((f) => text(olds?.[f]));
        if (group !== undefined && identity !== undefined && role !== undefined)
          facts.bindings.set(uid, { uid, group, identity, role });
        break;
      }
      default: {
        // Without the organization as listed, the bindings an access set recorded stand for those in its scope.
        if (live.listed) break;
        entriesOf(resource, olds).forEach((entry, i) => {
          const binding = {
            uid: `${resource.key}#${i}`,
            group: entry.group,
            identity: entry.identity,
            role: entry.role,
          };
          if (typeof binding.group === "string" && typeof binding.identity === "string")
            if (typeof binding.role === "string") facts.bindings.set(binding.uid, binding as BindingFacts);
        });
      }
    }
  }
  return facts;
}

/** The entries an access set declares (each binding's group, identity and role as given: strings or UNKNOWN). */
function entriesOf(resource: PlannedResource, props: Props | undefined) {
  const list = props?.bindings;
  if (!Array.isArray(list)) return [];
  const own = resource.kind === "GroupAccess" ? props?.groupUid : props?.identityUid;
  return list
    .filter((e): e is Props => typeof e === "object" && e !== null)
    .map((entry) =>
      resource.kind === "GroupAccess"
        ? { group: entry.groupUid ?? own, identity: entry.identityUid, role: entry.roleUid, entry }
        : { group: entry.groupUid, identity: own, role: entry.roleUid, entry },
    );
}

/** Is the binding in the scope an access set governs? */
function inScope(resource: PlannedResource, props: Props | undefined, scopeUid: string, b: BindingFacts) {
  if (resource.kind === "IdentityAccess") return b.identity === scopeUid;
  return props?.scope === "subtree" ? isAtOrBelow(b.group, scopeUid) : b.group === scopeUid;
}

/** The facts after the update: the plan applied to the facts before. */
function factsAfter(reader: PlanReader, before: Facts, created: PlannedBinding[]): Facts {
  const after = cloneFacts(before);
  // Deleted and replaced objects first: a group takes what lives under it with it.
  const goneGroups = new Set<string>();
  for (const resource of reader.plan) {
    if (resource.op !== "delete" && resource.op !== "replace") continue;
    const uid = resource.uid;
    if (uid === undefined) continue;
    const mark = <T extends { isGone: boolean }>(m: Map<string, T>) => {
      const named = m.get(uid);
      if (named !== undefined) m.set(uid, { ...named, isGone: true });
    };
    if (resource.kind === "Group") {
      goneGroups.add(uid);
      mark(after.groups);
    } else if (resource.kind === "Identity") {
      mark(after.identities);
      for (const [key, b] of after.bindings) if (b.identity === uid) after.bindings.delete(key);
    } else if (resource.kind === "Role") {
      after.roles.delete(uid);
      for (const [key, b] of after.bindings) if (b.role === uid) after.bindings.delete(key);
    } else if (resource.kind === "RoleBinding") after.bindings.delete(uid);
    else if (resource.op === "delete" && resource.olds?.onDelete !== "keep") {
      const scope = text(
        resource.kind === "GroupAccess" ? resource.olds?.groupUid : resource.olds?.identityUid,
      );
      if (scope !== undefined)
        for (const [key, b] of after.bindings)
          if (inScope(resource, resource.olds, scope, b)) after.bindings.delete(key);
    }
  }
  if (goneGroups.size > 0) {
    for (const [uid, g] of after.groups)
      if (underAny(uid, goneGroups)) after.groups.set(uid, { ...g, isGone: true });
    for (const [key, b] of after.bindings) if (underAny(b.group, goneGroups)) after.bindings.delete(key);
    for (const [uid] of after.roles) {
      const group = parentOf(uid);
      if (group !== undefined && underAny(group, goneGroups)) after.roles.delete(uid);
    }
  }

  // Objects made or changed.
  for (const resource of reader.plan) {
    if (resource.op === "delete") continue;
    const uid = reader.afterUid(resource);
    const news = resource.news;
    const isNew = resource.op === "create" || resource.op === "replace";
    const name = news?.name === UNKNOWN ? undefined : text(news?.name);
    const label = <T extends Named>(named: T): T => ({ ...named, isNew, resource: planResource(resource) });
    switch (resource.kind) {
      case "Group":
        if (uid === undefined) reader.note(resource, "where it goes is not known until the update");
        else after.groups.set(uid, renamed(after.groups.get(uid), label(groupNamed(uid, name)), isNew));
        break;
      case "Identity":
        if (uid === undefined) reader.note(resource, "where it goes is not known until the update");
        else
          after.identities.set(
            uid,
            renamed(after.identities.get(uid), label(identityNamed(uid, name)), isNew),
          );
        break;
      case "Role": {
        if (uid === undefined) {
          reader.note(resource, "where it goes is not known until the update");
          break;
        }
        const capabilities = strings(news?.capabilities);
        if (capabilities === undefined) {
          reader.note(resource, "its capabilities are not known until the update");
          if (isNew) after.roles.set(uid, { uid, name, capabilities: [] });
          break;
        }
        if (!isNew && !before.roles.has(uid)) {
          reader.note(
            resource,
            "what it held before this update is not known here, so what its holders gain or lose through it is not shown",
          );
          before.roles.set(uid, { uid, name, capabilities });
        }
        after.roles.set(uid, { uid, name: name ?? after.roles.get(uid)?.name, capabilities });
        break;
      }
      case "RoleBinding": {
        if (!isNew) break;
        const made = plannedBinding(reader, resource, news, "", {
          group: news?.groupUid,
          identity: news?.identityUid,
          role: news?.roleUid,
        });
        created.push(made.line);
        if (made.binding !== undefined && uid !== undefined)
          after.bindings.set(uid, { ...made.binding, uid });
        break;
      }
      default:
        applyAccessSet(reader, resource, after, created);
    }
  }
  return after;
}

/** A binding the plan makes from its three references, each tied through the plan when unknown. */
function plannedBinding(
  reader: PlanReader,
  resource: PlannedResource,
  news: Props | undefined,
  at: string,
  refs: { group: unknown; identity: unknown; role: unknown },
  field = (name: string) => name,
): { binding: Omit<BindingFacts, "uid"> | undefined; line: PlannedBinding } {
  const group = reader.reference(resource, news, field("groupUid"), ["Group"], refs.group);
  const identity = reader.reference(resource, news, field("identityUid"), ["Identity"], refs.identity);
  const role = reader.reference(resource, news, field("roleUid"), ["Role"], refs.role);
  const hadUnknown = group.unknown || identity.unknown || role.unknown;
  const missing = [
    ["group", group],
    ["identity", identity],
    ["role", role],
  ].filter(([, ref]) => (ref as { uid: string | undefined }).uid === undefined);
  if (missing.length > 0)
    reader.note(
      resource,
      `${at === "" ? "" : `${at}: `}which ${missing.map(([what]) => what).join(", ")} it binds is not known until the update`,
    );
  const line: PlannedBinding = {
    resource: planResource(resource),
    at,
    hadUnknown,
    group: group.uid === undefined ? undefined : groupNamed(group.uid, undefined),
    identity: identity.uid === undefined ? undefined : identityNamed(identity.uid, undefined),
    role: role.uid === undefined ? undefined : roleNamed(role.uid, undefined),
  };
  if (group.uid === undefined || identity.uid === undefined || role.uid === undefined)
    return { binding: undefined, line };
  return { binding: { group: group.uid, identity: identity.uid, role: role.uid }, line };
}

/** An access set after the update: its scope holds exactly the bindings it declares. */
function applyAccessSet(
  reader: PlanReader,
  resource: PlannedResource,
  after: Facts,
  created: PlannedBinding[],
) {
  const news = resource.news;
  const scopeField = resource.kind === "GroupAccess" ? "groupUid" : "identityUid";
  const scope = reader.reference(resource, news, scopeField, [
    resource.kind === "GroupAccess" ? "Group" : "Identity",
  ]).uid;
  if (scope === undefined) {
    reader.note(
      resource,
      `which ${resource.kind === "GroupAccess" ? "group" : "identity"} it governs is not known until the update`,
    );
    return;
  }
  const entries = entriesOf(resource, news);
  if (!Array.isArray(news?.bindings) && news?.bindings !== undefined) {
    reader.note(resource, "its bindings are not known until the update");
    return;
  }
  const existing = [...after.bindings.values()].filter((b) => inScope(resource, news, scope, b));
  const keyOf = (b: Omit<BindingFacts, "uid">) => `${b.group}\u0000${b.identity}\u0000${b.role}`;
  const declared = new Map<string, Omit<BindingFacts, "uid">>();
  entries.forEach((entry, i) => {
    // Every entry shares the dependencies of `bindings`; the scope's own reference is tied through its field.
    const made = plannedBinding(
      reader,
      resource,
      news,
      `bindings[${i}]`,
      {
        group: resource.kind === "GroupAccess" && entry.entry.groupUid === undefined ? scope : entry.group,
        identity: resource.kind === "IdentityAccess" ? scope : entry.identity,
        role: entry.role,
      },
      () => "bindings",
    );
    if (made.binding !== undefined) declared.set(keyOf(made.binding), made.binding);
    const isNew = made.binding === undefined || !existing.some((b) => keyOf(b) === keyOf(made.binding!));
    if (isNew) created.push(made.line);
  });
  for (const b of existing) if (!declared.has(keyOf(b))) after.bindings.delete(b.uid);
  const have = new Set(existing.map(keyOf));
  for (const [key, b] of declared) {
    if (have.has(key)) continue;
    const uid = `${b.group}/${reader.nextStandIn("a")}`;
    after.bindings.set(uid, { ...b, uid });
  }
}

/** An existing object's name after an update (a rename), or the new object's. */
function renamed(existing: Named | undefined, updated: Named, isNew: boolean): Named {
  if (isNew || existing === undefined) return updated;
  return { ...existing, name: updated.name ?? existing.name, resource: updated.resource };
}

// ---------------------------------------------------------------------------------------------------------------
// The difference, grouped and named.

/** The access a plan changes, by name (see the module's comment). */
export function planAccess(
  plan: readonly PlannedResource[],
  live: Organization = NO_ORGANIZATION,
): AccessPlan {
  const reader = new PlanReader(plan);
  const before = factsBefore(reader, live);
  const created: PlannedBinding[] = [];
  const after = factsAfter(reader, before, created);
  const groupUids = new Set<string>();
  for (const facts of [before, after]) {
    for (const uid of facts.groups.keys()) groupUids.add(uid);
    for (const b of facts.bindings.values()) groupUids.add(b.group);
  }
  const state = (facts: Facts) => ({ roles: facts.roles.values(), bindings: facts.bindings.values() });
  const {
    changes: diff,
    before: beforeModel,
    after: afterModel,
  } = accessDifference(state(before), state(after), groupUids);

  const named = namer(before, after, reader);
  const changes = collapseInherited(diff).map((c): PlanChange => {
    const through = new Map<string, BindingFacts>();
    /** One side of the change: the bindings it comes through, and the roles it gains or loses whole. */
    const side = (model: typeof afterModel, other: typeof afterModel, capabilities: readonly string[]) => {
      const grants = grantsOn(model, c.identity, c.group);
      const kept = new Set(other.bindingsOf(c.identity).map((b) => b.uid));
      const roles = new Map<string, BindingFacts>();
      for (const cap of capabilities)
        for (const b of grants.get(cap) ?? []) {
          through.set(b.uid, b);
          roles.set(b.uid, b);
        }
      return byWholeRoles(
        capabilities,
        [...roles.values()].map((b) => ({
          uid: b.role,
          capabilities: [...model.roleCapabilities(b.role)].sort(),
          kept: kept.has(b.uid),
        })),
      );
    };
    const gains = side(afterModel, beforeModel, c.gained);
    const losses = side(beforeModel, afterModel, c.lost);
    const bindings = [...through.values()];
    return {
      identity: named.identity(c.identity),
      group: named.group(c.group),
      alsoUnder: c.under.map(named.group),
      gained: c.gained,
      lost: c.lost,
      roles: uniqueBy(
        bindings.map((b) => named.role(b.role)),
        (r) => r.uid,
      ),
      bindings: uniqueBy(
        bindings.map((b) => named.binding(b.uid)).filter((b): b is Named => b !== undefined),
        (b) => b.uid,
      ),
      wholeRoles: [
        ...gains.whole.map((r) => ({
          change: "gained" as const,
          role: named.role(r.uid),
          capabilities: r.capabilities,
        })),
        ...losses.whole.map((r) => ({
          change: "lost" as const,
          role: named.role(r.uid),
          capabilities: r.capabilities,
        })),
      ],
      rest: { gained: gains.rest, lost: losses.rest },
    };
  });
  return {
    changes,
    created: created.map((line) => ({
      ...line,
      identity: line.identity && named.identity(line.identity.uid),
      role: line.role && named.role(line.role.uid),
      group: line.group && named.group(line.group.uid),
    })),
    notes: reader.notes,
  };
}

function uniqueBy<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(key(item)) && seen.add(key(item)));
}

/** Names for the model's uids: after the update where the object is there, else before. */
function namer(before: Facts, after: Facts, reader: PlanReader) {
  const bindingResources = new Map<string, PlannedResource>();
  for (const resource of reader.plan) {
    const uid = resource.kind === "RoleBinding" ? (reader.afterUid(resource) ?? resource.uid) : undefined;
    if (uid !== undefined) bindingResources.set(uid, resource);
    if (resource.uid !== undefined && resource.kind === "RoleBinding")
      bindingResources.set(resource.uid, resource);
  }
  const roleNames = (uid: string) => after.roles.get(uid)?.name ?? before.roles.get(uid)?.name;
  const edited = changedRoles(before.roles.values(), after.roles.values());
  const roleResources = new Map<string, PlannedResource>();
  for (const resource of reader.plan) {
    const uid = resource.kind === "Role" ? reader.afterUid(resource) : undefined;
    if (uid !== undefined) roleResources.set(uid, resource);
  }
  return {
    identity: (uid: string) =>
      after.identities.get(uid) ?? before.identities.get(uid) ?? identityNamed(uid, undefined),
    group: (uid: string) => after.groups.get(uid) ?? before.groups.get(uid) ?? groupNamed(uid, undefined),
    role: (uid: string): Named => {
      const resource = roleResources.get(uid);
      const named = roleNamed(uid, roleNames(uid));
      if (resource === undefined) return named;
      const isNew = resource.op === "create" || resource.op === "replace";
      const holds = after.roles.get(uid)?.capabilities ?? [];
      const isEdited = !isNew && before.roles.has(uid) && edited.has(uid);
      return {
        ...named,
        isNew,
        ...(isEdited ? { isEdited } : {}),
        ...((isNew || isEdited) && holds.length > 0 ? { holds: [...new Set(holds)].sort() } : {}),
        resource: planResource(resource),
      };
    },
    binding: (uid: string): Named | undefined => {
      const resource = bindingResources.get(uid);
      if (resource === undefined) return undefined;
      return {
        kind: "binding",
        uid,
        name: undefined,
        isNew: resource.op === "create" || resource.op === "replace",
        isGone: resource.op === "delete",
        resource: planResource(resource),
      };
    },
  };
}
