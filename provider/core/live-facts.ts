/**
 * The live facts the preview's access review answers from (./access-review): what is read, what the provider's own
 * writes have changed since, and the names of what the lines mention.
 *
 * What is read, and why no wider: for each organization a change touches (the root of every uid it names: the
 * group it creates under, the object it changes, the groups its bindings land on), that organization's groups,
 * roles and role bindings (`uidp.descendants_of`, pages of 200), and the built-in roles (`uidp.in_root`) when the
 * organization's list of roles does not already hold them (the emulator lists them with every list of roles). A
 * list without a scope would answer everything the caller sees in every organization it belongs to, on every
 * preview. Each organization is read once per provider process and profile, the first time a review needs it; the
 * engine runs every resource of one provider in one process, and a new process for each operation (a preview, then
 * `up`'s update).
 *
 * What the provider's own writes change: every create, update and delete it performs of an object that matters to
 * access (group, identity, role, role binding, and the bindings of GroupAccess and IdentityAccess), on either
 * front, is applied to the facts read so far and to those read later in the same process, so a review after it sees
 * it: `up` names the binding of a role that the same update has just created. The facts as read are kept beside:
 * the preflight judges the provider's own permissions from them alone, since a grant of the same update may not be
 * in effect yet when the later operation reaches the service (docs/guide.md, "Preflight").
 *
 * Names: the facts carry the names the service gives (and the ones bindings carry for their identity, group and
 * role); the resources the provider handles in this process add the names their state records, and what is still
 * unnamed when a line is written is looked up by uid (`uidp.ids`, one list call per kind), each uid once.
 */
import { underAny, type BindingFacts, type RoleFacts } from "../../sdk/access-model";
import { NotFoundError, PermissionDeniedError, type PlatformClient, type RoleBinding } from "../../sdk";
import { isRoot, parentOf, rootOf } from "../../sdk/uidp";
import type { NamedKind } from "../../sdk/words";
import { clientFor, currentSettings } from "./client";

export interface LiveGroup {
  uid: string;
  name?: string | undefined;
}

export interface LiveIdentity {
  uid: string;
  name?: string | undefined;
}

/** A role binding, with the names the service hydrates it with. */
export interface LiveBinding extends BindingFacts {
  identityName?: string | undefined;
  groupName?: string | undefined;
  roleName?: string | undefined;
}

/** What the provider's credentials may list, and what its own writes made: the facts the model answers from. */
export interface LiveFacts {
  groups: readonly LiveGroup[];
  /** Identities known as objects (the provider's own writes); bindings name the others they hold. */
  identities: readonly LiveIdentity[];
  roles: readonly RoleFacts[];
  bindings: readonly LiveBinding[];
}

export const NO_FACTS: LiveFacts = { groups: [], identities: [], roles: [], bindings: [] };

/** The kinds of object a line names (../../sdk/words). */
export type { NamedKind };

/** Names learnt beside the facts (the state of resources handled in this process, lookups by uid). */
export type KnownNames = ReadonlyMap<NamedKind, ReadonlyMap<string, string>>;

/** How the provider's own writes of one resource change the live facts (recordOwnWrite). */
export interface OwnWrites<T> {
  /** The facts after the provider created or updated `object`. */
  written: (facts: LiveFacts, object: T) => LiveFacts;
  /** The facts after it deleted the object `uid` (or found it gone). */
  deleted: (facts: LiveFacts, uid: string) => LiveFacts;
  /** The kind of name its state records (`name`, `uid`), which lines may use. */
  names?: NamedKind;
}

/** The facts as read when the review started, and with the provider's own writes since. */
export interface FactsNow {
  asRead: LiveFacts;
  current: LiveFacts;
  /** Names learnt beside the facts, for this profile. */
  known: KnownNames;
  /** The roles this process has made or edited (in `up`, the update's own): what they hold is news to a reader. */
  ownRoles: ReadonlySet<string>;
}

/** The organization a uid belongs to: its first segment (a built-in role or a root-level user is its own root). */
export function organizationOf(uid: string): string {
  return rootOf(uid);
}

// ---------------------------------------------------------------------------------------------------------------
// Reading.

const PAGE_SIZE = 200;

async function listed<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  try {
    for await (const item of items) out.push(item);
  } catch (err) {
    // What the caller may not list, it does not see: the model answers from what it may.
    if (PermissionDeniedError.isInstance(err) || NotFoundError.isInstance(err)) return out;
    throw err;
  }
  return out;
}

/**
 * The names of `uids` of one kind, looked up by uid: one list call per PAGE_SIZE uids (`uidp.ids`) rather than a get
 * per object. What cannot be read (a page refused, a uid not found) stays unnamed: names are for the reader, and
 * without them the uids alone do.
 */
export async function namesByUid(
  client: PlatformClient,
  kind: NamedKind,
  uids: readonly string[],
): Promise<Map<string, string>> {
  const list = (ids: string[]) => {
    const query = { ids, pageSize: PAGE_SIZE };
    if (kind === "group") return client.groups.list(query);
    if (kind === "identity") return client.identities.list(query);
    return client.roles.list(query);
  };
  const names = new Map<string, string>();
  for (let i = 0; i < uids.length; i += PAGE_SIZE) {
    try {
      for await (const found of list(uids.slice(i, i + PAGE_SIZE)))
        if (typeof found.name === "string") names.set(found.uid, found.name);
    } catch {
      // Unnamed, as above.
    }
  }
  return names;
}

/** A binding by the uids of what it joins, with their names where known: as the access resources hold one. */
export interface NamedBinding {
  uid: string;
  groupUid: string;
  identityUid: string;
  roleUid: string;
  groupName?: string | undefined;
  identityName?: string | undefined;
  roleName?: string | undefined;
}

/** A binding the service answered: its group from its uid where not hydrated, and the names it is hydrated with. */
export function namedBinding(b: RoleBinding): NamedBinding {
  return {
    uid: b.uid,
    groupUid: b.group?.uid ?? parentOf(b.uid) ?? "",
    identityUid: b.identity?.uid ?? "",
    roleUid: b.role?.uid ?? "",
    groupName: b.group?.name,
    identityName: b.identity?.name,
    roleName: b.role?.name,
  };
}

/** A binding as the facts keep it. */
export function factOfBinding(b: NamedBinding): LiveBinding {
  return {
    uid: b.uid,
    group: b.groupUid,
    identity: b.identityUid,
    identityName: b.identityName,
    groupName: b.groupName,
    role: b.roleUid,
    roleName: b.roleName,
  };
}

/** A binding the service answered, as the facts keep it, with the names it is hydrated with. */
export const bindingFact = (b: RoleBinding): LiveBinding => factOfBinding(namedBinding(b));

const roleFact = (r: {
  uid: string;
  name?: string | undefined;
  capabilities?: readonly string[] | undefined;
}) => ({
  uid: r.uid,
  name: r.name,
  capabilities: [...(r.capabilities ?? [])],
});

/** One organization's groups, roles and role bindings: three list calls (pages of 200), each scoped to it. */
async function readOrganization(client: PlatformClient, organization: string): Promise<LiveFacts> {
  const under = { descendantsOf: organization, pageSize: PAGE_SIZE };
  const [groups, roles, bindings] = await Promise.all([
    listed(client.groups.list(under)),
    listed(client.roles.list(under)),
    listed(client.roleBindings.list(under)),
  ]);
  return {
    groups: groups.map((g) => ({ uid: g.uid, name: g.name })),
    identities: [],
    roles: roles.map(roleFact),
    bindings: bindings.map(bindingFact),
  };
}

/** A built-in role is a root-level one: its uid has no parent. */
const isBuiltin = (role: { uid: string }) => parentOf(role.uid) === undefined;

/** The built-in roles (the root-level ones): one list call. */
async function readBuiltinRoles(client: PlatformClient): Promise<RoleFacts[]> {
  const roles = await listed(client.roles.list({ inRoot: true, pageSize: PAGE_SIZE }));
  return roles.filter(isBuiltin).map(roleFact);
}

/** Several sets of facts as one: each object once (by uid), the later set's version winning. */
function mergeFacts(sets: readonly LiveFacts[]): LiveFacts {
  const byUid = <T extends { uid: string }>(items: readonly T[]) => [
    ...new Map(items.map((item) => [item.uid, item])).values(),
  ];
  return {
    groups: byUid(sets.flatMap((s) => s.groups)),
    identities: byUid(sets.flatMap((s) => s.identities)),
    roles: byUid(sets.flatMap((s) => s.roles)),
    bindings: byUid(sets.flatMap((s) => s.bindings)),
  };
}

/**
 * One organization's facts as read with `client` (no cache), and the built-in roles when its list of roles leaves them
 * out (`builtins` reads those: the cache shares one read among organizations).
 */
export async function readOrganizationFacts(
  client: PlatformClient,
  organization: string,
  builtins: () => Promise<RoleFacts[]> = () => readBuiltinRoles(client),
): Promise<LiveFacts> {
  const read = await readOrganization(client, organization);
  if (read.roles.some(isBuiltin)) return read;
  return { ...read, roles: [...read.roles, ...(await builtins())] };
}

// ---------------------------------------------------------------------------------------------------------------
// How a write changes the facts: one function per kind (idempotent, so a write the read already saw is harmless).

const upsert = <T extends { uid: string }>(items: readonly T[], item: T): T[] => [
  ...items.filter((i) => i.uid !== item.uid),
  item,
];

export function withGroup(facts: LiveFacts, group: LiveGroup): LiveFacts {
  return { ...facts, groups: upsert(facts.groups, { uid: group.uid, name: group.name }) };
}

export function withIdentity(facts: LiveFacts, identity: LiveIdentity): LiveFacts {
  return { ...facts, identities: upsert(facts.identities, { uid: identity.uid, name: identity.name }) };
}

export function withRole(facts: LiveFacts, role: RoleFacts): LiveFacts {
  return { ...facts, roles: upsert(facts.roles, roleFact(role)) };
}

export function withBinding(facts: LiveFacts, binding: LiveBinding): LiveFacts {
  return { ...facts, bindings: upsert(facts.bindings, binding) };
}

/** The facts without the bindings `drop` selects. */
export function withoutBindings(facts: LiveFacts, drop: (b: LiveBinding) => boolean): LiveFacts {
  return { ...facts, bindings: facts.bindings.filter((b) => !drop(b)) };
}

/** The facts without the group `uid` and what lives under it (a deleted group takes its bindings with it). */
export function withoutGroup(facts: LiveFacts, uid: string): LiveFacts {
  const gone = new Set([uid]);
  const under = (objectUid: string) => underAny(parentOf(objectUid) ?? "", gone);
  return {
    groups: facts.groups.filter((g) => !underAny(g.uid, gone)),
    identities: facts.identities.filter((i) => !under(i.uid)),
    roles: facts.roles.filter((r) => !under(r.uid)),
    bindings: facts.bindings.filter((b) => !underAny(b.group, gone) && !underAny(b.role, gone)),
  };
}

/** The facts without the identity `uid` (its bindings go with it). */
export function withoutIdentity(facts: LiveFacts, uid: string): LiveFacts {
  return {
    ...withoutBindings(facts, (b) => b.identity === uid),
    identities: facts.identities.filter((i) => i.uid !== uid),
  };
}

/** The facts without the role `uid` (a role deleted revokes its bindings: emulator/README.md, "Deleting a role"). */
export function withoutRole(facts: LiveFacts, uid: string): LiveFacts {
  return {
    ...withoutBindings(facts, (b) => b.role === uid),
    roles: facts.roles.filter((r) => r.uid !== uid),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The cache: per provider process and profile, each organization read once; the own writes since; names.

type Write = (facts: LiveFacts) => LiveFacts;

interface OrganizationEntry {
  /** Settles once read; `current` then carries every write made so far. */
  ready: Promise<void>;
  asRead?: LiveFacts;
  current?: LiveFacts;
}

interface ProfileFacts {
  /** Every own write of this profile so far, in order (an organization read later applies them all). */
  writes: Write[];
  organizations: Map<string, OrganizationEntry>;
  builtins?: Promise<RoleFacts[]>;
  names: Map<NamedKind, Map<string, string>>;
  /** Lookups by name, by uid (found or not): each uid once, a review awaiting one another review started. */
  lookups: Map<string, Promise<void>>;
}

const profiles = new Map<string, ProfileFacts>();

/** Forgets what was read and written (configure with new settings; tests). */
export function forgetLiveFacts(): void {
  profiles.clear();
}

/** The cache's key for a profile: its name and the settings it resolves with. */
function profileKey(profile: string | undefined): string {
  return `${profile ?? ""}\u0000${JSON.stringify(currentSettings())}`;
}

function profileFacts(profile: string | undefined): ProfileFacts {
  const key = profileKey(profile);
  let entry = profiles.get(key);
  if (entry === undefined) {
    entry = { writes: [], organizations: new Map(), names: new Map(), lookups: new Map() };
    profiles.set(key, entry);
  }
  return entry;
}

function organizationEntry(
  state: ProfileFacts,
  profile: string | undefined,
  organization: string,
): OrganizationEntry {
  const existing = state.organizations.get(organization);
  if (existing !== undefined) return existing;
  const client = clientFor(profile);
  const entry: OrganizationEntry = { ready: Promise.resolve() };
  entry.ready = (async () => {
    entry.asRead = await readOrganizationFacts(client, organization, () => {
      const builtins = (state.builtins ??= readBuiltinRoles(client));
      // A failed read of the built-in roles is not remembered either.
      builtins.catch(() => {
        if (state.builtins === builtins) state.builtins = undefined;
      });
      return builtins;
    });
    entry.current = state.writes.reduce((facts, write) => write(facts), entry.asRead);
  })();
  // A failed read is not remembered: the next review tries again.
  entry.ready.catch(() => {
    if (state.organizations.get(organization) === entry) state.organizations.delete(organization);
  });
  state.organizations.set(organization, entry);
  return entry;
}

/** The facts of `organizations` for `profile`: read on first use in this process, with the own writes since. */
export async function factsFor(
  profile: string | undefined,
  organizations: readonly string[],
): Promise<FactsNow> {
  const state = profileFacts(profile);
  const entries = [...new Set(organizations)].map((org) => organizationEntry(state, profile, org));
  await Promise.all(entries.map((e) => e.ready));
  return {
    asRead: mergeFacts(entries.map((e) => e.asRead!)),
    current: mergeFacts(entries.map((e) => e.current!)),
    known: state.names,
    ownRoles: new Set(state.writes.reduce((facts, write) => write(facts), NO_FACTS).roles.map((r) => r.uid)),
  };
}

/** Records a write the provider made with `profile`: the facts read so far, and those read later, include it. */
export function recordOwnWrite(profile: string | undefined, write: Write): void {
  const state = profileFacts(profile);
  state.writes.push(write);
  for (const entry of state.organizations.values())
    if (entry.current !== undefined) entry.current = write(entry.current);
}

/** Notes the name of an object the provider handles in this process (from its state or its answer). */
export function noteName(profile: string | undefined, kind: NamedKind, uid: unknown, name: unknown): void {
  if (typeof uid !== "string" || uid === "" || typeof name !== "string" || name === "") return;
  const state = profileFacts(profile);
  let names = state.names.get(kind);
  if (names === undefined) state.names.set(kind, (names = new Map()));
  names.set(uid, name);
}

/**
 * Looks up the names of `uids` by kind (groups and workload identities; a root-level user cannot be listed), each
 * uid once per process: one list call per kind (`uidp.ids`, 200 a page). What cannot be read stays unnamed.
 */
export async function lookUpNames(
  profile: string | undefined,
  uids: { groups: readonly string[]; identities: readonly string[] },
): Promise<void> {
  const state = profileFacts(profile);
  const pending = (list: readonly string[]) => [...new Set(list)].filter((uid) => !state.lookups.has(uid));
  const groups = pending(uids.groups);
  const identities = pending(uids.identities).filter((uid) => !isRoot(uid));
  const client = clientFor(profile);
  const lookUp = async (kind: NamedKind, ids: string[]) => {
    for (const [uid, name] of await namesByUid(client, kind, ids)) noteName(profile, kind, uid, name);
  };
  const started = (
    [
      ["group", groups],
      ["identity", identities],
    ] as const
  )
    .filter(([, ids]) => ids.length > 0)
    .map(([kind, ids]) => ({ uids: ids, done: lookUp(kind, ids) }));
  for (const { uids: looked, done } of started) for (const uid of looked) state.lookups.set(uid, done);
  await Promise.all([...uids.groups, ...uids.identities].map((uid) => state.lookups.get(uid)));
}
