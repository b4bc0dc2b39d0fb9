/** The route table's shape: handlers return values; the server adapter writes responses and errors. */
import type { Caller } from "../access";
import type { Query } from "../listing";
import type { Service } from "../service";
import type { Synchronous } from "../store";

export type { Synchronous } from "../store";

export interface RouteContext {
  svc: Service;
  method: string;
  path: string;
  /** The uid taken from the path (may contain "/"); "" when the path has none. */
  uid: string;
  query: Query;
  body: unknown;
  /** Set for authenticated routes. */
  caller: Caller;
  /**
   * The bearer token of the request's credentials (RFC 6750, read once by ../dispatch.ts for both faces), or
   * undefined when there is none; token exchange reads the ID token from it.
   */
  bearer: string | undefined;
  /** What the route's `prepare` found (undefined for a route without one). */
  prepared: unknown;
  /** The emulator's base URL. */
  url: string;
}

export interface Route {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** A fastify path; a trailing `/*` captures a uid with its slashes. */
  url: string;
  /** Default true: a bearer token is required and resolved to `caller`. */
  auth?: boolean;
  /** Accepts an `application/x-www-form-urlencoded` body (as a `FormBody`); other routes refuse one. */
  formBody?: boolean;
  /**
   * The route's work, run inside one store transaction: synchronous, so nothing else runs between what it reads,
   * what it checks and what it writes (`route` in ./table.ts and `Store.transaction` refuse a promise by type).
   */
  handler: (ctx: RouteContext) => unknown;
  /**
   * What must be awaited first (an ID token's signature), before the transaction: it reads, never writes, and its
   * result is the handler's `ctx.prepared`. The handler re-reads whatever it changes, and throws `StalePreparation`
   * when what the preparation relied on changed meanwhile (it is then prepared again).
   */
  prepare?: (ctx: RouteContext) => Promise<unknown>;
  /**
   * The handler validates its body with `svc.parseBody`, which then reports bound violations together with the
   * schema's (one answer naming every bad field). Otherwise the server refuses a body beyond bounds up front.
   */
  parsesBody?: boolean;
}

/** A parsed `application/x-www-form-urlencoded` body: every value of a repeated name, in order. */
export class FormBody {
  constructor(readonly params: Record<string, string | string[]>) {}
}

/** Thrown by a handler whose `prepare` relied on what has changed since: the call path prepares it again. */
export class StalePreparation extends Error {}

/** A route's work in two steps: `prepare` (awaited, reads only), then `handler` (in the transaction, writes). */
export interface Staged {
  prepare: (ctx: RouteContext) => Promise<unknown>;
  handler: (ctx: RouteContext) => unknown;
}

/** Builds a `Staged` whose handler receives what `prepare` found, typed. */
export function staged<P, R>(
  prepare: (ctx: RouteContext) => Promise<P>,
  handler: (ctx: RouteContext, prepared: P) => Synchronous<R>,
): Staged {
  return { prepare, handler: (ctx) => handler(ctx, ctx.prepared as P) };
}
