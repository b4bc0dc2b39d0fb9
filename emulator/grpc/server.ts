/**
 * The gRPC face: every RPC of the proto files (./protos.ts) answered by the route the REST face answers it with,
 * through the one call path of ../dispatch.ts, on the REST face's own port. A connection that opens with the
 * HTTP/2 client preface (h2c with prior knowledge, what a gRPC client sends to an http:// address) goes to
 * @grpc/grpc-js through its connection injector; any other goes to fastify as before (`shareListener`).
 *
 * Per call: the request's bytes decoded (a malformed message or a field the schema lacks is INVALID_ARGUMENT),
 * transcoded by the method's http rule (./transcode.ts), dispatched with the `authorization` metadata as the
 * Authorization header (read by the call path, as REST's), and the answer's JSON encoded as the response message
 * (./json.ts); a failure is its gRPC status with the AIP-193 details (./status.ts). Logging and the report of an
 * unexpected error are the call path's (../dispatch.ts `record`, `unexpected`). Server reflection v1 and v1alpha
 * serve the same files (./descriptors.ts).
 *
 * May import: @grpc/grpc-js, @grpc/reflection, node:http2, node:net, ../dispatch, ../errors,
 * ../routes/types, ./descriptors, ./json, ./protos, ./status, ./transcode.
 */
import type { Registry } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { ReflectionService } from "@grpc/reflection";
import { constants as http2, type ServerHttp2Stream } from "node:http2";
import type { Server as NetServer, Socket } from "node:net";
import type { Dispatch, Dispatcher } from "../dispatch";
import { ApiFailure, invalidArgument } from "../errors";
import type { Route } from "../routes/types";
import { descriptorFiles, reflectionPackage } from "./descriptors";
import { messageCodec, messageRegistry, type JsonValue, type MessageCodec } from "./json";
import { loadReflectionPackage, servedMethods, type ServedMethod } from "./protos";
import { grpcStatus } from "./status";
import { exactRouteLines, routeFinder, transcoder, type Transcoder } from "./transcode";

export interface GrpcFaceOptions {
  routes: Route[];
  dispatcher: Dispatcher;
  /** The largest request message, in bytes (a larger one is RESOURCE_EXHAUSTED, as ../dispatch.ts answers it). */
  maxMessageBytes: number;
}

export interface GrpcFace {
  /** Serves one connection whose first bytes are the HTTP/2 preface (pushed back unread). */
  inject(socket: Socket): void;
  /** Ends every gRPC connection at once. */
  close(): void;
}

type UnaryCall = grpc.ServerUnaryCall<Buffer, Uint8Array>;
type Callback = grpc.sendUnaryData<Uint8Array>;

/** What every emulator's gRPC face shares: the proto files as descriptors, codecs and reflection. */
interface FaceSchema {
  registry: Registry;
  statusCodec: MessageCodec;
  reflection: ReflectionService;
  methods: { method: ServedMethod; request: MessageCodec; response: MessageCodec }[];
}

let schema: FaceSchema | undefined;

/**
 * Built once per process, from the files with the fields' own names (`account_association`, its JSON name
 * `accountAssociation`: ./protos.ts `loadReflectionPackage`), which reflection serves and grpcurl accepts.
 */
function faceSchema(): FaceSchema {
  if (schema === undefined) {
    const files = descriptorFiles(loadReflectionPackage());
    const registry = messageRegistry(files);
    schema = {
      registry,
      statusCodec: messageCodec(registry, "google.rpc.Status"),
      reflection: new ReflectionService(reflectionPackage(files)),
      methods: servedMethods().map((method) => ({
        method,
        request: messageCodec(registry, method.requestType),
        response: messageCodec(registry, method.responseType),
      })),
    };
  }
  return schema;
}

export function createGrpcFace(options: GrpcFaceOptions): GrpcFace {
  const { registry, statusCodec, reflection, methods } = faceSchema();
  const routes = routeFinder(options.routes);
  const exactLines = exactRouteLines(methods.map((m) => m.method));
  const server = new grpc.Server({
    "grpc.max_receive_message_length": options.maxMessageBytes,
  });
  for (const { method, request, response } of methods) {
    const face: MethodFace = {
      transcoder: transcoder(method, registry, routes, exactLines),
      request,
      response,
    };
    // Bytes in, bytes out: decoding is ours (./json.ts), so a malformed message is INVALID_ARGUMENT, not INTERNAL.
    server.register<Buffer, Uint8Array>(
      method.path,
      (call: UnaryCall, callback: Callback) => void serve(face, call, callback, options, statusCodec),
      (message) => Buffer.from(message),
      (message) => message,
      "unary",
    );
  }
  reflection.addToServer(server);
  const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  return {
    inject: (socket) => {
      // A connection that arrives while the emulator closes finds the server gone: it is closed too.
      try {
        injector.injectConnection(socket);
      } catch {
        socket.destroy();
      }
    },
    close: () => {
      injector.destroy();
      server.forceShutdown();
    },
  };
}

interface MethodFace {
  transcoder: Transcoder;
  request: MessageCodec;
  response: MessageCodec;
}

/** One call: decoded, transcoded, dispatched, answered, logged. */
async function serve(
  face: MethodFace,
  call: UnaryCall,
  callback: Callback,
  options: GrpcFaceOptions,
  statusCodec: MessageCodec,
): Promise<void> {
  const started = process.hrtime.bigint();
  const rpc = face.transcoder.method.fullName;
  const abort = new AbortController();
  call.on("cancelled", () => abort.abort());
  let dispatch: Dispatch | undefined;
  let status = 200;
  try {
    const rest = face.transcoder.toRest(decodeRequest(face.request, call.request));
    dispatch = { ...rest, authorization: authorization(call.metadata), signal: abort.signal };
    const outcome = await options.dispatcher.call(dispatch);
    // A dropped call is not logged, as a dropped REST request is not.
    if (outcome.kind === "drop") return resetStream(call);
    callback(null, encodeResponse(face, outcome.value, rpc, options));
  } catch (error) {
    const failure = error instanceof ApiFailure ? error : options.dispatcher.unexpected(error, `gRPC ${rpc}`);
    status = failure.status;
    callback(grpcStatus(failure, statusCodec));
  }
  logCall(options, rpc, dispatch, status, Number(process.hrtime.bigint() - started) / 1e6);
}

/**
 * A call in the request log and the log lines: as its REST request, plus `rpc`; one that never became a REST
 * request (a malformed message) as what it is on the wire, a POST of the method's gRPC path.
 */
function logCall(
  options: GrpcFaceOptions,
  rpc: string,
  dispatch: Dispatch | undefined,
  status: number,
  ms: number,
): void {
  const request = dispatch ?? { method: "POST", path: `/${rpc}`, query: {} };
  const identityUid = dispatch === undefined ? undefined : options.dispatcher.identityOf(dispatch);
  const { method, path, query } = request;
  options.dispatcher.record({
    method,
    path,
    query,
    status,
    rpc,
    ...(identityUid !== undefined ? { identityUid } : {}),
    ms,
  });
}

/** The request message's JSON; a message that is not one, or carries fields the schema lacks, is refused. */
function decodeRequest(codec: MessageCodec, bytes: Buffer): { [name: string]: JsonValue } {
  let decoded: ReturnType<MessageCodec["decode"]>;
  try {
    decoded = codec.decode(bytes);
  } catch (error) {
    const description = `must be a ${codec.typeName} message in the protobuf wire format`;
    throw invalidArgument(`the request is not a valid ${codec.typeName} (${(error as Error).message})`, [
      { field: "request", description },
    ]);
  }
  if (decoded.unknown.length > 0) {
    // Nothing a client sends is dropped silently: a field the emulator does not know would be ignored.
    throw invalidArgument(
      `the request carries fields ${codec.typeName} does not have: ${decoded.unknown.join(", ")}`,
      decoded.unknown.map((field) => ({ field, description: `is not a field of ${codec.typeName}` })),
    );
  }
  return decoded.json as { [name: string]: JsonValue };
}

/**
 * The REST answer as the response message. The spec's REST-only members of a v1 answer (./rest-only.ts) are left
 * out by the transcoder; any other member the message lacks, or of the wrong type, is the emulator's bug (INTERNAL),
 * never dropped silently.
 */
function encodeResponse(face: MethodFace, value: unknown, rpc: string, options: GrpcFaceOptions): Uint8Array {
  try {
    return face.response.encode(face.transcoder.fromRest(value));
  } catch (error) {
    throw options.dispatcher.unexpected(error, `gRPC ${rpc}`);
  }
}

/**
 * The `authorization` metadata, as it came: the Authorization header the call path reads (../dispatch.ts
 * `bearerToken`, the same rule as over REST). The service's clients send `Bearer <token>` (chainguard.dev/sdk
 * `sts.Exchange`, the Terraform provider: `auth.NewFromToken(ctx, "Bearer "+token, ...)`). The first value counts
 * when the key is repeated, as node keeps the first Authorization header.
 */
function authorization(metadata: grpc.Metadata): string | undefined {
  const [value] = metadata.get("authorization");
  return typeof value === "string" ? value : undefined;
}

/**
 * A dropped request: the call's HTTP/2 stream is reset (RST_STREAM, INTERNAL_ERROR) with no status, as a proxy
 * that loses its upstream does; the client sees the reset (grpc-js and grpc-go: INTERNAL, "RST_STREAM"), and the
 * connection and its other calls go on. grpc-js gives a handler no way to reset its stream, so this reaches the
 * stream through the call object (grpc-js 1.x); test/emulator/grpc-face.test.ts proves the reset happens.
 */
function resetStream(call: UnaryCall): void {
  const stream = (call as unknown as { call?: { stream?: ServerHttp2Stream } }).call?.stream;
  if (stream === undefined || typeof stream.close !== "function")
    throw new Error(
      "the gRPC call's HTTP/2 stream is not reachable: grpc-js changed; a drop cannot be injected",
    );
  // A call its client already gave up on (deadline, cancellation) has no stream left to reset.
  if (!stream.closed && !stream.destroyed) stream.close(http2.NGHTTP2_INTERNAL_ERROR);
}

/** The HTTP/2 client preface: what a gRPC client (h2c, prior knowledge) sends first. */
export const HTTP2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

/**
 * The REST server's listener shared with the gRPC face: each connection's first bytes decide. As long as they
 * agree with the HTTP/2 preface the connection waits for more; all of it → gRPC, anything else (or the client
 * closing first) → the REST server's own connection handling, exactly as before. The bytes read are pushed back
 * (`unshift`) for whichever face takes the connection. Returns `close`, which ends connections still undecided.
 */
export function shareListener(server: NetServer, face: GrpcFace): { close(): void } {
  const restHandlers = server.listeners("connection") as ((socket: Socket) => void)[];
  server.removeAllListeners("connection");
  const undecided = new Set<Socket>();
  const toRest = (socket: Socket): void => {
    for (const handler of restHandlers) handler.call(server, socket);
  };
  server.on("connection", (socket: Socket) => {
    undecided.add(socket);
    let seen = Buffer.alloc(0);
    const decide = (grpcFace: boolean): void => {
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("error", onError);
      undecided.delete(socket);
      socket.pause();
      if (seen.length > 0) socket.unshift(seen);
      if (grpcFace) {
        // The HTTP/2 session reads what is buffered (the preface pushed back) itself, then the socket's handle.
        face.inject(socket);
      } else {
        toRest(socket);
        // The HTTP/1 parser reads through 'data' events, which a paused socket does not emit.
        socket.resume();
      }
    };
    const onData = (chunk: Buffer): void => {
      seen = Buffer.concat([seen, chunk]);
      const length = Math.min(seen.length, HTTP2_PREFACE.length);
      const agrees = seen.subarray(0, length).equals(HTTP2_PREFACE.subarray(0, length));
      if (!agrees) decide(false);
      else if (seen.length >= HTTP2_PREFACE.length) decide(true);
    };
    const onEnd = (): void => decide(false);
    // Until a face takes the socket, its errors are ours: a client that resets the connection (ECONNRESET) before
    // its first bytes would otherwise be an unhandled 'error' event, which ends the process.
    const onError = (): void => {
      undecided.delete(socket);
      socket.destroy();
    };
    socket.on("data", onData);
    socket.on("end", onEnd);
    socket.on("error", onError);
    socket.once("close", () => undecided.delete(socket));
  });
  return {
    close: () => {
      for (const socket of undecided) socket.destroy();
      undecided.clear();
    },
  };
}
