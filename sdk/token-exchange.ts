/**
 * The token exchange and its cache: an OIDC ID token is exchanged at {authUrl}/sts/exchange for an API token of
 * the identity it may assume; the API token is kept (process-wide, see TokenCache) until shortly before it
 * expires, and exchanged again. The request itself is sent by ./core.ts, which builds it with `exchangeRequest`.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { ResolvedConfig } from "./config";
import { ENV_VARS } from "./config";
import type { SendSpec } from "./request";
import { ConfigurationError } from "./errors";
import { ExchangeResponse } from "./schemas/sts";
import { TokenCache } from "./token-cache";

/** The exchange's request: the identity to assume, this API as the audience, the OIDC token as the bearer. */
export function exchangeRequest(
  config: Pick<ResolvedConfig, "authUrl" | "apiUrl" | "credentials">,
  oidcToken: string,
): SendSpec {
  return {
    baseUrl: config.authUrl,
    method: "GET",
    path: "/sts/exchange",
    query: {
      aud: config.apiUrl,
      identity: config.credentials.kind === "exchange" ? config.credentials.identity : undefined,
    },
    authorization: `Bearer ${oidcToken}`,
    schema: ExchangeResponse,
  };
}

/** The token and, when the service says, its expiry (ms since the epoch) from the exchange's answer. */
export function exchangedToken(body: ExchangeResponse): ExchangedToken {
  const expiresAt = body.expiry === undefined ? undefined : Date.parse(body.expiry);
  return { token: body.token, expiresAt: Number.isNaN(expiresAt) ? undefined : expiresAt };
}

/** Without an expiry from the service, an exchanged token is used for this long (it is valid one hour). */
export const TOKEN_REFRESH_AFTER_MS = 55 * 60 * 1000;
/** With one, it is exchanged again this long before it expires (or at 90% of a shorter lifetime). */
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60 * 1000;

/** What an exchange returns: the API token and, when the service says, when it expires (ms since the epoch). */
export interface ExchangedToken {
  token: string;
  expiresAt?: number | undefined;
}

/** The `exp` and `iat` claims of a JWT, in ms; undefined for a token that is not a readable JWT. */
export function jwtTimes(token: string): { exp?: number; iat?: number } | undefined {
  const payload = token.split(".")[1];
  if (payload === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
    const ms = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v * 1000 : undefined);
    const exp = ms(claims.exp);
    const iat = ms(claims.iat);
    return { ...(exp !== undefined ? { exp } : {}), ...(iat !== undefined ? { iat } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * How long, from `startedAt` on the client's clock, a freshly exchanged token is used. The token's own lifetime
 * (`exp - iat` of a JWT) is clock-skew free; else the response's expiry against the client's clock; else 55 min.
 */
export function tokenLifetimeMs(exchanged: ExchangedToken, startedAt: number): number {
  const times = jwtTimes(exchanged.token);
  const exp = times?.exp ?? exchanged.expiresAt;
  const lifetime =
    times?.exp !== undefined && times.iat !== undefined
      ? times.exp - times.iat
      : exp !== undefined
        ? exp - startedAt
        : undefined;
  if (lifetime === undefined) return TOKEN_REFRESH_AFTER_MS;
  return Math.max(0, lifetime - Math.min(TOKEN_REFRESH_MARGIN_MS, lifetime / 10));
}

const processTokenCache = new TokenCache();

/**
 * The API token: a static one, or one exchanged for an OIDC token and cached (see TokenCache) until shortly before
 * it expires. The OIDC token file is re-read at each exchange.
 */
export class TokenSource {
  private lastOidc: string | undefined;
  private readonly key: string;
  private readonly cache: TokenCache;

  constructor(
    private readonly config: Pick<ResolvedConfig, "credentials" | "now" | "apiUrl" | "authUrl"> & {
      tokenCache?: TokenCache | undefined;
    },
    private readonly exchange: (oidcToken: string) => Promise<ExchangedToken>,
  ) {
    this.cache = config.tokenCache ?? processTokenCache;
    const creds = config.credentials;
    const source =
      creds.kind !== "exchange"
        ? ""
        : creds.identityTokenFile !== undefined
          ? `file:${creds.identityTokenFile}`
          : `token:${createHash("sha256")
              .update(creds.identityToken ?? "")
              .digest("hex")}`;
    this.key = JSON.stringify([
      config.authUrl,
      config.apiUrl,
      creds.kind === "exchange" ? creds.identity : "",
      source,
    ]);
  }

  get canRefresh(): boolean {
    return this.config.credentials.kind === "exchange";
  }

  async get(): Promise<string> {
    const creds = this.config.credentials;
    if (creds.kind === "token") return creds.token;
    return this.cache.get(this.key, this.config.now(), () => this.refresh());
  }

  /** Forget `token` if it is the cached one, so the next get() exchanges again. */
  invalidate(token: string): void {
    this.cache.invalidate(this.key, token);
  }

  /** Every credential this source knows, for redaction. */
  secrets(): string[] {
    const creds = this.config.credentials;
    if (creds.kind === "token") return [creds.token];
    return [this.cache.peek(this.key), this.lastOidc, creds.identityToken].filter((s): s is string => !!s);
  }

  private async refresh(): Promise<{ token: string; refreshAt: number }> {
    const oidc = await this.readOidcToken();
    this.lastOidc = oidc;
    const startedAt = this.config.now();
    const exchanged = await this.exchange(oidc);
    return { token: exchanged.token, refreshAt: startedAt + tokenLifetimeMs(exchanged, startedAt) };
  }

  private async readOidcToken(): Promise<string> {
    const creds = this.config.credentials;
    if (creds.kind !== "exchange") throw new ConfigurationError("no identity to exchange a token for");
    if (creds.identityTokenFile !== undefined) {
      let text: string;
      try {
        text = await readFile(creds.identityTokenFile, "utf8");
      } catch (error) {
        const code = (error as { code?: string }).code ?? "read failed";
        throw new ConfigurationError(
          `cannot read the OIDC token file ${creds.identityTokenFile} (option identityTokenFile, env ${ENV_VARS.identityTokenFile}): ${code}`,
        );
      }
      const token = text.trim();
      if (token === "") {
        throw new ConfigurationError(
          `the OIDC token file ${creds.identityTokenFile} is empty (option identityTokenFile, env ${ENV_VARS.identityTokenFile})`,
        );
      }
      return token;
    }
    return creds.identityToken ?? "";
  }
}
