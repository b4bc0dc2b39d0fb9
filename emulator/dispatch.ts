/**
 * The one call path behind both faces (REST in ./server.ts, gRPC in ./grpc/server.ts): a request already routed
 * to a route of the table goes through an injected fault, the body's form, the caller (from the bearer token),
 * the bounds, and the route's handler in a store transaction, then is persisted. A face only turns its wire form
 * into a `Dispatch` and the `Outcome` back into its wire form; it never validates, authorizes or logs on its own.
 *
 * May import: ./errors, ./bounds, ./faults, ./service, ./routes/types, ./access, ./listing.
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
import { ApiFailure, invalidArgument, unauthenticated } from "./errors";
import type { FaultRule, Faults } from "./faults";
import type { Query } from "./listing";
import type { LoggedRequest, Service } from "./service";
import { CONTROL_PREFIX } from "./routes/control";
import { FormBody, type Route, type RouteContext } from "./routes/types";

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
}

/** A status answered by an injected fault (the REST face adds `Retry-After: 0` to it). */
export class InjectedFailure extends ApiFailure {}

/** The gRPC code of an injected status fault, as the REST face answers it: 503 → 14, 429 → 8, 5xx → 13, else 3. */
export function faultCode(status: number): number {
  return status === 503 ? 14 : status === 429 ? 8 : status >= 500 ? 13 : 3;
}

export function isControlRoute(route: Route): boolean {
  return route.url.startsWith(CONTROL_PREFIX);
}

export function createDispatcher(svc: Service, faults: Faults, url: () => string): Dispatcher {
  const identities = new WeakMap<Dispatch, string>();
  return {
    identityOf: (request) => identities.get(request),
    call: async (request) => {
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
        authorization: request.authorization,
        url: url(),
      };
      if (route.auth !== false) {
        ctx.caller = authenticate(svc, request.authorization);
        identities.set(request, ctx.caller.identityUid);
      }
      const value = await runInTransaction(route, ctx, isControl);
      const identityUid = identities.get(request);
      const who = identityUid !== undefined ? { identityUid } : {};
      if (fault?.action === "applyThenDrop") return { kind: "drop", applied: true, ...who };
      return { kind: "value", value: value ?? {}, ...who };
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

function authenticate(svc: Service, authorization: string | undefined): Caller {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  if (match?.[1] === undefined) throw unauthenticated("missing bearer token in the Authorization header");
  const verified = svc.tokens.verify(match[1]);
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
 * The route's handler, after the query's and body's bounds, in a store transaction (all or nothing: a handler
 * that throws leaves the store as it found it), then persisted.
 */
async function runInTransaction(route: Route, ctx: RouteContext, isControl: boolean): Promise<unknown> {
  const { svc } = ctx;
  throwViolations(queryViolations(ctx.query));
  const bodyViolations = boundViolations(ctx.body, isControl ? MAX_CONTROL_COLLECTION : MAX_API_COLLECTION);
  if (route.parsesBody !== true) throwViolations(bodyViolations);
  // An async handler (token exchange) runs its checks first and writes only after its last await, outside this
  // synchronous section.
  const { result: pending } = svc.store.transaction(() => {
    svc.pendingBodyViolations = bodyViolations;
    try {
      const result = route.handler(ctx);
      // A body-parsing handler that finished without parsing still may not act on an unbounded body.
      throwViolations(svc.pendingBodyViolations);
      return { result };
    } finally {
      svc.pendingBodyViolations = [];
    }
  });
  const result = await pending;
  svc.persist();
  return result;
}

/** An advanceClock fault: the clock jumps (never past the year 9999), and the data file saves the new reading. */
function advanceClock(svc: Service, ms: number): void {
  const room = MAX_TIME_MS - svc.clock.now().getTime();
  svc.clock.advance(Math.max(0, Math.min(ms, room)));
  svc.store.markChanged();
}
