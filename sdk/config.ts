/**
 * The client's options and the one precedence rule: explicit option, then environment variable, then default.
 * Blank environment values count as unset. Invalid values fail loudly, naming the option and its env var.
 */
import { availableParallelism } from "node:os";
import type { Dispatcher } from "undici";
import type { TokenCache } from "./token-cache";
import { ConfigurationError } from "./errors";

export interface PlatformClientOptions {
  /** Base URL of the API, e.g. https://console-api.example.dev. Env PLATFORM_API_URL. Required, no default. */
  apiUrl?: string;
  /** Base URL of the token exchange. Env PLATFORM_AUTH_URL. Default: the origin of apiUrl. */
  authUrl?: string;
  /** A static API bearer token. Env PLATFORM_TOKEN. Ignored when `identity` is set. No default. */
  token?: string;
  /** Uid of an identity to assume through token exchange. Env PLATFORM_IDENTITY. No default. */
  identity?: string;
  /** The OIDC token presented to the exchange, as a string. Env PLATFORM_IDENTITY_TOKEN. No default. */
  identityToken?: string;
  /** A file holding the OIDC token; re-read at each exchange. Env PLATFORM_IDENTITY_TOKEN_FILE. No default. */
  identityTokenFile?: string;
  /** Per-request limit for headers and for the body, in ms. Env PLATFORM_TIMEOUT_MS. Default 30000. */
  timeoutMs?: number;
  /**
   * Retries, at most, of an idempotent call (GET, DELETE, PATCH with an updateMask) after 429/502/503/504, a
   * dropped connection or a timeout. Env PLATFORM_MAX_RETRIES. Default 10.
   */
  maxRetries?: number;
  /**
   * How long, in ms, a call keeps retrying transient failures (backing off, honouring Retry-After) before it
   * fails. Env PLATFORM_RETRY_BUDGET_MS. Default 60000.
   */
  retryBudgetMs?: number;
  /** Backoff before the first retry, doubling after. Env PLATFORM_RETRY_BASE_DELAY_MS. Default 250; tests set 0. */
  retryBaseDelayMs?: number;
  /**
   * Connection cap per origin. Env PLATFORM_MAX_CONNECTIONS. Default: Pulumi's default `--parallel` (4 x CPUs),
   * at least 16, so an engine step never waits for a connection.
   */
  maxConnections?: number;
  /** An undici dispatcher to send through instead of the client's own pools (tests pass a MockAgent). No env. */
  dispatcher?: Dispatcher;
  /** Appended to `pulumi-platform/<version>` in User-Agent. Env PLATFORM_USER_AGENT. No default. */
  userAgent?: string;
  /**
   * How long, in ms after this process created an object, a NotFound or PermissionDenied on a request that names
   * it is taken for propagation (the service takes a while before a new group, role or binding is effective) and
   * retried; after that the error is final and says so. 0 turns it off. Env PLATFORM_PROPAGATION_WINDOW_MS.
   * Default 60000.
   */
  propagationWindowMs?: number;
  /** Where env values come from. Default process.env. */
  env?: Record<string, string | undefined>;
  /** Clock for token expiry, in ms since the epoch. Default Date.now; tests inject one. */
  now?: () => number;
  /** How the client waits between retries. Default setTimeout; tests inject one to record delays. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Where exchanged tokens are kept. Default: one cache per process, shared by every client. No env. */
  tokenCache?: TokenCache;
}

/** The env var of each option that has one. */
export const ENV_VARS = {
  apiUrl: "PLATFORM_API_URL",
  authUrl: "PLATFORM_AUTH_URL",
  token: "PLATFORM_TOKEN",
  identity: "PLATFORM_IDENTITY",
  identityToken: "PLATFORM_IDENTITY_TOKEN",
  identityTokenFile: "PLATFORM_IDENTITY_TOKEN_FILE",
  timeoutMs: "PLATFORM_TIMEOUT_MS",
  maxRetries: "PLATFORM_MAX_RETRIES",
  retryBaseDelayMs: "PLATFORM_RETRY_BASE_DELAY_MS",
  retryBudgetMs: "PLATFORM_RETRY_BUDGET_MS",
  maxConnections: "PLATFORM_MAX_CONNECTIONS",
  propagationWindowMs: "PLATFORM_PROPAGATION_WINDOW_MS",
  userAgent: "PLATFORM_USER_AGENT",
} as const;

export const DEFAULTS = {
  timeoutMs: 30_000,
  maxRetries: 10,
  retryBaseDelayMs: 250,
  retryBudgetMs: 60_000,
  maxConnections: Math.max(16, 4 * availableParallelism()),
  propagationWindowMs: 60_000,
} as const;

/** How requests are authenticated. */
export type Credentials =
  | { kind: "token"; token: string }
  | { kind: "exchange"; identity: string; identityToken?: string; identityTokenFile?: string };

export interface ResolvedConfig {
  /** Normalized, without a trailing slash. */
  apiUrl: string;
  authUrl: string;
  credentials: Credentials;
  timeoutMs: number;
  maxRetries: number;
  retryBaseDelayMs: number;
  retryBudgetMs: number;
  maxConnections: number;
  propagationWindowMs: number;
  userAgent: string | undefined;
  dispatcher: Dispatcher | undefined;
  now: () => number;
  sleep: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  tokenCache: TokenCache | undefined;
}

type EnvOption = keyof typeof ENV_VARS;

function describe(option: EnvOption): string {
  return `option ${option} (env ${ENV_VARS[option]})`;
}

/** Where a setting is read from: the options passed, then the environment. */
interface Sources {
  options: PlatformClientOptions;
  env: Record<string, string | undefined>;
}

/** The one precedence rule: explicit option, then env (blank = unset), then undefined. */
function pick({ options, env }: Sources, option: EnvOption): string | number | undefined {
  const explicit = options[option];
  if (explicit !== undefined && !(typeof explicit === "string" && explicit.trim() === "")) return explicit;
  const fromEnv = env[ENV_VARS[option]];
  if (fromEnv !== undefined && fromEnv.trim() !== "") return fromEnv.trim();
  return undefined;
}

function pickString(from: Sources, option: EnvOption): string | undefined {
  const value = pick(from, option);
  return value === undefined ? undefined : String(value);
}

function pickUrl(from: Sources, option: EnvOption): string | undefined {
  const value = pickString(from, option);
  if (value === undefined) return undefined;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new ConfigurationError(`${describe(option)} must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.search || url.hash) {
    throw new ConfigurationError(
      `${describe(option)} must not carry a query or fragment, got ${JSON.stringify(value)}`,
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

function pickInteger(from: Sources, option: EnvOption, fallback: number, min: number): number {
  const value = pick(from, option);
  if (value === undefined) return fallback;
  const n = typeof value === "number" ? value : /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min) {
    throw new ConfigurationError(
      `${describe(option)} must be an integer >= ${min}, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/** Resolve options against the environment. Throws ConfigurationError naming the option and env var. */
export function resolveConfig(options: PlatformClientOptions = {}): ResolvedConfig {
  const from: Sources = { options, env: options.env ?? process.env };
  const apiUrl = pickUrl(from, "apiUrl");
  if (apiUrl === undefined) {
    throw new ConfigurationError(`the API URL is not set: pass ${describe("apiUrl")}`);
  }
  const authUrl = pickUrl(from, "authUrl") ?? new URL(apiUrl).origin;

  const identity = pickString(from, "identity");
  let credentials: Credentials;
  if (identity !== undefined) {
    const identityToken = pickString(from, "identityToken");
    const identityTokenFile = pickString(from, "identityTokenFile");
    if (identityToken === undefined && identityTokenFile === undefined) {
      throw new ConfigurationError(
        `${describe("identity")} is set, so an OIDC token is needed for the exchange: pass ${describe("identityToken")} or ${describe("identityTokenFile")}`,
      );
    }
    credentials = {
      kind: "exchange",
      identity,
      ...(identityToken !== undefined ? { identityToken } : {}),
      ...(identityTokenFile !== undefined ? { identityTokenFile } : {}),
    };
  } else {
    const token = pickString(from, "token");
    if (token === undefined) {
      throw new ConfigurationError(
        `no credentials: pass ${describe("token")}, or ${describe("identity")} with ${describe("identityToken")} or ${describe("identityTokenFile")}`,
      );
    }
    credentials = { kind: "token", token };
  }

  return {
    apiUrl,
    authUrl,
    credentials,
    timeoutMs: pickInteger(from, "timeoutMs", DEFAULTS.timeoutMs, 1),
    maxRetries: pickInteger(from, "maxRetries", DEFAULTS.maxRetries, 0),
    retryBaseDelayMs: pickInteger(from, "retryBaseDelayMs", DEFAULTS.retryBaseDelayMs, 0),
    retryBudgetMs: pickInteger(from, "retryBudgetMs", DEFAULTS.retryBudgetMs, 0),
    maxConnections: pickInteger(from, "maxConnections", DEFAULTS.maxConnections, 1),
    propagationWindowMs: pickInteger(from, "propagationWindowMs", DEFAULTS.propagationWindowMs, 0),
    userAgent: pickString(from, "userAgent"),
    dispatcher: options.dispatcher,
    now: options.now ?? Date.now,
    sleep: options.sleep,
    tokenCache: options.tokenCache,
  };
}
