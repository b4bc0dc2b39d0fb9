/**
 * The API walk: everything under one group, read with one list per kind (`uidp.descendants_of`, pages of 200, the
 * kinds in parallel), plus one GET of the group itself. Built-in roles are never taken. What cannot be imported is
 * listed with the reason, never dropped.
 *
 * Calls: 1 + Σ over the seven kinds of ceil(count / 200) (at least 1 each), and one GET more when the listing of
 * associations does not return the top group's own association.
 */
import { NotFoundError, type Group, type PlatformClient } from "../../sdk";
import { isBelow, parentOf } from "../../sdk/uidp";
import { Names } from "../../sdk/words";
import {
  buildDocument,
  stringLeaves,
  unrecoverableNotes,
  type Found,
  type ImportDocument,
  type Skipped,
} from "./document";
import { withBindingsAs, type BindingsContext, type BindingsForm } from "./bindings";
import { LISTED_KINDS, type ListedKind } from "../kinds";
import { PAGE_SIZE, noAccess, openGroup } from "../reading";

/** Built-in roles have a 40-hex uid without slashes, like an organization's: only what the service says tells. */
const ROOT_UID = /^[0-9a-f]{40}$/;

export interface WalkOptions {
  /** Progress lines (stderr in the command). */
  progress?: (line: string) => void;
  /** The form of the role bindings in the document (./bindings); default one RoleBinding each. */
  bindings?: BindingsForm;
}

export interface WalkResult {
  document: ImportDocument;
  /** The listing the document was built from. */
  listing: Listing;
  /** API calls made. */
  calls: number;
  counts: Record<ListedKind, number>;
}

/** What a listing found under a group: every importable object, what it leaves out and why, and the calls made. */
export interface Listing {
  /** The group listed. */
  top: Group;
  /** Every object under it, the group itself first. */
  found: Found[];
  skipped: Skipped[];
  /** API calls made. */
  calls: number;
  /** Every object listed under the group (and the group), as the service returned it: what ./adoption fingerprints. */
  objects: { kind: ListedKind; uid: string; object: unknown }[];
}

/** What a uid that is not a group is, for the refusal: a few GETs, on the refusal path only. */
async function whatIs(client: PlatformClient, uid: string): Promise<string | undefined> {
  const probes: [string, () => Promise<unknown>][] = [
    ["an identity", () => client.identities.get(uid)],
    [ROOT_UID.test(uid) ? "a built-in role" : "a role", () => client.roles.get(uid)],
    ["a role binding", () => client.roleBindings.get(uid)],
    ["an identity provider", () => client.identityProviders.get(uid)],
    ["an invite", () => client.groupInvites.get(uid)],
  ];
  for (const [what, probe] of probes) {
    try {
      await probe();
      return what;
    } catch {
      // not that either
    }
  }
  return undefined;
}

/** Walks everything under `groupUid` and builds the import document. Throws Refusal for what it will not do. */
export async function walkGroup(
  client: PlatformClient,
  groupUid: string,
  options: WalkOptions = {},
): Promise<WalkResult> {
  const listing = await listGroup(client, groupUid, options);
  const { found: taken, warnings } = withBindingsAs(
    options.bindings ?? "role-binding",
    listing.found,
    bindingsContext(listing),
  );
  const document = buildDocument(taken, {
    source: `api ${groupUid}`,
    notes: (names) => unrecoverableNotes(taken, names),
    skipped: listing.skipped,
    warnings,
  });
  return { document, listing, calls: listing.calls, counts: countKinds(listing.found) };
}

/** What ./bindings needs from a listing: its bindings, its identities, and names of groups and identities. */
export function bindingsContext(listing: Listing): BindingsContext {
  const names = new Map<string, string>();
  for (const f of listing.found) {
    if (f.binding !== undefined) names.set(f.binding.identity.uid, f.binding.identity.name);
    if (f.kind === "group" || f.kind === "identity") names.set(f.uid, f.outputName ?? f.base);
  }
  return {
    listed: listing.found.filter((f) => f.kind === "roleBinding"),
    identities: new Set(listing.found.filter((f) => f.kind === "identity").map((f) => f.uid)),
    names,
  };
}

/** How many objects of each kind. */
export function countKinds(found: readonly Found[]): Record<ListedKind, number> {
  return Object.fromEntries(LISTED_KINDS.map((k) => [k, found.filter((f) => f.kind === k).length])) as Record<
    ListedKind,
    number
  >;
}

/**
 * Lists everything under `groupUid`: the GET of the group, one list per kind, in parallel. Throws Refusal for what
 * it will not do.
 */
export async function listGroup(
  client: PlatformClient,
  groupUid: string,
  options: WalkOptions = {},
): Promise<Listing> {
  const { top, list, count, calls } = await openGroup(client, groupUid, {
    progress: options.progress,
    whatIs: (uid) => whatIs(client, uid),
  });
  const under = { descendantsOf: groupUid, pageSize: PAGE_SIZE };
  const [groups, identities, roles, bindings, providers, invites, associations] = await Promise.all([
    list("groups", () => client.groups.list(under)),
    list("identities", () => client.identities.list(under)),
    list("roles", () => client.roles.list(under)),
    list("role bindings", () => client.roleBindings.list(under)),
    list("identity providers", () => client.identityProviders.list(under)),
    list("invites", () => client.groupInvites.list(under)),
    list("account associations", () => client.accountAssociations.list(under)),
  ]);
  if (!associations.some((a) => a.uid === groupUid)) {
    // The listing's reach over the top group's own association (whose uid is the group's) is not specified.
    try {
      count();
      associations.push(await client.accountAssociations.get(groupUid));
    } catch (err) {
      if (!NotFoundError.isInstance(err)) noAccess(err, `read the account association of ${groupUid}`);
    }
  }

  const found: Found[] = [];
  const skipped: Skipped[] = [];
  const inside = (uid: string) => isBelow(uid, groupUid);
  const objects: Listing["objects"] = [{ kind: "group", uid: top.uid, object: top }];
  const listed: [ListedKind, { uid: string }[]][] = [
    ["group", groups],
    ["identity", identities],
    ["role", roles],
    ["roleBinding", bindings],
    ["identityProvider", providers],
    ["groupInvite", invites],
    ["accountAssociation", associations],
  ];
  for (const [kind, items] of listed)
    for (const object of items)
      if (inside(object.uid) || (kind === "accountAssociation" && object.uid === groupUid))
        objects.push({ kind, uid: object.uid, object });
  const groupName = new Map<string, string>([[top.uid, top.name]]);
  for (const g of groups) groupName.set(g.uid, g.name);

  const NOT_INPUTS = ["uid", "createTime", "updateTime", "lastSeenTime", "keyId", "code"];
  const named = (o: { uid: string; name: string }) => ({
    outputName: o.name,
    strings: [...stringLeaves(o, NOT_INPUTS), ...(parentOf(o.uid) ? [parentOf(o.uid)!] : [])],
  });
  found.push({ kind: "group", uid: top.uid, base: top.name, group: parentOf(top.uid), ...named(top) });
  for (const g of groups) {
    if (g.uid === groupUid || !inside(g.uid)) continue;
    found.push({ kind: "group", uid: g.uid, base: g.name, group: parentOf(g.uid), ...named(g) });
  }
  for (const i of identities) {
    if (!inside(i.uid)) continue;
    if (i.servicePrincipal !== undefined && i.servicePrincipal !== "") {
      skipped.push({
        subject: i.uid,
        reason: `${new Names().add("identity", i.uid, i.name).identity(i.uid)} is the service principal ${i.servicePrincipal}, which the service manages`,
      });
      continue;
    }
    found.push({ kind: "identity", uid: i.uid, base: i.name, group: parentOf(i.uid), ...named(i) });
  }
  for (const r of roles) {
    if (!inside(r.uid)) continue; // built-in roles (uids without a slash) are the service's, never taken
    found.push({ kind: "role", uid: r.uid, base: r.name, group: parentOf(r.uid), ...named(r) });
  }
  for (const b of bindings) {
    if (!inside(b.uid)) continue;
    const who = b.identity?.name || "identity";
    const what = b.role?.name || "role";
    found.push({
      kind: "roleBinding",
      uid: b.uid,
      base: `${who}-${what}`,
      group: parentOf(b.uid),
      strings: [b.group?.uid, b.identity?.uid, b.role?.uid].filter((u): u is string => u !== undefined),
      binding: {
        identity: { uid: b.identity?.uid ?? "", name: b.identity?.name ?? "" },
        role: { uid: b.role?.uid ?? "", name: b.role?.name ?? "" },
      },
    });
  }
  for (const p of providers) {
    if (!inside(p.uid)) continue;
    found.push({
      kind: "identityProvider",
      uid: p.uid,
      base: p.name,
      group: parentOf(p.uid),
      ...named(p),
    });
  }
  for (const v of invites) {
    if (!inside(v.uid)) continue;
    const group = parentOf(v.uid);
    const base = `${(group && groupName.get(group)) || "group"}-invite`;
    const strings = [group, ...stringLeaves({ ...v, role: undefined }, NOT_INPUTS)].filter(
      (x): x is string => x !== undefined,
    );
    found.push({ kind: "groupInvite", uid: v.uid, base, group, strings });
  }
  for (const a of associations) {
    if (a.uid !== groupUid && !inside(a.uid)) continue;
    found.push({
      kind: "accountAssociation",
      uid: a.uid,
      base: a.name,
      group: a.uid,
      outputName: a.name,
      strings: [a.uid, ...stringLeaves(a, NOT_INPUTS)],
    });
  }
  return { top, found, skipped, calls: calls(), objects };
}
