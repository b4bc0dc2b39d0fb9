/**
 * Every kind of identity the OpenAPI has (issue 11, point 6): staticKeys and awsIdentity are stored, validated and
 * returned, token exchange honours static keys, servicePrincipal is refused naming the field, and at most one of
 * them is set. Nothing a client sends is dropped.
 */
import fc from "fast-check";
import { SignJWT, exportJWK, generateKeyPair, type KeyLike } from "jose";
import { details, start, type Api } from "./helpers";

let api: Api;
let org: string;
let owner: string;
let privateKey: KeyLike;
let otherKey: KeyLike;
let jwks: string;
const DAY = 24 * 3600_000;
const ISSUER = "https://ci.example/static";

beforeAll(async () => {
  api = await start();
  org = api.emulator.orgUid;
  owner = (await api.get("/iam/v2beta1/roles?name=owner")).body.roles[0].uid;
  const pair = await generateKeyPair("ES256");
  privateKey = pair.privateKey;
  otherKey = (await generateKeyPair("ES256")).privateKey;
  jwks = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" }] });
});
afterAll(() => api.emulator.close());

let counter = 0;
async function create(fields: Record<string, unknown>) {
  return api.post(`/iam/v2beta1/identities/${org}`, { name: `kind-${++counter}`, ...fields });
}

async function sign(
  key: KeyLike,
  claims: { iss?: string; sub?: string; aud?: string | string[]; expiresIn?: number } = {},
) {
  const now = Math.floor(api.emulator.clock.now().getTime() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid: "k1" })
    .setIssuer(claims.iss ?? ISSUER)
    .setSubject(claims.sub ?? "builder")
    .setAudience(claims.aud ?? api.emulator.url)
    .setIssuedAt(now)
    .setExpirationTime(now + (claims.expiresIn ?? 600))
    .sign(key);
}

const exchange = (uid: string, token: string) =>
  api.get(`/sts/exchange?identity=${encodeURIComponent(uid)}`, token);

describe("staticKeys", () => {
  test("stored and returned as sent; expirationTime defaults to 365 days from now", async () => {
    const r = await create({ staticKeys: { issuer: ISSUER, subject: "builder", issuerKeys: jwks } });
    expect(r.status).toBe(200);
    expect(r.body.staticKeys).toMatchObject({ issuer: ISSUER, subject: "builder", issuerKeys: jwks });
    const expires = Date.parse(r.body.staticKeys.expirationTime) - api.emulator.clock.now().getTime();
    expect(Math.abs(expires - 365 * DAY)).toBeLessThan(60_000);
    expect((await api.get(`/iam/v2beta1/identities/${r.body.uid}`)).body.staticKeys).toEqual(
      r.body.staticKeys,
    );
  });

  test("exchange accepts a token signed by one of the identity's keys, with its issuer and subject, in time", async () => {
    const expirationTime = new Date(api.emulator.clock.now().getTime() + 2 * DAY).toISOString();
    const r = await create({
      staticKeys: { issuer: ISSUER, subject: "builder", issuerKeys: jwks, expirationTime },
    });
    await api.post(`/iam/v2beta1/roleBindings/${org}`, { identityUid: r.body.uid, roleUid: owner });
    const ok = await exchange(r.body.uid, await sign(privateKey));
    expect(ok.status).toBe(200);
    expect((await api.get(`/iam/v2beta1/groups/${org}`, ok.body.token)).status).toBe(200);
    // Valid signature, wrong issuer or subject or audience: 7. Not signed by its keys: 16.
    expect((await exchange(r.body.uid, await sign(privateKey, { iss: "https://evil" }))).body.code).toBe(7);
    expect((await exchange(r.body.uid, await sign(privateKey, { sub: "other" }))).body.code).toBe(7);
    expect((await exchange(r.body.uid, await sign(privateKey, { aud: "https://x.example" }))).body.code).toBe(
      7,
    );
    expect((await exchange(r.body.uid, await sign(otherKey))).body.code).toBe(16);
    // A token from the emulator's own issuer does not assume a static-keys identity.
    const idToken = await api.emulator.mintIdToken({ subject: "builder", claims: { iss: ISSUER } });
    expect((await exchange(r.body.uid, idToken)).body.code).toBe(7);
    // Past the keys' expiration nothing is accepted, even a fresh token.
    api.emulator.clock.advance(2 * DAY + 1000);
    expect((await exchange(r.body.uid, await sign(privateKey))).body.code).toBe(7);
  });

  test("audiences: exactly one value, then the token's aud must carry it", async () => {
    const r = await create({
      staticKeys: { issuer: ISSUER, subject: "builder", issuerKeys: jwks, audiences: ["sts.example"] },
    });
    expect(r.body.staticKeys.audiences).toEqual(["sts.example"]);
    expect((await exchange(r.body.uid, await sign(privateKey, { aud: "sts.example" }))).status).toBe(200);
    expect((await exchange(r.body.uid, await sign(privateKey))).body.code).toBe(7);
  });

  test("what cannot be honoured is code 3 naming the member, and nothing is created", async () => {
    const now = api.emulator.clock.now().getTime();
    const { privateKey: secret } = await generateKeyPair("ES256", { extractable: true });
    const cases: [Record<string, unknown>, string][] = [
      [{ issuerKeys: "not json" }, "staticKeys.issuerKeys"],
      [{ issuerKeys: JSON.stringify({ keys: [] }) }, "staticKeys.issuerKeys"],
      [{ issuerKeys: JSON.stringify({ keys: [await exportJWK(secret)] }) }, "staticKeys.issuerKeys"],
      [{ issuerKeys: JSON.stringify({ keys: [{ kty: "RSA", n: "x" }] }) }, "staticKeys.issuerKeys"],
      [{ audiences: ["a", "b"] }, "staticKeys.audiences"],
      [{ expirationTime: new Date(now + 366 * DAY).toISOString() }, "staticKeys.expirationTime"],
      [{ expirationTime: new Date(now - 1000).toISOString() }, "staticKeys.expirationTime"],
      [{ expirationTime: "soon" }, "staticKeys.expirationTime"],
      [{ issuer: undefined }, "staticKeys.issuer"],
    ];
    const before = (await api.get(`/iam/v2beta1/identities?uidp.children_of=${org}`)).body.totalCount;
    for (const [override, field] of cases) {
      const r = await create({
        staticKeys: { issuer: ISSUER, subject: "builder", issuerKeys: jwks, ...override },
      });
      expect([field, r.status, r.body.code]).toEqual([field, 400, 3]);
      expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual([field]);
    }
    expect((await api.get(`/iam/v2beta1/identities?uidp.children_of=${org}`)).body.totalCount).toBe(before);
  });
});

describe("awsIdentity and servicePrincipal", () => {
  test("awsIdentity is stored, validated and returned; exchanging for it is refused like any non-match", async () => {
    const awsIdentity = {
      awsAccount: "123456789012",
      arn: "arn:aws:sts::123456789012:assumed-role/ci/lambda",
      userIdPattern: "^AROA(.*):lambda$",
    };
    const r = await create({ awsIdentity });
    expect([r.status, r.body.awsIdentity]).toEqual([200, awsIdentity]);
    expect((await api.get(`/iam/v2beta1/identities/${r.body.uid}`)).body.awsIdentity).toEqual(awsIdentity);
    const idToken = await api.emulator.mintIdToken({ subject: "lambda" });
    expect((await exchange(r.body.uid, idToken)).body.code).toBe(7);
    for (const [bad, field] of [
      [{ awsAccount: "12" }, "awsIdentity.awsAccount"],
      [{ awsAccount: "123456789012", arnPattern: "(" }, "awsIdentity.arnPattern"],
    ] as const) {
      const refused = await create({ awsIdentity: bad });
      expect([field, refused.body.code]).toEqual([field, 3]);
      expect(details(refused.body).fieldViolations.map((v) => v.field)).toEqual([field]);
    }
  });

  test("servicePrincipal cannot be honoured: code 3 naming it, on create and update", async () => {
    const r = await create({ servicePrincipal: "SERVICE_PRINCIPAL_COSIGNED" });
    expect([r.body.code, details(r.body).fieldViolations.map((v) => v.field)]).toEqual([
      3,
      ["servicePrincipal"],
    ]);
    const made = await create({ claimMatch: { issuer: ISSUER, subject: "s" } });
    const u = await api.patch(`/iam/v2beta1/identities/${made.body.uid}`, {
      servicePrincipal: "SERVICE_PRINCIPAL_INGESTER",
    });
    expect(u.body.code).toBe(3);
    expect((await api.get(`/iam/v2beta1/identities/${made.body.uid}`)).body.claimMatch).toEqual({
      issuer: ISSUER,
      subject: "s",
    });
  });
});

describe("one kind at a time, nothing dropped", () => {
  test("two kinds in one request are code 3; setting another kind on update replaces the old one", async () => {
    const both = await create({
      claimMatch: { issuer: ISSUER, subject: "s" },
      awsIdentity: { awsAccount: "123456789012" },
    });
    expect(both.body.code).toBe(3);
    const made = await create({ claimMatch: { issuer: ISSUER, subject: "s" } });
    const switched = await api.patch(`/iam/v2beta1/identities/${made.body.uid}`, {
      staticKeys: { issuer: ISSUER, subject: "builder", issuerKeys: jwks },
    });
    expect(switched.status).toBe(200);
    expect(switched.body.claimMatch).toBeUndefined();
    expect(switched.body.staticKeys.issuer).toBe(ISSUER);
  });

  test("every field a client sends on create comes back (name, description, company, each kind); no kind is code 3", async () => {
    const kind = fc.constantFrom<Record<string, unknown>>(
      { claimMatch: { issuer: ISSUER, subjectPattern: "repo:.*", claims: { env: "prod" } } },
      { staticKeys: { issuer: ISSUER, subject: "b", issuerKeys: "" } },
      { awsIdentity: { awsAccount: "000000000000", userId: "AIDA1" } },
      {},
    );
    await fc.assert(
      fc.asyncProperty(
        kind,
        fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
        fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
        async (relationship, description, company) => {
          const sent: Record<string, unknown> = { ...relationship, description, company };
          if (sent.staticKeys !== undefined)
            sent.staticKeys = { ...(sent.staticKeys as object), issuerKeys: jwks };
          const r = await create(sent);
          if (Object.keys(relationship).length === 0) {
            // No kind at all: nothing could assume it, so claimMatch (issuer and subject rules) is required.
            expect([r.status, r.body.code]).toEqual([400, 3]);
            expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual(["claimMatch"]);
            return;
          }
          expect(r.status).toBe(200);
          for (const [field, value] of Object.entries(sent)) {
            if (value === undefined) continue;
            if (typeof value === "string") expect(r.body[field]).toBe(value);
            else expect(r.body[field]).toMatchObject(value as object);
          }
        },
      ),
      { seed: 611, numRuns: 20 },
    );
  });
});
