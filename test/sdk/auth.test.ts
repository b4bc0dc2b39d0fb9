/** Token exchange: query, bearer OIDC token, cache, refresh at 55 minutes, file re-read, one re-exchange after 401. */
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MockAgent } from "undici";
import {
  ConfigurationError,
  PlatformClient,
  TokenCache,
  UnauthenticatedError,
  UnavailableError,
  type PlatformClientOptions,
} from "../../sdk";
import { API, FOLDER, JSON_HEADERS, ORG, aip193, group, type SeenRequest } from "./helpers";

const AUTH = "https://auth.test.example";
const IDENTITY = `${ORG}/00000000000000ee`;
const OIDC = "oidc-token-from-the-ci-provider-abcdef";

interface World {
  client: PlatformClient;
  exchanges: SeenRequest[];
  apiCalls: SeenRequest[];
  clock: { now: number };
  agent: MockAgent;
}

/** A client that exchanges the OIDC token for the identity at AUTH, sending through `agent`. */
function exchangingClient(agent: MockAgent, options: Partial<PlatformClientOptions> = {}): PlatformClient {
  return new PlatformClient({
    apiUrl: API,
    authUrl: AUTH,
    identity: IDENTITY,
    identityToken: OIDC,
    env: {},
    dispatcher: agent,
    ...options,
  });
}

/**
 * A client that assumes IDENTITY. The exchange answers api-token-1, api-token-2, ... (or `exchangeBody(n)` with
 * `exchangeStatus(n)`); the API answers with `apiStatus(n, authorization)` (default 200) and records every request.
 */
function world(
  options: PlatformClientOptions = {},
  apiStatus: (n: number, auth: string) => number = () => 200,
  exchangeBody: (n: number) => Record<string, unknown> = (n) => ({ token: `api-token-${n}` }),
  exchangeStatus: (n: number) => number = () => 200,
): World {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const exchanges: SeenRequest[] = [];
  const apiCalls: SeenRequest[] = [];
  const clock = { now: Date.parse("2026-01-01T00:00:00Z") };
  agent
    .get(AUTH)
    .intercept({ path: () => true, method: () => true })
    .reply((opts) => {
      exchanges.push({
        method: opts.method,
        path: opts.path,
        headers: opts.headers as Record<string, string>,
        body: undefined,
      });
      return {
        statusCode: exchangeStatus(exchanges.length),
        data: JSON.stringify(exchangeBody(exchanges.length)),
        responseOptions: { headers: JSON_HEADERS },
      };
    })
    .persist();
  agent
    .get(API)
    .intercept({ path: () => true, method: () => true })
    .reply((opts) => {
      const headers = opts.headers as Record<string, string>;
      apiCalls.push({
        method: opts.method,
        path: opts.path,
        headers,
        body: typeof opts.body === "string" ? JSON.parse(opts.body) : undefined,
      });
      const status = apiStatus(apiCalls.length - 1, headers.authorization ?? "");
      const data = status === 200 ? group(FOLDER) : aip193(16, "Unauthenticated: token expired");
      return { statusCode: status, data: JSON.stringify(data), responseOptions: { headers: JSON_HEADERS } };
    })
    .persist();
  const client = exchangingClient(agent, {
    retryBaseDelayMs: 0,
    now: () => clock.now,
    tokenCache: new TokenCache(), // each world its own service; the process-wide cache is tested below
    ...options,
  });
  return { client, exchanges, apiCalls, clock, agent };
}

/**
 * `ms` from now the exchanged token is renewed, not a millisecond before: a request 1 ms earlier leaves the
 * exchanges at `exchanged`, one at `ms` makes one more.
 */
async function expectExchangedAgainAfter(w: World, ms: number, exchanged: number): Promise<void> {
  w.clock.now += ms - 1;
  await w.client.groups.get(FOLDER);
  expect(w.exchanges).toHaveLength(exchanged);
  w.clock.now += 1;
  await w.client.groups.get(FOLDER);
  expect(w.exchanges).toHaveLength(exchanged + 1);
}

describe("token exchange", () => {
  it("exchanges the OIDC token at {authUrl}/sts/exchange with aud and identity, then sends the API token", async () => {
    const { client, exchanges, apiCalls } = world();
    await client.groups.get(FOLDER);
    expect(exchanges).toHaveLength(1);
    const url = new URL(`${AUTH}${exchanges[0]?.path}`);
    expect(url.pathname).toBe("/sts/exchange");
    expect(Object.fromEntries(url.searchParams)).toEqual({ aud: API, identity: IDENTITY });
    expect(exchanges[0]?.method).toBe("GET");
    expect(exchanges[0]?.headers.authorization).toBe(`Bearer ${OIDC}`);
    expect(apiCalls[0]?.headers.authorization).toBe("Bearer api-token-1");
  });

  it("authUrl defaults to the origin of apiUrl", async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const seen: string[] = [];
    const pool = agent.get(API);
    pool.intercept({ path: (p) => p.startsWith("/sts/exchange"), method: "GET" }).reply(
      200,
      (o) => {
        seen.push(o.path);
        return JSON.stringify({ token: "t-1234" });
      },
      { headers: JSON_HEADERS },
    );
    pool
      .intercept({ path: `/iam/v2beta1/groups/${FOLDER}`, method: "GET" })
      .reply(200, JSON.stringify(group(FOLDER)), { headers: JSON_HEADERS });
    const client = new PlatformClient({
      apiUrl: API,
      identity: IDENTITY,
      identityToken: OIDC,
      env: {},
      dispatcher: agent,
    });
    await client.groups.get(FOLDER);
    expect(seen).toHaveLength(1);
  });

  it("caches the token: many requests, one exchange", async () => {
    const { client, exchanges, apiCalls } = world();
    for (let i = 0; i < 3; i++) await client.groups.get(FOLDER);
    expect(exchanges).toHaveLength(1);
    expect(apiCalls.map((c) => c.headers.authorization)).toEqual(Array(3).fill("Bearer api-token-1"));
  });

  it("concurrent requests share one in-flight exchange", async () => {
    const { client, exchanges, apiCalls } = world();
    await Promise.all(Array.from({ length: 10 }, () => client.groups.get(FOLDER)));
    expect(exchanges).toHaveLength(1);
    expect(apiCalls).toHaveLength(10);
  });

  it("exchanges again at 55 minutes by the injected clock, not before", async () => {
    const w = world();
    await w.client.groups.get(FOLDER);
    await expectExchangedAgainAfter(w, 55 * 60_000, 1);
    expect(w.apiCalls.map((c) => c.headers.authorization)).toEqual([
      "Bearer api-token-1",
      "Bearer api-token-1",
      "Bearer api-token-2",
    ]);
  });

  /** An unsigned JWT with the given claims (the client reads exp and iat; it never verifies: the service does). */
  const jwt = (claims: Record<string, number>) =>
    ["{}", JSON.stringify(claims), ""].map((p) => Buffer.from(p).toString("base64url")).join(".");

  it("reads the token's own lifetime (JWT exp - iat) and exchanges again 5 minutes before it ends", async () => {
    const iat = 1_700_000_000;
    const w = world({}, undefined, (n) => ({ token: jwt({ iat, exp: iat + 600 * n }) }));
    // First token: 10 minutes, so refresh at 90% (9 min); the margin never exceeds a tenth of the lifetime.
    await w.client.groups.get(FOLDER);
    await expectExchangedAgainAfter(w, 9 * 60_000, 1);
    // Second token: 20 minutes, so refresh after 18.
    await expectExchangedAgainAfter(w, 18 * 60_000, 2);
  });

  it("without a JWT, reads the response's expiry: a two-hour token is used for 1 h 55 min", async () => {
    const w = world({}, undefined, (n) => ({
      token: `opaque-${n}`,
      expiry: new Date(w.clock.now + 2 * 3_600_000).toISOString(),
    }));
    await w.client.groups.get(FOLDER);
    await expectExchangedAgainAfter(w, 115 * 60_000, 1);
  });

  it("clients of one process share the exchanged token (one exchange however many clients), not across identities", async () => {
    const shared = new TokenCache();
    const first = world({ tokenCache: shared });
    const options = { tokenCache: shared, dispatcher: first.agent, now: () => first.clock.now };
    const clients = Array.from({ length: 5 }, () => world(options).client);
    await Promise.all(clients.map((c) => c.groups.get(FOLDER)));
    await first.client.groups.get(FOLDER);
    expect(first.exchanges).toHaveLength(1);
    expect(first.apiCalls.map((c) => c.headers.authorization)).toEqual(Array(6).fill("Bearer api-token-1"));
    // Another identity, or another OIDC token, is another credential: its own exchange.
    await world({ ...options, identity: `${ORG}/00000000000000ef` }).client.groups.get(FOLDER);
    await world({ ...options, identityToken: "another-oidc-token" }).client.groups.get(FOLDER);
    expect(first.exchanges).toHaveLength(3);
  });

  it("re-reads the token file at each exchange", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sdk-auth-"));
    try {
      const file = join(dir, "oidc");
      writeFileSync(file, "first-oidc-token\n");
      const { client, exchanges, clock } = world({ identityToken: undefined, identityTokenFile: file });
      await client.groups.get(FOLDER);
      writeFileSync(file, "second-oidc-token\n");
      clock.now += 55 * 60_000;
      await client.groups.get(FOLDER);
      expect(exchanges.map((e) => e.headers.authorization)).toEqual([
        "Bearer first-oidc-token",
        "Bearer second-oidc-token",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a missing token file is a ConfigurationError naming the option and env var", async () => {
    const { client } = world({ identityToken: undefined, identityTokenFile: "/nonexistent/oidc-token" });
    const err = await client.groups.get(FOLDER).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(err)).toBe(true);
    expect((err as Error).message).toContain("identityTokenFile");
    expect((err as Error).message).toContain("PLATFORM_IDENTITY_TOKEN_FILE");
  });

  it("after a 401 it exchanges once more and repeats the request once", async () => {
    const { client, exchanges, apiCalls } = world({}, (n) => (n === 0 ? 401 : 200));
    const g = await client.groups.create(ORG, { name: "a" });
    expect(g.uid).toBe(FOLDER);
    expect(exchanges).toHaveLength(2);
    expect(apiCalls.map((c) => [c.method, c.headers.authorization])).toEqual([
      ["POST", "Bearer api-token-1"],
      ["POST", "Bearer api-token-2"],
    ]);
    expect(apiCalls[1]?.body).toEqual({ name: "a" });
  });

  it("a second 401 surfaces UnauthenticatedError without looping", async () => {
    const { client, exchanges, apiCalls } = world({}, () => 401);
    const err = await client.groups.get(FOLDER).catch((e: unknown) => e);
    expect(UnauthenticatedError.isInstance(err)).toBe(true);
    expect(exchanges).toHaveLength(2);
    expect(apiCalls).toHaveLength(2);
    expect((err as Error).message).not.toContain("api-token");
    expect((err as Error).message).not.toContain(OIDC);
  });

  it("a static token gets no re-exchange after a 401", async () => {
    const { client, exchanges, apiCalls } = world(
      { identity: undefined, token: "static-token-xyz" },
      () => 401,
    );
    const err = await client.groups.get(FOLDER).catch((e: unknown) => e);
    expect(UnauthenticatedError.isInstance(err)).toBe(true);
    expect(exchanges).toHaveLength(0);
    expect(apiCalls).toHaveLength(1);
  });

  it("identity wins over a static token", async () => {
    const { client, apiCalls } = world({ token: "static-token-xyz" });
    await client.groups.get(FOLDER);
    expect(apiCalls[0]?.headers.authorization).toBe("Bearer api-token-1");
  });

  it("a refused exchange names the exchange and never the OIDC token", async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get(AUTH)
      .intercept({ path: () => true, method: "GET" })
      .reply(401, JSON.stringify(aip193(16, `Unauthenticated: token ${OIDC} not accepted`)), {
        headers: JSON_HEADERS,
      });
    const client = exchangingClient(agent);
    const err = await client.groups.get(FOLDER).catch((e: unknown) => e);
    expect(UnauthenticatedError.isInstance(err)).toBe(true);
    expect((err as Error).message).toMatch(
      /^GET \/sts\/exchange: Unauthenticated: token \[redacted\] not accepted$/,
    );
  });

  it("an unavailable exchange is retried by its own loop only (attempts do not multiply)", async () => {
    const { client, exchanges } = world(
      { maxRetries: 2 },
      undefined,
      () => aip193(14, "Unavailable: sts down"),
      () => 503,
    );
    const err = await client.groups.get(FOLDER).catch((e: unknown) => e);
    expect(UnavailableError.isInstance(err)).toBe(true);
    expect((err as Error).message).toMatch(/^GET \/sts\/exchange: Unavailable: sts down$/);
    expect(exchanges).toHaveLength(3);
  });
});
