/**
 * The service's production habits, the client's half, against the emulator with its production habits turned on:
 *
 *   - propagation: a NotFound / PermissionDenied on a request that names an object this process created is
 *     retried within `propagationWindowMs`, and says so when it gives up; other 404s fail at once;
 *   - an exchanged token that expires mid-run is exchanged again, transparently;
 *   - an expired static token fails with one message naming the setting to refresh.
 *
 * The client's clock and sleep are the emulator's clock: a wait moves it, so a run of seconds takes milliseconds
 * and the outcome does not depend on the machine's speed.
 */
import { startEmulator, type Emulator } from "../../emulator";
import {
  ExpiredTokenError,
  NotFoundError,
  PlatformClient,
  TokenCache,
  type PlatformClientOptions,
} from "../../sdk";

const DELAY = 5_000;
const HOUR = 3600_000;

let emulator: Emulator;
let org: string;
const clients: PlatformClient[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ propagationDelayMs: DELAY });
  org = emulator.orgUid;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await emulator.close();
});

/** A client whose clock is the emulator's and whose waits advance it; `waits` records them. */
function client(options: PlatformClientOptions = {}): { client: PlatformClient; waits: number[] } {
  const waits: number[] = [];
  const c = new PlatformClient({
    apiUrl: emulator.url,
    token: emulator.token,
    env: {},
    retryBaseDelayMs: 0,
    now: () => emulator.clock.now().getTime(),
    sleep: async (ms) => {
      waits.push(ms);
      emulator.clock.advance(Math.ceil(ms));
    },
    ...options,
  });
  clients.push(c);
  return { client: c, waits };
}

/** What a call rejected with (it must reject). */
async function rejection(call: Promise<unknown>): Promise<Error> {
  const outcome = await call.then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  if (outcome === undefined) throw new Error("expected the call to fail");
  return outcome;
}

const statuses = (path: string): number[] =>
  emulator
    .requestLog()
    .filter((r) => r.path === path)
    .map((r) => r.status);

describe("propagation", () => {
  test("a child of a group created moments ago: retried until the group is effective, then created", async () => {
    const { client: c, waits } = client({ propagationWindowMs: 30_000 });
    const parent = await c.groups.create(org, { name: "fresh" });
    emulator.clearRequestLog();
    const child = await c.groups.create(parent.uid, { name: "child" });
    expect(child.uid.startsWith(`${parent.uid}/`)).toBe(true);
    const path = `/iam/v2beta1/groups/${parent.uid}`;
    const seen = statuses(path);
    expect(seen.at(-1)).toBe(200);
    expect(seen.slice(0, -1).every((s) => s === 404)).toBe(true);
    expect(seen.length).toBeGreaterThan(1);
    // It waited about the delay, not the whole window.
    const waited = waits.reduce((a, b) => a + b, 0);
    expect(waited).toBeGreaterThanOrEqual(DELAY - 1000);
    expect(waited).toBeLessThan(DELAY + 3000);
  });

  test("a binding naming a role created moments ago, by another client of the same process", async () => {
    const { client: a } = client({ propagationWindowMs: 30_000 });
    const { client: b } = client({ propagationWindowMs: 30_000 });
    const role = await a.roles.create(org, { name: "reader", capabilities: ["CAP_IAM_GROUPS_LIST"] });
    const identity = await a.identities.create(org, {
      name: "ci",
      claimMatch: { issuer: `${emulator.url}/oidc`, subject: "ci" },
    });
    emulator.clock.advance(DELAY); // the identity needs no delay; the role must still be pending below
    const role2 = await a.roles.create(org, { name: "writer", capabilities: ["CAP_IAM_GROUPS_LIST"] });
    const binding = await b.roleBindings.create(org, { identityUid: identity.uid, roleUid: role2.uid });
    expect(binding.role?.uid).toBe(role2.uid);
    expect(role.uid).not.toBe(role2.uid);
  });

  test("past the window it gives up, saying it waited, for which object, and which setting widens it", async () => {
    const { client: c, waits } = client({ propagationWindowMs: 2_000 });
    const parent = await c.groups.create(org, { name: "slow" });
    emulator.clearRequestLog();
    const error = await rejection(c.groups.create(parent.uid, { name: "child" }));
    expect(NotFoundError.isInstance(error)).toBe(true);
    const message = error.message;
    expect(message).toContain(parent.uid);
    expect(message).toMatch(/retried \d+ times over [\d.]+s because .* was created by this run/);
    expect(message).toContain("option propagationWindowMs (env PLATFORM_PROPAGATION_WINDOW_MS)");
    // Bounded: it stopped at the window (2 s on the client's clock), with a handful of attempts.
    expect(waits.reduce((x, y) => x + y, 0)).toBeLessThanOrEqual(2_000);
    expect(statuses(`/iam/v2beta1/groups/${parent.uid}`).length).toBeLessThan(20);
    emulator.clock.advance(DELAY);
  });

  test("a 404 on an object this process did not create fails at once", async () => {
    const { client: c, waits } = client({ propagationWindowMs: 30_000 });
    const missing = `${org}/00000000000000ff`;
    emulator.clearRequestLog();
    expect(NotFoundError.isInstance(await rejection(c.groups.get(missing)))).toBe(true);
    expect(statuses(`/iam/v2beta1/groups/${missing}`)).toEqual([404]);
    expect(waits).toEqual([]);
  });

  test("propagationWindowMs 0 turns it off: the first 404 is final", async () => {
    const { client: c, waits } = client({ propagationWindowMs: 0 });
    const parent = await c.groups.create(org, { name: "off" });
    expect(NotFoundError.isInstance(await rejection(c.groups.create(parent.uid, { name: "child" })))).toBe(
      true,
    );
    expect(waits).toEqual([]);
    emulator.clock.advance(DELAY);
  });

  test("an emulator's own client waits only as long as that emulator delays: with no delay, not at all", async () => {
    const plain = await startEmulator();
    try {
      const group = await plain.client.groups.create(plain.orgUid, { name: "gone" });
      // Deleted behind the client's back, so the client still counts it among the objects it created.
      const path = `/iam/v2beta1/groups/${group.uid}`;
      const deleted = await fetch(`${plain.url}${path}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${plain.token}` },
      });
      expect(deleted.status).toBe(200);
      plain.clearRequestLog();
      expect(NotFoundError.isInstance(await rejection(plain.client.groups.get(group.uid)))).toBe(true);
      expect(plain.requestLog().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`GET ${path} 404`]);
    } finally {
      await plain.close();
    }
  });
});

describe("tokens that expire mid-run", () => {
  /** An identity that the emulator's OIDC tokens with subject `name` assume, owner of the organization (propagated). */
  async function ownerIdentity(name: string) {
    const identity = await emulator.client.identities.create(org, {
      name,
      claimMatch: { issuer: `${emulator.url}/oidc`, subject: name },
    });
    await emulator.client.roleBindings.create(org, {
      identityUid: identity.uid,
      roleUid: (await emulator.client.roles.list({ name: "owner" })).items[0]!.uid,
    });
    emulator.clock.advance(DELAY);
    return identity;
  }

  test("an exchanged token that expired is exchanged again, and the request succeeds", async () => {
    const identity = await ownerIdentity("deployer");
    // The CI platform's ID token outlives the API tokens (a real runner refreshes its file).
    const identityToken = await emulator.mintIdToken({ subject: "deployer", expiresInSeconds: 24 * 3600 });
    // The client's own clock does not move (the service's does): it learns of the expiry from the 401.
    const { client: c } = client({
      identity: identity.uid,
      identityToken,
      tokenCache: new TokenCache(),
      now: () => Date.now(),
    });
    emulator.clearRequestLog();
    await c.groups.get(org);
    emulator.clock.advance(2 * HOUR); // mid-run: the exchanged token is now an hour past its expiry
    expect((await c.groups.get(org)).uid).toBe(org);
    const log = emulator.requestLog();
    expect(log.filter((r) => r.path === "/sts/exchange").map((r) => r.status)).toEqual([200, 200]);
    expect(statuses(`/iam/v2beta1/groups/${org}`)).toEqual([200, 401, 200]);
  });

  test("an expired static token: one error naming the setting to refresh", async () => {
    const user = emulator.createUser("short-lived");
    // A static token that expires: an exchanged token pasted into the configuration.
    const identity = await ownerIdentity("pasted");
    const exchanged = await fetch(
      `${emulator.url}/sts/exchange?identity=${encodeURIComponent(identity.uid)}`,
      { headers: { authorization: `Bearer ${await emulator.mintIdToken({ subject: "pasted" })}` } },
    ).then((r) => r.json() as Promise<{ token: string }>);
    const { client: c } = client({ token: exchanged.token });
    expect((await c.groups.get(org)).uid).toBe(org);
    emulator.clock.advance(2 * HOUR);
    const error = await rejection(c.groups.get(org));
    expect(ExpiredTokenError.isInstance(error)).toBe(true);
    const message = error.message;
    expect(message).toMatch(/the API token of option token \(env PLATFORM_TOKEN\) has expired at \d{4}-/);
    expect(message).not.toContain(exchanged.token);
    // A token that is refused but not expired keeps the plain UnauthenticatedError.
    const { client: other } = client({ token: `${user.token}x` });
    const refused = await rejection(other.groups.get(org));
    expect([ExpiredTokenError.isInstance(refused), refused.name]).toEqual([false, "UnauthenticatedError"]);
  });
});
