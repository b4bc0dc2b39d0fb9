/**
 * What the real service's clients call and send: the identity lookups (v2beta1 lookupIdentity, v1
 * identities/lookup), the `id` filter of v1 lists (point 5), organizations created by an assumed identity with
 * the right role (point 7), and field types as the OpenAPI gives them (point 8).
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { details, enc, type Api, startInOrg } from "./helpers";

let api: Api;
let org: string;
let roles: Record<string, string>;

beforeAll(async () => {
  ({ api, org } = await startInOrg());
  const listed = (await api.get("/iam/v2beta1/roles")).body.roles as { uid: string; name: string }[];
  roles = Object.fromEntries(listed.map((r) => [r.name, r.uid]));
});
afterAll(() => api.emulator.close());

const ISSUER = "https://token.actions.example";
let counter = 0;

async function identityIn(group: string, subject: string) {
  const r = await api.post(`/iam/v2beta1/identities/${group}`, {
    name: `who-${++counter}`,
    claimMatch: { issuer: ISSUER, subject },
  });
  expect(r.status).toBe(200);
  return r.body.uid as string;
}

/** A workload identity in the organization with `role` on it, and an exchanged token. */
async function assumed(role: string): Promise<{ uid: string; token: string }> {
  const subject = `assumed-${++counter}`;
  const uid = (
    await api.post(`/iam/v2beta1/identities/${org}`, {
      name: subject,
      claimMatch: { issuer: `${api.emulator.url}/oidc`, subject },
    })
  ).body.uid;
  await api.post(`/iam/v2beta1/roleBindings/${org}`, { identityUid: uid, roleUid: roles[role] });
  const idToken = await api.emulator.mintIdToken({ subject });
  const token = (await api.get(`/sts/exchange?identity=${enc(uid)}`, idToken)).body.token;
  return { uid, token };
}

describe("identity lookups", () => {
  test("v2beta1 lookupIdentity returns the uid of the identity with that issuer and subject", async () => {
    const uid = await identityIn(org, "repo:acme/web");
    await identityIn(org, "repo:acme/other");
    const r = await api.get(
      `/iam/v2beta1/identities:lookupIdentity?issuer=${enc(ISSUER)}&subject=${enc("repo:acme/web")}`,
    );
    expect([r.status, r.body]).toEqual([200, { uid }]);
  });

  test("unknown, or invisible to the caller: the deterministic 40-hex uid, never another organization's identity", async () => {
    const stranger = api.emulator.createUser("stranger");
    const hidden = await identityIn(org, "hidden-subject");
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 30 }), async (subject) => {
        const query = `issuer=${enc(ISSUER)}&subject=${enc(subject)}`;
        const r = await api.get(`/iam/v2beta1/identities:lookupIdentity?${query}`, stranger.token);
        expect(r.status).toBe(200);
        expect(r.body.uid).toBe(createHash("sha1").update(`${ISSUER}\n${subject}`).digest("hex"));
      }),
      { seed: 5, numRuns: 20 },
    );
    const r = await api.get(
      `/iam/v2beta1/identities:lookupIdentity?issuer=${enc(ISSUER)}&subject=hidden-subject`,
      stranger.token,
    );
    expect(r.body.uid).not.toBe(hidden);
  });

  test("lookupIdentity is a GET: another method on its path is code 12 (HTTP 405), not 5", async () => {
    const r = await api.post(`/iam/v2beta1/identities:lookupIdentity?issuer=a&subject=b`, {});
    expect([r.status, r.body.code]).toEqual([405, 12]);
  });

  test("issuer and subject are required (3 naming each); the lookup needs a token (16)", async () => {
    for (const [query, field] of [
      [`subject=s`, "issuer"],
      [`issuer=${enc(ISSUER)}`, "subject"],
      [`issuer=${enc(ISSUER)}&subject=`, "subject"],
    ] as const) {
      const r = await api.get(`/iam/v2beta1/identities:lookupIdentity?${query}`);
      expect([r.body.code, details(r.body).fieldViolations.map((v) => v.field)]).toEqual([3, [field]]);
    }
    expect((await api.get(`/iam/v2beta1/identities:lookupIdentity?issuer=a&subject=b`, null)).body.code).toBe(
      16,
    );
  });

  test("v1 identities/lookup returns the v1 identity (id, not uid), or 5", async () => {
    const uid = await identityIn(org, "v1-subject");
    const r = await api.get(`/iam/v1/identities/lookup?issuer=${enc(ISSUER)}&subject=v1-subject`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: uid, claimMatch: { issuer: ISSUER, subject: "v1-subject" } });
    expect(r.body).not.toHaveProperty("uid");
    const missing = await api.get(`/iam/v1/identities/lookup?issuer=${enc(ISSUER)}&subject=nobody`);
    expect([missing.status, missing.body.code]).toEqual([404, 5]);
  });
});

describe("v1 lists filter by id", () => {
  test("/iam/v1/groups?id= returns exactly those groups (repeatable), and nothing the caller cannot see", async () => {
    const made: string[] = [];
    for (let i = 0; i < 4; i++)
      made.push((await api.post(`/iam/v2beta1/groups/${org}`, { name: `v1-${i}` })).body.uid);
    const one = await api.get(`/iam/v1/groups?id=${enc(made[1]!)}`);
    expect(one.body.items.map((g: { id: string }) => g.id)).toEqual([made[1]]);
    const two = await api.get(`/iam/v1/groups?id=${enc(made[0]!)}&id=${enc(made[3]!)}`);
    expect(two.body.items.map((g: { id: string }) => g.id).sort()).toEqual([made[0], made[3]].sort());
    const stranger = api.emulator.createUser("no-access");
    expect((await api.get(`/iam/v1/groups?id=${enc(made[1]!)}`, stranger.token)).body.items).toEqual([]);
  });
});

describe("who may create an organization", () => {
  test("an assumed identity with CAP_IAM_GROUPS_CREATE (owner, editor) may; a viewer may not (7)", async () => {
    for (const role of ["owner", "editor"]) {
      const { uid, token } = await assumed(role);
      const r = await api.post("/iam/v2beta1/groups", { name: `by-${role}` }, token);
      expect([role, r.status]).toEqual([role, 200]);
      expect(r.body.uid).toMatch(/^[0-9a-f]{40}$/);
      const bindings = await api.get(`/iam/v2beta1/roleBindings?group=${r.body.uid}`, token);
      expect(bindings.body.roleBindings.map((b: { identity: { uid: string } }) => b.identity.uid)).toEqual([
        uid,
      ]);
    }
    const viewer = await assumed("viewer");
    const before = (await api.get("/iam/v1/groups")).body.items.length;
    const refused = await api.post("/iam/v2beta1/groups", { name: "by-viewer" }, viewer.token);
    expect([refused.status, refused.body.code]).toEqual([403, 7]);
    expect((await api.get("/iam/v1/groups")).body.items.length).toBe(before);
  });
});

describe("field types as the OpenAPI gives them", () => {
  test("google.projectNumber is any non-empty string, not digits only; a number is still refused", async () => {
    const folder = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "gcp" })).body.uid;
    const ok = await api.post(`/iam/v2beta1/accountAssociations/${folder}`, {
      name: "gcp",
      google: { projectId: "p", projectNumber: "projects/0x2a" },
    });
    expect([ok.status, ok.body.google]).toEqual([200, { projectId: "p", projectNumber: "projects/0x2a" }]);
    const other = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "gcp2" })).body.uid;
    const bad = await api.post(`/iam/v2beta1/accountAssociations/${other}`, {
      name: "gcp",
      google: { projectId: "p", projectNumber: 42 },
    });
    expect([bad.body.code, details(bad.body).fieldViolations.map((v) => v.field)]).toEqual([
      3,
      ["google.projectNumber"],
    ]);
  });
});

describe("nothing a client sends on create is dropped", () => {
  test("a member that is no field of the resource is code 3 naming it, and nothing is created", async () => {
    // Fields of groups, identities or roles, and output-only members (ignored on create, AIP-203).
    const fieldsOrOutputOnly = new Set(
      "name description claimMatch staticKeys awsIdentity servicePrincipal company capabilities uid createTime updateTime verified status resourceLimits lastSeenTime email emailUnverified".split(
        " ",
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[a-z][a-zA-Z]{0,12}$/).filter((k) => !fieldsOrOutputOnly.has(k)),
        fc.constantFrom("groups", "identities", "roles"),
        async (extra, collection) => {
          const count = async () =>
            (await api.get(`/iam/v2beta1/${collection}?uidp.children_of=${org}`)).body.totalCount;
          const before = await count();
          const body: Record<string, unknown> = { name: "extra", [extra]: "x" };
          if (collection === "roles") body.capabilities = ["CAP_IAM_GROUPS_LIST"];
          const r = await api.post(`/iam/v2beta1/${collection}/${org}`, body);
          expect([extra, r.status, r.body.code]).toEqual([extra, 400, 3]);
          expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual([extra]);
          expect(await count()).toBe(before);
        },
      ),
      { seed: 203, numRuns: 40 },
    );
  });
});

describe("group invite email as the OpenAPI describes it", () => {
  test("a blank email (anyone with the code) is accepted; a malformed one is code 3 naming email", async () => {
    const viewer = roles.viewer!;
    const blank = await api.post(`/iam/v2beta1/groupInvites/${org}`, {
      roleUid: viewer,
      ttl: "3600s",
      email: "",
    });
    expect(blank.status).toBe(200);
    const bad = await api.post(`/iam/v2beta1/groupInvites/${org}`, {
      roleUid: viewer,
      ttl: "3600s",
      email: "nope",
    });
    expect([bad.body.code, details(bad.body).fieldViolations.map((v) => v.field)]).toEqual([3, ["email"]]);
  });
});
