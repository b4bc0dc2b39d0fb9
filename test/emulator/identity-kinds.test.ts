/**
 * Every kind of identity the OpenAPI has: staticKeys, awsIdentity and
 * servicePrincipal are stored, validated and returned; staticKeys.issuerKeys is stored as given and checked at
 * token exchange, which honours static keys and refuses awsIdentity and servicePrincipal; at most one kind is set.
 * Nothing a client sends is dropped.
 */
import fc from "fast-check";
import { SignJWT, exportJWK, generateKeyPair, type KeyLike } from "jose";
import { SERVICE_PRINCIPALS } from "../../sdk/schemas";
import { details, type Api, startInOrg } from "./helpers";

let api: Api;
let org: string;
let owner: string;
let privateKey: KeyLike;
let otherKey: KeyLike;
let jwks: string;
const DAY = 24 * 3600_000;
const ISSUER = "https://ci.example/static";

beforeAll(async () => {
  ({ api, org } = await startInOrg());
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

  test("issuerKeys is stored as given (JSON or not) and checked only when a token is exchanged", async () => {
    for (const issuerKeys of [
      "not json",
      "-----BEGIN PUBLIC KEY-----\nMFkw...\n-----END PUBLIC KEY-----",
      JSON.stringify({ keys: [] }),
      JSON.stringify({ keys: [{ kty: "RSA", n: "x" }] }),
    ]) {
      const r = await create({ staticKeys: { issuer: ISSUER, subject: "builder", issuerKeys } });
      expect([r.status, r.body.staticKeys?.issuerKeys]).toEqual([200, issuerKeys]);
      expect((await api.get(`/iam/v2beta1/identities/${r.body.uid}`)).body.staticKeys.issuerKeys).toBe(
        issuerKeys,
      );
      // Keys that verify nothing: a token signed by a real key is not accepted (16, no usable key signed it).
      await api.post(`/iam/v2beta1/roleBindings/${org}`, { identityUid: r.body.uid, roleUid: owner });
      expect((await exchange(r.body.uid, await sign(privateKey))).body.code).toBe(16);
      // The same keys on update: stored as given too; then usable keys make the exchange work.
      const u = await api.patch(`/iam/v2beta1/identities/${r.body.uid}`, {
        staticKeys: { issuer: ISSUER, subject: "builder", issuerKeys: `${issuerKeys} ` },
      });
      expect([u.status, u.body.staticKeys?.issuerKeys]).toEqual([200, `${issuerKeys} `]);
      await api.patch(`/iam/v2beta1/identities/${r.body.uid}`, {
        staticKeys: { issuer: ISSUER, subject: "builder", issuerKeys: jwks },
      });
      expect((await exchange(r.body.uid, await sign(privateKey))).status).toBe(200);
    }
  });

  test("what cannot be honoured is code 3 naming the member, and nothing is created", async () => {
    const now = api.emulator.clock.now().getTime();
    const { privateKey: secret } = await generateKeyPair("ES256", { extractable: true });
    const cases: [Record<string, unknown>, string][] = [
      // A private key is a credential: never stored, whatever else the text holds.
      [{ issuerKeys: JSON.stringify({ keys: [await exportJWK(secret)] }) }, "staticKeys.issuerKeys"],
      [{ issuerKeys: "" }, "staticKeys.issuerKeys"],
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

  test("servicePrincipal is stored and returned on create and update; exchanging for it is refused", async () => {
    const r = await create({ servicePrincipal: "SERVICE_PRINCIPAL_COSIGNED" });
    expect([r.status, r.body.servicePrincipal, r.body.claimMatch]).toEqual([
      200,
      "SERVICE_PRINCIPAL_COSIGNED",
      undefined,
    ]);
    expect((await api.get(`/iam/v2beta1/identities/${r.body.uid}`)).body.servicePrincipal).toBe(
      "SERVICE_PRINCIPAL_COSIGNED",
    );
    await api.post(`/iam/v2beta1/roleBindings/${org}`, { identityUid: r.body.uid, roleUid: owner });
    // The service's own workloads assume it, never a presented token: 7, as for an AWS identity.
    const idToken = await api.emulator.mintIdToken({ subject: "cosigned" });
    expect((await exchange(r.body.uid, idToken)).body.code).toBe(7);
    const made = await create({ claimMatch: { issuer: ISSUER, subject: "s" } });
    const u = await api.patch(`/iam/v2beta1/identities/${made.body.uid}`, {
      servicePrincipal: "SERVICE_PRINCIPAL_INGESTER",
    });
    expect([u.status, u.body.servicePrincipal, u.body.claimMatch]).toEqual([
      200,
      "SERVICE_PRINCIPAL_INGESTER",
      undefined,
    ]);
    // A name outside the OpenAPI's enum is code 3 naming the field, and changes nothing.
    const bad = await api.patch(`/iam/v2beta1/identities/${made.body.uid}`, { servicePrincipal: "ROBOT" });
    expect([bad.body.code, details(bad.body).fieldViolations.map((v) => v.field)]).toEqual([
      3,
      ["servicePrincipal"],
    ]);
    expect((await api.get(`/iam/v2beta1/identities/${made.body.uid}`)).body.servicePrincipal).toBe(
      "SERVICE_PRINCIPAL_INGESTER",
    );
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

  test("every identity kind round-trips: what create and update send comes back, on the answer and on GET", async () => {
    const kind = fc.oneof(
      fc.constant<Record<string, unknown>>({
        claimMatch: { issuer: ISSUER, subjectPattern: "repo:.*", claims: { env: "prod" } },
      }),
      fc
        .oneof(fc.constant("jwks"), fc.string({ minLength: 1, maxLength: 40 }))
        .map((keys) => ({ staticKeys: { issuer: ISSUER, subject: "b", issuerKeys: keys } })),
      fc.constant<Record<string, unknown>>({ awsIdentity: { awsAccount: "000000000000", userId: "AIDA1" } }),
      fc.constantFrom(...SERVICE_PRINCIPALS).map((servicePrincipal) => ({ servicePrincipal })),
      fc.constant<Record<string, unknown>>({}),
    );
    const withKeys = (relationship: Record<string, unknown>): Record<string, unknown> => {
      const staticKeys = relationship.staticKeys as Record<string, unknown> | undefined;
      return staticKeys?.issuerKeys === "jwks"
        ? { staticKeys: { ...staticKeys, issuerKeys: jwks } }
        : relationship;
    };
    const expectEchoed = (body: Record<string, unknown>, sent: Record<string, unknown>): void => {
      for (const [field, value] of Object.entries(sent)) {
        if (value === undefined) continue;
        if (typeof value === "string") expect(body[field]).toBe(value);
        else expect(body[field]).toMatchObject(value as object);
      }
    };
    await fc.assert(
      fc.asyncProperty(
        kind,
        kind,
        fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
        fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
        async (first, second, description, company) => {
          const sent: Record<string, unknown> = { ...withKeys(first), description, company };
          const r = await create(sent);
          if (Object.keys(first).length === 0) {
            // No kind at all: nothing could assume it, so claimMatch (issuer and subject rules) is required.
            expect([r.status, r.body.code]).toEqual([400, 3]);
            expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual(["claimMatch"]);
            return;
          }
          expect(r.status).toBe(200);
          expectEchoed(r.body, sent);
          expectEchoed((await api.get(`/iam/v2beta1/identities/${r.body.uid}`)).body, sent);
          if (Object.keys(second).length === 0) return;
          // Switching to another kind (or the same again) on update: the new one comes back, the old one is gone.
          const change = withKeys(second);
          const u = await api.patch(`/iam/v2beta1/identities/${r.body.uid}`, change);
          expect(u.status).toBe(200);
          expectEchoed(u.body, change);
          const read = (await api.get(`/iam/v2beta1/identities/${r.body.uid}`)).body;
          expectEchoed(read, change);
          const [kept] = Object.keys(change);
          for (const other of ["claimMatch", "staticKeys", "awsIdentity", "servicePrincipal"])
            if (other !== kept) expect([other, read[other]]).toEqual([other, undefined]);
        },
      ),
      { seed: 611, numRuns: 40 },
    );
  });
});
