/**
 * Every resource's verbs: method, path (multi-segment uids keep their '/'), query spelling and body.
 * Groups have their own file with the finer points; this table covers the rest uniformly.
 */
import type { PlatformClient } from "../../sdk";
import { answer, harness, ORG, FOLDER } from "./helpers";

const CHILD = `${FOLDER}/00000000000000aa`;
const ROLE_BUILTIN = "0123456789abcdef0123456789abcdef01234567";
const NOW = "2026-01-02T03:04:05.678Z";

interface Case {
  name: string;
  call: (c: PlatformClient) => PromiseLike<unknown>;
  response: object;
  method: string;
  path: string;
  body?: unknown;
  check?: (result: unknown) => void;
}

const identity = {
  uid: CHILD,
  name: "ci",
  claimMatch: { issuer: "https://issuer", subject: "repo:x" },
  createTime: NOW,
};
const role = { uid: CHILD, name: "custom", capabilities: ["CAP_IAM_GROUPS_LIST"] };
const binding = {
  uid: CHILD,
  identity: { uid: `${ORG}/00000000000000bb`, name: "ci" },
  group: { uid: FOLDER, name: "folder" },
  role: { uid: ROLE_BUILTIN, name: "viewer" },
  createTime: NOW,
};
const idp = {
  uid: CHILD,
  name: "okta",
  defaultRole: ROLE_BUILTIN,
  oidc: { issuer: "https://okta", clientId: "c" },
};
const invite = { uid: CHILD, roleUid: ROLE_BUILTIN, code: "secret-code", expirationTime: NOW };
const association = { uid: FOLDER, name: "aa", amazon: { account: "123456789012" } };
const repo = { uid: CHILD, name: "nginx", createTime: NOW };
const tag = { uid: `${CHILD}/00000000000000cc`, name: "latest", digest: "sha256:abc" };
const advisory = { uid: "adv-1", advisoryId: "CGA-xvgw-cvr7-9g2q", aliases: ["CVE-2024-1"] };

const cases: Case[] = [
  // identities
  {
    name: "identities.list",
    call: (c) => c.identities.list({ childrenOf: ORG, relationshipType: "RELATIONSHIP_TYPE_CLAIM_MATCH" }),
    response: { identities: [identity] },
    method: "GET",
    path: `/iam/v2beta1/identities?uidp.children_of=${encodeURIComponent(ORG)}&relationship_type=RELATIONSHIP_TYPE_CLAIM_MATCH`,
  },
  {
    name: "identities.get",
    call: (c) => c.identities.get(CHILD),
    response: identity,
    method: "GET",
    path: `/iam/v2beta1/identities/${CHILD}`,
  },
  {
    name: "identities.create",
    call: (c) =>
      c.identities.create(FOLDER, {
        name: "ci",
        claimMatch: { issuer: "https://issuer", subject: "repo:x" },
      }),
    response: identity,
    method: "POST",
    path: `/iam/v2beta1/identities/${FOLDER}`,
    body: { name: "ci", claimMatch: { issuer: "https://issuer", subject: "repo:x" } },
  },
  {
    name: "identities.update",
    call: (c) => c.identities.update(CHILD, { claimMatch: { issuer: "https://other" } }),
    response: identity,
    method: "PATCH",
    path: `/iam/v2beta1/identities/${CHILD}?updateMask=claimMatch`,
    body: { claimMatch: { issuer: "https://other" } },
  },
  {
    name: "identities.delete",
    call: (c) => c.identities.delete(CHILD),
    response: {},
    method: "DELETE",
    path: `/iam/v2beta1/identities/${CHILD}`,
  },
  // roles
  {
    name: "roles.list",
    call: (c) => c.roles.list({ name: "viewer", pageSize: 5 }),
    response: { roles: [role] },
    method: "GET",
    path: "/iam/v2beta1/roles?name=viewer&page_size=5",
  },
  {
    name: "roles.get (built-in uid)",
    call: (c) => c.roles.get(ROLE_BUILTIN),
    response: { uid: ROLE_BUILTIN, name: "viewer" },
    method: "GET",
    path: `/iam/v2beta1/roles/${ROLE_BUILTIN}`,
  },
  {
    name: "roles.create",
    call: (c) => c.roles.create(ORG, { name: "custom", capabilities: ["CAP_IAM_GROUPS_LIST"] }),
    response: role,
    method: "POST",
    path: `/iam/v2beta1/roles/${ORG}`,
    body: { name: "custom", capabilities: ["CAP_IAM_GROUPS_LIST"] },
  },
  {
    name: "roles.update",
    call: (c) => c.roles.update(CHILD, { capabilities: ["CAP_A", "CAP_B"], description: "d" }),
    response: role,
    method: "PATCH",
    path: `/iam/v2beta1/roles/${CHILD}?updateMask=capabilities%2Cdescription`,
    body: { capabilities: ["CAP_A", "CAP_B"], description: "d" },
  },
  {
    name: "roles.delete",
    call: (c) => c.roles.delete(CHILD),
    response: {},
    method: "DELETE",
    path: `/iam/v2beta1/roles/${CHILD}`,
  },
  // role bindings
  {
    name: "roleBindings.list",
    call: (c) => c.roleBindings.list({ identity: "i/d", group: FOLDER, role: ROLE_BUILTIN }),
    response: { roleBindings: [binding] },
    method: "GET",
    path: `/iam/v2beta1/roleBindings?identity=i%2Fd&group=${encodeURIComponent(FOLDER)}&role=${ROLE_BUILTIN}`,
  },
  {
    name: "roleBindings.get",
    call: (c) => c.roleBindings.get(CHILD),
    response: binding,
    method: "GET",
    path: `/iam/v2beta1/roleBindings/${CHILD}`,
    check: (r) => expect((r as typeof binding).role.name).toBe("viewer"),
  },
  {
    name: "roleBindings.create",
    call: (c) =>
      c.roleBindings.create(FOLDER, { identityUid: `${ORG}/00000000000000bb`, roleUid: ROLE_BUILTIN }),
    response: binding,
    method: "POST",
    path: `/iam/v2beta1/roleBindings/${FOLDER}`,
    body: { identityUid: `${ORG}/00000000000000bb`, roleUid: ROLE_BUILTIN },
  },
  {
    name: "roleBindings.batchCreate",
    call: (c) =>
      c.roleBindings.batchCreate(
        FOLDER,
        [
          { identityUid: `${ORG}/00000000000000bb` },
          { identityUid: `${ORG}/00000000000000cc`, roleUid: ROLE_BUILTIN },
        ],
        { roleUid: ROLE_BUILTIN },
      ),
    response: { roleBindings: [binding, binding] },
    method: "POST",
    path: `/iam/v2beta1/roleBindings:batchCreate`,
    body: {
      parent: FOLDER,
      roleUid: ROLE_BUILTIN,
      requests: [
        { roleBinding: { identityUid: `${ORG}/00000000000000bb` } },
        { roleBinding: { identityUid: `${ORG}/00000000000000cc`, roleUid: ROLE_BUILTIN } },
      ],
    },
    check: (r) => expect((r as (typeof binding)[]).map((b) => b.uid)).toEqual([CHILD, CHILD]),
  },
  {
    name: "roleBindings.update",
    call: (c) => c.roleBindings.update(CHILD, { roleUid: ROLE_BUILTIN }),
    response: binding,
    method: "PATCH",
    path: `/iam/v2beta1/roleBindings/${CHILD}?updateMask=roleUid`,
    body: { roleUid: ROLE_BUILTIN },
  },
  {
    name: "roleBindings.delete",
    call: (c) => c.roleBindings.delete(CHILD),
    response: {},
    method: "DELETE",
    path: `/iam/v2beta1/roleBindings/${CHILD}`,
  },
  // identity providers
  {
    name: "identityProviders.list",
    call: (c) => c.identityProviders.list({ descendantsOf: ORG }),
    response: { identityProviders: [idp] },
    method: "GET",
    path: `/iam/v2beta1/identityProviders?uidp.descendants_of=${ORG}`,
  },
  {
    name: "identityProviders.get",
    call: (c) => c.identityProviders.get(CHILD),
    response: idp,
    method: "GET",
    path: `/iam/v2beta1/identityProviders/${CHILD}`,
  },
  {
    name: "identityProviders.create",
    call: (c) =>
      c.identityProviders.create(ORG, {
        name: "okta",
        defaultRole: ROLE_BUILTIN,
        oidc: { issuer: "https://okta", clientId: "c", clientSecret: "s" },
      }),
    response: idp,
    method: "POST",
    path: `/iam/v2beta1/identityProviders/${ORG}`,
    body: {
      name: "okta",
      defaultRole: ROLE_BUILTIN,
      oidc: { issuer: "https://okta", clientId: "c", clientSecret: "s" },
    },
  },
  {
    name: "identityProviders.update",
    call: (c) => c.identityProviders.update(CHILD, { name: "okta2" }),
    response: idp,
    method: "PATCH",
    path: `/iam/v2beta1/identityProviders/${CHILD}?updateMask=name`,
    body: { name: "okta2" },
  },
  {
    name: "identityProviders.delete",
    call: (c) => c.identityProviders.delete(CHILD),
    response: {},
    method: "DELETE",
    path: `/iam/v2beta1/identityProviders/${CHILD}`,
  },
  // group invites (no update)
  {
    name: "groupInvites.list",
    call: (c) => c.groupInvites.list({ childrenOf: FOLDER, keyId: "k1" }),
    response: { groupInvites: [invite] },
    method: "GET",
    path: `/iam/v2beta1/groupInvites?uidp.children_of=${encodeURIComponent(FOLDER)}&key_id=k1`,
  },
  {
    name: "groupInvites.get",
    call: (c) => c.groupInvites.get(CHILD),
    response: invite,
    method: "GET",
    path: `/iam/v2beta1/groupInvites/${CHILD}`,
  },
  {
    name: "groupInvites.create",
    call: (c) => c.groupInvites.create(FOLDER, { roleUid: ROLE_BUILTIN, ttl: "3600s", singleUse: true }),
    response: invite,
    method: "POST",
    path: `/iam/v2beta1/groupInvites/${FOLDER}`,
    body: { roleUid: ROLE_BUILTIN, ttl: "3600s", singleUse: true },
    check: (r) => expect((r as typeof invite).code).toBe("secret-code"),
  },
  {
    name: "groupInvites.delete",
    call: (c) => c.groupInvites.delete(CHILD),
    response: {},
    method: "DELETE",
    path: `/iam/v2beta1/groupInvites/${CHILD}`,
  },
  // account associations: keyed by the group uid
  {
    name: "accountAssociations.list",
    call: (c) => c.accountAssociations.list({ inRoot: true, ids: [ORG, FOLDER] }),
    response: { accountAssociations: [association] },
    method: "GET",
    path: `/iam/v2beta1/accountAssociations?uidp.in_root=true&uidp.ids=${ORG}&uidp.ids=${encodeURIComponent(FOLDER)}`,
  },
  {
    name: "accountAssociations.get",
    call: (c) => c.accountAssociations.get(FOLDER),
    response: association,
    method: "GET",
    path: `/iam/v2beta1/accountAssociations/${FOLDER}`,
  },
  {
    name: "accountAssociations.create",
    call: (c) => c.accountAssociations.create(FOLDER, { name: "aa", amazon: { account: "123456789012" } }),
    response: association,
    method: "POST",
    path: `/iam/v2beta1/accountAssociations/${FOLDER}`,
    body: { name: "aa", amazon: { account: "123456789012" } },
  },
  {
    name: "accountAssociations.update",
    call: (c) => c.accountAssociations.update(FOLDER, { google: { projectId: "p", projectNumber: "1" } }),
    response: association,
    method: "PATCH",
    path: `/iam/v2beta1/accountAssociations/${FOLDER}?updateMask=google`,
    body: { google: { projectId: "p", projectNumber: "1" } },
  },
  {
    name: "accountAssociations.delete",
    call: (c) => c.accountAssociations.delete(FOLDER),
    response: {},
    method: "DELETE",
    path: `/iam/v2beta1/accountAssociations/${FOLDER}`,
  },
  // registry
  {
    name: "repos.list",
    call: (c) => c.repos.list({ descendantsOf: ORG, orderBy: "created_at desc" }),
    response: { repos: [repo], totalCount: "1" },
    method: "GET",
    path: `/registry/v2beta1/repos?uidp.descendants_of=${ORG}&order_by=created_at%20desc`,
  },
  {
    name: "repos.get",
    call: (c) => c.repos.get(CHILD),
    response: repo,
    method: "GET",
    path: `/registry/v2beta1/repos/${CHILD}`,
  },
  {
    name: "tags.list",
    call: (c) => c.tags.list({ repo: CHILD, name: "latest", includeReferrers: false, digest: "sha256:abc" }),
    response: { tags: [tag] },
    method: "GET",
    path: `/registry/v2beta1/tags?name=latest&include_referrers=false&digest=sha256%3Aabc&uidp.children_of=${encodeURIComponent(CHILD)}`,
  },
  {
    name: "tags.get",
    call: (c) => c.tags.get(tag.uid),
    response: tag,
    method: "GET",
    path: `/registry/v2beta1/tags/${tag.uid}`,
  },
  // vulnerabilities
  {
    name: "advisories.list",
    call: (c) =>
      c.advisories.list({
        advisoryIds: ["CGA-1", "CGA-2"],
        aliases: ["CVE-2024-1"],
        artifactNames: ["nginx"],
        componentNames: ["openssl"],
        eventTypes: ["EVENT_TYPE_FILTER_FIXED"],
        query: "ssl",
      }),
    response: { advisories: [advisory] },
    method: "GET",
    path: "/vulnerabilities/v2beta1/advisories?advisory_ids=CGA-1&advisory_ids=CGA-2&aliases=CVE-2024-1&artifact_names=nginx&component_names=openssl&event_types=EVENT_TYPE_FILTER_FIXED&query=ssl",
  },
  {
    name: "advisories.get",
    call: (c) => c.advisories.get("adv-1"),
    response: advisory,
    method: "GET",
    path: "/vulnerabilities/v2beta1/advisories/adv-1",
  },
  // v1
  {
    name: "v1.groups.list",
    call: (c) => c.v1.groups.list({ descendantsOf: ORG }),
    response: { items: [{ id: ORG, name: "acme", createdAt: NOW }] },
    method: "GET",
    path: `/iam/v1/groups?uidp.descendants_of=${ORG}`,
    check: (r) => expect(r).toEqual([{ id: ORG, name: "acme", createdAt: NOW }]),
  },
  {
    name: "v1.repos.list",
    call: (c) => c.v1.repos.list(),
    response: { items: [{ id: CHILD, name: "nginx" }] },
    method: "GET",
    path: "/registry/v1/repos",
    check: (r) => expect(r).toEqual([{ id: CHILD, name: "nginx" }]),
  },
];

describe("every resource verb", () => {
  it.each(cases.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const { api, client } = harness();
    const seen = answer(api, 200, c.response);
    const result = await c.call(client);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.method).toBe(c.method);
    expect(seen[0]?.path).toBe(c.path);
    expect(seen[0]?.body).toEqual(c.body);
    if (c.method === "DELETE") expect(result).toBeUndefined();
    if (c.method === "GET" && c.path.includes("?") && !c.name.startsWith("v1")) {
      expect((result as { items: unknown[] }).items).toHaveLength(1);
    }
    c.check?.(result);
  });

  it("group invites have no update verb", () => {
    const { client } = harness();
    expect((client.groupInvites as unknown as Record<string, unknown>).update).toBeUndefined();
  });

  it("tags.list refuses repo together with a different childrenOf", async () => {
    const { client } = harness();
    await expect(client.tags.list({ repo: CHILD, childrenOf: ORG })).rejects.toThrow(
      /either repo or childrenOf/,
    );
  });

  it("lists without filters send no query string", async () => {
    const { api, client } = harness();
    const seen = answer(api, 200, { roles: [] });
    const page = await client.roles.list();
    expect(seen[0]?.path).toBe("/iam/v2beta1/roles");
    expect(page).toEqual({ items: [], nextPageToken: undefined, totalCount: undefined, skipped: 0 });
  });
});
