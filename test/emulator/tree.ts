/**
 * A tree for access properties: an organization with folders A (holding one object of every kind), A/child and B,
 * and callers placed at every level around A:
 *   - outsider: owns another organization, no binding in this one;
 *   - sibling: owner of B (A is beside it);
 *   - child: owner of A/child (A is above it);
 *   - viewer: viewer on A (sees A, may change nothing there).
 * Each caller also has a group of its own where it may create (for reference properties).
 */
import type { Api } from "./helpers";

export interface Caller {
  level: "outsider" | "sibling" | "child" | "viewer";
  uid: string;
  token: string;
  /** A group where the caller is owner (its organization, B, or A/child); the viewer has none. */
  ownGroup?: string;
  /** An identity the caller may see and bind, inside ownGroup. */
  ownIdentity?: string;
  /** A binding the caller may change, inside ownGroup. */
  ownBinding?: string;
  /** Whether ownGroup is an organization (identity providers live only there). */
  ownsOrganization: boolean;
}

export interface Target {
  kind: string;
  /** Collection path, e.g. /iam/v2beta1/identities. */
  prefix: string;
  uid: string;
  /** Names that must never leak to a caller who cannot see the object. */
  secrets: string[];
  /** A PATCH body valid for the kind, or undefined when the kind has no PATCH. */
  patch?: Record<string, unknown>;
}

export interface Tree {
  org: string;
  folderA: string;
  child: string;
  folderB: string;
  viewerRole: string;
  ownerRole: string;
  callers: Caller[];
  /** One object of every kind, inside A (identity providers: on the organization). */
  targets: Target[];
  /** A custom role on the organization (usable everywhere in it). */
  orgRole: string;
  /** A custom role on A. */
  roleA: string;
  /** An identity in A. */
  identityA: string;
}

const hex16 = (): string =>
  Array.from({ length: 16 }, () => "0123456789abcdef"[Math.floor(Math.random() * 16)]).join("");

/** A uid of the same kind at the same position as `uid` that does not exist. */
export function missingTwin(uid: string, random: string = hex16()): string {
  const slash = uid.lastIndexOf("/");
  return slash === -1 ? random : `${uid.slice(0, slash)}/${random}`;
}

async function ok<T = { uid: string }>(
  promise: Promise<{ status: number; body: T; text: string }>,
  what: string,
): Promise<T> {
  const response = await promise;
  if (response.status !== 200) throw new Error(`${what}: ${response.status} ${response.text}`);
  return response.body;
}

export async function buildTree(api: Api): Promise<Tree> {
  const org = api.emulator.orgUid;
  const roles = (await api.get("/iam/v2beta1/roles?page_size=200")).body.roles as {
    name: string;
    uid: string;
  }[];
  const viewerRole = roles.find((r) => r.name === "viewer")!.uid;
  const ownerRole = roles.find((r) => r.name === "owner")!.uid;
  const group = async (parent: string, name: string): Promise<string> =>
    (await ok(api.post(`/iam/v2beta1/groups/${parent}`, { name, description: `secret-${name}` }), name)).uid;
  const folderA = await group(org, "folder-a");
  const child = await group(folderA, "child-of-a");
  const folderB = await group(org, "folder-b");
  const claimMatch = { issuer: "https://issuer.example.com", subject: "secret-subject" };
  const identity = async (parent: string, name: string, token?: string): Promise<string> =>
    (
      await ok(
        api.call("POST", `/iam/v2beta1/identities/${parent}`, {
          body: { name, description: `secret-${name}`, claimMatch },
          ...(token !== undefined ? { token } : {}),
        }),
        name,
      )
    ).uid;
  const identityA = await identity(folderA, "identity-a");
  const orgRole = (
    await ok(
      api.post(`/iam/v2beta1/roles/${org}`, {
        name: "secret-org-role",
        capabilities: ["CAP_IAM_GROUPS_LIST"],
      }),
      "org role",
    )
  ).uid;
  const roleA = (
    await ok(
      api.post(`/iam/v2beta1/roles/${folderA}`, { name: "secret-role-a", capabilities: ["CAP_REPO_LIST"] }),
      "role a",
    )
  ).uid;
  const bindingA = (
    await ok(
      api.post(`/iam/v2beta1/roleBindings/${folderA}`, { identityUid: identityA, roleUid: roleA }),
      "binding a",
    )
  ).uid;
  const inviteA = (
    await ok(
      api.post(`/iam/v2beta1/groupInvites/${folderA}`, { roleUid: viewerRole, ttl: "3600s" }),
      "invite",
    )
  ).uid;
  await ok(api.post(`/iam/v2beta1/accountAssociations/${folderA}`, { name: "secret-association" }), "assoc");
  const idp = (
    await ok(
      api.post(`/iam/v2beta1/identityProviders/${org}`, {
        name: "secret-idp",
        defaultRole: viewerRole,
        oidc: { issuer: "https://sso.example.com", clientId: "secret-client" },
      }),
      "idp",
    )
  ).uid;
  api.emulator.seed({
    repos: [{ name: "secret-repo", group: folderA, tags: [{ name: "secret-tag", digest: "sha256:0" }] }],
    advisories: [{ advisoryId: "CGA-secret", group: folderA }],
  });
  const repo = (await api.get(`/registry/v2beta1/repos?name=secret-repo`)).body.repos[0].uid as string;
  const tag = (await api.get(`/registry/v2beta1/tags?uidp.children_of=${encodeURIComponent(repo)}`)).body
    .tags[0].uid as string;
  const advisory = (await api.get(`/vulnerabilities/v2beta1/advisories?advisoryIds=CGA-secret`)).body
    .advisories[0].uid as string;

  const bind = (groupUid: string, identityUid: string, roleUid: string, token?: string) =>
    ok(
      api.call("POST", `/iam/v2beta1/roleBindings/${groupUid}`, {
        body: { identityUid, roleUid },
        ...(token !== undefined ? { token } : {}),
      }),
      "bind",
    );
  const callers: Caller[] = [];
  const outsider = api.emulator.createUser("outsider");
  const ownOrg = (await ok(api.post("/iam/v2beta1/groups", { name: "elsewhere" }, outsider.token), "org"))
    .uid;
  callers.push({ level: "outsider", ...outsider, ownGroup: ownOrg, ownsOrganization: true });
  const sibling = api.emulator.createUser("sibling");
  await bind(folderB, sibling.uid, ownerRole);
  callers.push({ level: "sibling", ...sibling, ownGroup: folderB, ownsOrganization: false });
  const below = api.emulator.createUser("below");
  await bind(child, below.uid, ownerRole);
  callers.push({ level: "child", ...below, ownGroup: child, ownsOrganization: false });
  const viewer = api.emulator.createUser("viewer");
  await bind(folderA, viewer.uid, viewerRole);
  callers.push({ level: "viewer", ...viewer, ownsOrganization: false });
  for (const caller of callers) {
    if (caller.ownGroup === undefined) continue;
    caller.ownIdentity = await identity(caller.ownGroup, `own-${caller.level}`, caller.token);
    caller.ownBinding = (await bind(caller.ownGroup, caller.ownIdentity, viewerRole, caller.token)).uid;
  }

  const describe = { description: "changed" };
  const targets: Target[] = [
    { kind: "groups", prefix: "/iam/v2beta1/groups", uid: folderA, secrets: ["folder-a"], patch: describe },
    {
      kind: "identities",
      prefix: "/iam/v2beta1/identities",
      uid: identityA,
      secrets: ["identity-a", "secret-subject"],
      patch: describe,
    },
    { kind: "roles", prefix: "/iam/v2beta1/roles", uid: roleA, secrets: ["secret-role-a"], patch: describe },
    {
      kind: "roleBindings",
      prefix: "/iam/v2beta1/roleBindings",
      uid: bindingA,
      secrets: ["identity-a", "secret-role-a"],
      patch: { roleUid: viewerRole },
    },
    { kind: "groupInvites", prefix: "/iam/v2beta1/groupInvites", uid: inviteA, secrets: [] },
    {
      kind: "accountAssociations",
      prefix: "/iam/v2beta1/accountAssociations",
      uid: folderA,
      secrets: ["secret-association"],
      patch: describe,
    },
    {
      kind: "identityProviders",
      prefix: "/iam/v2beta1/identityProviders",
      uid: idp,
      secrets: ["secret-idp", "secret-client"],
      patch: describe,
    },
    { kind: "repos", prefix: "/registry/v2beta1/repos", uid: repo, secrets: ["secret-repo"] },
    { kind: "tags", prefix: "/registry/v2beta1/tags", uid: tag, secrets: ["secret-tag"] },
    {
      kind: "advisories",
      prefix: "/vulnerabilities/v2beta1/advisories",
      uid: advisory,
      secrets: ["CGA-secret"],
    },
  ];
  return { org, folderA, child, folderB, viewerRole, ownerRole, callers, targets, orgRole, roleA, identityA };
}

/** An answer with every occurrence of `uid` replaced, so answers about two uids can be compared. */
export function normalized(
  response: { status: number; body: unknown; text: string },
  uid: string,
): { status: number; body: unknown } {
  const text = response.text.split(uid).join("<uid>");
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: response.status, body };
}
