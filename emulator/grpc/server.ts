/**
 * The gRPC face: every RPC of the proto files (./protos.ts) answered by the route of the table its `google.api.http`
 * rule names, bound once at start-up (./transcode.ts), through the one call path of ../dispatch.ts, on the REST
 * face's own port. A connection that opens with the HTTP/2 client preface (h2c with prior knowledge, what a gRPC
 * client sends to an http:// address) is served here; any other goes to fastify as before (`shareListener`).
 *
 * gRPC over HTTP/2 (github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md) is served on the emulator's own
 * HTTP/2 connection (./http2/connection.ts, which says why not node:http2): a unary call is a POST whose body is
 * one length-prefixed message and whose answer is one message and trailers (`grpc-status`, `grpc-message`,
 * `grpc-status-details-bin`), or the trailers alone for a failure. Per call: the
 * request's bytes decoded (a malformed message or a field the schema lacks is INVALID_ARGUMENT), dispatched as
 * its bound route with the `authorization` metadata as the bearer token, and the answer's JSON encoded as the
 * response message (./json.ts); a failure is its gRPC status with the AIP-193 details (./status.ts). A deadline
 * (`grpc-timeout`) or a client's cancellation aborts the dispatch; a dropped call's stream is reset. Server
 * reflection v1 and v1alpha serve the compiled files (./reflection.ts). Logging and the report of an unexpected
 * error are the call path's (../dispatch.ts `record`, `unexpected`).
 */
import type { Server as NetServer, Socket } from "node:net";
import type { Dispatch, Dispatcher } from "../dispatch";
import { ApiFailure, invalidArgument } from "../errors";
import type { Route } from "../routes/types";
import { messageCodec, type JsonValue, type MessageCodec } from "./json";
import { protoRegistry, servedMethods } from "./protos";
import { REFLECTION_PATHS, reflector, type Reflector } from "./reflection";
import { GrpcCode } from "../../sdk/schemas/common";
import { GrpcError, grpcStatus, STATUS_DETAILS_KEY } from "./status";
import { frame, FRAME_PREFIX, FrameReader, SUPPORTED_ENCODINGS, writePrefix } from "./framing";
import { bindMethods, type Binding } from "./transcode";
import { Connection, ErrorCode, PREFACE, type RequestHeaders, type Stream } from "./http2/connection";
import { encodeHeaders, type HeaderField } from "./http2/hpack";

/** What the face reads, as `grpc-accept-encoding` says it (as grpc-js and grpc-go servers do). */
const ACCEPT_ENCODING = [...SUPPORTED_ENCODINGS].join(",");

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

/** One RPC ready to serve: its binding to its route and its messages' codecs. */
interface MethodFace {
  binding: Binding;
  request: MessageCodec;
  response: MessageCodec;
}

/** Codecs by message name: compiled once per process (the registry is the compiled files'). */
const codecs = new Map<string, MessageCodec>();

function codecOf(typeName: string): MessageCodec {
  let codec = codecs.get(typeName);
  if (codec === undefined) {
    codec = messageCodec(protoRegistry(), typeName);
    codecs.set(typeName, codec);
  }
  return codec;
}

export function createGrpcFace(options: GrpcFaceOptions): GrpcFace {
  const statusCodec = codecOf("google.rpc.Status");
  const methods = new Map<string, MethodFace>();
  for (const binding of bindMethods(servedMethods(), options.routes)) {
    methods.set(binding.method.path, {
      binding,
      request: codecOf(binding.method.requestType),
      response: codecOf(binding.method.responseType),
    });
  }
  const reflectors = new Map<string, Reflector>(
    REFLECTION_PATHS.map((path) => [path, reflector(path.slice(1, path.indexOf(".ServerReflection")))]),
  );
  let closed = false;
  const connections = new Set<Connection>();
  const onStream = (stream: Stream): void => {
    const headers = stream.headers;
    const path = headers[":path"] ?? "";
    const refusal = httpRefusal(headers);
    if (refusal !== undefined) return respondHttp(stream, refusal);
    const method = methods.get(path);
    if (method !== undefined) return void serveUnary(method, stream, options, statusCodec);
    const reflection = reflectors.get(path);
    if (reflection !== undefined) return serveReflection(reflection, stream, options);
    unimplemented(stream, path, options);
  };
  return {
    inject: (socket) => {
      if (closed) return void socket.destroy();
      const connection = new Connection(socket, { onStream });
      connections.add(connection);
      socket.once("close", () => connections.delete(connection));
    },
    close: () => {
      closed = true;
      for (const connection of connections) connection.destroy();
      connections.clear();
    },
  };
}

/** A request that is not gRPC over HTTP/2: the HTTP status grpc-go and grpc-js answer it with, or undefined. */
function httpRefusal(headers: RequestHeaders): number | undefined {
  if (headers[":method"] !== "POST") return 405;
  const type = headers["content-type"] ?? "";
  if (!/^application\/grpc(\+|;|$)/.test(type)) return 415;
  return undefined;
}

function respondHttp(stream: Stream, status: number): void {
  stream.respond(encodeHeaders([[":status", String(status)]]), true);
}

/** The response headers of every call that answers (a message, or a status alone). */
const RESPONSE_FIELDS: readonly HeaderField[] = [
  [":status", "200"],
  ["content-type", "application/grpc+proto"],
  ["grpc-accept-encoding", ACCEPT_ENCODING],
];
const RESPONSE_HEADERS = encodeHeaders(RESPONSE_FIELDS);

/** `grpc-message` as the protocol writes it: percent-encoded outside printable ASCII, and "%" itself. */
function encodeGrpcMessage(message: string): string {
  let out = "";
  for (const byte of Buffer.from(message, "utf8")) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** The trailers of a status: code, message, and (for an API failure) its google.rpc.Status details. */
function statusTrailers(code: number, message: string, details?: Uint8Array): HeaderField[] {
  return [
    ["grpc-status", String(code)],
    ["grpc-message", encodeGrpcMessage(message)],
    ...(details !== undefined
      ? [[STATUS_DETAILS_KEY, Buffer.from(details).toString("base64")] as HeaderField]
      : []),
  ];
}

/** A call answered by a status: the trailers after the headers sent, or alone ("Trailers-Only"). */
function respondStatus(stream: Stream, trailers: HeaderField[]): void {
  if (stream.answered) return;
  if (stream.headersSent) return stream.end(encodeHeaders(trailers));
  stream.respond(encodeHeaders([...RESPONSE_FIELDS, ...trailers]), true);
}

/** The trailers of every call answered OK (no message to send). */
const OK_TRAILERS = encodeHeaders([["grpc-status", "0"]]);

/** A call answered by one message and OK; `framed` is read before this returns. */
function respondMessage(stream: Stream, framed: Buffer): void {
  if (stream.answered) return;
  stream.respond(RESPONSE_HEADERS);
  stream.write(framed);
  stream.end(OK_TRAILERS);
}

/** The `grpc-timeout` header in milliseconds ("100m", "5S", "1H"), or undefined. */
function timeoutMs(headers: RequestHeaders): number | undefined {
  const match = /^(\d{1,8})([HMSmun])$/.exec(String(headers["grpc-timeout"] ?? ""));
  if (match === null) return undefined;
  const unit = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 1e-3, n: 1e-6 }[match[2] as "H"];
  return Number(match[1]) * unit;
}

/**
 * A call's cancellation: the client resetting its stream before the answer, or its deadline passing (then
 * DEADLINE_EXCEEDED is answered at once, as grpc-js and grpc-go servers do, and a late answer is not sent). A
 * plain flag the dispatch reads, not an AbortController: one per call costs an EventTarget, and its abort an
 * AbortError with a stack.
 */
function cancellation(stream: Stream): CallState {
  const signal: CallState = { aborted: false };
  const ms = timeoutMs(stream.headers);
  const timer =
    ms === undefined
      ? undefined
      : setTimeout(() => {
          signal.aborted = true;
          respondStatus(stream, statusTrailers(GrpcCode.DEADLINE_EXCEEDED, "Deadline exceeded"));
        }, ms);
  stream.onClose = () => {
    if (timer !== undefined) clearTimeout(timer);
    if (!stream.headersSent) signal.aborted = true;
    signal.onClose?.();
  };
  return signal;
}

/** A call's cancellation flag, and what else its stream's one 'close' listener does (the request's reading). */
interface CallState {
  aborted: boolean;
  onClose?: () => void;
}

/** The whole request of a unary call: its one message (or a protocol failure). */
function readUnary(stream: Stream, maxBytes: number, state: CallState): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    let reader: FrameReader;
    try {
      reader = new FrameReader(maxBytes, stream.headers["grpc-encoding"]);
    } catch (error) {
      return reject(error);
    }
    let messages: Uint8Array[] = [];
    let settled = false;
    stream.onData = (chunk) => {
      try {
        const read = reader.push(chunk);
        messages = messages.length === 0 ? read : messages.concat(read);
      } catch (error) {
        // The rest of the request is not read: the answer says why.
        stream.onData = () => undefined;
        settled = true;
        reject(error);
      }
    };
    stream.onEnd = () => {
      if (settled) return;
      settled = true;
      if (messages.length === 1 && reader.pending === 0) resolve(messages[0]!);
      else if (messages.length === 0 && reader.pending === 0)
        reject(new GrpcError(GrpcCode.UNIMPLEMENTED, "received no request message"));
      else
        reject(
          new GrpcError(
            GrpcCode.INTERNAL,
            messages.length > 1
              ? "received more than one request message for a unary call"
              : "the request ended amid a message",
          ),
        );
    };
    state.onClose = () => {
      if (!settled) reject(new GrpcError(GrpcCode.CANCELLED, "the client cancelled the call"));
    };
  });
}

/** One call: read, decoded, dispatched as its bound route, answered, logged. */
async function serveUnary(
  face: MethodFace,
  stream: Stream,
  options: GrpcFaceOptions,
  statusCodec: MessageCodec,
): Promise<void> {
  const started = process.hrtime.bigint();
  const rpc = face.binding.method.fullName;
  const signal = cancellation(stream);
  let dispatch: Dispatch | undefined;
  let status = 200;
  try {
    const bytes = await readUnary(stream, options.maxMessageBytes, signal);
    const rest = face.binding.toRest(decodeRequest(face.request, bytes));
    // The `authorization` metadata as it came, read by the call path's one rule (../dispatch.ts `bearerToken`),
    // as over REST; a repeated key counts by its first value, as node keeps the first Authorization header. The
    // service's clients send `Bearer <token>` (chainguard.dev/sdk `sts.Exchange`, the Terraform provider).
    dispatch = { ...rest, rpc, authorization: stream.headers.authorization, signal };
    const outcome = await options.dispatcher.call(dispatch);
    // A dropped call is not logged, as a dropped REST request is not.
    if (outcome.kind === "drop") return resetStream(stream);
    respondEncoded(stream, face, outcome.value, rpc, options);
  } catch (error) {
    if (error instanceof GrpcError) {
      // The protocol's own failures (framing, cancellation): as HTTP statuses grpc-gateway maps them to.
      if (error.code === GrpcCode.CANCELLED) return;
      status = error.httpStatus;
      respondStatus(stream, statusTrailers(error.code, error.message));
    } else {
      const failure =
        error instanceof ApiFailure ? error : options.dispatcher.unexpected(error, `gRPC ${rpc}`);
      status = failure.status;
      const { code, message, details } = grpcStatus(failure, statusCodec);
      respondStatus(stream, statusTrailers(code, message, details));
    }
  }
  logCall(options, rpc, dispatch, status, Number(process.hrtime.bigint() - started) / 1e6);
}

/** A method no served RPC has: UNIMPLEMENTED, and in the request log as what it is on the wire. */
function unimplemented(stream: Stream, path: string, options: GrpcFaceOptions): void {
  const error = new GrpcError(GrpcCode.UNIMPLEMENTED, `The server does not implement the method ${path}`);
  respondStatus(stream, statusTrailers(error.code, error.message));
  logCall(options, path.slice(1), undefined, error.httpStatus, 0);
}

/** Reflection's stream: one answer per request message, then OK when the client ends its side. */
function serveReflection(reflection: Reflector, stream: Stream, options: GrpcFaceOptions): void {
  let reader: FrameReader;
  try {
    reader = new FrameReader(options.maxMessageBytes, stream.headers["grpc-encoding"]);
  } catch (error) {
    return refuseReflection(stream, error);
  }
  stream.onData = (chunk) => {
    try {
      for (const message of reader.push(chunk)) {
        if (!stream.headersSent) stream.respond(RESPONSE_HEADERS);
        stream.write(frame(reflection.answer(message)));
      }
    } catch (error) {
      stream.onData = () => undefined;
      refuseReflection(stream, error);
    }
  };
  stream.onEnd = () => respondStatus(stream, statusTrailers(GrpcCode.OK, ""));
}

/** Reflection's stream ended by a failure: the protocol's own status, or INVALID_ARGUMENT for a bad request. */
function refuseReflection(stream: Stream, error: unknown): void {
  const code = error instanceof GrpcError ? error.code : GrpcCode.INVALID_ARGUMENT;
  respondStatus(stream, statusTrailers(code, (error as Error).message));
}

/**
 * A call in the request log and the log lines: as its REST request, plus `rpc`; one that never became a REST
 * request (a malformed message, a method not served) as what it is on the wire, a POST of the method's gRPC path.
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
function decodeRequest(codec: MessageCodec, bytes: Uint8Array): { [name: string]: JsonValue } {
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
 * The REST answer sent as the response message, framed: encoded after room for the frame's prefix and lent
 * straight to the stream, which copies it once, into the connection's output. The spec's REST-only members of a
 * v1 answer (./rest-only.ts) are left out by the encoder; any other member the message lacks, or of the wrong type,
 * is the emulator's bug (INTERNAL), never dropped silently.
 */
function respondEncoded(
  stream: Stream,
  face: MethodFace,
  value: unknown,
  rpc: string,
  options: GrpcFaceOptions,
): void {
  try {
    face.response.lend(face.binding.fromRest(value), FRAME_PREFIX, (framed) =>
      respondMessage(stream, writePrefix(framed)),
    );
  } catch (error) {
    throw options.dispatcher.unexpected(error, `gRPC ${rpc}`);
  }
}

/**
 * A dropped request: the call's HTTP/2 stream is reset (RST_STREAM, INTERNAL_ERROR) with no status, as a proxy
 * that loses its upstream does; the client sees the reset (grpc-js and grpc-go: INTERNAL, "RST_STREAM"), and the
 * connection and its other calls go on. A call its client already gave up on has no stream left to reset.
 */
function resetStream(stream: Stream): void {
  stream.reset(ErrorCode.INTERNAL_ERROR);
}

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
      const length = Math.min(seen.length, PREFACE.length);
      const agrees = seen.subarray(0, length).equals(PREFACE.subarray(0, length));
      if (!agrees) decide(false);
      else if (seen.length >= PREFACE.length) decide(true);
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
