/**
 * The one call path behind both faces (REST in ./server.ts, gRPC in ./grpc/server.ts): a request already routed
 * to a route of the table goes through an injected fault, the body's form, the route's awaited preparation (an ID
 * token's signature), then, in one synchronous section, the caller (from the bearer token), the bounds and the
 * route's handler in a store transaction, and is persisted. The edge both faces share is written here once: the
 * credentials (RFC 6750 `Bearer`, `bearerToken`), the request size limit and its answer (`requestTooLarge`), what is
 * a control path (`isControlPath`), the report of an unexpected error (`unexpected`) and the request log with its
 * log lines (`record`); the retry hint is the failure's own (../errors.ts `retryDelaySeconds`). A face only turns
 * its wire form into a `Dispatch` and the `Outcome` back into its wire form.
 */
import {
  MAX_API_COLLECTION,
  MAX_CONTROL_COLLECTION,
  MAX_TIME_MS,
  boundViolations,
  queryViolations,
  throwViolations,
} from "./bounds";
import type { Caller } from "./access";
import { ApiFailure, internal, invalidArgument, unauthenticated } from "./errors";
import type { FaultRule, Faults } from "./faults";
import type { Query } from "./listing";
import type { LoggedRequest, Service } from "./service";
import { CONTROL_PREFIX } from "./routes/control";
import { FormBody, StalePreparation, type Route, type RouteContext } from "./routes/types";

/** The largest request an API route takes, in bytes (a REST body, a gRPC request message). */
export const MAX_REQUEST_BYTES = 1024 * 1024;
/** The largest control request (a seed of tens of thousands of objects goes in one). */
export const MAX_CONTROL_REQUEST_BYTES = 256 * 1024 * 1024;

/**
 * The answer to a request over the size limit, on both faces: RESOURCE_EXHAUSTED (8), which grpc-gateway maps to
 * HTTP 429 (runtime/errors.go HTTPStatusFromCode) and which a gRPC server answers to a message over its limit.
 */
export function requestTooLarge(limit: number): ApiFailure {
  return new ApiFailure(8, `the request is larger than the emulator takes (at most ${limit} bytes)`);
}

/** Whether a path is a control path (`/_emulator/...`): loopback scripts only, never logged, never faulted. */
export function isControlPath(path: string): boolean {
  return path.startsWith(CONTROL_PREFIX);
}

/**
 * The bearer token of an `Authorization` value (the REST header or the gRPC metadata, the same rule): RFC 6750's
 * `credentials = "Bearer" 1*SP b64token`, the scheme case-insensitive (RFC 9110 11.1), surrounding whitespace not
 * part of the value (RFC 9110 5.5); undefined for anything else (a bare token, another scheme, no token).
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^[ \t]*bearer +([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i.exec(authorization ?? "");
  return match?.[1];
}

/** One request, routed: what either face read from its wire. */
export interface Dispatch {
  route: Route;
  /** The HTTP method and path of the request (for gRPC: those of the method's HTTP rule, filled in). */
  method: string;
  path: string;
  /** The RPC a gRPC call is ("chainguard.platform.iam.v2beta1.GroupsService/GetGroup"); absent over REST. */
  rpc?: string;
  /** The uid the path carries (the route's final `{uid}`, slashes kept), "" when it has none. */
  uid: string;
  query: Query;
  body: unknown;
  /** The `Authorization` header, or the gRPC `authorization` metadata. */
  authorization: string | undefined;
  /** Aborted when the client gives up (a gRPC deadline or cancellation): a stalled request then stops unapplied. */
  signal?: { readonly aborted: boolean };
}

/**
 * What became of a request: the handler's value (the 200 answer), or a drop (the connection, or the gRPC
 * stream, is cut with no answer; `applied` when the handler ran first). Failures are thrown as `ApiFailure`.
 */
export type Outcome =
  | { kind: "value"; value: unknown; identityUid?: string }
  | { kind: "drop"; applied: boolean; identityUid?: string };

export interface Dispatcher {
  call(request: Dispatch): Promise<Outcome>;
  /** The identity a request acted as, once authenticated (for the request log even when the handler fails). */
  identityOf(request: Dispatch): string | undefined;
  /**
   * One finished request, as either face saw it: a log line, and (not for a control path) an entry of the request
   * log. A call no route answers (UNIMPLEMENTED, a message that could not be read) is logged as what it was.
   */
  record(request: FinishedRequest): void;
  /** Reports an exception no handler meant (with where it happened) and gives the INTERNAL answer to send. */
  unexpected(error: unknown, where: string): ApiFailure;
}

/** What the request log says of a finished request. */
export interface FinishedRequest {
  method: string;
  path: string;
  query: Query;
  /** The HTTP status answered, or the one grpc-gateway maps the gRPC code to. */
  status: number;
  /** The full gRPC method name, for a call over gRPC. */
  rpc?: string;
  identityUid?: string;
  ms: number;
}

export interface DispatcherOptions {
  svc: Service;
  faults: Faults;
  /** The base URL, known once listening. */
  url: () => string;
  /** Called with each finished API request (not control requests). */
  onRequestLogged: (entry: LoggedRequest) => void;
  /** One line per request (method, path, status, ms), or silent. */
  logLine?: (line: string) => void;
  /** Where unexpected exceptions are reported (default: a process warning). */
  onUnexpectedError?: (report: string) => void;
}

/** How often a staged route is prepared again when what it relied on changed meanwhile, before it gives up. */
const MAX_PREPARATIONS = 5;

/** A status answered by an injected fault: worth a retry at once (`Retry-After: 0`, `RetryInfo` of 0 s). */
export class InjectedFailure extends ApiFailure {
  override get retryDelaySeconds(): number {
    return 0;
  }
}

/** The gRPC code of an injected status fault, as the REST face answers it: 503 → 14, 429 → 8, 5xx → 13, else 3. */
export function faultCode(status: number): number {
  return status === 503 ? 14 : status === 429 ? 8 : status >= 500 ? 13 : 3;
}

export function isControlRoute(route: Route): boolean {
  return isControlPath(route.url);
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { svc, faults } = options;
  const identities = new WeakMap<Dispatch, string>();
  const unexpected = (error: unknown, where: string): ApiFailure => {
    const report = `platform-emulator: unexpected error on ${where}: ${(error as Error).stack ?? String(error)}`;
    if (options.onUnexpectedError !== undefined) options.onUnexpectedError(report);
    else process.emitWarning(report);
    return internal("an unexpected error occurred in the emulator");
  };
  const call = async (request: Dispatch): Promise<Outcome> => {
    const { route } = request;
    const isControl = isControlRoute(route);
    const fault = isControl ? undefined : faults.pick(request.method, request.path, request.rpc);
    const faulted = await applyFault(fault, svc);
    if (faulted !== undefined) return faulted;
    if (request.signal?.aborted === true) return { kind: "drop", applied: false };
    if (request.body instanceof FormBody && route.formBody !== true) {
      throw invalidArgument("this endpoint takes a JSON body, not application/x-www-form-urlencoded", [
        { field: "body", description: "must be JSON (Content-Type application/json)" },
      ]);
    }
    const ctx: RouteContext = {
      svc,
      method: request.method,
      path: request.path,
      uid: request.uid,
      query: request.query,
      body: request.body,
      caller: { identityUid: "" },
      bearer: bearerToken(request.authorization),
      prepared: undefined,
      url: options.url(),
    };
    const value = await prepareAndRun(route, ctx, isControl, () => {
      // In the same synchronous section as the handler: an identity deleted while the request was prepared is gone.
      if (route.auth === false) return;
      ctx.caller = authenticate(svc, ctx.bearer);
      identities.set(request, ctx.caller.identityUid);
    });
    const identityUid = identities.get(request);
    const who = identityUid !== undefined ? { identityUid } : {};
    if (fault?.action === "applyThenDrop") return { kind: "drop", applied: true, ...who };
    return { kind: "value", value: value ?? {}, ...who };
  };
  return {
    identityOf: (request) => identities.get(request),
    unexpected,
    call: async (request) => {
      try {
        return await call(request);
      } catch (error) {
        if (error instanceof ApiFailure) throw error;
        throw unexpected(error, `${request.method} ${request.path}`);
      }
    },
    record: (request) => {
      const via = request.rpc === undefined ? "" : ` (gRPC ${request.rpc})`;
      options.logLine?.(
        `${request.method} ${request.path} ${request.status} ${request.ms.toFixed(1)}ms${via}`,
      );
      if (isControlPath(request.path)) return;
      const { ms, identityUid, ...fields } = request;
      options.onRequestLogged(logEntry(svc, { ...fields, query: { ...fields.query } }, identityUid, ms));
    },
  };
}

/** The request log's entry for an API request (control requests are not logged). */
export function logEntry(
  svc: Service,
  fields: Omit<LoggedRequest, "time" | "durationMs" | "identityUid">,
  identityUid: string | undefined,
  ms: number,
): LoggedRequest {
  return {
    ...fields,
    ...(identityUid !== undefined ? { identityUid } : {}),
    time: svc.now(),
    durationMs: Math.round(ms * 10) / 10,
  };
}

function authenticate(svc: Service, bearer: string | undefined): Caller {
  if (bearer === undefined) throw unauthenticated("missing bearer token in the Authorization header");
  const verified = svc.tokens.verify(bearer);
  if ("reason" in verified) throw unauthenticated(verified.reason);
  // Revocation: a signed, unexpired token is worth nothing once its identity is gone (removed bindings take
  // effect through the access checks, which read the live bindings on every request).
  const identityUid = verified.claims.sub;
  if (svc.store.get("identities", identityUid) === undefined)
    throw unauthenticated("the token's identity no longer exists");
  return { identityUid };
}

/**
 * An injected fault before the handler: a status is thrown, a drop is the outcome; a stall waits and a clock jump
 * advances the clock, and the request goes on (undefined).
 */
async function applyFault(fault: FaultRule | undefined, svc: Service): Promise<Outcome | undefined> {
  if (fault?.action === "status") {
    const status = fault.status ?? 503;
    throw new InjectedFailure(faultCode(status), `injected fault (HTTP ${status})`, [], [], status);
  }
  if (fault?.action === "drop") return { kind: "drop", applied: false };
  if (fault?.action === "stall") await new Promise((resolve) => setTimeout(resolve, fault.stallMs ?? 1000));
  if (fault?.action === "advanceClock") advanceClock(svc, fault.advanceMs ?? 0);
  return undefined;
}

/**
 * The route's awaited preparation, if it has one (prepared again, a few times, when the handler finds what it relied
 * on changed), then, with nothing awaited in between, `authenticate` and the handler in the transaction.
 */
async function prepareAndRun(
  route: Route,
  ctx: RouteContext,
  isControl: boolean,
  authenticate: () => void,
): Promise<unknown> {
  throwViolations(queryViolations(ctx.query));
  const bodyViolations = boundViolations(ctx.body, isControl ? MAX_CONTROL_COLLECTION : MAX_API_COLLECTION);
  if (route.parsesBody !== true) throwViolations(bodyViolations);
  for (let attempt = 1; ; attempt++) {
    if (route.prepare !== undefined) ctx.prepared = await route.prepare(ctx);
    try {
      authenticate();
      return runInTransaction(route, ctx, bodyViolations);
    } catch (error) {
      if (!(error instanceof StalePreparation)) throw error;
      // Changed under it every time: nothing was applied, and a repeat may succeed (UNAVAILABLE, retry at once).
      if (attempt >= MAX_PREPARATIONS)
        throw new ApiFailure(14, "what the request relies on changed while it was being verified; retry it");
    }
  }
}

/**
 * The route's handler in a store transaction (all or nothing: a handler that throws leaves the store as it found
 * it), then persisted. Synchronous: nothing else runs between what the handler reads and what it writes.
 */
function runInTransaction(
  route: Route,
  ctx: RouteContext,
  bodyViolations: ReturnType<typeof boundViolations>,
): unknown {
  const { svc } = ctx;
  const result = svc.store.transaction(() => {
    svc.pendingBodyViolations = bodyViolations;
    try {
      const answer = route.handler(ctx);
      // A body-parsing handler that finished without parsing still may not act on an unbounded body.
      throwViolations(svc.pendingBodyViolations);
      return answer;
    } finally {
      svc.pendingBodyViolations = [];
    }
  });
  svc.persist();
  return result;
}

/** An advanceClock fault: the clock jumps (never past the year 9999), and the data file saves the new reading. */
function advanceClock(svc: Service, ms: number): void {
  const room = MAX_TIME_MS - svc.clock.now().getTime();
  svc.clock.advance(Math.max(0, Math.min(ms, room)));
  svc.store.markChanged();
}
