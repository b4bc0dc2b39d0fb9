import { ConfigurationError, DEFAULTS, resolveConfig } from "../../sdk";

const base = { apiUrl: "https://api.example", token: "tok-123456" };

function configError(fn: () => unknown): ConfigurationError {
  try {
    fn();
  } catch (e) {
    if (ConfigurationError.isInstance(e)) return e;
    throw e;
  }
  throw new Error("expected a ConfigurationError");
}

describe("config precedence", () => {
  it("explicit option beats env, env beats default", () => {
    const env = {
      PLATFORM_API_URL: "https://env.example",
      PLATFORM_TIMEOUT_MS: "1234",
      PLATFORM_TOKEN: "env-token",
    };
    const c = resolveConfig({ env, apiUrl: "https://explicit.example/" });
    expect(c.apiUrl).toBe("https://explicit.example");
    expect(c.timeoutMs).toBe(1234);
    expect(c.credentials).toEqual({ kind: "token", token: "env-token" });
    expect(c.maxRetries).toBe(DEFAULTS.maxRetries);
    expect(c.retryBaseDelayMs).toBe(250);
    expect(c.maxConnections).toBe(16);
    expect(c.timeoutMs).not.toBe(DEFAULTS.timeoutMs);
  });

  it("defaults: timeout 30000, 10 retries within 60 s, 250 ms base delay, 16 connections, authUrl = apiUrl's origin", () => {
    const c = resolveConfig({ ...base, apiUrl: "https://api.example/prefix", env: {} });
    expect([c.timeoutMs, c.maxRetries, c.retryBudgetMs, c.retryBaseDelayMs, c.maxConnections]).toEqual([
      30000, 10, 60000, 250, 16,
    ]);
    expect(c.authUrl).toBe("https://api.example");
  });

  it("propagationWindowMs: option, then PLATFORM_PROPAGATION_WINDOW_MS, then 60000; 0 allowed; garbage named", () => {
    expect(resolveConfig({ ...base, env: {} }).propagationWindowMs).toBe(60000);
    expect(resolveConfig({ ...base, env: { PLATFORM_PROPAGATION_WINDOW_MS: "0" } }).propagationWindowMs).toBe(
      0,
    );
    expect(
      resolveConfig({ ...base, propagationWindowMs: 5, env: { PLATFORM_PROPAGATION_WINDOW_MS: "9" } })
        .propagationWindowMs,
    ).toBe(5);
    expect(
      configError(() => resolveConfig({ ...base, env: { PLATFORM_PROPAGATION_WINDOW_MS: "1m" } })).message,
    ).toBe(
      'option propagationWindowMs (env PLATFORM_PROPAGATION_WINDOW_MS) must be an integer >= 0, got "1m"',
    );
  });

  it("blank env values count as unset", () => {
    const c = resolveConfig({
      ...base,
      env: { PLATFORM_TIMEOUT_MS: "  ", PLATFORM_AUTH_URL: "", PLATFORM_IDENTITY: " " },
    });
    expect(c.timeoutMs).toBe(30000);
    expect(c.authUrl).toBe("https://api.example");
    expect(c.credentials.kind).toBe("token");
  });

  it("reads every option from its env var", () => {
    const c = resolveConfig({
      env: {
        PLATFORM_API_URL: "https://a.example",
        PLATFORM_AUTH_URL: "https://auth.example",
        PLATFORM_IDENTITY: "0123456789abcdef0123456789abcdef01234567",
        PLATFORM_IDENTITY_TOKEN_FILE: "/var/run/oidc",
        PLATFORM_MAX_RETRIES: "0",
        PLATFORM_RETRY_BASE_DELAY_MS: "5",
        PLATFORM_MAX_CONNECTIONS: "4",
        PLATFORM_USER_AGENT: "ci/1",
      },
    });
    expect(c).toMatchObject({
      apiUrl: "https://a.example",
      authUrl: "https://auth.example",
      credentials: {
        kind: "exchange",
        identity: "0123456789abcdef0123456789abcdef01234567",
        identityTokenFile: "/var/run/oidc",
      },
      maxRetries: 0,
      retryBaseDelayMs: 5,
      maxConnections: 4,
      userAgent: "ci/1",
    });
  });

  it("a missing apiUrl names the option and the env var", () => {
    const e = configError(() => resolveConfig({ token: "x", env: {} }));
    expect(e.message).toContain("apiUrl");
    expect(e.message).toContain("PLATFORM_API_URL");
  });

  it.each([
    [{ apiUrl: "not a url" }, "apiUrl", "PLATFORM_API_URL"],
    [{ apiUrl: "ftp://api.example" }, "apiUrl", "PLATFORM_API_URL"],
    [{ authUrl: "::" }, "authUrl", "PLATFORM_AUTH_URL"],
    [{ timeoutMs: -1 }, "timeoutMs", "PLATFORM_TIMEOUT_MS"],
    [{ timeoutMs: 0 }, "timeoutMs", "PLATFORM_TIMEOUT_MS"],
    [{ maxRetries: 1.5 }, "maxRetries", "PLATFORM_MAX_RETRIES"],
    [{ maxConnections: 0 }, "maxConnections", "PLATFORM_MAX_CONNECTIONS"],
    [{ retryBaseDelayMs: -5 }, "retryBaseDelayMs", "PLATFORM_RETRY_BASE_DELAY_MS"],
  ])("invalid %p fails loudly naming %s and %s", (bad, option, envVar) => {
    const e = configError(() => resolveConfig({ ...base, env: {}, ...bad }));
    expect(e.message).toContain(`option ${option}`);
    expect(e.message).toContain(envVar);
  });

  it("an invalid env value names the env var", () => {
    const e = configError(() => resolveConfig({ ...base, env: { PLATFORM_TIMEOUT_MS: "soon" } }));
    expect(e.message).toContain("PLATFORM_TIMEOUT_MS");
    expect(e.message).toContain('"soon"');
  });

  it("no credentials at all is a ConfigurationError naming the ways to give them", () => {
    const e = configError(() => resolveConfig({ apiUrl: "https://api.example", env: {} }));
    expect(e.message).toContain("PLATFORM_TOKEN");
    expect(e.message).toContain("PLATFORM_IDENTITY");
  });

  it("identity without an OIDC token is a ConfigurationError", () => {
    const e = configError(() =>
      resolveConfig({
        apiUrl: "https://api.example",
        identity: "0123456789abcdef0123456789abcdef01234567",
        env: {},
      }),
    );
    expect(e.message).toContain("PLATFORM_IDENTITY_TOKEN");
    expect(e.message).toContain("PLATFORM_IDENTITY_TOKEN_FILE");
  });

  it("identity takes precedence over a static token", () => {
    const c = resolveConfig({
      ...base,
      identity: "0123456789abcdef0123456789abcdef01234567",
      identityToken: "oidc-1234",
      env: {},
    });
    expect(c.credentials).toEqual({
      kind: "exchange",
      identity: "0123456789abcdef0123456789abcdef01234567",
      identityToken: "oidc-1234",
    });
  });

  it("a configuration error never echoes a token", () => {
    const e = configError(() => resolveConfig({ token: "super-secret-token", apiUrl: "bad", env: {} }));
    expect(e.message).not.toContain("super-secret-token");
  });
});
