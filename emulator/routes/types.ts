/** The route table's shape: handlers return values; the server adapter writes responses and errors. */
import type { Caller } from "../access";
import type { Query } from "../listing";
import type { Service } from "../service";

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
  /** The raw Authorization header (token exchange reads the ID token from it). */
  authorization: string | undefined;
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
  handler: (ctx: RouteContext) => unknown;
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
