/**
 * The server side of one HTTP/2 connection (RFC 9113), as much of it as gRPC needs: the client's streams with their
 * headers and data, and per stream an answer of headers, data and trailers. No push, no priorities (a client's are
 * read and ignored, as the RFC allows), flow control both ways.
 *
 * Why not node:http2: its per-stream machinery (a Duplex per stream, events for headers, data, end, trailers and
 * close, a write per frame kind) cost the emulator ~100 µs of CPU per unary call against ~25 µs for a whole HTTP/1.1
 * exchange on fastify (bench/transport-floor.ts), more than issue 49 allows the gRPC face over its REST twin. Here
 * a read is parsed in one pass, and everything a turn of the event loop has to send goes out in one write.
 *
 * What is sent: the connection preface's SETTINGS (a stream window of STREAM_WINDOW, a connection window raised to
 * CONNECTION_WINDOW), ACKs of the client's SETTINGS and PINGs, WINDOW_UPDATEs that give back what was read
 * (carried with the next answer; at once past a threshold), answers, RST_STREAM(NO_ERROR) for a request still being
 * sent when its answer is complete (§8.1), and on a protocol error GOAWAY with its code, then the end of the
 * connection. Header blocks are HPACK (./hpack.ts).
 */
import type { Socket } from "node:net";
import { HpackDecoder } from "./hpack";
import { nameMap } from "../name-map";
import { Output } from "./output";

/** RFC 9113 §11.2 frame types. */
const enum Frame {
  DATA = 0x0,
  HEADERS = 0x1,
  PRIORITY = 0x2,
  RST_STREAM = 0x3,
  SETTINGS = 0x4,
  PUSH_PROMISE = 0x5,
  PING = 0x6,
  GOAWAY = 0x7,
  WINDOW_UPDATE = 0x8,
  CONTINUATION = 0x9,
}

const END_STREAM = 0x1;
const ACK = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY_FLAG = 0x20;

/** RFC 9113 §7 error codes. */
export const ErrorCode = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  INTERNAL_ERROR: 0x2,
  FLOW_CONTROL_ERROR: 0x3,
  STREAM_CLOSED: 0x5,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
} as const;

/** The client connection preface (§3.4): what a gRPC client (h2c, prior knowledge) sends first. */
export const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
const EMPTY = Buffer.alloc(0);
const DEFAULT_WINDOW = 65_535;
const MAX_WINDOW = 2 ** 31 - 1;
/** The largest frame this side takes: SETTINGS_MAX_FRAME_SIZE's default, which it does not raise. */
const MAX_FRAME = 16_384;
/** What this side lets a client send on a stream, and on the connection, before its WINDOW_UPDATEs. */
const STREAM_WINDOW = 1 << 20;
const CONNECTION_WINDOW = 16 << 20;
/** Credit owed to the client past which a WINDOW_UPDATE goes at once instead of with the next answer. */
const STREAM_CREDIT_NOW = 32 << 10;
const CONNECTION_CREDIT_NOW = 1 << 20;

/** A connection error: GOAWAY with this code, then the connection ends. */
class ConnectionError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** A request's headers by name (lower case, as HTTP/2 sends them); a repeated name keeps its first value. */
export type RequestHeaders = Readonly<Record<string, string>>;

/** One stream of the connection: a client's request and the emulator's answer. */
export class Stream {
  /** The request's data as it comes; `onEnd` when the client has sent all of it. */
  onData: (chunk: Buffer) => void = () => undefined;
  onEnd: () => void = () => undefined;
  /** Once, when the stream is over: answered and read whole, reset by either side, or its connection gone. */
  onClose: () => void = () => undefined;

  /** Whether the answer's headers have been sent. */
  headersSent = false;
  /** The client has sent END_STREAM. */
  remoteEnded = false;
  /** The answer is given whole (or the stream reset): nothing more is taken from the handler. */
  answered = false;
  /** The answer's END_STREAM is out (its data and trailers sent), or the stream was reset. */
  localEnded = false;
  closed = false;

  /** What the client lets this side send on the stream. */
  window: number;
  /** Data waiting for window, and the trailers that follow it. */
  private readonly queued: Buffer[] = [];
  private trailers: Buffer | undefined;
  /** Bytes read on this stream not yet given back to the client. */
  credit = 0;

  constructor(
    readonly id: number,
    readonly headers: RequestHeaders,
    private readonly connection: Connection,
    window: number,
  ) {
    this.window = window;
  }

  /** The answer's headers (an HPACK block); `endStream` for an answer of headers alone. */
  respond(block: Buffer, endStream = false): void {
    if (this.answered || this.headersSent) return;
    this.headersSent = true;
    this.answered = endStream;
    this.connection.sendHeaders(this.id, block, endStream);
    if (endStream) this.endLocal();
  }

  /**
   * Answer data, sent as the client's windows allow. `data` is read before this returns (what the windows take now
   * is copied into the connection's output, the rest kept as a copy), so the caller may lend a buffer it reuses.
   */
  write(data: Buffer): void {
    if (this.answered || data.length === 0) return;
    this.queued.push(data);
    this.connection.pump(this);
    // What is still queued ends with what is left of `data` (the queue is sent in order): keep a copy of that.
    const last = this.queued.length - 1;
    if (last >= 0) this.queued[last] = Buffer.from(this.queued[last]!);
  }

  /** The trailers (an HPACK block), after all the data: the answer is complete. */
  end(trailers: Buffer): void {
    if (this.answered) return;
    this.trailers = trailers;
    this.answered = true;
    this.connection.pump(this);
  }

  /** RST_STREAM with this code: the stream is over for both sides. */
  reset(code: number): void {
    if (this.closed) return;
    this.connection.resetStream(this, code);
  }

  /** Sends what the windows allow (`send` takes a frame's worth, 0 when none fits); true when all is out. */
  drain(send: (data: Buffer) => number): boolean {
    while (this.queued.length > 0) {
      const data = this.queued[0]!;
      const sent = send(data);
      if (sent === 0) return false;
      if (sent === data.length) this.queued.shift();
      else this.queued[0] = data.subarray(sent);
    }
    if (this.trailers !== undefined) {
      const trailers = this.trailers;
      this.trailers = undefined;
      this.connection.sendHeaders(this.id, trailers, true);
      this.endLocal();
    }
    return true;
  }

  private endLocal(): void {
    this.localEnded = true;
    this.connection.localEnded(this);
  }
}

export interface ConnectionOptions {
  /** A new stream, its headers read; the handler sets the stream's callbacks at once. */
  onStream(stream: Stream): void;
}

/** One HTTP/2 connection on a socket whose first bytes are the client's preface. */
export class Connection {
  private readonly streams = new Map<number, Stream>();
  private readonly blocked = new Set<Stream>();
  private readonly decoder = new HpackDecoder();
  private pending: Buffer = EMPTY;
  private prefaceRead = false;
  private lastStreamId = 0;
  /** A header block whose CONTINUATIONs are still coming. */
  private continuing: { id: number; flags: number; fragments: Buffer[] } | undefined;

  /** What the client lets this side send: the connection's window, and each new stream's. */
  private sendWindow = DEFAULT_WINDOW;
  private peerStreamWindow = DEFAULT_WINDOW;
  private peerMaxFrame = MAX_FRAME;
  /** Bytes read on the connection not yet given back. */
  private credit = 0;

  private readonly output = new Output();
  private flushing = false;
  private goingAway = false;
  private ended = false;

  constructor(
    private readonly socket: Socket,
    private readonly options: ConnectionOptions,
  ) {
    socket.setNoDelay(true);
    // The server's preface: its SETTINGS, and the connection window raised (§6.9.2: SETTINGS cannot raise it).
    this.send(
      Frame.SETTINGS,
      0,
      0,
      settingsPayload([
        [0x2, 0], // SETTINGS_ENABLE_PUSH: this server never pushes
        [0x4, STREAM_WINDOW], // SETTINGS_INITIAL_WINDOW_SIZE
      ]),
    );
    this.sendWord(Frame.WINDOW_UPDATE, 0, CONNECTION_WINDOW - DEFAULT_WINDOW);
    socket.on("data", (chunk: Buffer) => this.read(chunk));
    // The client's end of the connection (FIN): nothing more can be read, so nothing more is answered.
    socket.on("end", () => this.destroy());
    socket.on("error", () => this.closeAll());
    socket.on("close", () => this.closeAll());
    socket.resume();
  }

  /** Ends the connection now: its streams are closed, the socket destroyed. */
  destroy(): void {
    this.closeAll();
    this.socket.destroy();
  }

  private read(chunk: Buffer): void {
    if (this.ended) return;
    let buffer = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    try {
      if (!this.prefaceRead) {
        const seen = Math.min(buffer.length, PREFACE.length);
        if (!buffer.subarray(0, seen).equals(PREFACE.subarray(0, seen)))
          throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "not the HTTP/2 connection preface");
        if (buffer.length < PREFACE.length) {
          this.pending = buffer;
          return;
        }
        buffer = buffer.subarray(PREFACE.length);
        this.prefaceRead = true;
      }
      let at = 0;
      while (buffer.length - at >= 9 && !this.ended) {
        const length = buffer.readUIntBE(at, 3);
        if (length > MAX_FRAME)
          throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, `a frame of ${length} bytes`);
        if (buffer.length - at < 9 + length) break;
        const type = buffer[at + 3]!;
        const flags = buffer[at + 4]!;
        const id = buffer.readUInt32BE(at + 5) & 0x7fffffff;
        this.frame(type, flags, id, buffer.subarray(at + 9, at + 9 + length));
        at += 9 + length;
      }
      this.pending = at === buffer.length ? EMPTY : Buffer.from(buffer.subarray(at));
      this.giveBackCredit();
    } catch (error) {
      const code = error instanceof ConnectionError ? error.code : ErrorCode.INTERNAL_ERROR;
      this.goAway(code, error instanceof Error ? error.message : String(error));
    }
  }

  private frame(type: number, flags: number, id: number, payload: Buffer): void {
    if (this.continuing !== undefined && type !== Frame.CONTINUATION)
      throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "a frame amid a header block");
    switch (type) {
      case Frame.DATA:
        return this.data(flags, id, payload);
      case Frame.HEADERS:
        return this.headers(flags, id, payload);
      case Frame.PRIORITY:
        if (id === 0) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "PRIORITY on stream 0");
        return;
      case Frame.RST_STREAM:
        return this.rstStream(id, payload);
      case Frame.SETTINGS:
        return this.settings(flags, id, payload);
      case Frame.PUSH_PROMISE:
        throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "PUSH_PROMISE from a client");
      case Frame.PING:
        if (id !== 0) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "PING on a stream");
        if (payload.length !== 8)
          throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "a PING not of 8 bytes");
        if ((flags & ACK) === 0) this.send(Frame.PING, ACK, 0, payload);
        return;
      case Frame.GOAWAY:
        if (id !== 0) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "GOAWAY on a stream");
        // The client opens no more streams; those open are answered, then it closes the connection.
        this.goingAway = true;
        return;
      case Frame.WINDOW_UPDATE:
        return this.windowUpdate(id, payload);
      case Frame.CONTINUATION:
        return this.continuation(flags, id, payload);
      default:
        // Unknown frame types are ignored (§5.5).
        return;
    }
  }

  private data(flags: number, id: number, payload: Buffer): void {
    if (id === 0) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "DATA on stream 0");
    // The whole frame counts against the windows, padding included (§6.9.1).
    this.credit += payload.length;
    const stream = this.streams.get(id);
    if (stream === undefined || stream.remoteEnded) {
      if (id > this.lastStreamId)
        throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "DATA on an idle stream");
      // A stream already over (answered, reset): its data is dropped, its bytes given back on the connection.
      if (stream !== undefined) this.resetStream(stream, ErrorCode.STREAM_CLOSED);
      return;
    }
    const data = unpad(flags, payload);
    if ((flags & END_STREAM) === 0) stream.credit += payload.length;
    if (data.length > 0) stream.onData(data);
    if (flags & END_STREAM) this.remoteEnd(stream);
  }

  private headers(flags: number, id: number, payload: Buffer): void {
    if (id === 0 || id % 2 === 0)
      throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, `HEADERS on stream ${id}, not a client's`);
    let fragment = unpad(flags, payload);
    if (flags & PRIORITY_FLAG) {
      if (fragment.length < 5)
        throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "a short HEADERS priority");
      fragment = fragment.subarray(5);
    }
    if ((flags & END_HEADERS) === 0) {
      this.continuing = { id, flags, fragments: [Buffer.from(fragment)] };
      return;
    }
    this.headerBlock(id, flags, fragment);
  }

  private continuation(flags: number, id: number, payload: Buffer): void {
    const continuing = this.continuing;
    if (continuing === undefined || continuing.id !== id)
      throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "a CONTINUATION that continues nothing");
    continuing.fragments.push(Buffer.from(payload));
    if (continuing.fragments.reduce((n, f) => n + f.length, 0) > 1 << 20)
      throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "a header block over 1 MiB");
    if ((flags & END_HEADERS) === 0) return;
    this.continuing = undefined;
    this.headerBlock(id, continuing.flags, Buffer.concat(continuing.fragments));
  }

  /** A whole header block: a new stream's request headers, or an open stream's trailers. */
  private headerBlock(id: number, flags: number, block: Buffer): void {
    let fields;
    try {
      // Decoded whatever follows, so the dynamic table stays the client's.
      fields = this.decoder.decode(block);
    } catch (error) {
      // Whatever the decoder refuses (an HpackError, a Huffman string past the rules) breaks the shared table.
      throw new ConnectionError(ErrorCode.COMPRESSION_ERROR, (error as Error).message);
    }
    const existing = this.streams.get(id);
    if (existing !== undefined) {
      // Trailers: they end the request (a client's gRPC request has none; their fields are not read).
      if ((flags & END_STREAM) === 0 || existing.remoteEnded)
        return this.resetStream(existing, ErrorCode.PROTOCOL_ERROR);
      return this.remoteEnd(existing);
    }
    if (id <= this.lastStreamId)
      throw new ConnectionError(ErrorCode.STREAM_CLOSED, `HEADERS on closed stream ${id}`);
    this.lastStreamId = id;
    if (this.goingAway) return this.sendWord(Frame.RST_STREAM, id, ErrorCode.REFUSED_STREAM);
    const headers = nameMap<string>();
    for (const [name, value] of fields) if (!(name in headers)) headers[name] = value;
    const stream = new Stream(id, headers, this, this.peerStreamWindow);
    this.streams.set(id, stream);
    this.options.onStream(stream);
    if (flags & END_STREAM) this.remoteEnd(stream);
  }

  private rstStream(id: number, payload: Buffer): void {
    if (id === 0) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "RST_STREAM on stream 0");
    if (payload.length !== 4)
      throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "an RST_STREAM not of 4 bytes");
    const stream = this.streams.get(id);
    if (stream !== undefined) this.close(stream);
  }

  private settings(flags: number, id: number, payload: Buffer): void {
    if (id !== 0) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "SETTINGS on a stream");
    if (flags & ACK) {
      if (payload.length !== 0)
        throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "a SETTINGS ACK with a payload");
      return;
    }
    if (payload.length % 6 !== 0)
      throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "SETTINGS not in 6-byte entries");
    for (let at = 0; at < payload.length; at += 6) {
      const setting = payload.readUInt16BE(at);
      const value = payload.readUInt32BE(at + 2);
      if (setting === 0x2 && value > 1)
        throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "SETTINGS_ENABLE_PUSH not 0 or 1");
      if (setting === 0x4) {
        if (value > MAX_WINDOW)
          throw new ConnectionError(ErrorCode.FLOW_CONTROL_ERROR, "SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1");
        // Every open stream's window moves by the difference (§6.9.2).
        const delta = value - this.peerStreamWindow;
        this.peerStreamWindow = value;
        for (const stream of this.streams.values()) stream.window += delta;
      }
      if (setting === 0x5) {
        if (value < MAX_FRAME || value > 16_777_215)
          throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "SETTINGS_MAX_FRAME_SIZE out of range");
        this.peerMaxFrame = value;
      }
      // Header table size (this side's encoder keeps no table), concurrent streams (it pushes none), header
      // list size (its headers are few and short) and settings it does not know change nothing here.
    }
    this.send(Frame.SETTINGS, ACK, 0, EMPTY);
    this.resume();
  }

  private windowUpdate(id: number, payload: Buffer): void {
    if (payload.length !== 4)
      throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "a WINDOW_UPDATE not of 4 bytes");
    const increment = payload.readUInt32BE(0) & 0x7fffffff;
    if (id === 0) {
      if (increment === 0) throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "a WINDOW_UPDATE of 0");
      if (this.sendWindow + increment > MAX_WINDOW)
        throw new ConnectionError(ErrorCode.FLOW_CONTROL_ERROR, "the connection window over 2^31-1");
      this.sendWindow += increment;
      return this.resume();
    }
    const stream = this.streams.get(id);
    if (stream === undefined) {
      if (id > this.lastStreamId)
        throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "WINDOW_UPDATE on an idle stream");
      return;
    }
    if (increment === 0 || stream.window + increment > MAX_WINDOW)
      return this.resetStream(
        stream,
        increment === 0 ? ErrorCode.PROTOCOL_ERROR : ErrorCode.FLOW_CONTROL_ERROR,
      );
    stream.window += increment;
    this.pump(stream);
  }

  private remoteEnd(stream: Stream): void {
    stream.remoteEnded = true;
    stream.onEnd();
    if (stream.localEnded) this.close(stream);
  }

  /** Called by a stream whose END_STREAM went out: over if the request is read whole, else the rest refused. */
  localEnded(stream: Stream): void {
    if (stream.remoteEnded) return this.close(stream);
    // The answer is complete while the request is still coming: the client may stop sending (§8.1).
    this.resetStream(stream, ErrorCode.NO_ERROR);
  }

  resetStream(stream: Stream, code: number): void {
    if (stream.closed) return;
    this.sendWord(Frame.RST_STREAM, stream.id, code);
    this.close(stream);
  }

  private close(stream: Stream): void {
    if (stream.closed) return;
    stream.closed = true;
    stream.answered = stream.localEnded = true;
    this.streams.delete(stream.id);
    this.blocked.delete(stream);
    stream.onClose();
  }

  /** A header block as HEADERS and, past the client's frame size, CONTINUATIONs. */
  sendHeaders(id: number, block: Buffer, endStream: boolean): void {
    let at = 0;
    let first = true;
    do {
      const piece = block.subarray(at, at + this.peerMaxFrame);
      at += piece.length;
      const last = at >= block.length;
      const flags = (last ? END_HEADERS : 0) | (first && endStream ? END_STREAM : 0);
      this.send(first ? Frame.HEADERS : Frame.CONTINUATION, flags, id, piece);
      first = false;
    } while (at < block.length);
  }

  /** Sends a stream's queued data and trailers as far as the windows go; a stream left waiting is resumed later. */
  pump(stream: Stream): void {
    const done = stream.drain((data) => {
      const size = Math.min(data.length, stream.window, this.sendWindow, this.peerMaxFrame);
      if (size <= 0) return 0;
      stream.window -= size;
      this.sendWindow -= size;
      this.send(Frame.DATA, 0, stream.id, size === data.length ? data : data.subarray(0, size));
      return size;
    });
    if (done) this.blocked.delete(stream);
    else this.blocked.add(stream);
  }

  /** The streams waiting for window, given another go. */
  private resume(): void {
    for (const stream of [...this.blocked]) this.pump(stream);
  }

  /** What was read is given back with the next write; at once when much is owed (a large request, say). */
  private giveBackCredit(): void {
    let urgent = this.credit >= CONNECTION_CREDIT_NOW;
    for (const stream of this.streams.values()) urgent ||= stream.credit >= STREAM_CREDIT_NOW;
    if (urgent) this.scheduleFlush();
  }

  /** A frame queued for the next write (its payload copied in at once). */
  private send(type: number, flags: number, id: number, payload: Uint8Array): void {
    if (this.ended) return;
    this.output.frameHeader(payload.length, type, flags, id);
    this.output.bytes(payload);
    this.scheduleFlush();
  }

  /** A frame whose payload is one 32-bit word: a WINDOW_UPDATE's increment, an RST_STREAM's code. */
  private sendWord(type: number, id: number, word: number): void {
    if (this.ended) return;
    this.output.frameHeader(4, type, 0, id);
    this.output.uint32(word);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushing) return;
    this.flushing = true;
    queueMicrotask(() => this.flush());
  }

  /** Everything queued in one write, with the credit owed. */
  private flush(): void {
    // Still `flushing` while the credit owed is queued, so that queueing it schedules no other flush.
    if (!this.ended) this.queueCredit();
    this.flushing = false;
    const out = this.output.take();
    if (out === undefined || this.ended || this.socket.destroyed) return;
    this.socket.write(out.bytes, out.written);
  }

  /** WINDOW_UPDATEs for what was read and not yet given back, on the connection and its streams. */
  private queueCredit(): void {
    if (this.credit > 0) this.sendWord(Frame.WINDOW_UPDATE, 0, this.credit);
    this.credit = 0;
    for (const stream of this.streams.values()) {
      if (stream.credit > 0 && !stream.remoteEnded)
        this.sendWord(Frame.WINDOW_UPDATE, stream.id, stream.credit);
      stream.credit = 0;
    }
  }

  /** A connection error: GOAWAY with the last stream read and the code, then the end of the connection. */
  private goAway(code: number, reason: string): void {
    if (this.ended) return;
    const payload = Buffer.alloc(8 + Buffer.byteLength(reason.slice(0, 200)));
    payload.writeUInt32BE(this.lastStreamId, 0);
    payload.writeUInt32BE(code, 4);
    payload.write(reason.slice(0, 200), 8);
    this.send(Frame.GOAWAY, 0, 0, payload);
    const out = this.output.take();
    this.ended = true;
    this.closeAll();
    if (!this.socket.destroyed) this.socket.end(out?.bytes ?? EMPTY);
  }

  private closeAll(): void {
    this.ended = true;
    for (const stream of [...this.streams.values()]) this.close(stream);
  }
}

function settingsPayload(entries: [number, number][]): Buffer {
  const payload = Buffer.allocUnsafe(entries.length * 6);
  entries.forEach(([setting, value], i) => {
    payload.writeUInt16BE(setting, i * 6);
    payload.writeUInt32BE(value, i * 6 + 2);
  });
  return payload;
}

/** A DATA or HEADERS payload without its padding (§6.1, §6.2). */
function unpad(flags: number, payload: Buffer): Buffer {
  if ((flags & PADDED) === 0) return payload;
  if (payload.length < 1)
    throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "a padded frame with no pad length");
  const padding = payload[0]!;
  if (padding >= payload.length)
    throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "padding as long as the frame");
  return payload.subarray(1, payload.length - padding);
}
