/**
 * Faithful to every documented member and filter: what a property-based fuzzer and the real Terraform
 * provider found the emulator answering 200 to without honouring. Each describe block is one finding; each fails
 * on the emulator before the fix.
 */
import fc from "fast-check";
import { advisoryIds, details, start, type Api } from "./helpers";

let api: Api;
let org: string;
let viewer: string;

const ISSUER = "https://issuer.example";
let counter = 0;
const unique = (stem: string) => `${stem}-${++counter}`;

beforeAll(async () => {
  api = await start({
    seed: {
      repos: [
        {
          name: "app",
          tags: [
            { name: "latest", digest: "sha256:aaa" },
            { name: "sha256-aaa.sig", digest: "sha256:sig" },
            { name: "1.2-20250101", digest: "sha256:dated" },
            { name: "1.2-r3", digest: "sha256:epoch" },
          ],
        },
      ],
      advisories: [
        {
          advisoryId: "CGA-aaaa",
          artifactName: "app",
          events: [
            {
              createTime: "2025-01-01T00:00:00.000Z",
              author: "a@x",
              detection: {},
              reviewState: "REVIEW_STATE_APPROVED",
            },
            {
              createTime: "2025-02-01T00:00:00.000Z",
              author: "b@x",
              reviewer: "r@x",
              fixed: { fixedVersion: "1.1" },
              reviewState: "REVIEW_STATE_APPROVED",
            },
          ],
        },
        {
          advisoryId: "CGA-bbbb",
          artifactName: "app",
          events: [
            {
              createTime: "2025-01-01T00:00:00.000Z",
              author: "b@x",
              detection: {},
              reviewState: "REVIEW_STATE_APPROVED",
            },
            {
              createTime: "2025-03-01T00:00:00.000Z",
              author: "c@x",
              fixed: {},
              reviewState: "REVIEW_STATE_PENDING",
            },
          ],
        },
      ],
    },
  });
  org = api.emulator.orgUid;
  viewer = (await api.get("/iam/v2beta1/roles?name=viewer")).body.roles[0].uid;
});
afterAll(() => api.emulator.close());

const fields = (r: { body: unknown }) => details(r.body as never).fieldViolations.map((v) => v.field);

async function newOrganization(extra: Record<string, unknown> = {}): Promise<string> {
  const r = await api.post("/iam/v2beta1/groups", { name: unique("org"), ...extra });
  expect(r.status).toBe(200);
  return r.body.uid as string;
}

const OIDC = { issuer: ISSUER, clientId: "client", clientSecret: "secret" };

describe("1. documented members are stored and returned, or refused with the OpenAPI's reason", () => {
  test("Group.kind: set on an organization, inherited (never set) by its subgroups, enum-checked", async () => {
    const created = await api.post("/iam/v2beta1/groups", { name: unique("org"), kind: "ORG_KIND_DEV" });
    expect([created.status, created.body.kind]).toEqual([200, "ORG_KIND_DEV"]);
    const uid = created.body.uid as string;
    expect((await api.get(`/iam/v2beta1/groups/${uid}`)).body.kind).toBe("ORG_KIND_DEV");
    const sub = await api.post(`/iam/v2beta1/groups/${uid}`, { name: "sub" });
    expect([sub.status, sub.body.kind]).toEqual([200, "ORG_KIND_DEV"]);
    // A subgroup cannot set it (OpenAPI Group.kind: inherited from the root group).
    const setOnSub = await api.post(`/iam/v2beta1/groups/${uid}`, { name: "sub2", kind: "ORG_KIND_INFRA" });
    expect([setOnSub.status, fields(setOnSub)]).toEqual([400, ["kind"]]);
    const changeOnSub = await api.patch(`/iam/v2beta1/groups/${sub.body.uid}`, { kind: "ORG_KIND_INFRA" });
    expect([changeOnSub.status, fields(changeOnSub)]).toEqual([400, ["kind"]]);
    // An echo of the inherited value is no change.
    expect(
      (await api.patch(`/iam/v2beta1/groups/${sub.body.uid}`, { kind: "ORG_KIND_DEV", name: "s" })).status,
    ).toBe(200);
    const updated = await api.patch(`/iam/v2beta1/groups/${uid}`, { kind: "ORG_KIND_CUSTOMER" });
    expect([updated.status, updated.body.kind]).toEqual([200, "ORG_KIND_CUSTOMER"]);
    expect((await api.get(`/iam/v2beta1/groups/${sub.body.uid}`)).body.kind).toBe("ORG_KIND_CUSTOMER");
    for (const bad of ["ORG_KIND_BOGUS", 3, ""]) {
      const r = await api.post("/iam/v2beta1/groups", { name: unique("org"), kind: bad });
      expect([r.status, fields(r)]).toEqual([400, ["kind"]]);
      const p = await api.patch(`/iam/v2beta1/groups/${uid}`, { kind: bad });
      expect([p.status, fields(p)]).toEqual([400, ["kind"]]);
    }
  });

  test("IdentityProvider.oidc.correlationRule: stored and returned on create and update, enum-checked on both", async () => {
    const idpOrg = await newOrganization();
    const created = await api.post(`/iam/v2beta1/identityProviders/${idpOrg}`, {
      name: "idp",
      defaultRole: viewer,
      oidc: { ...OIDC, correlationRule: "CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID" },
    });
    expect([created.status, created.body.oidc.correlationRule]).toEqual([
      200,
      "CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID",
    ]);
    const uid = created.body.uid as string;
    expect((await api.get(`/iam/v2beta1/identityProviders/${uid}`)).body.oidc.correlationRule).toBe(
      "CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID",
    );
    const updated = await api.patch(`/iam/v2beta1/identityProviders/${uid}`, {
      oidc: { correlationRule: "CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID" },
    });
    expect([updated.status, updated.body.oidc.correlationRule]).toEqual([
      200,
      "CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID",
    ]);
    expect(updated.body.oidc.clientId).toBe("client");
    const badCreate = await api.post(`/iam/v2beta1/identityProviders/${idpOrg}`, {
      name: "idp2",
      defaultRole: viewer,
      oidc: { ...OIDC, correlationRule: "EMAIL" },
    });
    expect([badCreate.status, fields(badCreate)]).toEqual([400, ["oidc.correlationRule"]]);
    const badUpdate = await api.patch(`/iam/v2beta1/identityProviders/${uid}`, {
      oidc: { correlationRule: "EMAIL" },
    });
    expect([badUpdate.status, fields(badUpdate)]).toEqual([400, ["oidc.correlationRule"]]);
  });
});

/** A valid create body per kind (under `parent`), and a PATCHable object of that kind. */
async function kinds(): Promise<
  { kind: string; parent: string; body: Record<string, unknown>; uid: string }[]
> {
  const folder = (await api.post(`/iam/v2beta1/groups/${org}`, { name: unique("f") })).body.uid as string;
  const idpOrg = await newOrganization();
  const identity = (
    await api.post(`/iam/v2beta1/identities/${folder}`, {
      name: "i",
      claimMatch: { issuer: ISSUER, subject: "s" },
    })
  ).body.uid as string;
  const bodies: [string, string, Record<string, unknown>][] = [
    ["groups", folder, { name: "g" }],
    ["identities", folder, { name: "i", claimMatch: { issuer: ISSUER, subject: "s" } }],
    ["roles", folder, { name: "r", capabilities: ["CAP_IAM_GROUPS_LIST"] }],
    ["roleBindings", folder, { identityUid: identity, roleUid: viewer }],
    ["identityProviders", idpOrg, { name: "idp", defaultRole: viewer, oidc: OIDC }],
    ["accountAssociations", folder, { name: "aa", amazon: { account: "123456789012" } }],
    ["groupInvites", folder, { roleUid: viewer, ttl: "3600s" }],
  ];
  const out = [];
  for (const [kind, parent, body] of bodies) {
    const r = await api.post(`/iam/v2beta1/${kind}/${parent}`, body);
    expect([kind, r.status]).toEqual([kind, 200]);
    out.push({ kind, parent, body, uid: r.body.uid as string });
  }
  return out;
}

describe("2. unknown members are refused the same way on create and update, at any depth", () => {
  test("claimMatch.bogus, oidc.bogus, amazon.bogus are code 3 naming the path on create, as on update", async () => {
    const folder = (await api.post(`/iam/v2beta1/groups/${org}`, { name: unique("f") })).body.uid as string;
    const idpOrg = await newOrganization();
    const cases: [string, string, Record<string, unknown>, string][] = [
      [
        "identities",
        folder,
        { name: "i", claimMatch: { issuer: ISSUER, subject: "s", bogus: 1 } },
        "claimMatch.bogus",
      ],
      [
        "identityProviders",
        idpOrg,
        { name: "p", defaultRole: viewer, oidc: { ...OIDC, bogus: 1 } },
        "oidc.bogus",
      ],
      [
        "accountAssociations",
        folder,
        { name: "a", amazon: { account: "123456789012", bogus: 1 } },
        "amazon.bogus",
      ],
    ];
    for (const [kind, parent, body, path] of cases) {
      const r = await api.post(`/iam/v2beta1/${kind}/${parent}`, body);
      expect([kind, r.status, r.body.code, fields(r)]).toEqual([kind, 400, 3, [path]]);
      expect(r.body.message).toContain(path);
      const list = await api.get(`/iam/v2beta1/${kind}?uidp.children_of=${parent}`);
      expect([kind, list.body.totalCount]).toEqual([kind, "0"]);
    }
  });

  test("property: a bogus member at any depth of any kind's body is refused on create and update, naming its path", async () => {
    const all = await kinds();
    /** Object-valued members of each body where a bogus member can be planted (depth 0 is the body itself). */
    const objectPaths = (value: unknown, prefix: string[] = []): string[][] =>
      typeof value === "object" && value !== null && !Array.isArray(value)
        ? [prefix, ...Object.entries(value).flatMap(([k, v]) => objectPaths(v, [...prefix, k]))]
        : [];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...all),
        fc.nat(),
        fc.stringMatching(/^[a-z][a-zA-Z]{2,10}$/).map((s) => `zz${s}`),
        fc.jsonValue(),
        async (target, pick, bogus, value) => {
          const paths = objectPaths(target.body);
          const at = paths[pick % paths.length]!;
          const body = structuredClone(target.body);
          let cursor = body as Record<string, unknown>;
          for (const key of at) cursor = cursor[key] as Record<string, unknown>;
          cursor[bogus] = value;
          const path = [...at, bogus].join(".");
          const before = (await api.get(`/iam/v2beta1/${target.kind}?uidp.children_of=${target.parent}`)).body
            .totalCount;
          const created = await api.post(`/iam/v2beta1/${target.kind}/${target.parent}`, body);
          expect([target.kind, created.status, fields(created)]).toEqual([target.kind, 400, [path]]);
          expect(
            (await api.get(`/iam/v2beta1/${target.kind}?uidp.children_of=${target.parent}`)).body.totalCount,
          ).toBe(before);
          if (target.kind === "groupInvites") return; // no PATCH
          const current = (await api.get(`/iam/v2beta1/${target.kind}/${target.uid}`)).body;
          const updated = await api.patch(`/iam/v2beta1/${target.kind}/${target.uid}`, body);
          expect([target.kind, updated.status, fields(updated)]).toEqual([target.kind, 400, [path]]);
          expect((await api.get(`/iam/v2beta1/${target.kind}/${target.uid}`)).body).toEqual(current);
        },
      ),
      { seed: 27, numRuns: 60 },
    );
  });
});

describe("2b. output-only members the service ignores are ignored alike on create and update", () => {
  test("an identity provider's scim (OpenAPI: ignored on create and update), a group's status", async () => {
    const idpOrg = await newOrganization();
    const scim = { enabled: true, endpointUrl: "https://x.example/scim" };
    const created = await api.post(`/iam/v2beta1/identityProviders/${idpOrg}`, {
      name: "idp",
      defaultRole: viewer,
      oidc: OIDC,
      scim,
    });
    expect([created.status, created.body.scim]).toEqual([200, undefined]);
    const updated = await api.patch(`/iam/v2beta1/identityProviders/${created.body.uid}`, {
      name: "idp2",
      scim,
    });
    expect([updated.status, updated.body.name, updated.body.scim]).toEqual([200, "idp2", undefined]);
    const group = await api.patch(`/iam/v2beta1/groups/${idpOrg}`, {
      description: "d",
      status: "ORG_STATUS_READY",
    });
    expect([group.status, group.body.description, group.body.status]).toEqual([200, "d", undefined]);
  });
});

describe("3. every documented list parameter is honoured or refused, never ignored", () => {
  test("uidp.ids (both spellings, repeated or comma-separated) returns exactly those objects", async () => {
    const a = (await api.post(`/iam/v2beta1/groups/${org}`, { name: unique("ids") })).body.uid as string;
    const b = (await api.post(`/iam/v2beta1/groups/${org}`, { name: unique("ids") })).body.uid as string;
    await api.post(`/iam/v2beta1/groups/${org}`, { name: unique("ids") });
    for (const query of [
      `uidp.ids=${a}&uidp.ids=${b}`,
      `uidp.ids=${a},${b}`,
      `uidp.ids=${a}&uidp.ids=${b}`,
    ]) {
      const r = await api.get(`/iam/v2beta1/groups?${query}`);
      expect([query, r.status, r.body.groups.map((g: { uid: string }) => g.uid).sort()]).toEqual([
        query,
        200,
        [a, b].sort(),
      ]);
    }
    const snake = await api.get(`/iam/v2beta1/groups?uidp.ids=${a}`);
    expect(snake.body.totalCount).toBe("1");
  });

  test("uidp.inRoot and uidp.ancestorsOf", async () => {
    const folder = (await api.post(`/iam/v2beta1/groups/${org}`, { name: unique("anc") })).body.uid as string;
    const child = (await api.post(`/iam/v2beta1/groups/${folder}`, { name: "child" })).body.uid as string;
    const roots = await api.get("/iam/v2beta1/groups?uidp.in_root=true&page_size=200");
    expect(roots.status).toBe(200);
    expect(roots.body.groups.every((g: { uid: string }) => !g.uid.includes("/"))).toBe(true);
    expect(roots.body.groups.map((g: { uid: string }) => g.uid)).toContain(org);
    const ancestors = await api.get(`/iam/v2beta1/groups?uidp.ancestorsOf=${encodeURIComponent(child)}`);
    expect(ancestors.body.groups.map((g: { uid: string }) => g.uid).sort()).toEqual([org, folder].sort());
    const bad = await api.get("/iam/v2beta1/groups?uidp.inRoot=maybe");
    expect([bad.status, fields(bad)]).toEqual([400, ["uidp.inRoot"]]);
  });

  test("identities: relationshipType filters by how the identity is assumed; a value outside the enum is 400", async () => {
    const folder = (await api.post(`/iam/v2beta1/groups/${org}`, { name: unique("rel") })).body.uid as string;
    const claim = (
      await api.post(`/iam/v2beta1/identities/${folder}`, {
        name: "c",
        claimMatch: { issuer: ISSUER, subject: "s" },
      })
    ).body.uid;
    const aws = (
      await api.post(`/iam/v2beta1/identities/${folder}`, {
        name: "a",
        awsIdentity: { awsAccount: "123456789012", arn: "arn:aws:iam::123456789012:role/x" },
      })
    ).body.uid;
    const list = async (type: string) =>
      (
        await api.get(`/iam/v2beta1/identities?uidp.children_of=${folder}&relationship_type=${type}`)
      ).body.identities.map((i: { uid: string }) => i.uid);
    expect(await list("RELATIONSHIP_TYPE_CLAIM_MATCH")).toEqual([claim]);
    expect(await list("RELATIONSHIP_TYPE_AWS_IDENTITY")).toEqual([aws]);
    expect((await list("RELATIONSHIP_TYPE_UNSPECIFIED")).sort()).toEqual([claim, aws].sort());
    const bad = await api.get("/iam/v2beta1/identities?relationshipType=SOMETHING");
    expect([bad.status, fields(bad)]).toEqual([400, ["relationshipType"]]);
  });

  test("tags: updatedSince, includeReferrers, includeDates, includeEpochs (proto3: unsent is false)", async () => {
    const tags = async (q: string) =>
      (await api.get(`/registry/v2beta1/tags?${q}`)).body.tags.map((t: { name: string }) => t.name).sort();
    const ALL = "includeReferrers=true&include_dates=true&includeEpochs=1";
    expect(await tags(ALL)).toEqual(["1.2-20250101", "1.2-r3", "latest", "sha256-aaa.sig"]);
    expect(await tags("")).toEqual(["latest"]);
    expect(await tags("include_referrers=false&includeDates=false&include_epochs=false")).toEqual(["latest"]);
    expect(await tags("includeReferrers=true&includeDates=false")).toEqual(["latest", "sha256-aaa.sig"]);
    expect(await tags("includeEpochs=true")).toEqual(["1.2-r3", "latest"]);
    const now = api.emulator.clock.now().toISOString();
    expect(await tags(`${ALL}&updatedSince=${encodeURIComponent(now)}`)).toEqual([]);
    expect(await tags(`${ALL}&updated_since=2000-01-01T00:00:00Z`)).toHaveLength(4);
    for (const q of ["updatedSince=yesterday", "includeReferrers=yes", "updated_since=2025-01-01"]) {
      const bad = await api.get(`/registry/v2beta1/tags?${q}`);
      expect([q, bad.status, fields(bad)]).toEqual([q, 400, [q.split("=")[0]]]);
    }
  });

  test("advisories: event filters and latestEventType; origin is refused as not supported", async () => {
    const ids = (q: string) => advisoryIds(api, q);
    expect(await ids("latestEventType=EVENT_TYPE_FILTER_FIXED")).toEqual(["CGA-aaaa"]);
    expect(await ids("latest_event_type=EVENT_TYPE_FILTER_DETECTION")).toEqual(["CGA-bbbb"]);
    expect(await ids("eventTypes=EVENT_TYPE_FILTER_FIXED")).toEqual(["CGA-aaaa", "CGA-bbbb"]);
    expect(await ids("eventReviewStates=REVIEW_STATE_PENDING")).toEqual(["CGA-bbbb"]);
    expect(await ids("eventAuthors=a@x")).toEqual(["CGA-aaaa"]);
    expect(await ids("excludeEventAuthors=a@x")).toEqual(["CGA-bbbb"]);
    expect(await ids("eventReviewers=r@x")).toEqual(["CGA-aaaa"]);
    for (const q of ["latestEventType=FIXED", "eventTypes=NOPE", "eventReviewStates=NOPE", "origin=app"]) {
      const bad = await api.get(`/vulnerabilities/v2beta1/advisories?${q}`);
      expect([q, bad.status, fields(bad)]).toEqual([q, 400, [q.split("=")[0]]]);
    }
  });

  test("a parameter no list documents is 400 naming it, not ignored", async () => {
    for (const path of ["/iam/v2beta1/groups", "/iam/v2beta1/roleBindings", "/registry/v2beta1/repos"]) {
      const r = await api.get(`${path}?updatedSince=2020-01-01T00:00:00Z&colour=blue`);
      expect([path, r.status, fields(r).sort()]).toEqual([path, 400, ["colour", "updatedSince"]]);
    }
  });
});

describe("3b. get, create, update and delete refuse a parameter they do not take", () => {
  test("a misspelt update mask is 400 naming it, and nothing changes", async () => {
    const folder = await api.post(`/iam/v2beta1/groups/${org}`, { name: unique("q"), description: "keep" });
    const path = `/iam/v2beta1/groups/${folder.body.uid}`;
    const r = await api.patch(`${path}?mask=name`, { name: "changed", description: "changed" });
    expect([r.status, fields(r)]).toEqual([400, ["mask"]]);
    expect((await api.get(path)).body).toEqual(folder.body);
    for (const [method, target] of [
      ["GET", `${path}?view=FULL`],
      ["DELETE", `${path}?force=true`],
      ["POST", `/iam/v2beta1/groups/${org}?validateOnly=true`],
      ["POST", `/iam/v2beta1/groups?validateOnly=true`],
      ["GET", `/iam/v2beta1/roles/${viewer}?view=FULL`],
      ["GET", `/iam/v2beta1/identities:lookupIdentity?issuer=${ISSUER}&subject=s&x=1`],
    ] as const) {
      const q = await api.call(method, target, method === "POST" ? { body: { name: unique("q") } } : {});
      expect([method, target, q.status, fields(q)]).toEqual([
        method,
        target,
        400,
        [target.split("&").pop()!.split("?").pop()!.split("=")[0]],
      ]);
    }
    expect((await api.get(path)).status).toBe(200);
    expect(
      (await api.patch(`${path}?update_mask=description`, { description: "new" })).body.description,
    ).toBe("new");
  });
});

describe("4. an empty PATCH is a true no-op (AIP-134: nothing to change), updateTime included", () => {
  test("no body, null and {} on all six PATCH operations change nothing", async () => {
    const all = (await kinds()).filter((k) => k.kind !== "groupInvites");
    expect(all.map((k) => k.kind)).toHaveLength(6);
    for (const target of all) {
      const path = `/iam/v2beta1/${target.kind}/${target.uid}`;
      const before = (await api.get(path)).body;
      api.emulator.clock.advance(60_000);
      for (const raw of [undefined, "null", "{}"]) {
        const r = await api.call("PATCH", path, raw === undefined ? {} : { raw });
        expect([target.kind, raw, r.status, r.body]).toEqual([target.kind, raw, 200, before]);
      }
      expect((await api.get(path)).body).toEqual(before);
    }
  });
});

/** The v1 collections as the real service spells them. */
const V1_LISTS: Record<string, string> = {
  identities: "/iam/v1/identities",
  roles: "/iam/v1/roles",
  roleBindings: "/iam/v1/rolebindings",
  groupInvites: "/iam/v1/group_invites",
  accountAssociations: "/iam/v1/account_associations",
  identityProviders: "/iam/v1/identityProviders",
};

describe("5. v1 lists the Terraform provider's delete checks call", () => {
  test("identities, roles, role bindings, group invites, account associations, identity providers", async () => {
    const all = await kinds();
    for (const target of all.filter((k) => k.kind !== "groups")) {
      const prefix = V1_LISTS[target.kind]!;
      // AccountAssociationsFilter has no `id`: an association is found by its group, whose uid it carries.
      const idParam = target.kind === "accountAssociations" ? "group" : "id";
      const byId = await api.get(`${prefix}?${idParam}=${encodeURIComponent(target.uid)}`);
      expect([target.kind, byId.status]).toEqual([target.kind, 200]);
      expect(byId.body.items.map((i: { id: string }) => i.id)).toEqual([target.uid]);
      expect(byId.body.items[0].createdAt).toMatch(/Z$/);
      expect(byId.body.items[0].uid).toBeUndefined();
      // GroupInviteFilter and AccountAssociationsFilter have `group`; the others scope by uidp (v1-filters.test.ts).
      const scope = ["groupInvites", "accountAssociations"].includes(target.kind)
        ? "group"
        : "uidp.childrenOf";
      const byGroup = await api.get(`${prefix}?${scope}=${encodeURIComponent(target.parent)}`);
      expect(byGroup.body.items.map((i: { id: string }) => i.id)).toContain(target.uid);
      await api.del(`/iam/v2beta1/${target.kind}/${target.uid}`);
      expect((await api.get(`${prefix}?${idParam}=${encodeURIComponent(target.uid)}`)).body.items).toEqual(
        [],
      );
    }
  });
});

describe("6. a 405 names the methods the path allows (RFC 9110 Allow)", () => {
  test("Allow lists exactly the route table's methods for the path", async () => {
    const cases: [string, string, string][] = [
      ["PUT", "/iam/v2beta1/groups", "GET, POST"],
      ["PUT", `/iam/v2beta1/groups/${org}`, "DELETE, GET, PATCH, POST"],
      ["PATCH", `/iam/v2beta1/groupInvites/${org}/0123456789abcdef`, "DELETE, GET, POST"],
      ["DELETE", "/registry/v2beta1/repos", "GET"],
      ["POST", "/iam/v2beta1/identities:lookupIdentity", "GET"],
    ];
    for (const [method, path, allow] of cases) {
      const r = await api.call(method, path);
      expect([method, path, r.status, r.headers.get("allow")]).toEqual([method, path, 405, allow]);
    }
  });
});
