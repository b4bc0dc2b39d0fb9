/** Per-resource rules: identities, role bindings, identity providers, invites, account associations, registry, advisories, v1. */
import { RFC3339_MS, advisoryIds, details, start, type Api } from "./helpers";

let api: Api;
let org: string;
let folder: string;
let viewerRole: string;

beforeAll(async () => {
  api = await start({
    seed: {
      repos: [
        {
          name: "nginx",
          description: "web",
          tags: [
            { name: "latest", digest: "sha256:aaa" },
            { name: "1.27", digest: "sha256:bbb" },
          ],
        },
        { name: "redis" },
      ],
      advisories: [
        {
          advisoryId: "CGA-1111",
          aliases: ["CVE-2024-0001"],
          artifactName: "nginx",
          componentName: "openssl",
        },
        {
          advisoryId: "CGA-2222",
          aliases: ["CVE-2024-0002", "GHSA-xxxx"],
          artifactName: "redis",
          componentName: "jemalloc",
        },
      ],
    },
  });
  org = api.emulator.orgUid;
  folder = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "folder" })).body.uid;
  viewerRole = (await api.get("/iam/v2beta1/roles?name=viewer")).body.roles[0].uid;
});
afterAll(() => api.emulator.close());

describe("identities", () => {
  test("create, get, patch with mask, list by name, delete", async () => {
    const created = await api.post(`/iam/v2beta1/identities/${folder}`, {
      name: "deployer",
      claimMatch: { issuer: "https://token.actions.githubusercontent.com", subjectPattern: "repo:acme/.*" },
    });
    expect(created.status).toBe(200);
    // Never federated: lastSeenTime is the creation time (sts.test.ts moves it with an exchange).
    expect(created.body.lastSeenTime).toBe(created.body.createTime);
    const patched = await api.patch(`/iam/v2beta1/identities/${created.body.uid}?updateMask=description`, {
      description: "ci",
      name: "ignored",
    });
    expect(patched.body).toEqual(expect.objectContaining({ name: "deployer", description: "ci" }));
    expect(patched.body.claimMatch.subjectPattern).toBe("repo:acme/.*");
    const listed = await api.get(`/iam/v2beta1/identities?uidp.descendants_of=${org}&name=deployer`);
    expect(listed.body.identities.map((i: { uid: string }) => i.uid)).toEqual([created.body.uid]);
    expect((await api.del(`/iam/v2beta1/identities/${created.body.uid}`)).status).toBe(200);
  });

  test("an invalid subjectPattern is a field violation", async () => {
    const r = await api.post(`/iam/v2beta1/identities/${folder}`, {
      name: "x",
      claimMatch: { issuer: "https://i", subjectPattern: "(" },
    });
    expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual(["claimMatch.subjectPattern"]);
  });
});

describe("role bindings", () => {
  test("create hydrates identity, group and role; createTime and no updateTime", async () => {
    const identity = (
      await api.post(`/iam/v2beta1/identities/${folder}`, {
        name: "bound",
        description: "d",
        claimMatch: { issuer: "https://iss", subject: "sub" },
      })
    ).body;
    const r = await api.post(`/iam/v2beta1/roleBindings/${folder}`, {
      identityUid: identity.uid,
      roleUid: viewerRole,
    });
    expect(r.status).toBe(200);
    expect(r.body.uid).toMatch(new RegExp(`^${folder}/[0-9a-f]{16}$`));
    expect(r.body.identity).toEqual({
      uid: identity.uid,
      name: "bound",
      description: "d",
      issuer: "https://iss",
      subject: "sub",
    });
    expect(r.body.group).toEqual({ uid: folder, name: "folder", description: "" });
    expect(r.body.role).toEqual(expect.objectContaining({ uid: viewerRole, name: "viewer" }));
    expect(r.body.createTime).toMatch(RFC3339_MS);
    expect(r.body).not.toHaveProperty("updateTime");
    const byIdentity = await api.get(`/iam/v2beta1/roleBindings?identity=${identity.uid}`);
    expect(byIdentity.body.roleBindings.map((b: { uid: string }) => b.uid)).toEqual([r.body.uid]);
    const byRoleAndGroup = await api.get(`/iam/v2beta1/roleBindings?role=${viewerRole}&group=${folder}`);
    expect(byRoleAndGroup.body.totalCount).toBe("1");
  });

  test("an unknown identity or role is a field violation", async () => {
    const r = await api.post(`/iam/v2beta1/roleBindings/${folder}`, {
      identityUid: `${org}/0123456789abcdef`,
      roleUid: viewerRole,
    });
    expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual(["identityUid"]);
    const bad = await api.post(`/iam/v2beta1/roleBindings/${folder}`, { identityUid: "x", roleUid: "y" });
    expect(
      details(bad.body)
        .fieldViolations.map((v) => v.field)
        .sort(),
    ).toEqual(["identityUid", "roleUid"]);
  });
});

describe("identity providers", () => {
  const body = () => ({
    name: "okta",
    defaultRole: viewerRole,
    oidc: { issuer: "https://sso.example.com", clientId: "cid", clientSecret: "s3cret" },
  });

  test("oidc.clientSecret is accepted and stored but never returned", async () => {
    const r = await api.post(`/iam/v2beta1/identityProviders/${org}`, body());
    expect(r.status).toBe(200);
    expect(r.body.oidc).toEqual({ issuer: "https://sso.example.com", clientId: "cid" });
    expect(r.text).not.toContain("s3cret");
    const patched = await api.patch(`/iam/v2beta1/identityProviders/${r.body.uid}`, {
      oidc: { issuer: "https://sso2.example.com", clientId: "cid" },
    });
    expect(patched.text).not.toContain("s3cret");
    expect((await api.get(`/iam/v2beta1/identityProviders/${r.body.uid}`)).text).not.toContain("s3cret");
    expect((await api.get(`/iam/v2beta1/identityProviders`)).text).not.toContain("s3cret");
    expect(
      api.emulator
        .requestLog()
        .map((e) => JSON.stringify(e))
        .join(),
    ).not.toContain("s3cret");
  });

  test("only organizations (root groups) may have identity providers: code 9 otherwise", async () => {
    const r = await api.post(`/iam/v2beta1/identityProviders/${folder}`, body());
    expect(r.body.code).toBe(9);
  });

  test("an organization holding an identity provider cannot be deleted", async () => {
    const second = (await api.post("/iam/v2beta1/groups", { name: "idp org" })).body.uid;
    await api.post(`/iam/v2beta1/identityProviders/${second}`, body());
    const r = await api.del(`/iam/v2beta1/groups/${second}`);
    expect(details(r.body).violations[0]?.description).toContain("1 identity provider");
  });
});

describe("group invites", () => {
  test("ttl gives expirationTime; code only on create; no PATCH", async () => {
    const before = api.emulator.clock.now().getTime();
    const r = await api.post(`/iam/v2beta1/groupInvites/${folder}`, {
      roleUid: viewerRole,
      ttl: "3600s",
      email: "a@example.com",
    });
    expect(r.status).toBe(200);
    expect(r.body.code).toEqual(expect.any(String));
    const expires = Date.parse(r.body.expirationTime) - before;
    expect(expires).toBeGreaterThanOrEqual(3600_000);
    expect(expires).toBeLessThan(3600_000 + 5000);
    expect(r.body.role).toEqual(expect.objectContaining({ uid: viewerRole, name: "viewer" }));
    const got = await api.get(`/iam/v2beta1/groupInvites/${r.body.uid}`);
    expect(got.body).not.toHaveProperty("code");
    expect(got.body.email).toBe("a@example.com");
    expect(
      (await api.patch(`/iam/v2beta1/groupInvites/${r.body.uid}`, { email: "b@example.com" })).body.code,
    ).toBe(12);
    const bad = await api.post(`/iam/v2beta1/groupInvites/${folder}`, { roleUid: viewerRole, ttl: "1h" });
    expect(details(bad.body).fieldViolations.map((v) => v.field)).toEqual(["ttl"]);
    expect((await api.del(`/iam/v2beta1/groupInvites/${r.body.uid}`)).status).toBe(200);
  });
});

describe("account associations", () => {
  test("one per group, addressed by the group's uid; a second create is code 6", async () => {
    const group = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "assoc" })).body.uid;
    const r = await api.post(`/iam/v2beta1/accountAssociations/${group}`, {
      name: "aws",
      amazon: { account: "123456789012" },
    });
    expect(r.status).toBe(200);
    expect(r.body.uid).toBe(group);
    const again = await api.post(`/iam/v2beta1/accountAssociations/${group}`, { name: "aws" });
    expect([again.status, again.body.code]).toEqual([409, 6]);
    const patched = await api.patch(`/iam/v2beta1/accountAssociations/${group}`, {
      google: { projectId: "p", projectNumber: "42" },
    });
    expect(patched.body).toEqual(
      expect.objectContaining({
        name: "aws",
        amazon: { account: "123456789012" },
        google: { projectId: "p", projectNumber: "42" },
      }),
    );
    const bad = await api.patch(`/iam/v2beta1/accountAssociations/${group}`, { amazon: { account: "12" } });
    expect(details(bad.body).fieldViolations.map((v) => v.field)).toEqual(["amazon.account"]);
    expect(
      (await api.get(`/iam/v2beta1/accountAssociations?uidp.children_of=${group}`)).body.accountAssociations,
    ).toHaveLength(1);
    expect((await api.del(`/iam/v2beta1/accountAssociations/${group}`)).status).toBe(200);
    expect((await api.get(`/iam/v2beta1/accountAssociations/${group}`)).body.code).toBe(5);
  });
});

describe("registry and advisories (seeded, read-only)", () => {
  test("repos and tags list and get; no writes through v2beta1", async () => {
    const repos = await api.get(`/registry/v2beta1/repos?uidp.descendants_of=${org}&order_by=name`);
    expect(repos.body.repos.map((r: { name: string }) => r.name)).toEqual(["nginx", "redis"]);
    const nginx = repos.body.repos[0];
    expect(nginx.uid).toMatch(new RegExp(`^${org}/[0-9a-f]{16}$`));
    expect(nginx.createTime).toMatch(RFC3339_MS);
    const tags = await api.get(`/registry/v2beta1/tags?uidp.children_of=${nginx.uid}&order_by=name`);
    expect(tags.body.tags.map((t: { name: string; digest: string }) => [t.name, t.digest])).toEqual([
      ["1.27", "sha256:bbb"],
      ["latest", "sha256:aaa"],
    ]);
    expect((await api.get(`/registry/v2beta1/tags/${tags.body.tags[0].uid}`)).body.name).toBe("1.27");
    expect((await api.get(`/registry/v2beta1/tags?digest=sha256:aaa`)).body.tags).toHaveLength(1);
    expect((await api.post(`/registry/v2beta1/repos/${org}`, { name: "x" })).body.code).toBe(12);
  });

  test("advisories filter by advisoryIds, aliases, artifactNames, componentNames and query", async () => {
    const ids = (query: string) => advisoryIds(api, query);
    expect(await ids("")).toEqual(["CGA-1111", "CGA-2222"]);
    expect(await ids("advisoryIds=CGA-1111")).toEqual(["CGA-1111"]);
    expect(await ids("aliases=GHSA-xxxx")).toEqual(["CGA-2222"]);
    expect(await ids("artifactNames=nginx&artifactNames=redis")).toEqual(["CGA-1111", "CGA-2222"]);
    expect(await ids("componentNames=openssl")).toEqual(["CGA-1111"]);
    expect(await ids("query=jemalloc")).toEqual(["CGA-2222"]);
    expect(await ids("query=cve-2024-0001")).toEqual(["CGA-1111"]);
    expect(await ids("artifactNames=nginx&componentNames=jemalloc")).toEqual([]);
  });
});

describe("v1", () => {
  test("GET /iam/v1/groups and /registry/v1/repos use items, id, createdAt, updatedAt", async () => {
    const groups = await api.get(`/iam/v1/groups?uidp.children_of=${org}&name=folder`);
    expect(groups.body.items).toEqual([
      expect.objectContaining({
        id: folder,
        name: "folder",
        resourceLimits: { clusters: 0, idps: 0, repositories: 0 },
      }),
    ]);
    expect(groups.body.items[0].createdAt).toMatch(RFC3339_MS);
    const repos = await api.get(`/registry/v1/repos`);
    expect(repos.body.items.map((r: { name: string }) => r.name).sort()).toEqual(["nginx", "redis"]);
    expect(repos.body.items[0]).toHaveProperty("id");
  });

  test('a v1 update resets omitted fields (description → "")', async () => {
    const created = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "v1", description: "will reset" }))
      .body;
    const put = await api.call("PUT", `/iam/v1/groups/${created.uid}`, { body: { name: "v1 renamed" } });
    expect(put.body).toEqual(
      expect.objectContaining({ id: created.uid, name: "v1 renamed", description: "" }),
    );
    expect((await api.get(`/iam/v2beta1/groups/${created.uid}`)).body.description).toBe("");
  });
});
