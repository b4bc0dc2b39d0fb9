/** The test OIDC issuer and token exchange. */
import { type Api, useInOrg } from "./helpers";

let api: Api;
let org: string;
let ownerRole: string;
const HOUR = 3600_000;

useInOrg((started) => ({ api, org, ownerRole } = started));

async function identity(claimMatch: Record<string, unknown>): Promise<string> {
  const created = await api.post(`/iam/v2beta1/identities/${org}`, { name: "wl", claimMatch });
  expect(created.status).toBe(200);
  await api.post(`/iam/v2beta1/roleBindings/${org}`, { identityUid: created.body.uid, roleUid: ownerRole });
  return created.body.uid;
}

const exchange = (identityUid: string, idToken: string | null, method = "GET") =>
  api.call(
    method,
    `/sts/exchange?aud=${encodeURIComponent(api.emulator.url)}&identity=${encodeURIComponent(identityUid)}`,
    { token: idToken },
  );

describe("OIDC issuer", () => {
  test("discovery document and JWKS", async () => {
    const discovery = await api.get("/oidc/.well-known/openid-configuration", null);
    expect(discovery.body.issuer).toBe(`${api.emulator.url}/oidc`);
    expect(discovery.body.jwks_uri).toBe(`${api.emulator.url}/oidc/jwks`);
    const jwks = await api.get("/oidc/jwks", null);
    expect(jwks.body.keys).toEqual([
      expect.objectContaining({ kty: "RSA", alg: "RS256", kid: expect.any(String) }),
    ]);
    expect(jwks.body.keys[0]).not.toHaveProperty("d");
  });

  test("minting through the control endpoint", async () => {
    const r = await api.post("/_emulator/oidc/mint", { subject: "ci", expiresInSeconds: 60 }, null);
    expect(r.body.idToken.split(".")).toHaveLength(3);
    const payload = JSON.parse(Buffer.from(r.body.idToken.split(".")[1], "base64url").toString());
    expect(payload).toEqual(
      expect.objectContaining({ iss: `${api.emulator.url}/oidc`, sub: "ci", aud: api.emulator.url }),
    );
    expect(payload.exp - payload.iat).toBe(60);
  });
});

describe("token exchange", () => {
  test("a matching token gets an API token valid one hour on the emulator clock (GET and POST)", async () => {
    const uid = await identity({ issuer: `${api.emulator.url}/oidc`, subject: "deploy" });
    const idToken = await api.emulator.mintIdToken({ subject: "deploy" });
    const r = await exchange(uid, idToken);
    expect(r.status).toBe(200);
    expect(r.body.token).toEqual(expect.any(String));
    expect(Date.parse(r.body.expiry) - api.emulator.clock.now().getTime()).toBeGreaterThan(HOUR - 5000);
    expect((await api.get(`/iam/v2beta1/groups/${org}`, r.body.token)).status).toBe(200);
    expect((await exchange(uid, idToken, "POST")).status).toBe(200);
    api.emulator.clock.advance(HOUR + 1000);
    const expired = await api.get(`/iam/v2beta1/groups/${org}`, r.body.token);
    expect([expired.status, expired.body.code]).toEqual([401, 16]);
    // The request log records the exchanged identity, never a token.
    const log = api.emulator.requestLog();
    expect(log.some((e) => e.identityUid === uid)).toBe(true);
    expect(JSON.stringify(log)).not.toContain(r.body.token);
  });

  test("patterns and audience are honoured", async () => {
    const uid = await identity({
      issuerPattern: ".*/oidc",
      subjectPattern: "repo:acme/.*",
      audience: "sts.example",
    });
    expect(
      (
        await exchange(
          uid,
          await api.emulator.mintIdToken({ subject: "repo:acme/web", audience: "sts.example" }),
        )
      ).status,
    ).toBe(200);
    expect(
      (await exchange(uid, await api.emulator.mintIdToken({ subject: "repo:acme/web" }))).body.code,
    ).toBe(7);
    expect(
      (
        await exchange(
          uid,
          await api.emulator.mintIdToken({ subject: "repo:evil/acme/web", audience: "sts.example" }),
        )
      ).body.code,
    ).toBe(7);
  });

  test("a valid token that does not match is code 7; an unknown identity looks the same", async () => {
    const uid = await identity({ issuer: `${api.emulator.url}/oidc`, subject: "right" });
    const wrong = await exchange(uid, await api.emulator.mintIdToken({ subject: "wrong" }));
    expect([wrong.status, wrong.body.code]).toEqual([403, 7]);
    const wrongIssuer = await exchange(
      uid,
      await api.emulator.mintIdToken({ subject: "right", claims: { iss: "https://elsewhere" } }),
    );
    expect(wrongIssuer.body.code).toBe(7);
    const unknown = await exchange(
      `${org}/0123456789abcdef`,
      await api.emulator.mintIdToken({ subject: "right" }),
    );
    expect(unknown.body.code).toBe(7);
  });

  test("missing, forged or expired ID tokens are code 16", async () => {
    const uid = await identity({ issuer: `${api.emulator.url}/oidc`, subject: "s" });
    expect((await exchange(uid, null)).body.code).toBe(16);
    const good = await api.emulator.mintIdToken({ subject: "s" });
    const [h, p] = good.split(".");
    const forged = `${h}.${p}.${Buffer.from("not a signature").toString("base64url")}`;
    expect((await exchange(uid, forged)).body.code).toBe(16);
    expect((await exchange(uid, "garbage")).body.code).toBe(16);
    const expired = await api.emulator.mintIdToken({ subject: "s", expiresInSeconds: 60 });
    api.emulator.clock.advance(120_000);
    const r = await exchange(uid, expired);
    expect([r.status, r.body.code]).toEqual([401, 16]);
  });

  test("missing identity is code 3; an aud for another service is refused", async () => {
    const idToken = await api.emulator.mintIdToken({ subject: "s" });
    expect(
      (await api.get(`/sts/exchange?aud=${encodeURIComponent(api.emulator.url)}`, idToken)).body.code,
    ).toBe(3);
    const uid = await identity({ issuer: `${api.emulator.url}/oidc`, subject: "s" });
    expect(
      (await api.get(`/sts/exchange?aud=https://other.example&identity=${uid}`, idToken)).body.code,
    ).toBe(7);
  });
});

describe("lastSeenTime: the creation time until a token exchange assumes the identity, then the last one's", () => {
  const reads = (uid: string) => [
    api.get(`/iam/v2beta1/identities/${uid}`).then((r) => r.body),
    api.get(`/iam/v2beta1/identities?uidp.ids=${encodeURIComponent(uid)}`).then((r) => r.body.identities[0]),
    // v1 names it lastSeen (the published v1 Identity message's last_seen); read here under the v2 name.
    api.get(`/iam/v1/identities?id=${encodeURIComponent(uid)}`).then((r) => {
      const { lastSeen, ...item } = r.body.items[0] as Record<string, unknown>;
      expect(item).not.toHaveProperty("lastSeenTime");
      return { ...item, lastSeenTime: lastSeen };
    }),
  ];

  test("returned on create and on every read, as the creation time, until the identity first federates", async () => {
    const created = await api.post(`/iam/v2beta1/identities/${org}`, {
      name: "never-used",
      claimMatch: { issuer: `${api.emulator.url}/oidc`, subject: "never" },
    });
    expect(created.status).toBe(200);
    expect(created.body.lastSeenTime).toBe(created.body.createTime);
    api.emulator.clock.advance(60_000);
    const [get, list, v1] = await Promise.all(reads(created.body.uid));
    for (const read of [get, list])
      expect(read).toMatchObject({ name: "never-used", lastSeenTime: created.body.createTime });
    // v1 names the creation time createdAt (and lastSeenTime lastSeen: `reads`).
    expect(v1).toMatchObject({ name: "never-used", lastSeenTime: created.body.createTime });
    expect(v1.createdAt).toBe(created.body.createTime);
    // A root-level user is an identity too.
    const me = (await api.get(`/iam/v2beta1/identities/${api.emulator.userUid}`)).body;
    expect(me.lastSeenTime).toBe(me.createTime);
    // A client that echoes one on create, or on update, gets the service's: it is output-only (AIP-203).
    const echoed = await api.post(`/iam/v2beta1/identities/${org}`, {
      name: "echoed",
      claimMatch: { issuer: `${api.emulator.url}/oidc`, subject: "echoed" },
      lastSeenTime: "2025-01-01T00:00:00Z",
    });
    expect(echoed.status).toBe(200);
    expect(echoed.body.lastSeenTime).toBe(echoed.body.createTime);
    const patched = await api.patch(`/iam/v2beta1/identities/${echoed.body.uid}`, {
      ...echoed.body,
      description: "read, changed, sent back",
      lastSeenTime: "2099-01-01T00:00:00Z",
    });
    expect([patched.status, patched.body.description]).toEqual([200, "read, changed, sent back"]);
    expect(patched.body.lastSeenTime).toBe(echoed.body.createTime);
  });

  test("sorting by it puts a never-federated identity at its creation time", async () => {
    const first = await identity({ issuer: `${api.emulator.url}/oidc`, subject: "sort-a" });
    api.emulator.clock.advance(1_000);
    await identity({ issuer: `${api.emulator.url}/oidc`, subject: "sort-b" });
    api.emulator.clock.advance(1_000);
    await federate(first, "sort-a");
    const listed = (
      await api.get(`/iam/v2beta1/identities?uidp.descendants_of=${org}&order_by=last_seen_time`)
    ).body.identities as { uid: string; lastSeenTime: string }[];
    const times = listed.map((i) => i.lastSeenTime);
    expect(times).toEqual([...times].sort());
    expect(listed.at(-1)!.uid).toBe(first);
  });

  /** Exchanges a token for `uid` and returns the window (emulator clock) the exchange happened in. */
  async function federate(uid: string, subject: string): Promise<[number, number]> {
    const before = api.emulator.clock.now().getTime();
    expect((await exchange(uid, await api.emulator.mintIdToken({ subject }))).status).toBe(200);
    return [before, api.emulator.clock.now().getTime()];
  }
  const within = (value: unknown, [from, to]: [number, number]) => {
    const at = Date.parse(String(value));
    expect([value, at >= from && at <= to]).toEqual([value, true]);
  };

  test("each exchange sets it to the exchange's time; an update keeps it", async () => {
    const uid = await identity({ issuer: `${api.emulator.url}/oidc`, subject: "seen" });
    api.emulator.clock.advance(60_000);
    const first = await federate(uid, "seen");
    for (const read of await Promise.all(reads(uid))) within(read.lastSeenTime, first);
    api.emulator.clock.advance(120_000);
    const second = await federate(uid, "seen");
    const seen = (await api.get(`/iam/v2beta1/identities/${uid}`)).body.lastSeenTime as string;
    within(seen, second);
    for (const read of await Promise.all(reads(uid))) expect(read.lastSeenTime).toBe(seen);
    api.emulator.clock.advance(60_000);
    const patched = await api.patch(`/iam/v2beta1/identities/${uid}?updateMask=description`, {
      description: "still seen",
    });
    expect(patched.body.lastSeenTime).toBe(seen);
    // A refused exchange (another subject) is no federation.
    expect((await exchange(uid, await api.emulator.mintIdToken({ subject: "other" }))).status).toBe(403);
    expect((await api.get(`/iam/v2beta1/identities/${uid}`)).body.lastSeenTime).toBe(seen);
  });
});
