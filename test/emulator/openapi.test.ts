/**
 * Response bodies validate against the OpenAPI schemas of the paths they serve (required members and
 * primitive types, $ref/allOf resolved) and against the SDK's zod wire schemas.
 */
import * as schemas from "../../sdk/schemas";
import { check, checkResponse } from "./openapi";
import { start, type Api } from "./helpers";

let api: Api;
const served: { method: string; path: string; body: unknown }[] = [];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire bodies are read loosely here; the checks below validate them
async function record(method: string, path: string, body?: unknown): Promise<Record<string, any>> {
  const r = await api.call(method, path, body === undefined ? {} : { body });
  expect(r.status).toBe(200);
  served.push({ method, path: path.split("?")[0]!, body: r.body });
  return r.body;
}

beforeAll(async () => {
  api = await start({
    seed: {
      repos: [{ name: "nginx", tags: [{ name: "latest", digest: "sha256:abc" }] }],
      advisories: [
        {
          advisoryId: "CGA-1",
          aliases: ["CVE-1"],
          artifactName: "nginx",
          componentName: "openssl",
          events: [{ author: "bot" }],
        },
      ],
    },
  });
  const org = api.emulator.orgUid;
  const viewer = (await record("GET", "/iam/v2beta1/roles?name=viewer")).roles[0].uid;
  const group = await record("POST", `/iam/v2beta1/groups/${org}`, { name: "folder", description: "d" });
  await record("GET", `/iam/v2beta1/groups/${group.uid}`);
  await record("PATCH", `/iam/v2beta1/groups/${group.uid}`, { description: "e" });
  await record("GET", `/iam/v2beta1/groups?uidp.descendants_of=${org}&page_size=1`);
  const identity = await record("POST", `/iam/v2beta1/identities/${group.uid}`, {
    name: "bot",
    claimMatch: { issuer: "https://i", subject: "s" },
  });
  await record("GET", `/iam/v2beta1/identities/${identity.uid}`);
  await record("PATCH", `/iam/v2beta1/identities/${identity.uid}`, { description: "x" });
  await record("GET", "/iam/v2beta1/identities");
  const role = await record("POST", `/iam/v2beta1/roles/${org}`, {
    name: "custom",
    capabilities: ["CAP_IAM_GROUPS_LIST"],
  });
  await record("GET", `/iam/v2beta1/roles/${role.uid}`);
  await record("GET", `/iam/v2beta1/roles/${viewer}`);
  await record("PATCH", `/iam/v2beta1/roles/${role.uid}`, { description: "x" });
  const binding = await record("POST", `/iam/v2beta1/roleBindings/${group.uid}`, {
    identityUid: identity.uid,
    roleUid: role.uid,
  });
  await record("GET", `/iam/v2beta1/roleBindings/${binding.uid}`);
  await record("PATCH", `/iam/v2beta1/roleBindings/${binding.uid}`, { roleUid: viewer });
  await record("GET", "/iam/v2beta1/roleBindings");
  const idp = await record("POST", `/iam/v2beta1/identityProviders/${org}`, {
    name: "sso",
    defaultRole: viewer,
    oidc: { issuer: "https://sso.example.com", clientId: "c", clientSecret: "s" },
  });
  await record("GET", `/iam/v2beta1/identityProviders/${idp.uid}`);
  await record("PATCH", `/iam/v2beta1/identityProviders/${idp.uid}`, { description: "x" });
  await record("GET", "/iam/v2beta1/identityProviders");
  const invite = await record("POST", `/iam/v2beta1/groupInvites/${group.uid}`, {
    roleUid: viewer,
    ttl: "60s",
  });
  await record("GET", `/iam/v2beta1/groupInvites/${invite.uid}`);
  await record("GET", "/iam/v2beta1/groupInvites");
  await record("POST", `/iam/v2beta1/accountAssociations/${group.uid}`, {
    name: "aws",
    amazon: { account: "123456789012" },
  });
  await record("GET", `/iam/v2beta1/accountAssociations/${group.uid}`);
  await record("PATCH", `/iam/v2beta1/accountAssociations/${group.uid}`, { description: "x" });
  await record("GET", "/iam/v2beta1/accountAssociations");
  const repos = await record("GET", "/registry/v2beta1/repos");
  await record("GET", `/registry/v2beta1/repos/${repos.repos[0].uid}`);
  const tags = await record("GET", "/registry/v2beta1/tags");
  await record("GET", `/registry/v2beta1/tags/${tags.tags[0].uid}`);
  const advisories = await record("GET", "/vulnerabilities/v2beta1/advisories");
  await record("GET", `/vulnerabilities/v2beta1/advisories/${advisories.advisories[0].uid}`);
  await record("DELETE", `/iam/v2beta1/groupInvites/${invite.uid}`);
});
afterAll(() => api.emulator.close());

describe("OpenAPI conformance", () => {
  test("the checker itself catches missing required members and wrong primitive types", () => {
    const groupSchema = { $ref: "#/components/schemas/platform.iam.v2beta1.Group" };
    expect(check({ uid: "x" }, groupSchema)).toEqual(["$.name: required"]);
    expect(check({ name: "n", verified: "no" }, groupSchema)).toEqual([
      "$.verified: expected boolean, got string",
    ]);
    expect(
      check(
        { groups: [{ name: 1 }], totalCount: 3 },
        { $ref: "#/components/schemas/platform.iam.v2beta1.ListGroupsResponse" },
      ),
    ).toEqual(["$.groups[0].name: expected string, got number", "$.totalCount: expected string, got number"]);
  });

  test("in strict mode it also catches values outside an enum, malformed formats and undocumented members", () => {
    const group = { $ref: "#/components/schemas/platform.iam.v2beta1.Group" };
    const valid = { uid: "u", name: "n", createTime: "2026-01-01T00:00:00.000Z", kind: "ORG_KIND_DEV" };
    expect(check(valid, group, "$", true)).toEqual([]);
    expect(check({ ...valid, kind: "ORG_KIND_NOPE" }, group, "$", true)).toEqual([
      '$.kind: "ORG_KIND_NOPE" is not one of the enum\'s values',
    ]);
    expect(check({ ...valid, createTime: "yesterday" }, group, "$", true)).toEqual([
      '$.createTime: "yesterday" is not an RFC 3339 date-time',
    ]);
    expect(check({ ...valid, bogus: 1 }, group, "$", true)).toEqual(["$.bogus: not a member of the schema"]);
    const list = { $ref: "#/components/schemas/platform.iam.v2beta1.ListGroupsResponse" };
    expect(check({ groups: [], totalCount: "x" }, list, "$", true)).toEqual([
      '$.totalCount: "x" is not an int64 string',
    ]);
    // Not strict: only required members and primitive types, as before.
    expect(check({ ...valid, kind: "ORG_KIND_NOPE", bogus: 1 }, group)).toEqual([]);
  });

  test("every recorded response body matches its path's OpenAPI response schema", () => {
    expect(served.length).toBeGreaterThan(30);
    const problems = served.flatMap((s) =>
      checkResponse(s.method, s.path, s.body).map((p) => `${s.method} ${s.path}: ${p}`),
    );
    expect(problems).toEqual([]);
  });

  test("token exchange answers the OpenAPI RawToken shape", async () => {
    const org = api.emulator.orgUid;
    const identity = (
      await api.post(`/iam/v2beta1/identities/${org}`, {
        name: "w",
        claimMatch: { issuer: `${api.emulator.url}/oidc`, subject: "w" },
      })
    ).body;
    const r = await api.get(
      `/sts/exchange?identity=${encodeURIComponent(identity.uid)}`,
      await api.emulator.mintIdToken({ subject: "w" }),
    );
    expect(checkResponse("GET", "/sts/exchange", r.body)).toEqual([]);
    expect(schemas.ExchangeResponse.safeParse(r.body).success).toBe(true);
  });

  test("list and object bodies also parse with the SDK's zod schemas", () => {
    const bySuffix: [RegExp, { safeParse(v: unknown): { success: boolean } }][] = [
      [/^\/iam\/v2beta1\/groups$/, schemas.GroupList],
      [/^\/iam\/v2beta1\/groups\/.+/, schemas.Group],
      [/^\/iam\/v2beta1\/identities$/, schemas.IdentityList],
      [/^\/iam\/v2beta1\/identities\/.+/, schemas.Identity],
      [/^\/iam\/v2beta1\/roles$/, schemas.RoleList],
      [/^\/iam\/v2beta1\/roles\/.+/, schemas.Role],
      [/^\/iam\/v2beta1\/roleBindings$/, schemas.RoleBindingList],
      [/^\/iam\/v2beta1\/roleBindings\/.+/, schemas.RoleBinding],
      [/^\/iam\/v2beta1\/identityProviders$/, schemas.IdentityProviderList],
      [/^\/iam\/v2beta1\/identityProviders\/.+/, schemas.IdentityProvider],
      [/^\/iam\/v2beta1\/groupInvites$/, schemas.GroupInviteList],
      [/^\/iam\/v2beta1\/accountAssociations$/, schemas.AccountAssociationList],
      [/^\/iam\/v2beta1\/accountAssociations\/.+/, schemas.AccountAssociation],
      [/^\/registry\/v2beta1\/repos$/, schemas.RepoList],
      [/^\/registry\/v2beta1\/repos\/.+/, schemas.Repo],
      [/^\/registry\/v2beta1\/tags$/, schemas.TagList],
      [/^\/registry\/v2beta1\/tags\/.+/, schemas.Tag],
      [/^\/vulnerabilities\/v2beta1\/advisories$/, schemas.AdvisoryList],
      [/^\/vulnerabilities\/v2beta1\/advisories\/.+/, schemas.Advisory],
    ];
    const failures: string[] = [];
    for (const s of served) {
      if (s.method === "DELETE") continue;
      const schema = bySuffix.find(([pattern]) => pattern.test(s.path))?.[1];
      if (schema !== undefined && !schema.safeParse(s.body).success) failures.push(`${s.method} ${s.path}`);
    }
    expect(failures).toEqual([]);
  });
});
