/**
 * The HTTP adapter: one route table registered on fastify, one place that authenticates, applies faults,
 * writes values as JSON and errors as AIP-193 bodies (unknown routes, malformed JSON, oversized bodies and
 * unexpected exceptions included), and logs requests without their Authorization header.
 *
 * May import: fastify, ./errors, ./service, ./faults, ./routes.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { ApiFailure, internal, invalidArgument, notFound, permissionDenied, unauthenticated } from "./errors";
import type { Faults } from "./faults";
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

/** Compiles fastify-style paths of the table, to tell "wrong method" (12) from "no such path" (5). */
function pathMatcher(routes: Route[]): (path: string) => boolean {
  const patterns = routes.map(
    (r) => new RegExp(`^${r.url.replace(/::/g, ":").replace(/[.]/g, "\\.").replace(/\/\*$/, "(/.*)?")}$`),
  );
  return (path) => patterns.some((p) => p.test(path));
}

export function buildServer(options: ServerOptions): FastifyInstance {
  const { svc, faults } = options;
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT_BYTES,
    forceCloseConnections: true,
    routerOptions: { maxParamLength: 4096 },
    // Errors raised before routing (a path that is not valid percent-encoding) get the same envelope.
    frameworkErrors: (error, _request, reply) => {
      void send(reply, invalidArgument(`the request URL could not be read (${error.message})`));
    },
  });
  const identities = new WeakMap<FastifyRequest, string>();
  const started = new WeakMap<FastifyRequest, bigint>();

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

  app.addHook("onRequest", async (request) => {
    started.set(request, process.hrtime.bigint());
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
      time: svc.now(),
      durationMs: Math.round(ms * 10) / 10,
    });
  });

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

  const knownPath = pathMatcher(options.routes);
  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.url);
    // Code 12 with HTTP 405 rather than 501: the body decides, and a wrong method is the client's mistake.
    if (knownPath(path))
      return send(reply, new ApiFailure(12, `${request.method} is not supported on ${path}`, [], [], 405));
    return send(reply, notFound(`no route ${request.method} ${path}`));
  });

  for (const route of options.routes) {
    const isControl = route.url.startsWith(CONTROL_PREFIX);
    app.route({
      method: route.method,
      url: route.url,
      // Seeding large data sets (50,000 groups) goes through the control path in one request.
      ...(isControl ? { bodyLimit: CONTROL_BODY_LIMIT_BYTES } : {}),
      handler: async (request, reply) => {
        if (isControl && !LOOPBACK.has(request.socket.remoteAddress ?? "")) {
          return send(reply, permissionDenied("control endpoints answer loopback clients only"));
        }
        const path = pathOf(request.url);
        const fault = isControl ? undefined : faults.pick(request.method, path);
        if (fault?.action === "status") {
          const status = fault.status ?? 503;
          const code = status === 503 ? 14 : status === 429 ? 8 : status >= 500 ? 13 : 3;
          reply.header("retry-after", "0");
          return send(reply, new ApiFailure(code, `injected fault (HTTP ${status})`, [], [], status));
        }
        if (fault?.action === "drop") {
          reply.hijack();
          request.raw.socket.destroy();
          return reply;
        }
        if (fault?.action === "stall")
          await new Promise((resolve) => setTimeout(resolve, fault.stallMs ?? 1000));
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
        const result = await route.handler(ctx);
        svc.store.flush();
        if (fault?.action === "applyThenDrop") {
          reply.hijack();
          request.raw.socket.destroy();
          return reply;
        }
        return reply
          .status(200)
          .type("application/json")
          .send(result ?? {});
      },
    });
  }
  return app;
}

function decodeUid(raw: string | undefined): string {
  if (raw === undefined) return "";
  return raw.replace(/\/+$/, "");
}
