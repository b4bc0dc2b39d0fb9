/**
 * gRPC's length-prefixed messages (github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md, "Length-Prefixed-Message"):
 * a 5-byte prefix, the compressed flag and the message's big-endian length, then the message. Read and written
 * here only.
 */
import { gunzipSync, inflateSync } from "node:zlib";
import { requestTooLarge } from "../dispatch";
import { GrpcCode } from "../../sdk/schemas/common";
import { GrpcError } from "./status";

/** The prefix's size: a flag byte, then a 4-byte length. */
export const FRAME_PREFIX = 5;

/** Fills in the prefix (uncompressed) of a frame whose message follows it in `framed`. */
export function writePrefix(framed: Buffer): Buffer {
  framed[0] = 0;
  framed.writeUInt32BE(framed.length - FRAME_PREFIX, 1);
  return framed;
}

/** A message as one frame, a copy. */
export function frame(message: Uint8Array): Buffer {
  const framed = Buffer.allocUnsafe(FRAME_PREFIX + message.length);
  framed.set(message, FRAME_PREFIX);
  return writePrefix(framed);
}

/** The message encodings a request may use (`grpc-encoding`). */
export const SUPPORTED_ENCODINGS: ReadonlySet<string> = new Set(["identity", "deflate", "gzip"]);

/**
 * Reads a call's request frames as they come, under a size limit, compressed ones inflated. A `grpc-encoding` it
 * cannot read is refused when it is made (UNIMPLEMENTED, as grpc-js and grpc-go servers answer it).
 */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  constructor(
    private readonly maxBytes: number,
    private readonly encoding: string | undefined,
  ) {
    if (encoding !== undefined && !SUPPORTED_ENCODINGS.has(encoding))
      throw new GrpcError(GrpcCode.UNIMPLEMENTED, `the message encoding ${encoding} is not supported`);
  }

  /** The whole messages `chunk` completes; throws a status for one too large or compressed past reading. */
  push(chunk: Buffer): Uint8Array[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const messages: Uint8Array[] = [];
    while (this.buffered.length >= FRAME_PREFIX) {
      const length = this.buffered.readUInt32BE(1);
      if (length > this.maxBytes) throw requestTooLarge(this.maxBytes);
      if (this.buffered.length < FRAME_PREFIX + length) break;
      const compressed = this.buffered[0] !== 0;
      const message = this.buffered.subarray(FRAME_PREFIX, FRAME_PREFIX + length);
      this.buffered = this.buffered.subarray(FRAME_PREFIX + length);
      messages.push(compressed ? this.decompress(message) : message);
    }
    return messages;
  }

  /** Bytes left over that are not a whole message (a truncated frame at the end of the stream). */
  get pending(): number {
    return this.buffered.length;
  }

  private decompress(message: Buffer): Uint8Array {
    const encoding = this.encoding ?? "identity";
    let out: Buffer;
    try {
      if (encoding === "gzip") out = gunzipSync(message, { maxOutputLength: this.maxBytes + 1 });
      else if (encoding === "deflate") out = inflateSync(message, { maxOutputLength: this.maxBytes + 1 });
      // The flag set with no encoding to undo (identity): the protocol's INTERNAL.
      else throw new GrpcError(GrpcCode.INTERNAL, `a compressed message with grpc-encoding ${encoding}`);
    } catch (error) {
      if (error instanceof GrpcError) throw error;
      throw requestTooLarge(this.maxBytes);
    }
    if (out.length > this.maxBytes) throw requestTooLarge(this.maxBytes);
    return out;
  }
}
