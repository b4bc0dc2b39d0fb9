/**
 * The one request pipeline every resource goes through:
 *
 *   build URL (one path helper) -> authenticate -> send through undici -> map failures to typed errors
 *   -> parse the body with its zod schema -> retry idempotent calls -> re-exchange once after a 401.
 *
 * Also the shared list/update plumbing: query spelling (the spec's snake_case), page validation, update masks.
 * The token exchange and its cache are ./token-exchange.ts; this module only sends the exchange's request.
 */
import type { Dispatcher, Pool } from "undici";
import type { z } from "zod";
import type { ResolvedConfig } from "./config";
import { ENV_VARS } from "./config";
import {
  ConnectionError,
  ExpiredTokenError,
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
import { isIdempotentMethod, parseRetryAfter, sleep, withRetry } from "./retry";
import type { ListPage } from "./schemas/common";
import { parseKeepingKeys } from "./schemas/own-keys";
import type { ExchangeResponse } from "./schemas/sts";
import {
  isPropagationError,
  processCreatedObjects,
  propagates,
  propagationDelay,
  requestNames,
  withNote,
} from "./propagation";
import {
  TokenSource,
  exchangeRequest,
  exchangedToken,
  jwtTimes,
  type ExchangedToken,
} from "./token-exchange";
import { SDK_VERSION } from "./version";
import type { HttpMethod, QueryValue, SendSpec } from "./request";
import { segmentsOf } from "./uidp";

export type { HttpMethod, QueryValue, SendSpec };

/**
 * The one URL path helper: `collection` is a literal prefix such as `/iam/v2beta1/groups`; each uid is split on `/`,
 * every segment is percent-encoded, and the `/` separators are kept (a child uid's slashes are part of the path).
 */
export function resourcePath(collection: string, uid?: string): string {
  if (uid === undefined) return collection;
  if (typeof uid !== "string" || uid.trim() === "") {
    throw new RequestError(`${collection}: a uid is required, got ${JSON.stringify(uid)}`);
  }
  const segments = segmentsOf(uid);
  if (segments.some((s) => s === "" || s === "." || s === "..")) {
    throw new RequestError(`${collection}: ${JSON.stringify(uid)} is not a uid (empty or dot segment)`);
  }
  return `${collection}/${segments.map(encodeURIComponent).join("/")}`;
}

/** The uid a resource path names: what follows `/<api>/<version>/<collection>/`, decoded ("" for none). */
export function uidOfPath(path: string): string {
  // eslint-disable-next-line no-restricted-syntax -- a URL path's segments, not a uid's
  const segments = path.split("/").slice(4);
  try {
    return segments.map(decodeURIComponent).join("/");
  } catch {
    return segments.join("/");
  }
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
  /** `uidp.in_root`: root-level resources only (organizations, user identities) when true. */
  inRoot?: boolean;
  /** `uidp.ids`: exactly these uids: many objects known by uid in one request rather than a get each. */
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

  /**
   * One API call: authenticated, retried when safe, parsed. A NotFound or PermissionDenied on a request that names
   * an object this process created within `propagationWindowMs` is retried until the window closes (./propagation.ts);
   * a successful create is remembered for that.
   */
  async request<S extends z.ZodType | undefined>(spec: RequestSpec<S>): Promise<Result<S>> {
    const started = this.config.now();
    for (let retry = 0; ; retry++) {
      try {
        const result = await this.attempt(spec);
        if (spec.method === "POST" && propagates(spec.path)) this.recordCreated(result);
        if (spec.method === "DELETE") processCreatedObjects.forget(uidOfPath(spec.path));
        return result;
      } catch (error) {
        if (!isPropagationError(error) || this.config.propagationWindowMs <= 0) throw this.explained(error);
        const names = requestNames(spec.path, spec.query, spec.body);
        const now = this.config.now();
        // A create depends on everything it names (its parent group, a role it binds); a read, update or delete
        // on the object itself, so only when this process created that object (and has not deleted it).
        const pending =
          spec.method === "POST"
            ? processCreatedObjects.dependency(names, now, this.config.propagationWindowMs)
            : processCreatedObjects.recent(uidOfPath(spec.path), now, this.config.propagationWindowMs);
        if (pending === undefined) {
          if (retry === 0) throw error;
          // Retried, and the window has closed: say so, and how to widen it.
          throw withNote(error, this.gaveUp(names, now - started, retry));
        }
        const wait = Math.min(
          propagationDelay(retry, this.config.retryBaseDelayMs),
          pending.createdAt + this.config.propagationWindowMs - now,
        );
        await (this.config.sleep ?? sleep)(Math.max(0, wait));
      }
    }
  }

  /** The request with its transient retries and its one re-exchange after a 401. */
  private async attempt<S extends z.ZodType | undefined>(spec: RequestSpec<S>): Promise<Result<S>> {
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

  /** Remembers the uid a create answered with, process-wide (see ./propagation.ts). */
  private recordCreated(result: unknown): void {
    const uid = (result as { uid?: unknown } | undefined)?.uid;
    if (typeof uid === "string" && uid !== "") processCreatedObjects.record(uid, this.config.now());
  }

  /** Why the client stopped retrying a NotFound / PermissionDenied on an object of this run. */
  private gaveUp(names: readonly string[], waitedMs: number, retries: number): string {
    const window = this.config.propagationWindowMs;
    const created = processCreatedObjects.dependency(names, this.config.now(), Number.POSITIVE_INFINITY);
    const what = created === undefined ? "an object this run created" : created.uid;
    return (
      `retried ${retries} times over ${Math.round(waitedMs / 100) / 10}s because ${what} was created by this run ` +
      `and may not have propagated yet; gave up after the propagation window of ${window} ms ` +
      `(option propagationWindowMs (env ${ENV_VARS.propagationWindowMs}))`
    );
  }

  /**
   * A static token the service refuses as expired becomes an ExpiredTokenError naming the setting to refresh; any
   * other error is returned as it is.
   */
  private explained(error: unknown): unknown {
    const creds = this.config.credentials;
    if (!UnauthenticatedError.isInstance(error) || creds.kind !== "token") return error;
    const exp = jwtTimes(creds.token)?.exp;
    const expired = (exp !== undefined && exp <= this.config.now()) || /expired/i.test(error.serviceMessage);
    if (!expired) return error;
    const when = exp === undefined ? "" : ` at ${new Date(exp).toISOString()}`;
    return new ExpiredTokenError({
      method: error.method,
      path: error.path,
      httpStatus: error.httpStatus,
      code: error.code,
      serviceMessage:
        `the API token of option token (env ${ENV_VARS.token}) has expired${when}: refresh it there ` +
        `(a static token is not renewed by the client; a workload identity's exchanged token is); the service said: ${error.serviceMessage}`,
      details: error.details,
      requestId: error.requestId,
      retryAfterMs: error.retryAfterMs,
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
    return this.withRetries(true, async () =>
      exchangedToken((await this.send(exchangeRequest(this.config, oidcToken))) as ExchangeResponse),
    );
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
    // Map keys as the service sent them (`__proto__` included): a name is data, never dropped.
    const parsed = parseKeepingKeys(spec.schema, json);
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
