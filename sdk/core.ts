/**
 * The one request pipeline every resource goes through:
 *
 *   build URL (one path helper) -> authenticate -> send through undici -> map failures to typed errors
 *   -> parse the body with its zod schema -> retry idempotent calls -> re-exchange once after a 401.
 *
 * Also the shared list/update plumbing: query spelling (the spec's snake_case), page validation, update masks.
 *
 * May import: undici, zod, node:fs, ./errors, ./retry, ./config, ./pagination, ./schemas, ./version.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { Dispatcher, Pool } from "undici";
import type { z } from "zod";
import type { ResolvedConfig } from "./config";
import { ENV_VARS } from "./config";
import {
  ConfigurationError,
  ConnectionError,
  PlatformError,
  RequestError,
  ResponseValidationError,
  TimeoutError,
  UnauthenticatedError,
  makeApiError,
  redact,
  type RequestSite,
  type ValidationIssue,
} from "./errors";
import { PagePromise } from "./pagination";
import { isIdempotentMethod, parseRetryAfter, withRetry } from "./retry";
import type { ListPage } from "./schemas/common";
import { ExchangeResponse } from "./schemas/sts";
import { SDK_VERSION } from "./version";

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

/** A query value; arrays are sent as repeated parameters, undefined values are left out. */
export type QueryValue = string | number | boolean | readonly string[] | undefined;

/**
 * The one URL path helper: `collection` is a literal prefix such as `/iam/v2beta1/groups`; each uid is split on `/`,
 * every segment is percent-encoded, and the `/` separators are kept (a child uid's slashes are part of the path).
 */
export function resourcePath(collection: string, uid?: string): string {
  if (uid === undefined) return collection;
  if (typeof uid !== "string" || uid.trim() === "") {
    throw new RequestError(`${collection}: a uid is required, got ${JSON.stringify(uid)}`);
  }
  const segments = uid.split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) {
    throw new RequestError(`${collection}: ${JSON.stringify(uid)} is not a uid (empty or dot segment)`);
  }
  return `${collection}/${segments.map(encodeURIComponent).join("/")}`;
}

/** Query names that are not plain camelCase-to-snake_case conversions. */
const WIRE_NAMES: Record<string, string> = {
  descendantsOf: "uidp.descendants_of",
  childrenOf: "uidp.children_of",
  ancestorsOf: "uidp.ancestors_of",
  inRoot: "uidp.in_root",
  ids: "uidp.ids",
  // The spec spells updateMask in camelCase.
  updateMask: "updateMask",
};

/** The wire spelling of a query option: the spec's snake_case (`pageSize` -> `page_size`). */
export function wireQueryName(option: string): string {
  return WIRE_NAMES[option] ?? option.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Encode a query object with the wire spelling. Undefined values are left out; arrays repeat the name. */
export function encodeQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    const name = wireQueryName(key);
    if (Array.isArray(value)) for (const v of value as readonly string[]) params.append(name, v);
    else params.append(name, String(value));
  }
  const text = params.toString().replace(/\+/g, "%20");
  return text ? `?${text}` : "";
}

/** Paging and ordering, accepted by every v2 list. */
export interface PageQuery {
  /** `order_by`: a field, optionally followed by ` desc`, e.g. "name", "created_at desc". */
  orderBy?: string;
  /** `page_size`: results per page, a positive integer; the service defaults to 50 and caps at 200. */
  pageSize?: number;
  /** `page_token`: start at this cursor (from a previous page's nextPageToken). */
  pageToken?: string;
  /** `skip`: results to skip before the first page starts. Sent with the first page only. */
  skip?: number;
}

/** The uidp scoping filters every v2 list accepts. */
export interface UidpFilters {
  /** `uidp.descendants_of`: anywhere below this group. */
  descendantsOf?: string;
  /** `uidp.children_of`: direct children of this group. */
  childrenOf?: string;
  /** `uidp.ancestors_of`: groups above this uid. */
  ancestorsOf?: string;
  /** `uidp.in_root`: root-level resources only (organizations). */
  inRoot?: boolean;
  /** `uidp.ids`: exactly these uids. */
  ids?: string[];
}

/** The common list query: scoping filters, exact name, paging. */
export interface ListQuery extends PageQuery, UidpFilters {
  /** `name`: exact match. */
  name?: string;
}

function checkPageQuery(operation: string, q: PageQuery): RequestError | undefined {
  if (q.pageSize !== undefined && (!Number.isInteger(q.pageSize) || q.pageSize < 1)) {
    return new RequestError(`${operation}: pageSize must be a positive integer, got ${String(q.pageSize)}`);
  }
  if (q.skip !== undefined && (!Number.isInteger(q.skip) || q.skip < 0)) {
    return new RequestError(`${operation}: skip must be a non-negative integer, got ${String(q.skip)}`);
  }
  return undefined;
}

/** The body and updateMask of a PATCH: exactly the keys whose value is not undefined (send it `idempotent`). */
export function updateMaskFor<T extends object>(
  operation: string,
  patch: T,
): { body: Partial<T>; updateMask: string } {
  const entries = Object.entries(patch).filter(([, v]) => v !== undefined);
  if (entries.length === 0)
    throw new RequestError(`${operation}: nothing to update (every field is undefined)`);
  return { body: Object.fromEntries(entries) as Partial<T>, updateMask: entries.map(([k]) => k).join(",") };
}

export interface RequestSpec<S extends z.ZodType | undefined> {
  method: HttpMethod;
  /** Path below the base URL, built with resourcePath. */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Schema of a 2xx body; undefined: the body is ignored and the call resolves to void. */
  schema: S;
  /**
   * Safe to repeat although the method alone does not say so: a PATCH with an updateMask sets the named fields to
   * the same values however often it is applied. GET and DELETE are always repeated; a POST never is.
   */
  idempotent?: boolean;
}

type Result<S extends z.ZodType | undefined> = S extends z.ZodType ? z.output<S> : void;

interface SendSpec {
  baseUrl: string;
  method: HttpMethod;
  path: string;
  query?: Record<string, QueryValue> | undefined;
  body?: unknown;
  authorization: string | undefined;
  schema: z.ZodType | undefined;
}

const CONNECTION_HINTS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by peer",
  EPIPE: "connection closed while sending",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host lookup failed",
  UND_ERR_SOCKET: "socket closed",
  UND_ERR_CLOSED: "client closed",
  UND_ERR_CONNECT_TIMEOUT: "connect timed out",
};

function zodIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((i) => ({ field: i.path.map(String).join("."), message: i.message }));
}

/** Shared state and the request pipeline. Resources hold a reference to one. */
export class Core {
  private readonly pools = new Map<string, Pool>();
  private readonly userAgent: string;
  private readonly tokens: TokenSource;
  private closed = false;

  constructor(readonly config: ResolvedConfig) {
    this.userAgent = `pulumi-platform/${SDK_VERSION}${config.userAgent ? ` ${config.userAgent}` : ""}`;
    this.tokens = new TokenSource(config, (oidcToken) => this.exchange(oidcToken));
  }

  /** One API call: authenticated, retried when safe, parsed. */
  async request<S extends z.ZodType | undefined>(spec: RequestSpec<S>): Promise<Result<S>> {
    // The token is fetched outside the retry loop: the exchange has retries of its own, and nesting them would
    // multiply the attempts.
    let token = await this.tokens.get();
    const send = () =>
      this.send({ ...spec, baseUrl: this.config.apiUrl, authorization: `Bearer ${token}` }) as Promise<
        Result<S>
      >;
    let reExchanged = false;
    return this.withRetries(spec.idempotent === true || isIdempotentMethod(spec.method), async () => {
      try {
        return await send();
      } catch (error) {
        // An exchanged token may have been revoked or expired early: exchange once more and repeat once.
        // The 401 means the service did not act on the request, so repeating a POST is safe here.
        if (!UnauthenticatedError.isInstance(error) || !this.tokens.canRefresh || reExchanged) throw error;
        reExchanged = true;
        this.tokens.invalidate(token);
        token = await this.tokens.get();
        return await send();
      }
    });
  }

  /** A list call as a PagePromise; `skip` goes with the first page only, later pages follow the cursor. */
  list<T>(
    operation: string,
    path: string,
    query: Record<string, QueryValue> & PageQuery,
    envelope: z.ZodType<ListPage<T>>,
  ): PagePromise<T> {
    // Bad input rejects the PagePromise rather than throwing, like every other call's promise.
    const problem = checkPageQuery(operation, query);
    return new PagePromise<T>((pageToken) =>
      problem
        ? Promise.reject(problem)
        : (this.request({
            method: "GET",
            path,
            query: pageToken === undefined ? query : { ...query, pageToken, skip: undefined },
            schema: envelope,
          }) as Promise<ListPage<T>>),
    );
  }

  /** A list that fails with `error` when awaited or iterated. */
  failedList<T>(error: Error): PagePromise<T> {
    return new PagePromise<T>(() => Promise.reject(error));
  }

  /** Close the client's own pools (a dispatcher passed in options is the caller's to close). Later requests reject with RequestError. */
  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.close()));
  }

  private withRetries<T>(idempotent: boolean, attempt: () => Promise<T>): Promise<T> {
    return withRetry(attempt, {
      maxRetries: idempotent ? this.config.maxRetries : 0,
      budgetMs: this.config.retryBudgetMs,
      now: this.config.now,
      baseDelayMs: this.config.retryBaseDelayMs,
      ...(this.config.sleep ? { sleep: this.config.sleep } : {}),
    });
  }

  private exchange(oidcToken: string): Promise<ExchangedToken> {
    return this.withRetries(true, async () => {
      const body = (await this.send({
        baseUrl: this.config.authUrl,
        method: "GET",
        path: "/sts/exchange",
        query: {
          aud: this.config.apiUrl,
          identity:
            this.config.credentials.kind === "exchange" ? this.config.credentials.identity : undefined,
        },
        authorization: `Bearer ${oidcToken}`,
        schema: ExchangeResponse,
      })) as ExchangeResponse;
      const expiresAt = body.expiry === undefined ? undefined : Date.parse(body.expiry);
      return { token: body.token, expiresAt: Number.isNaN(expiresAt) ? undefined : expiresAt };
    });
  }

  private dispatcherFor(origin: string): Dispatcher {
    if (this.config.dispatcher) return this.config.dispatcher;
    let pool = this.pools.get(origin);
    if (!pool) {
      if (this.closed) throw new RequestError("the client is closed");
      // Loaded with the first request, not with the SDK: a provider process that only checks and diffs (a
      // preview, a no-op up) never pays for it.
      const undici = require("undici") as typeof import("undici");
      pool = new undici.Pool(origin, {
        connections: this.config.maxConnections,
        keepAliveTimeout: 30_000,
        headersTimeout: this.config.timeoutMs,
        bodyTimeout: this.config.timeoutMs,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /** One HTTP exchange, no retries. Every failure leaves as a PlatformError with no secret in it. */
  private async send(spec: SendSpec): Promise<unknown> {
    const base = new URL(spec.baseUrl);
    const fullPath = `${base.pathname.replace(/\/+$/, "")}${spec.path}`;
    const site: RequestSite = { method: spec.method, path: fullPath };
    const headers: Record<string, string> = { "user-agent": this.userAgent, accept: "application/json" };
    if (spec.authorization) headers.authorization = spec.authorization;
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers["content-type"] = "application/json";
    }

    const timeoutMs = this.config.timeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    let status: number;
    let text: string;
    let responseHeaders: Record<string, string | string[] | undefined>;
    try {
      const res = await this.dispatcherFor(base.origin).request({
        origin: base.origin,
        path: `${fullPath}${encodeQuery(spec.query)}`,
        method: spec.method,
        headers,
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: controller.signal,
      });
      status = res.statusCode;
      responseHeaders = res.headers;
      text = await res.body.text();
    } catch (error) {
      throw this.transportError(site, error, timedOut);
    } finally {
      clearTimeout(timer);
    }

    if (status < 200 || status >= 300) {
      const header = (name: string) => {
        const v = responseHeaders[name];
        return Array.isArray(v) ? v[0] : v;
      };
      throw makeApiError({
        ...site,
        httpStatus: status,
        bodyText: text,
        requestId: header("x-request-id"),
        retryAfterMs: parseRetryAfter(header("retry-after"), Date.now()),
        secrets: this.secrets(spec.authorization),
      });
    }
    if (!spec.schema) return undefined;
    let json: unknown;
    try {
      json = text.trim() === "" ? {} : JSON.parse(text);
    } catch {
      throw new ResponseValidationError(site, status, [{ field: "", message: "body is not JSON" }]);
    }
    const parsed = spec.schema.safeParse(json);
    if (!parsed.success) throw new ResponseValidationError(site, status, zodIssues(parsed.error));
    return parsed.data;
  }

  private secrets(authorization: string | undefined): string[] {
    return [authorization?.replace(/^Bearer /, ""), ...this.tokens.secrets()].filter((s): s is string => !!s);
  }

  private transportError(site: RequestSite, error: unknown, timedOut: boolean): PlatformError {
    if (PlatformError.isInstance(error)) return error;
    const code = (error as { code?: unknown } | null)?.code;
    const errorCode = typeof code === "string" ? code : undefined;
    if (timedOut || errorCode === "UND_ERR_HEADERS_TIMEOUT" || errorCode === "UND_ERR_BODY_TIMEOUT") {
      return new TimeoutError(site, this.config.timeoutMs);
    }
    const raw = error instanceof Error ? error.message : String(error);
    const hint = errorCode ? CONNECTION_HINTS[errorCode] : undefined;
    const detail = redact(
      `${hint ? `${hint}: ` : ""}${raw}${errorCode ? ` (${errorCode})` : ""}`,
      this.secrets(undefined),
    );
    return new ConnectionError(site, detail, errorCode);
  }
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

/**
 * Exchanged API tokens, shared by every client in a process that assumes the same identity with the same OIDC
 * token source against the same service: a Pulumi provider process or program process exchanges once per token
 * lifetime, however many clients (profiles, data-source calls) it builds. Concurrent callers share one exchange.
 * The default is one cache per process; pass `tokenCache: new TokenCache()` for a private one (tests).
 */
export class TokenCache {
  private readonly tokens = new Map<string, { token: string; refreshAt: number }>();
  private readonly inFlight = new Map<string, Promise<string>>();

  /** The cached token for `key` if still fresh at `now`, else the result of `exchange` (one in flight per key). */
  get(
    key: string,
    now: number,
    exchange: () => Promise<{ token: string; refreshAt: number }>,
  ): Promise<string> {
    const cached = this.tokens.get(key);
    if (cached && now < cached.refreshAt) return Promise.resolve(cached.token);
    let pending = this.inFlight.get(key);
    if (pending === undefined) {
      pending = exchange()
        .then((fresh) => {
          this.tokens.set(key, fresh);
          return fresh.token;
        })
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /** Forget `token` under `key` if it is the cached one, so the next get() exchanges again. */
  invalidate(key: string, token: string): void {
    if (this.tokens.get(key)?.token === token) this.tokens.delete(key);
  }

  /** The cached token under `key`, for redaction. */
  peek(key: string): string | undefined {
    return this.tokens.get(key)?.token;
  }
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
