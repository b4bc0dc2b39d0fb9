/**
 * Update masks as AIP-134 defines them, for every collection with a PATCH: `*` is a full
 * replacement, a nested path changes one member, a partial nested object without a mask changes only what it
 * carries, output-only fields are ignored whatever their value (AIP-203), and unknown paths stay code 3.
 */
import fc from "fast-check";
import { details, type Api, startInOrg } from "./helpers";

let api: Api;
let org: string;
let viewer: string;

beforeAll(async () => {
  ({ api, org } = await startInOrg());
  const roles = (await api.get("/iam/v2beta1/roles")).body.roles as { uid: string; name: string }[];
  viewer = roles.find((r) => r.name === "viewer")!.uid;
});
afterAll(() => api.emulator.close());

const ISSUER = "https://issuer.example";
let counter = 0;
const unique = (stem: string) => `${stem}-${++counter}`;

async function newIdentity(claimMatch: Record<string, unknown> = { issuer: ISSUER, subject: "s" }) {
  const r = await api.post(`/iam/v2beta1/identities/${org}`, {
    name: unique("id"),
    description: "keep me",
    claimMatch,
  });
  expect(r.status).toBe(200);
  return r.body as Record<string, unknown> & { uid: string };
}

/** Creates one object of each collection with a PATCH; returns its path and what `*` must carry besides the echo. */
async function everyKind(): Promise<{ path: string; extra: Record<string, unknown> }[]> {
  const folder = (await api.post(`/iam/v2beta1/groups/${org}`, { name: unique("f") })).body.uid;
  const identity = await newIdentity();
  const role = (
    await api.post(`/iam/v2beta1/roles/${folder}`, {
      name: unique("r"),
      capabilities: ["CAP_IAM_GROUPS_LIST"],
    })
  ).body.uid;
  const binding = (
    await api.post(`/iam/v2beta1/roleBindings/${folder}`, { identityUid: identity.uid, roleUid: viewer })
  ).body.uid;
  const newOrg = (await api.post("/iam/v2beta1/groups", { name: unique("org") })).body.uid;
  const idp = (
    await api.post(`/iam/v2beta1/identityProviders/${newOrg}`, {
      name: unique("idp"),
      defaultRole: viewer,
      oidc: { issuer: ISSUER, clientId: "client", clientSecret: "secret" },
    })
  ).body.uid;
  const association = (
    await api.post(`/iam/v2beta1/accountAssociations/${folder}`, {
      name: unique("aa"),
      google: { projectId: "p", projectNumber: "1" },
    })
  ).body.uid;
  return [
    { path: `/iam/v2beta1/groups/${folder}`, extra: {} },
    { path: `/iam/v2beta1/identities/${identity.uid}`, extra: {} },
    { path: `/iam/v2beta1/roles/${role}`, extra: {} },
    // Role bindings return hydrated references; the writable members are the uids (OpenAPI RoleBinding).
    { path: `/iam/v2beta1/roleBindings/${binding}`, extra: { identityUid: identity.uid, roleUid: viewer } },
    { path: `/iam/v2beta1/identityProviders/${idp}`, extra: {} },
    { path: `/iam/v2beta1/accountAssociations/${association}`, extra: {} },
  ];
}

const withoutUpdateTime = (o: Record<string, unknown>) => {
  const { updateTime: _u, ...rest } = o;
  return rest;
};

describe("updateMask=*", () => {
  test("echoing what GET returned, with updateMask=*, changes nothing, for every collection", async () => {
    for (const { path, extra } of await everyKind()) {
      const before = (await api.get(path)).body;
      const r = await api.patch(`${path}?updateMask=*`, { ...before, ...extra });
      expect([path, r.status]).toEqual([path, 200]);
      expect(withoutUpdateTime((await api.get(path)).body)).toEqual(withoutUpdateTime(before));
    }
  });

  test("replaces every updatable field: what the body leaves out is cleared, a required field refused", async () => {
    const identity = await newIdentity();
    const r = await api.patch(`/iam/v2beta1/identities/${identity.uid}?updateMask=*`, {
      name: "replaced",
      claimMatch: { issuer: ISSUER, subjectPattern: "x.*" },
    });
    expect(r.status).toBe(200);
    expect(r.body.description).toBe("");
    expect(r.body.claimMatch).toEqual({ issuer: ISSUER, subjectPattern: "x.*" });
    const refused = await api.patch(`/iam/v2beta1/identities/${identity.uid}?updateMask=*`, {
      description: "no name",
    });
    expect([refused.status, refused.body.code]).toEqual([400, 3]);
    expect(details(refused.body).fieldViolations.map((v) => v.field)).toEqual(["name"]);
    expect((await api.get(`/iam/v2beta1/identities/${identity.uid}`)).body.name).toBe("replaced");
  });
});

describe("nested paths and partial nested objects", () => {
  const MEMBERS = ["issuer", "subject", "audience", "subjectPattern"] as const;
  const value = (member: string) => (member === "issuer" ? "https://other.example" : `new-${member}`);

  test("a mask naming claimMatch.<member> paths changes exactly those members", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([...MEMBERS], { minLength: 1 }),
        fc.subarray([...MEMBERS]),
        async (named, sent) => {
          const original = { issuer: ISSUER, subject: "s", audience: "aud" };
          const identity = await newIdentity(original);
          const body = { claimMatch: Object.fromEntries(sent.map((m) => [m, value(m)])), name: "ignored" };
          const mask = named.map((m) => `claimMatch.${m}`).join(",");
          const r = await api.patch(`/iam/v2beta1/identities/${identity.uid}?updateMask=${mask}`, body);
          const expected: Record<string, string> = { ...original };
          for (const m of named) {
            if (sent.includes(m)) expected[m] = value(m);
            else delete expected[m];
          }
          // An update may not leave the identity without an issuer rule or a subject rule (it would match any token of the issuer): code 3 naming
          // what is missing, and nothing changes.
          const missing = [
            ...(expected.issuer === undefined ? ["claimMatch.issuer"] : []),
            ...(expected.subject === undefined && expected.subjectPattern === undefined
              ? ["claimMatch.subject"]
              : []),
          ];
          if (missing.length > 0) {
            expect([r.status, r.body.code]).toEqual([400, 3]);
            // Clearing every member clears claimMatch itself: then claimMatch as a whole is named.
            const named = Object.keys(expected).length === 0 ? ["claimMatch"] : missing;
            expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual(named);
            expect((await api.get(`/iam/v2beta1/identities/${identity.uid}`)).body.claimMatch).toEqual(
              original,
            );
            return;
          }
          expect(r.status).toBe(200);
          expect(r.body.claimMatch ?? {}).toEqual(expected);
          expect(r.body.name).toBe(identity.name); // outside the mask: ignored
        },
      ),
      { seed: 134, numRuns: 25 },
    );
  });

  test("snake_case paths work too (claim_match.subject_pattern)", async () => {
    const identity = await newIdentity();
    const r = await api.patch(
      `/iam/v2beta1/identities/${identity.uid}?update_mask=claim_match.subject_pattern`,
      { claimMatch: { subjectPattern: "ci-.*" } },
    );
    expect(r.body.claimMatch).toEqual({ issuer: ISSUER, subject: "s", subjectPattern: "ci-.*" });
  });

  test("without a mask, a partial nested object changes only the members it carries", async () => {
    const identity = await newIdentity({ issuer: ISSUER, subject: "kept" });
    const r = await api.patch(`/iam/v2beta1/identities/${identity.uid}`, {
      claimMatch: { issuer: "https://new.example" },
    });
    expect(r.body.claimMatch).toEqual({ issuer: "https://new.example", subject: "kept" });
    expect(r.body.description).toBe("keep me");
  });

  test("a nested path into a field that is not a message, or a member that does not exist, is code 3", async () => {
    const identity = await newIdentity();
    for (const mask of [
      "name.first",
      "claimMatch.nope",
      "claimMatch.claims.x.y",
      "color",
      "claimMatch..issuer",
    ]) {
      const r = await api.patch(`/iam/v2beta1/identities/${identity.uid}?updateMask=${mask}`, { name: "x" });
      expect([mask, r.body.code]).toEqual([mask, 3]);
      expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual(["updateMask"]);
    }
    expect((await api.get(`/iam/v2beta1/identities/${identity.uid}`)).body.name).toBe(identity.name);
  });
});

describe("output-only fields", () => {
  test("named with their current value they are accepted (a group's verified, as the Terraform provider sends)", async () => {
    const group = (await api.post(`/iam/v2beta1/groups/${org}`, { name: unique("v") })).body;
    const r = await api.patch(`/iam/v2beta1/groups/${group.uid}?updateMask=name,verified`, {
      name: "renamed",
      verified: false,
    });
    expect([r.status, r.body.name]).toEqual([200, "renamed"]);
  });

  test("verified, which only the service's staff change, is code 7 with another value", async () => {
    const group = (await api.post(`/iam/v2beta1/groups/${org}`, { name: unique("w") })).body;
    const path = `/iam/v2beta1/groups/${group.uid}`;
    const verified = await api.patch(`${path}?updateMask=name,verified`, { name: "x", verified: true });
    expect([verified.status, verified.body.code]).toEqual([403, 7]);
    expect(verified.body.message).toMatch(/verified/);
    expect((await api.get(path)).body).toEqual(group);
  });

  test("other values of output-only fields are ignored (AIP-203), in the body and the mask, never applied", async () => {
    const group = (await api.post(`/iam/v2beta1/groups/${org}`, { name: unique("w") })).body;
    const path = `/iam/v2beta1/groups/${group.uid}`;
    for (const [field, v] of [
      ["createTime", "2001-01-01T00:00:00.000Z"],
      ["uid", `${org}/0000000000000000`],
      ["resourceLimits", { clusters: 9 }],
    ] as const) {
      for (const query of ["", `?updateMask=${field}`, `?updateMask=description,${field}`]) {
        const before = (await api.get(path)).body;
        const r = await api.patch(`${path}${query}`, { description: `${field}${query}`, [field]: v });
        expect([field, query, r.status]).toEqual([field, query, 200]);
        const after = (await api.get(path)).body;
        expect(after[field]).toEqual(before[field]);
        // A mask of the output-only field alone changes nothing: the description outside it is ignored too.
        expect(after.description).toBe(
          query === `?updateMask=${field}` ? before.description : `${field}${query}`,
        );
      }
    }
  });

  test("a body field that is no field of the resource is code 3 naming it, never dropped", async () => {
    const identity = await newIdentity();
    const r = await api.patch(`/iam/v2beta1/identities/${identity.uid}`, { name: "x", colour: "blue" });
    expect([r.body.code, details(r.body).fieldViolations.map((v) => v.field)]).toEqual([3, ["colour"]]);
  });
});

describe("members outside the mask", () => {
  // What each writable member is not: a JSON value of another type than the OpenAPI gives it.
  const WRONG: [string, unknown][] = [
    ["name", 5],
    ["description", { nested: true }],
    ["name", ["a"]],
    ["description", false],
  ];

  test("still have their type: a wrong one is code 3 naming it, whatever the mask names, and nothing changes", async () => {
    const kinds = await everyKind();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...kinds),
        fc.constantFrom(...WRONG),
        fc.constantFrom("createTime", "updateTime", "description", "name"),
        async ({ path }, [member, value], mask) => {
          fc.pre(mask !== member);
          const before = (await api.get(path)).body;
          const r = await api.patch(`${path}?updateMask=${mask}`, { [member]: value, [mask]: before[mask] });
          expect([path, member, mask, r.status, r.body.code]).toEqual([path, member, mask, 400, 3]);
          expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual([member]);
          expect((await api.get(path)).body).toEqual(before);
        },
      ),
      { seed: 20261128, numRuns: 40 },
    );
  });
});
