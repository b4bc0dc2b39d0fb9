/**
 * A protobuf wire writer into one growing buffer, for ./json.ts's compiled encoders: a nested message or a string
 * is written in place after room for its length (one byte, or what the caller expects it to take), the bytes
 * moved afterwards when the length takes more or less, so there is no chunk list to join and every length is the
 * minimal varint, as protoc and @bufbuild/protobuf write it.
 */

/** The wire types of the protobuf encoding. */
export const enum Wire {
  Varint = 0,
  Bit64 = 1,
  LengthDelimited = 2,
  Bit32 = 5,
}

const TWO_32 = 2 ** 32;

/**
 * Below this many UTF-16 units a string is copied in JS; from it on natively, whose call costs about what copying
 * 20 units does (measured on node 20 with bench/grpc-encode.ts's uids, names and descriptions).
 */
const SHORT_STRING = 20;

/** Node's Buffer#utf8Write (lib/internal/buffer.js): what Buffer#write(text, at, "utf8") does, without its checks. */
interface Utf8Writing {
  utf8Write(text: string, at: number): number;
}

/**
 * A string's UTF-8 bytes written at `at` (room for them ensured), how many: by Buffer#utf8Write, which saves
 * Buffer#write's argument checks (~8 µs of a 200-group list's encoding), where node has it.
 */
const utf8Write: (buf: Buffer, text: string, at: number) => number =
  typeof (Buffer.prototype as Partial<Utf8Writing>).utf8Write === "function"
    ? (buf, text, at) => (buf as Buffer & Utf8Writing).utf8Write(text, at)
    : (buf, text, at) => buf.write(text, at, "utf8");

/** The room a writer starts with. */
const INITIAL = 1024;
/** The most room a writer keeps for its next message: one larger than this is let go when it is finished. */
const KEPT = 1 << 20;

/**
 * One writer serves message after message (`finish` empties it), keeping its room: a 30 kB answer does not grow
 * a buffer from 1 kB again each time.
 */
export class WireWriter {
  private buf: Buffer = Buffer.allocUnsafe(INITIAL);
  private pos = 0;
  /** Each open length-delimited field: the bytes reserved for its length, then where its content starts. */
  private readonly open: number[] = [];

  /** Empties the writer, also when the last message was left half written (its encoding refused). */
  reset(): void {
    this.pos = 0;
    this.open.length = 0;
    if (this.buf.length > KEPT) this.buf = Buffer.allocUnsafe(INITIAL);
  }

  /** Starts a message after `headroom` bytes left for the caller to fill (a frame's prefix). */
  begin(headroom: number): void {
    this.reset();
    this.ensure(headroom);
    this.pos = headroom;
  }

  /**
   * The bytes written, the headroom first, in the writer's own buffer: valid until the writer is used again, so
   * read or copied at once (`finish` for a copy).
   */
  view(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** The bytes written, a copy owned by the caller; the writer is then empty. */
  finish(): Buffer {
    const bytes = Buffer.from(this.view());
    this.reset();
    return bytes;
  }

  private ensure(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + bytes));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  tag(no: number, wire: Wire): this {
    return this.uint32(((no << 3) | wire) >>> 0);
  }

  /** A varint of 0 .. 2^32-1. */
  uint32(value: number): this {
    this.ensure(5);
    while (value > 0x7f) {
      this.buf[this.pos++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    this.buf[this.pos++] = value;
    return this;
  }

  /** An int32: a negative one as its 64-bit two's complement, ten bytes, as the encoding says. */
  int32(value: number): this {
    return value >= 0 ? this.uint32(value) : this.uint64(BigInt.asUintN(64, BigInt(value)));
  }

  sint32(value: number): this {
    return this.uint32(((value << 1) ^ (value >> 31)) >>> 0);
  }

  /** A varint of 0 .. 2^64-1. */
  uint64(value: bigint): this {
    if (value < BigInt(TWO_32)) return this.uint32(Number(value));
    this.ensure(10);
    let rest = value;
    while (rest > BigInt(0x7f)) {
      this.buf[this.pos++] = Number(rest & BigInt(0x7f)) | 0x80;
      rest >>= BigInt(7);
    }
    this.buf[this.pos++] = Number(rest);
    return this;
  }

  int64(value: bigint): this {
    return this.uint64(BigInt.asUintN(64, value));
  }

  sint64(value: bigint): this {
    return this.uint64(BigInt.asUintN(64, (value << BigInt(1)) ^ (value >> BigInt(63))));
  }

  /** A non-negative whole number below 2^53 as an int64 or uint64 varint, without a bigint. */
  safeUint(value: number): this {
    if (value < TWO_32) return this.uint32(value);
    return this.uint64(BigInt(value));
  }

  bool(value: boolean): this {
    this.ensure(1);
    this.buf[this.pos++] = value ? 1 : 0;
    return this;
  }

  double(value: number): this {
    this.ensure(8);
    this.pos = this.buf.writeDoubleLE(value, this.pos);
    return this;
  }

  float(value: number): this {
    this.ensure(4);
    this.pos = this.buf.writeFloatLE(value, this.pos);
    return this;
  }

  fixed32(value: number): this {
    this.ensure(4);
    this.pos = this.buf.writeUInt32LE(value >>> 0, this.pos);
    return this;
  }

  sfixed32(value: number): this {
    this.ensure(4);
    this.pos = this.buf.writeInt32LE(value | 0, this.pos);
    return this;
  }

  fixed64(value: bigint): this {
    this.ensure(8);
    this.pos = this.buf.writeBigUInt64LE(BigInt.asUintN(64, value), this.pos);
    return this;
  }

  sfixed64(value: bigint): this {
    this.ensure(8);
    this.pos = this.buf.writeBigInt64LE(BigInt.asIntN(64, value), this.pos);
    return this;
  }

  /** A string's UTF-8 bytes after their length. */
  string(value: string): this {
    const length = value.length;
    // Its UTF-8 bytes number between `length` and three times that (a UTF-16 unit takes at most three).
    this.ensure(5 + length * 3);
    if (length < SHORT_STRING && this.shortAscii(value)) return this;
    // Room for the length `length` bytes take, the fewest they can be: moved along only when more.
    const reserve = length < 0x80 ? 1 : length < 0x4000 ? 2 : 3;
    const start = this.pos + reserve;
    this.closeAt(start, utf8Write(this.buf, value, start), reserve);
    return this;
  }

  /** A short ASCII string copied unit by unit, after its one-byte length; false (nothing written) if it is not. */
  private shortAscii(value: string): boolean {
    const buf = this.buf;
    const length = value.length;
    let at = this.pos + 1;
    for (let i = 0; i < length; i++) {
      const code = value.charCodeAt(i);
      if (code >= 0x80) return false;
      buf[at++] = code;
    }
    buf[this.pos] = length;
    this.pos = at;
    return true;
  }

  bytes(value: Uint8Array): this {
    this.uint32(value.length);
    this.ensure(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
    return this;
  }

  /** Bytes written as they are (an encoded message's fields, inside its `fork`). */
  raw(value: Uint8Array): this {
    this.ensure(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
    return this;
  }

  /**
   * Opens a length-delimited field's content (a nested message, a packed list) after `reserve` bytes for its
   * length: `join` closes it. Reserving what the length will take (a caller writing many alike, the items of a
   * list, knows it from the last) spares moving the content when it is closed.
   */
  fork(reserve = 1): this {
    this.ensure(reserve);
    this.pos += reserve;
    this.open.push(reserve, this.pos);
    return this;
  }

  /** Closes the innermost `fork`; returns how many bytes its length took. */
  join(): number {
    const start = this.open.pop()!;
    const reserved = this.open.pop()!;
    return this.closeAt(start, this.pos - start, reserved);
  }

  /**
   * Writes the length of the `length` bytes at `start` in the `reserved` bytes before them, the bytes moved when
   * the length takes more or fewer; returns how many it took.
   */
  private closeAt(start: number, length: number, reserved: number): number {
    let size = 1;
    for (let rest = length >>> 7; rest > 0; rest >>>= 7) size++;
    if (size !== reserved) {
      this.ensure(size - reserved);
      this.buf.copyWithin(start - reserved + size, start, start + length);
    }
    let at = start - reserved;
    let rest = length;
    while (rest > 0x7f) {
      this.buf[at++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.buf[at] = rest;
    this.pos = start - reserved + size + length;
    return size;
  }
}
