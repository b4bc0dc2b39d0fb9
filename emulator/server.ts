/**
 * The HTTP adapter (the REST face): one route table registered on fastify, each route handed to the shared call
 * path of ./dispatch.ts (faults, credentials, bounds, the handler in a store transaction, the size limit's answer,
 * the report of unexpected errors, the request log), values written as JSON and errors as AIP-193 bodies (unknown
 * routes, malformed JSON, oversized bodies and unexpected exceptions included) with the failure's retry hint as
 * `Retry-After`, and requests logged without their Authorization header. Control endpoints answer only what
 * a script on this machine sends, never what a browser page could (see `controlRefusal`). Garbage that is not
 * HTTP still gets an AIP-193 body (`clientErrorHandler`).
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { Socket } from "node:net";
import {
  MAX_CONTROL_REQUEST_BYTES,
  MAX_REQUEST_BYTES,
  isControlPath,
  requestTooLarge,
  type Dispatch,
  type Dispatcher,
  type Outcome,
} from "./dispatch";
import { ApiFailure, invalidArgument, notFound, permissionDenied } from "./errors";
import type { Query } from "./listing";
import { FormBody, type Route } from "./routes/types";

/** The REST body limit: the call path's request limit (./dispatch.ts), for the tests and tools that name it here. */
export const BODY_LIMIT_BYTES = MAX_REQUEST_BYTES;

export interface ServerOptions {
  routes: Route[];
  /** The shared call path (../dispatch.ts) every route goes through; it also logs and reports. */
  dispatcher: Dispatcher;
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
  const retryDelay = failure.retryDelaySeconds;
  if (retryDelay !== undefined) reply.header("retry-after", String(retryDelay));
  return reply.status(failure.status).type("application/json").send(failure.toBody());
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
  addErrorHandlers(app, options.dispatcher);
  const dispatcher = options.dispatcher;
  for (const route of options.routes) {
    app.route({
      method: route.method,
      url: route.url,
      // Seeding large data sets (50,000 groups) goes through the control path in one request.
      ...(isControlPath(route.url) ? { bodyLimit: MAX_CONTROL_REQUEST_BYTES } : {}),
      handler: routeHandler(route, dispatcher, identities),
    });
  }
  return app;
}

/** Fastify, with errors raised before routing and bytes that are not HTTP answered in the AIP-193 envelope. */
function newFastify(): FastifyInstance {
  return Fastify({
    logger: false,
    bodyLimit: MAX_REQUEST_BYTES,
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
    if (isControlPath(pathOf(request.url))) {
      const refusal = controlRefusal(request, options.url());
      if (refusal !== undefined) return send(reply, refusal);
    }
    return undefined;
  });

  app.addHook("onResponse", async (request, reply) => {
    const begin = started.get(request);
    const ms = begin === undefined ? 0 : Number(process.hrtime.bigint() - begin) / 1e6;
    const identityUid = identities.get(request);
    options.dispatcher.record({
      method: request.method,
      path: pathOf(request.url),
      query: (request.query ?? {}) as Query,
      status: reply.statusCode,
      ...(identityUid !== undefined ? { identityUid } : {}),
      ms,
    });
  });
}

/** Every error a handler or fastify raises as an AIP-193 answer (unknown routes and methods: addRequestHooks). */
function addErrorHandlers(app: FastifyInstance, dispatcher: Dispatcher): void {
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ApiFailure) return send(reply, error);
    const fastifyError = error as { code?: string; statusCode?: number; message?: string };
    if (fastifyError.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      const path = pathOf(request.url);
      return send(
        reply,
        requestTooLarge(isControlPath(path) ? MAX_CONTROL_REQUEST_BYTES : MAX_REQUEST_BYTES),
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
    return send(reply, dispatcher.unexpected(error, `${request.method} ${pathOf(request.url)}`));
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
 * One route's handler: the request as a `Dispatch` for the shared call path (../dispatch.ts); its value is the
 * 200 answer, a drop destroys the connection unanswered.
 */
function routeHandler(
  route: Route,
  dispatcher: Dispatcher,
  identities: WeakMap<FastifyRequest, string>,
): (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> {
  return async (request, reply) => {
    const call: Dispatch = {
      route,
      method: request.method,
      path: pathOf(request.url),
      uid: decodeUid((request.params as Record<string, string | undefined>)["*"]),
      query: request.query as Query,
      body: request.body,
      authorization: request.headers.authorization,
    };
    let outcome: Outcome;
    try {
      outcome = await dispatcher.call(call);
    } finally {
      const identityUid = dispatcher.identityOf(call);
      if (identityUid !== undefined) identities.set(request, identityUid);
    }
    if (outcome.kind === "drop") {
      reply.hijack();
      request.raw.socket.destroy();
      return reply;
    }
    return reply.status(200).type("application/json").send(outcome.value);
  };
}

function decodeUid(raw: string | undefined): string {
  if (raw === undefined) return "";
  return raw.replace(/\/+$/, "");
}
