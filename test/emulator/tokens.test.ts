/**
 * API tokens are JWTs and token exchange is called the ways the real service's clients call
 * it (point 4): GET or POST, parameters in the query or a form body, repeated `aud`, `{token, expiry}` back.
 */
import fc from "fast-check";
import { type Api, useInOrg } from "./helpers";

let api: Api;
let org: string;
let ownerRole: string;
const HOUR_S = 3600;

useInOrg((started) => ({ api, org, ownerRole } = started));

function decode(token: string): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  const [h, p] = token.split(".");
  const json = (part: string | undefined) =>
    JSON.parse(Buffer.from(part ?? "", "base64url").toString("utf8"));
  return { header: json(h), claims: json(p) };
}

async function workload(subject: string): Promise<string> {
  const created = await api.post(`/iam/v2beta1/identities/${org}`, {
    name: `wl-${subject}`,
    claimMatch: { issuer: `${api.emulator.url}/oidc`, subject },
  });
  expect(created.status).toBe(200);
  const binding = await api.post(`/iam/v2beta1/roleBindings/${org}`, {
    identityUid: created.body.uid,
    roleUid: ownerRole,
  });
  expect(binding.status).toBe(200);
  return created.body.uid;
}

const canRead = async (token: string) => (await api.get(`/iam/v2beta1/groups/${org}`, token)).status;

describe("API tokens are JWTs", () => {
  test("the bootstrap token and createUser tokens carry iss, sub (the identity uid), aud, iat and exp", async () => {
    const user = api.emulator.createUser("jwt-user");
    for (const [token, uid] of [
      [api.emulator.token, api.emulator.userUid],
      [user.token, user.uid],
    ] as const) {
      const { header, claims } = decode(token);
      expect(header).toMatchObject({ alg: "RS256", typ: "JWT", kid: expect.any(String) });
      expect(claims).toMatchObject({ iss: api.emulator.url, sub: uid, aud: api.emulator.url });
      expect(claims.exp as number).toBeGreaterThan(claims.iat as number);
      expect(Math.abs((claims.iat as number) * 1000 - api.emulator.clock.now().getTime())).toBeLessThan(
        10 * 365 * 24 * HOUR_S * 1000,
      );
    }
  });

  test("an exchanged token lives exactly one hour, and `expiry` is its `exp`", async () => {
    const uid = await workload("hour");
    const idToken = await api.emulator.mintIdToken({ subject: "hour" });
    const r = await api.get(`/sts/exchange?identity=${encodeURIComponent(uid)}`, idToken);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["expiry", "token"]);
    const { claims } = decode(r.body.token);
    expect(claims).toMatchObject({ iss: api.emulator.url, sub: uid, aud: api.emulator.url });
    expect((claims.exp as number) - (claims.iat as number)).toBe(HOUR_S);
    expect(Date.parse(r.body.expiry)).toBe((claims.exp as number) * 1000);
    expect(await canRead(r.body.token)).toBe(200);
    api.emulator.clock.advance(HOUR_S * 1000 - 2000);
    expect(await canRead(r.body.token)).toBe(200);
    api.emulator.clock.advance(3000);
    const expired = await api.get(`/iam/v2beta1/groups/${org}`, r.body.token);
    expect([expired.status, expired.body.code, expired.body.message]).toEqual([
      401,
      16,
      "Unauthenticated: the bearer token has expired",
    ]);
  });

  test("a token whose signature, header or claims were altered is refused with code 16", async () => {
    const token = api.emulator.createUser("tamper").token;
    const [h, p, s] = token.split(".") as [string, string, string];
    const claims = decode(token).claims;
    const altered = Buffer.from(JSON.stringify({ ...claims, sub: api.emulator.userUid })).toString(
      "base64url",
    );
    const none = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url");
    fc.assert(
      fc.asyncProperty(
        fc.constantFrom(`${h}.${altered}.${s}`, `${none}.${p}.`, `${h}.${p}`, `${h}.${p}.${s}x`, "emu_abc"),
        async (bad) => {
          const r = await api.get(`/iam/v2beta1/groups/${org}`, bad);
          expect([r.status, r.body.code]).toEqual([401, 16]);
        },
      ),
      { seed: 21, numRuns: 10 },
    );
  });

  test("an ID token from the emulator's test issuer is not an API token, whatever its sub", async () => {
    const idToken = await api.emulator.mintIdToken({ subject: api.emulator.userUid });
    expect((await api.get(`/iam/v2beta1/groups/${org}`, idToken)).body.code).toBe(16);
  });

  test("revocation: deleting the identity makes its token code 16; removing its binding removes its access", async () => {
    const uid = await workload("revoked");
    const idToken = await api.emulator.mintIdToken({ subject: "revoked" });
    const token = (await api.get(`/sts/exchange?identity=${encodeURIComponent(uid)}`, idToken)).body.token;
    expect(await canRead(token)).toBe(200);
    const bindings = await api.get(`/iam/v2beta1/roleBindings?identity=${encodeURIComponent(uid)}`);
    for (const b of bindings.body.roleBindings) await api.del(`/iam/v2beta1/roleBindings/${b.uid}`);
    expect(await canRead(token)).toBe(404);
    await api.del(`/iam/v2beta1/identities/${uid}`);
    const r = await api.get(`/iam/v2beta1/groups/${org}`, token);
    expect([r.status, r.body.code]).toEqual([401, 16]);
  });
});

describe("token exchange as the clients call it", () => {
  test("GET and POST, each parameter in the query or in a form body: always the same token rules", async () => {
    const uid = await workload("anyway");
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "POST"),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 0, max: 3 }),
        async (method, identityInForm, audInForm, audCount) => {
          const form = new URLSearchParams();
          const query = new URLSearchParams();
          (identityInForm && method === "POST" ? form : query).append("identity", uid);
          for (let i = 0; i < audCount; i++)
            (audInForm && method === "POST" ? form : query).append("aud", api.emulator.url);
          const idToken = await api.emulator.mintIdToken({ subject: "anyway" });
          const body = form.toString();
          const r = await api.call(method, `/sts/exchange?${query.toString()}`, {
            token: idToken,
            ...(body !== ""
              ? { raw: body, headers: { "content-type": "application/x-www-form-urlencoded" } }
              : {}),
          });
          expect(r.status).toBe(200);
          const { claims } = decode(r.body.token);
          expect(claims.sub).toBe(uid);
          expect(claims.aud).toEqual(
            audCount > 1 ? Array(audCount).fill(api.emulator.url) : api.emulator.url,
          );
        },
      ),
      { seed: 41, numRuns: 24 },
    );
  });

  test("every repeated aud must be this service", async () => {
    const uid = await workload("auds");
    const idToken = await api.emulator.mintIdToken({ subject: "auds" });
    const url = encodeURIComponent(api.emulator.url);
    const r = await api.get(`/sts/exchange?identity=${uid}&aud=${url}&aud=https://other.example`, idToken);
    expect([r.status, r.body.code]).toEqual([403, 7]);
  });

  test("parameters that narrow a token are refused with code 3 naming them, never ignored", async () => {
    const uid = await workload("narrow");
    const idToken = await api.emulator.mintIdToken({ subject: "narrow" });
    for (const name of ["scope", "scopes", "cap", "identityProvider"]) {
      const r = await api.call("POST", "/sts/exchange", {
        token: idToken,
        raw: new URLSearchParams({ identity: uid, [name]: "x" }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect([r.status, r.body.code]).toEqual([400, 3]);
      expect(r.body.details[1].fieldViolations[0].field).toBe(name);
    }
  });

  test("a form body anywhere else is code 3 naming the body, not a JSON parse error", async () => {
    const r = await api.call("POST", `/iam/v2beta1/groups/${org}`, {
      raw: "name=formed",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect([r.status, r.body.code]).toEqual([400, 3]);
    expect(r.body.message).toMatch(/application\/x-www-form-urlencoded/);
    expect((await api.get(`/iam/v2beta1/groups?name=formed`)).body.groups).toEqual([]);
  });
});
