/**
 * Property: random malformed requests (bodies, query parameters, paths, methods, content types) never get a
 * 5xx, always get an AIP-193 body when rejected, and a rejected request changes no object.
 * Fixed seed and bounded runs keep it repeatable and fast.
 */
import { COLLECTIONS, IAM_COLLECTIONS } from "../../sdk/collections";
import fc from "fast-check";
import { start, type Api } from "./helpers";

let api: Api;
let targets: string[];

beforeAll(async () => {
  api = await start({
    seed: {
      repos: [{ name: "nginx", tags: [{ name: "latest", digest: "sha256:a" }] }],
      advisories: [{ advisoryId: "CGA-1" }],
    },
  });
  const org = api.emulator.orgUid;
  const viewer = (await api.get("/iam/v2beta1/roles?name=viewer")).body.roles[0].uid;
  const folder = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "folder" })).body.uid;
  const identity = (
    await api.post(`/iam/v2beta1/identities/${folder}`, {
      name: "bot",
      claimMatch: { issuer: "https://i", subject: "s" },
    })
  ).body.uid;
  const role = (
    await api.post(`/iam/v2beta1/roles/${org}`, { name: "r", capabilities: ["CAP_IAM_GROUPS_LIST"] })
  ).body.uid;
  const binding = (
    await api.post(`/iam/v2beta1/roleBindings/${folder}`, { identityUid: identity, roleUid: role })
  ).body.uid;
  const idp = (
    await api.post(`/iam/v2beta1/identityProviders/${org}`, {
      name: "sso",
      defaultRole: viewer,
      oidc: { issuer: "https://sso.example.com", clientId: "c" },
    })
  ).body.uid;
  await api.post(`/iam/v2beta1/accountAssociations/${folder}`, { name: "aws" });
  targets = [
    "/iam/v2beta1/groups",
    `/iam/v2beta1/groups/${org}`,
    `/iam/v2beta1/groups/${folder}`,
    `/iam/v2beta1/identities/${folder}`,
    `/iam/v2beta1/identities/${identity}`,
    `/iam/v2beta1/roles/${org}`,
    `/iam/v2beta1/roles/${role}`,
    `/iam/v2beta1/roles/${viewer}`,
    `/iam/v2beta1/roleBindings/${folder}`,
    `/iam/v2beta1/roleBindings/${binding}`,
    `/iam/v2beta1/identityProviders/${folder}`,
    `/iam/v2beta1/identityProviders/${idp}`,
    `/iam/v2beta1/groupInvites/${folder}`,
    `/iam/v2beta1/accountAssociations/${folder}`,
    "/registry/v2beta1/repos",
    "/registry/v2beta1/tags",
    "/vulnerabilities/v2beta1/advisories",
    `/iam/v1/groups/${folder}`,
    "/sts/exchange",
    "/_emulator/faults",
    "/nowhere",
  ];
});
afterAll(() => api.emulator.close());

/** Everything the bootstrap owner can see, to compare before and after a rejected request. */
async function snapshot(): Promise<string> {
  const org = api.emulator.orgUid;
  const paths = IAM_COLLECTIONS.map(
    (c) => `${COLLECTIONS[c].path}?uidp.descendants_of=${org}&page_size=200&order_by=uid`,
  );
  const bodies = await Promise.all(
    [...paths, `/iam/v2beta1/groups/${org}`, "/_emulator/faults"].map((p) => api.get(p).then((r) => r.text)),
  );
  return bodies.join("\n");
}

const jsonish = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record(
    {
      name: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string())),
      description: fc.oneof(fc.string(), fc.boolean()),
      claimMatch: fc.oneof(
        fc.jsonValue({ maxDepth: 2 }),
        fc.record({ issuer: fc.jsonValue({ maxDepth: 1 }), subjectPattern: fc.string() }),
      ),
      capabilities: fc.oneof(fc.array(fc.string()), fc.string()),
      identityUid: fc.oneof(fc.string(), fc.integer()),
      roleUid: fc.string(),
      ttl: fc.oneof(fc.string(), fc.integer()),
      oidc: fc.jsonValue({ maxDepth: 2 }),
      amazon: fc.record({ account: fc.oneof(fc.string(), fc.integer()) }),
      action: fc.string(),
    },
    { requiredKeys: [] },
  ),
);

const body = fc.oneof(
  jsonish.map((v) => JSON.stringify(v)),
  fc.string(),
  fc.constantFrom("", "{", '{"name":', "[]", "null", "\u0000", '{"name":"ok"}garbage'),
);

const query = fc.dictionary(
  fc.constantFrom(
    "page_size",
    "pageSize",
    "skip",
    "page_token",
    "order_by",
    "orderBy",
    "uidp.descendants_of",
    "uidp.children_of",
    "name",
    "updateMask",
    "identity",
    "aud",
    "artifactNames",
  ),
  fc.oneof(
    fc.string(),
    fc.integer().map(String),
    fc.constantFrom("-1", "1e3", "name desc", "uid", "9999999999999999999", "%", "name,description"),
  ),
  { maxKeys: 3 },
);

const suffix = fc.oneof(
  fc.constant(""),
  fc.constantFrom("/", "/..", "/0123456789abcdef", "//x", "/%zz", "/%2F", ":lookupGroup"),
  fc.string({ maxLength: 12 }).map((s) => `/${encodeURIComponent(s)}`),
);

const request = fc.record({
  method: fc.constantFrom("GET", "POST", "PATCH", "PUT", "DELETE"),
  target: fc.nat(),
  suffix,
  query,
  body: fc.option(body, { nil: undefined }),
  contentType: fc.constantFrom(
    "application/json",
    "text/plain",
    "application/x-www-form-urlencoded",
    undefined,
  ),
});

describe("malformed requests", () => {
  test("never a 5xx; rejections are AIP-193 bodies and change nothing", async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const path = targets[r.target % targets.length]! + r.suffix;
        const search = new URLSearchParams(r.query).toString();
        const url = `${path}${search ? `?${search}` : ""}`;
        const before = await snapshot();
        const headers: Record<string, string> = {};
        if (r.contentType !== undefined) headers["content-type"] = r.contentType;
        const sendsBody = r.body !== undefined && r.method !== "GET";
        const response = await api.call(r.method, url, { ...(sendsBody ? { raw: r.body! } : {}), headers });
        expect(response.status).toBeLessThan(500);
        if (response.status >= 400) {
          expect(response.body).toEqual(
            expect.objectContaining({
              code: expect.any(Number),
              message: expect.any(String),
              details: expect.any(Array),
            }),
          );
          expect(response.body.code).not.toBe(13);
          expect(await snapshot()).toBe(before);
        }
        await api.call("DELETE", "/_emulator/faults", { token: null });
      }),
      { seed: 20261122, numRuns: 150, interruptAfterTimeLimit: 20_000 },
    );
  }, 30_000);
});
