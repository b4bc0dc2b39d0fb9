/**
 * Token exchange checks the ID token's audience (fast-check, fixed seeds). A claim-match
 * identity that names an audience (or an audience pattern) accepts only tokens carrying it; one that names none
 * accepts only the service's own audience (its URL, the issuer URL clients mint for), so a token minted for
 * another service cannot be replayed here. Property: every audience that is not accepted is refused (code 7), and
 * the accepted one is exchanged.
 */
import fc from "fast-check";
import { type Api, useInOrg } from "./helpers";

let api: Api;
let org: string;
let ownerRole: string;
const ISSUER_PATH = "/oidc";

useInOrg((started) => ({ api, org, ownerRole } = started));

let counter = 0;
async function identity(claimMatch: Record<string, unknown>): Promise<string> {
  const created = await api.post(`/iam/v2beta1/identities/${org}`, { name: `aud-${++counter}`, claimMatch });
  expect(created.status).toBe(200);
  await api.post(`/iam/v2beta1/roleBindings/${org}`, { identityUid: created.body.uid, roleUid: ownerRole });
  return created.body.uid;
}

async function exchange(identityUid: string, audience: string | string[]): Promise<number> {
  const idToken = await api.emulator.mintIdToken({ subject: "deploy", audience });
  const r = await api.get(`/sts/exchange?identity=${encodeURIComponent(identityUid)}`, idToken);
  return r.status === 200 ? 0 : (r.body.code as number);
}

/** Audiences a token might carry: other services' URLs, look-alikes of this one, arbitrary strings. */
function audiences(own: string): fc.Arbitrary<string> {
  const host = new URL(own).host;
  return fc.oneof(
    fc.webUrl(),
    fc.string({ minLength: 1, maxLength: 30 }),
    fc.constantFrom(
      `https://${host}`,
      `http://${host}.evil.example`,
      `http://evil.example/${host}`,
      own.replace("127.0.0.1", "localhost"),
      `${own}x`,
      "sts.example",
      "https://api.example.dev",
    ),
  );
}

describe("an identity without an audience rule accepts only the service's own audience", () => {
  test("the service's URL is exchanged; every other audience is refused with code 7", async () => {
    const own = api.emulator.url;
    const uid = await identity({ issuer: `${own}${ISSUER_PATH}`, subject: "deploy" });
    expect(await exchange(uid, own)).toBe(0);
    expect(await exchange(uid, `${own}/`)).toBe(0);
    // A token for several audiences is accepted when one of them is this service.
    expect(await exchange(uid, ["https://other.example", own])).toBe(0);
    await fc.assert(
      fc.asyncProperty(audiences(own), async (aud) => {
        fc.pre(aud.replace(/\/+$/, "") !== own && !aud.startsWith(`${own}/`));
        expect([aud, await exchange(uid, aud)]).toEqual([aud, 7]);
      }),
      { seed: 19_3, numRuns: 40 },
    );
  }, 60_000);
});

describe("an identity with an audience rule accepts exactly that audience", () => {
  test("audience: only that value; the service's own URL is no longer enough", async () => {
    const own = api.emulator.url;
    const uid = await identity({
      issuer: `${own}${ISSUER_PATH}`,
      subject: "deploy",
      audience: "sts.example",
    });
    expect(await exchange(uid, "sts.example")).toBe(0);
    await fc.assert(
      fc.asyncProperty(fc.oneof(audiences(own), fc.constant(own)), async (aud) => {
        fc.pre(aud !== "sts.example");
        expect([aud, await exchange(uid, aud)]).toEqual([aud, 7]);
      }),
      { seed: 19_31, numRuns: 40 },
    );
  }, 60_000);

  test("audiencePattern: every audience the pattern does not match in whole is refused", async () => {
    const own = api.emulator.url;
    const uid = await identity({
      issuer: `${own}${ISSUER_PATH}`,
      subject: "deploy",
      audiencePattern: "https://[a-z]+\\.example\\.dev",
    });
    expect(await exchange(uid, "https://ci.example.dev")).toBe(0);
    await fc.assert(
      fc.asyncProperty(fc.oneof(audiences(own), fc.constant(own)), async (aud) => {
        fc.pre(!/^https:\/\/[a-z]+\.example\.dev$/.test(aud));
        expect([aud, await exchange(uid, aud)]).toEqual([aud, 7]);
      }),
      { seed: 19_32, numRuns: 40 },
    );
  }, 60_000);
});
