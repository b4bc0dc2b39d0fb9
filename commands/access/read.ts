/**
 * What the access tools read: the groups and identities under a group, every role of the organization the caller
 * may list (built-in ones included: the API lists them), and every role binding on the group, on its ancestors (they
 * are inherited) and below it. One GET of the group and four lists in parallel, in pages of 200, with the caller's
 * own credentials, whatever the organization's size (the walk's machinery: ../walk); and a GET of a built-in role a
 * binding names only if the list of roles left it out (never on the emulator, which lists them).
 *
 * Nothing leaks: the lists answer only what the caller may list. What the caller may not list is not shown, and
 * `partial` says what is missing, worked out from the caller's own bindings through the access model (a list the
 * caller holds no *_LIST capability for comes back short, not refused).
 */
import { type Group, type Identity, type PlatformClient, type Role, type RoleBinding } from "../../sdk";
import { AccessModel, ancestorsOrSelf, grantRoots, isAtOrBelow, underAny } from "../../sdk/access-model";
import type { Capability } from "../../sdk/schemas/capabilities";
import { PAGE_SIZE, noAccess, openGroup, readAll } from "../reading";
import { isBelow, isRoot, parentOf, rootOf } from "../../sdk/uidp";

export interface AccessData {
  /** The group read. */
  top: Group;
  /** Groups at and below `top`, `top` first, then in uid order. */
  groups: Group[];
  /** Workload identities under `top`. */
  identities: Identity[];
  /** Every role the caller may list in the organization, built-in ones included. */
  roles: Role[];
  /** Bindings on `top`, its ancestors and below it. */
  bindings: RoleBinding[];
  /** The identity whose credentials read this, when known. */
  caller: string | undefined;
  /** What the caller may not list, one sentence each (empty: nothing left out). */
  partial: string[];
  /** API calls made. */
  calls: number;
}

export interface ReadOptions {
  /** The caller's identity uid (from the credentials), to tell what it may not list. */
  caller?: string;
  progress?: (line: string) => void;
}

/** The identity a token is for: the `sub` of its payload, read without verifying (it only says who we are). */
export function tokenSubject(token: string | undefined): string | undefined {
  const payload = token?.split(".")[1];
  if (payload === undefined) return undefined;
  try {
    const sub = (JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { sub?: unknown }).sub;
    return typeof sub === "string" && sub !== "" ? sub : undefined;
  } catch {
    return undefined;
  }
}

/** The caller's identity from the environment the client reads (sdk/config.ts): an assumed identity or a token's. */
export function callerOf(env: Record<string, string | undefined>): string | undefined {
  const assumed = env["PLATFORM_IDENTITY"];
  if (assumed !== undefined && assumed !== "") return assumed;
  return tokenSubject(env["PLATFORM_TOKEN"]);
}

/**
 * The organizations (root groups) the caller may list, by name then uid: where a person, who belongs to no group,
 * holds anything the caller can see. One list of root groups, in pages of 200.
 */
export async function readOrganizations(
  client: PlatformClient,
  options: Pick<ReadOptions, "progress"> = {},
): Promise<{ organizations: Group[]; calls: number }> {
  let calls = 0;
  const organizations = await readAll(
    "organizations",
    client.groups.list({ inRoot: true, pageSize: PAGE_SIZE }),
    () => void calls++,
    options.progress,
  ).catch((err: unknown) => noAccess(err, "list organizations"));
  const compare = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  organizations.sort((a, b) => compare(a.name, b.name) || compare(a.uid, b.uid));
  return { organizations, calls };
}

/** Reads what the access tools need under `groupUid`. Throws Refusal for what it will not do. */
export async function readAccess(
  client: PlatformClient,
  groupUid: string,
  options: ReadOptions = {},
): Promise<AccessData> {
  const { top, list, count, calls } = await openGroup(client, groupUid, { progress: options.progress });
  const root = rootOf(groupUid);
  const under = { descendantsOf: groupUid, pageSize: PAGE_SIZE };
  // Bindings and roles are read from the organization down: those above the group are inherited (bindings) or
  // bound below it (custom roles of an ancestor). The lists answer only what the caller may list.
  const inOrg = { descendantsOf: root, pageSize: PAGE_SIZE };
  const [groups, identities, roles, bindings] = await Promise.all([
    list("groups", () => client.groups.list(under)),
    list("identities", () => client.identities.list(under)),
    list("roles", () => client.roles.list(inOrg)),
    list("role bindings", () => client.roleBindings.list(inOrg)),
  ]);
  // A built-in role (a root uid) a binding names but the organization's list left out: read by uid, each once. The
  // emulator lists them with every list of roles; the API's reference does not say whether a scoped list does.
  const listed = new Set(roles.map((r) => r.uid));
  const builtins = [...new Set(bindings.map((b) => b.role?.uid ?? ""))].filter(
    (uid) => uid !== "" && isRoot(uid) && !listed.has(uid),
  );
  await Promise.all(
    builtins.map(async (uid) => {
      count();
      try {
        roles.push(await client.roles.get(uid));
      } catch {
        // Not visible either: the review says its capabilities are not shown.
      }
    }),
  );
  const above = new Set(ancestorsOrSelf(groupUid));
  const relevant = bindings.filter((b) => {
    const on = b.group?.uid ?? parentOf(b.uid) ?? "";
    return above.has(on) || isAtOrBelow(on, groupUid);
  });
  const inside = (uid: string) => isBelow(uid, groupUid);
  const byUid = <T extends { uid: string }>(a: T, b: T) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);
  const data: AccessData = {
    top,
    groups: [top, ...groups.filter((g) => inside(g.uid)).sort(byUid)],
    identities: identities.filter((i) => inside(i.uid)).sort(byUid),
    roles: [...roles].sort(byUid),
    bindings: relevant.sort(byUid),
    caller: options.caller,
    partial: [],
    calls: calls(),
  };
  data.partial = whatIsLeftOut(data, groupUid);
  return data;
}

/** Roles bound here whose capabilities the caller may not read. */
function unknownRoles(data: AccessData): string[] {
  const known = new Set(data.roles.map((r) => r.uid));
  return [...new Set(data.bindings.map((b) => b.role?.uid ?? ""))].filter((u) => u !== "" && !known.has(u));
}

/**
 * What the caller's lists leave out, from its own bindings as read (rule 3 of the access model: a list answers
 * what the caller holds the *_LIST capability for): each kind whose positions the caller does not cover.
 */
function whatIsLeftOut(data: AccessData, groupUid: string): string[] {
  const notes: string[] = [];
  const missingRoles = unknownRoles(data);
  if (missingRoles.length > 0)
    notes.push(
      `${missingRoles.length} role(s) bound here are not visible to the caller, so their capabilities are ` +
        `not shown: ${missingRoles.join(", ")}`,
    );
  if (data.caller === undefined) {
    notes.push(
      "the caller's identity is not known from the credentials, so whether the lists were complete was not checked",
    );
    return notes;
  }
  const model = new AccessModel({
    roles: data.roles.map((r) => ({ uid: r.uid, name: r.name, capabilities: r.capabilities ?? [] })),
    bindings: data.bindings.map(bindingFacts),
  });
  const above = ancestorsOrSelf(groupUid);
  const checks: [Capability, string, string[]][] = [
    ["CAP_IAM_ROLE_BINDINGS_LIST", "role bindings", above],
    ["CAP_IAM_ROLES_LIST", "custom roles", above],
    ["CAP_IAM_GROUPS_LIST", "groups", [groupUid]],
    ["CAP_IAM_IDENTITY_LIST", "identities", [groupUid]],
  ];
  for (const [capability, what, positions] of checks) {
    const roots = grantRoots(model, data.caller, capability);
    const short = positions.filter((p) => !underAny(p, roots));
    if (short.length === 0) continue;
    const where = roots.size === 0 ? "nowhere" : `only at and below ${[...roots].sort().join(", ")}`;
    notes.push(
      `${what} on ${short.join(", ")} are not shown: the caller (${data.caller}) holds ${capability} ${where}`,
    );
  }
  return notes;
}

/** A binding as the access model takes it. */
export function bindingFacts(b: RoleBinding) {
  return {
    uid: b.uid,
    group: b.group?.uid ?? parentOf(b.uid) ?? "",
    identity: b.identity?.uid ?? "",
    role: b.role?.uid ?? "",
  };
}
