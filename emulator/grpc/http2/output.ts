/**
 * What a connection has to send, copied into one buffer as it is queued, frame headers written in place: a turn's
 * frames go out in one write (a write per piece costs more than copying them, a 30 kB answer included), and bytes
 * lent to the connection (an answer still in the encoder's buffer) are copied once, here.
 *
 * The buffers are reused once the socket has written them. An answer's bytes in fresh memory each call (a buffer
 * per answer, or cut from large slabs) had the process taking page faults and V8 collecting garbage for the
 * external memory, about 3 faults per list call of 200 groups.
 */

/** The room a connection's output starts with. */
const INITIAL = 16 << 10;
/** A buffer larger than this (a very large answer's) is not kept once written. */
const KEPT = 1 << 20;
/** Buffers kept for reuse per connection: one being written, one filling, one spare. */
const SPARE = 2;

export class Output {
  private buffer: Buffer = Buffer.allocUnsafeSlow(INITIAL);
  private size = 0;
  private readonly spare: Buffer[] = [];

  /** A frame's 9-byte header (RFC 9113 §4.1); its payload is appended after it. */
  frameHeader(length: number, type: number, flags: number, id: number): void {
    this.ensure(9);
    const out = this.buffer;
    const at = this.size;
    out[at] = length >>> 16;
    out[at + 1] = (length >>> 8) & 0xff;
    out[at + 2] = length & 0xff;
    out[at + 3] = type;
    out[at + 4] = flags;
    out.writeUInt32BE(id >>> 0, at + 5);
    this.size = at + 9;
  }

  /** A big-endian 32-bit number (a WINDOW_UPDATE's increment, an RST_STREAM's code). */
  uint32(value: number): void {
    this.ensure(4);
    this.size = this.buffer.writeUInt32BE(value >>> 0, this.size);
  }

  /** Bytes copied in: the caller may reuse `bytes` as soon as this returns. */
  bytes(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buffer.set(bytes, this.size);
    this.size += bytes.length;
  }

  /**
   * What is queued, to be written, and the output emptied onto another buffer; `written` gives the buffer back
   * once the socket is done with it. Undefined when nothing is queued.
   */
  take(): { bytes: Buffer; written: () => void } | undefined {
    if (this.size === 0) return undefined;
    const full = this.buffer;
    const bytes = full.subarray(0, this.size);
    this.buffer = this.spare.pop() ?? Buffer.allocUnsafeSlow(Math.min(full.length, KEPT));
    this.size = 0;
    const written = (): void => {
      if (full.length <= KEPT && this.spare.length < SPARE) this.spare.push(full);
    };
    return { bytes, written };
  }

  private ensure(bytes: number): void {
    if (this.size + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.buffer.length * 2, this.size + bytes));
    this.buffer.copy(grown, 0, 0, this.size);
    this.buffer = grown;
  }
}
