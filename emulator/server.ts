/**
 * The HTTP adapter: one route table registered on fastify, one place that authenticates, applies faults,
 * writes values as JSON and errors as AIP-193 bodies (unknown routes, malformed JSON, oversized bodies and
 * unexpected exceptions included), and logs requests without their Authorization header.
 *
 * Every request body and query is checked against the bounds of ./bounds.ts before its handler runs, and every
 * handler runs in a store transaction: a request that fails changes nothing. Control endpoints answer only what
 * a script on this machine sends, never what a browser page could (see `controlRefusal`). Garbage that is not
 * HTTP still gets an AIP-193 body (`clientErrorHandler`).
 *
 * May import: fastify, ./errors, ./service, ./faults, ./routes.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { Socket } from "node:net";
import {
  MAX_TIME_MS,
  MAX_API_COLLECTION,
  MAX_CONTROL_COLLECTION,
  boundViolations,
  queryViolations,
  throwViolations,
} from "./bounds";
import { ApiFailure, internal, invalidArgument, notFound, permissionDenied, unauthenticated } from "./errors";
import type { FaultRule, Faults } from "./faults";
import type { Query } from "./listing";
import type { LoggedRequest, Service } from "./service";
import { CONTROL_PREFIX } from "./routes/control";
import { FormBody, type Route, type RouteContext } from "./routes/types";
import type { Caller } from "./access";

export const BODY_LIMIT_BYTES = 1024 * 1024;
export const CONTROL_BODY_LIMIT_BYTES = 256 * 1024 * 1024;

export interface ServerOptions {
  svc: Service;
  routes: Route[];
  faults: Faults;
  /** Called with each finished API request (not control requests). */
  onRequestLogged: (entry: LoggedRequest) => void;
  /** One line per request (method, path, status, ms), or silent. */
  logLine?: (line: string) => void;
  /** Where unexpected handler exceptions are reported (default: a process warning). */
  onUnexpectedError?: (report: string) => void;
  /** The base URL, known once listening. */
  url: () => string;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);
const LOOPBACK_HOSTNAMES = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Why a control request is refused, or undefined. A web page open on this machine can reach loopback, so the
 * control endpoints refuse every request a browser could send on its behalf: a foreign `Origin` (browsers send
 * one on every cross-origin request and on every POST), a `Sec-Fetch-Site` other than same-origin / none, a
 * `Host` that is not a loopback name (DNS rebinding), and a body that is not JSON (the only cross-origin bodies a
 * page can send without a CORS preflight are text/plain, form and multipart). Scripts, the CLI, `startEmulator`'s
 * helpers and tests send no Origin, and JSON or no body, so they keep working.
 */
export function controlRefusal(request: FastifyRequest, ownUrl: string): ApiFailure | undefined {
  if (!LOOPBACK.has(request.socket.remoteAddress ?? ""))
    return permissionDenied("control endpoints answer loopback clients only");
  const origin = request.headers.origin;
  let ownOrigin = "";
  try {
    ownOrigin = new URL(ownUrl).origin;
  } catch {
    ownOrigin = "";
  }
  if (origin !== undefined && origin !== ownOrigin)
    return permissionDenied(
      `control endpoints refuse requests from web pages (Origin: ${origin.slice(0, 200)})`,
    );
  const site = request.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none")
    return permissionDenied(
      `control endpoints refuse requests from web pages (Sec-Fetch-Site: ${String(site)})`,
    );
  const host = (request.headers.host ?? "").replace(/:\d+$/, "").toLowerCase();
  if (!LOOPBACK_HOSTNAMES.has(host))
    return permissionDenied("control endpoints answer requests addressed to a loopback host name only");
  const type = request.headers["content-type"];
  const length = Number(request.headers["content-length"] ?? 0);
  const hasBody = length > 0 || request.headers["transfer-encoding"] !== undefined;
  if ((type !== undefined || hasBody) && !/^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i.test(type ?? "")) {
    const description = "Content-Type must be application/json on control endpoints";
    return invalidArgument(`${description} (got ${String(type ?? "none").slice(0, 100)})`, [
      { field: "Content-Type", description },
    ]);
  }
  return undefined;
}

/** An AIP-193 answer written straight to a socket whose bytes are not HTTP (no request to reply to). */
export function rawErrorResponse(status: number, reason: string, failure: ApiFailure): string {
  const body = JSON.stringify(failure.toBody());
  return [
    `HTTP/1.1 ${status} ${reason}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

function pathOf(url: string): string {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

function send(reply: FastifyReply, failure: ApiFailure): FastifyReply {
  if (failure.code === 14) reply.header("retry-after", "0");
  return reply.status(failure.status).type("application/json").send(failure.toBody());
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
 * Compiles fastify-style paths of the table: the methods a path answers, sorted (the `Allow` of a 405, RFC 9110),
 * and so "wrong method" (12) told from "no such path" (5, no methods).
 */
export function allowedMethods(routes: Route[]): (path: string) => string[] {
  const patterns = routes.map((r) => ({
    method: r.method,
    // fastify's final `/*` matches an empty rest too (`/iam/v2beta1/groups/` is the get of uid "").
    pattern: new RegExp(`^${r.url.replace(/::/g, ":").replace(/[.]/g, "\\.").replace(/\/\*$/, "/.*")}$`),
  }));
  return (path) => [...new Set(patterns.filter((p) => p.pattern.test(path)).map((p) => p.method))].sort();
}

/**
 * The emulator's HTTP server: fastify with the AIP-193 envelope for everything that goes wrong before a route
 * (newFastify), bodies read as JSON or forms, every request timed and logged, control requests screened
 * before their body is read, errors and unknown routes answered in the envelope, and one handler per route.
 */
export function buildServer(options: ServerOptions): FastifyInstance {
  const app = newFastify();
  /** The identity each authenticated request acted as, for the request log. */
  const identities = new WeakMap<FastifyRequest, string>();
  addBodyParsers(app);
  addRequestHooks(app, options, identities);
  addErrorHandlers(app, options);
  for (const route of options.routes) {
    const isControl = route.url.startsWith(CONTROL_PREFIX);
    app.route({
      method: route.method,
      url: route.url,
      // Seeding large data sets (50,000 groups) goes through the control path in one request.
      ...(isControl ? { bodyLimit: CONTROL_BODY_LIMIT_BYTES } : {}),
      handler: routeHandler(route, options, identities),
    });
  }
  return app;
}

/** Fastify, with errors raised before routing and bytes that are not HTTP answered in the AIP-193 envelope. */
function newFastify(): FastifyInstance {
  return Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT_BYTES,
    forceCloseConnections: true,
    routerOptions: { maxParamLength: 4096 },
    // Errors raised before routing (a path that is not valid percent-encoding) get the same envelope.
    frameworkErrors: (error, _request, reply) => {
      void send(reply, invalidArgument(`the request URL could not be read (${error.message})`));
    },
    // Bytes that are not HTTP (a garbage request line, oversized headers) never reach a route.
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => {
      if (error.code === "ECONNRESET" || !socket.writable) return void socket.destroy();
      const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
      const failure = invalidArgument(
        tooLarge
          ? "the request headers are too large"
          : `the request is not valid HTTP/1.1 (${error.code ?? "parse error"})`,
      );
      socket.end(
        rawErrorResponse(
          tooLarge ? 431 : 400,
          tooLarge ? "Request Header Fields Too Large" : "Bad Request",
          failure,
        ),
      );
    },
  });
}

/** Any content type is read as JSON text; a form body becomes a FormBody, which only some routes accept. */
function addBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  // Any content type is read as JSON text: malformed JSON is an AIP-193 code 3, an empty body is "no body".
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(
        invalidArgument(`the request body is not valid JSON (${(error as Error).message})`, [
          { field: "body", description: "must be valid JSON" },
        ]),
        undefined,
      );
    }
  });

  // Token exchange also takes a form body (the Go SDK's HTTP/1 path); which routes accept one is decided per route.
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string" },
    (_request, body, done) => {
      const params: Record<string, string | string[]> = {};
      for (const [name, value] of new URLSearchParams(typeof body === "string" ? body : body.toString())) {
        const previous = params[name];
        params[name] =
          previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
      }
      done(null, new FormBody(params));
    },
  );
}

/**
 * Before anything else a method the path lacks is answered (405, or 404 for no such path) and a control request is
 * screened, so neither body is read; every request timed, logged, and (API ones) recorded.
 */
function addRequestHooks(
  app: FastifyInstance,
  options: ServerOptions,
  identities: WeakMap<FastifyRequest, string>,
): void {
  const started = new WeakMap<FastifyRequest, bigint>();
  const methodsOf = allowedMethods(options.routes);
  app.addHook("onRequest", async (request, reply) => {
    started.set(request, process.hrtime.bigint());
    // The method and path decide first: a method a path lacks is 405 whatever its query, body or headers say.
    if (request.is404) return send(reply, unrouted(request.method, pathOf(request.url), methodsOf, reply));
    // Before the body is read: a refused control request is not parsed, let alone applied.
    if (pathOf(request.url).startsWith(CONTROL_PREFIX)) {
      const refusal = controlRefusal(request, options.url());
      if (refusal !== undefined) return send(reply, refusal);
    }
    return undefined;
  });

  app.addHook("onResponse", async (request, reply) => {
    const begin = started.get(request);
    const ms = begin === undefined ? 0 : Number(process.hrtime.bigint() - begin) / 1e6;
    const path = pathOf(request.url);
    options.logLine?.(`${request.method} ${path} ${reply.statusCode} ${ms.toFixed(1)}ms`);
    if (path.startsWith(CONTROL_PREFIX)) return;
    const identityUid = identities.get(request);
    options.onRequestLogged({
      method: request.method,
      path,
      query: { ...(request.query as Query) },
      status: reply.statusCode,
      ...(identityUid !== undefined ? { identityUid } : {}),
      time: options.svc.now(),
      durationMs: Math.round(ms * 10) / 10,
    });
  });
}

/** Every error a handler or fastify raises as an AIP-193 answer (unknown routes and methods: addRequestHooks). */
function addErrorHandlers(app: FastifyInstance, options: ServerOptions): void {
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ApiFailure) return send(reply, error);
    const fastifyError = error as { code?: string; statusCode?: number; message?: string };
    if (fastifyError.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      return send(
        reply,
        invalidArgument(
          `the request body exceeds ${BODY_LIMIT_BYTES} bytes`,
          [{ field: "body", description: `must be at most ${BODY_LIMIT_BYTES} bytes` }],
          413,
        ),
      );
    }
    if (
      typeof fastifyError.statusCode === "number" &&
      fastifyError.statusCode >= 400 &&
      fastifyError.statusCode < 500
    ) {
      return send(
        reply,
        invalidArgument(`the request could not be read (${fastifyError.message ?? "bad request"})`),
      );
    }
    const report = `platform-emulator: unexpected error on ${request.method} ${pathOf(request.url)}: ${(error as Error).stack ?? String(error)}`;
    if (options.onUnexpectedError !== undefined) options.onUnexpectedError(report);
    else process.emitWarning(report);
    return send(reply, internal("an unexpected error occurred in the emulator"));
  });

  // No not-found handler: fastify runs the onRequest hooks before its own, and addRequestHooks answers every
  // unrouted request there (404 or 405), so fastify's would never run.
}

/**
 * The answer to a method and path the table has no route for: 405 with `Allow` when the path answers other methods
 * (code 12 rather than 501: the body decides, and a wrong method is the client's mistake), else 404.
 */
function unrouted(
  method: string,
  path: string,
  methodsOf: (path: string) => string[],
  reply: FastifyReply,
): ApiFailure {
  const allowed = methodsOf(path);
  if (allowed.length === 0) return notFound(`no route ${method} ${path}`);
  reply.header("allow", allowed.join(", "));
  return new ApiFailure(12, `${method} is not supported on ${path}`, [], [], 405);
}

/**
 * One route's handler: an injected fault first, then the body's form, the caller, the bounds, and the route's own
 * handler in a store transaction; the value it returns is the 200 answer.
 */
function routeHandler(
  route: Route,
  options: ServerOptions,
  identities: WeakMap<FastifyRequest, string>,
): (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> {
  const { svc, faults } = options;
  const isControl = route.url.startsWith(CONTROL_PREFIX);
  return async (request, reply) => {
    const path = pathOf(request.url);
    const fault = isControl ? undefined : faults.pick(request.method, path);
    if (await applyFault(fault, svc, request, reply)) return reply;
    if (request.body instanceof FormBody && route.formBody !== true) {
      return send(
        reply,
        invalidArgument("this endpoint takes a JSON body, not application/x-www-form-urlencoded", [
          { field: "body", description: "must be JSON (Content-Type application/json)" },
        ]),
      );
    }
    const authorization = request.headers.authorization;
    const ctx: RouteContext = {
      svc,
      method: request.method,
      path,
      uid: decodeUid((request.params as Record<string, string | undefined>)["*"]),
      query: request.query as Query,
      body: request.body,
      caller: { identityUid: "" },
      authorization,
      url: options.url(),
    };
    if (route.auth !== false) {
      ctx.caller = authenticate(svc, authorization);
      identities.set(request, ctx.caller.identityUid);
    }
    const result = await runInTransaction(route, ctx, isControl);
    if (fault?.action === "applyThenDrop") {
      reply.hijack();
      request.raw.socket.destroy();
      return reply;
    }
    return reply
      .status(200)
      .type("application/json")
      .send(result ?? {});
  };
}

/**
 * An injected fault before the handler: a status or a dropped connection answers the request (true, and the
 * handler must stop there); a stall waits and a clock jump advances the clock, and the request goes on (false).
 * A boolean, not the reply: a fastify reply is a thenable, so an async function returning it resolves to
 * `undefined` and the refused request would go on to be applied.
 */
async function applyFault(
  fault: FaultRule | undefined,
  svc: Service,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  if (fault?.action === "status") {
    const status = fault.status ?? 503;
    const code = status === 503 ? 14 : status === 429 ? 8 : status >= 500 ? 13 : 3;
    reply.header("retry-after", "0");
    void send(reply, new ApiFailure(code, `injected fault (HTTP ${status})`, [], [], status));
    return true;
  }
  if (fault?.action === "drop") {
    reply.hijack();
    request.raw.socket.destroy();
    return true;
  }
  if (fault?.action === "stall") await new Promise((resolve) => setTimeout(resolve, fault.stallMs ?? 1000));
  if (fault?.action === "advanceClock") advanceClock(svc, fault.advanceMs ?? 0);
  return false;
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

function decodeUid(raw: string | undefined): string {
  if (raw === undefined) return "";
  return raw.replace(/\/+$/, "");
}
