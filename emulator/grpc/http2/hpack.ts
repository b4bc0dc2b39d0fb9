/**
 * HPACK (RFC 7541) for the gRPC face's HTTP/2 connections: a decoder of the client's header blocks, with the
 * dynamic table a connection keeps, and the encoding of the emulator's own few headers as literals that are never
 * indexed nor Huffman-coded (allowed to any encoder; the decoder on the other side then keeps no state for them).
 */
import { huffmanDecode } from "./huffman";

/** RFC 7541 Appendix A: the static table, index 1 first. */
const STATIC_TABLE: readonly (readonly [string, string])[] = [
  [":authority", ""],
  [":method", "GET"],
  [":method", "POST"],
  [":path", "/"],
  [":path", "/index.html"],
  [":scheme", "http"],
  [":scheme", "https"],
  [":status", "200"],
  [":status", "204"],
  [":status", "206"],
  [":status", "304"],
  [":status", "400"],
  [":status", "404"],
  [":status", "500"],
  ["accept-charset", ""],
  ["accept-encoding", "gzip, deflate"],
  ["accept-language", ""],
  ["accept-ranges", ""],
  ["accept", ""],
  ["access-control-allow-origin", ""],
  ["age", ""],
  ["allow", ""],
  ["authorization", ""],
  ["cache-control", ""],
  ["content-disposition", ""],
  ["content-encoding", ""],
  ["content-language", ""],
  ["content-length", ""],
  ["content-location", ""],
  ["content-range", ""],
  ["content-type", ""],
  ["cookie", ""],
  ["date", ""],
  ["etag", ""],
  ["expect", ""],
  ["expires", ""],
  ["from", ""],
  ["host", ""],
  ["if-match", ""],
  ["if-modified-since", ""],
  ["if-none-match", ""],
  ["if-range", ""],
  ["if-unmodified-since", ""],
  ["last-modified", ""],
  ["link", ""],
  ["location", ""],
  ["max-forwards", ""],
  ["proxy-authenticate", ""],
  ["proxy-authorization", ""],
  ["range", ""],
  ["referer", ""],
  ["refresh", ""],
  ["retry-after", ""],
  ["server", ""],
  ["set-cookie", ""],
  ["strict-transport-security", ""],
  ["transfer-encoding", ""],
  ["user-agent", ""],
  ["vary", ""],
  ["via", ""],
  ["www-authenticate", ""],
];

/** A header block that breaks RFC 7541: the connection's COMPRESSION_ERROR. */
export class HpackError extends Error {}

/** A header field as decoded: name and value as latin1 strings (one char per octet, as they were on the wire). */
export type HeaderField = readonly [name: string, value: string];

/** The size an entry counts for in the dynamic table (RFC 7541 §4.1). */
const entrySize = (name: string, value: string): number => name.length + value.length + 32;

/** The largest integer a representation may carry here: past any table index, length or size a block can need. */
const MAX_INTEGER = 2 ** 28;

/** One connection's decoding state: the dynamic table the client's encoder fills. */
export class HpackDecoder {
  /** Newest first: index 62 is `table[0]`. */
  private table: HeaderField[] = [];
  private size = 0;
  private capacity: number;
  /** The last unindexed literal of each name (at most UNINDEXED_NAMES names): its octets as sent, and its value. */
  private readonly unindexed = new Map<string, { huffman: boolean; octets: Buffer; value: string }>();

  /** `maxCapacity`: SETTINGS_HEADER_TABLE_SIZE as this side advertised it (4096 when not sent). */
  constructor(private readonly maxCapacity = 4096) {
    this.capacity = maxCapacity;
  }

  /** The fields of one whole header block (HEADERS and its CONTINUATIONs joined), in order. */
  decode(block: Uint8Array): HeaderField[] {
    const fields: HeaderField[] = [];
    const reader = { at: 0 };
    while (reader.at < block.length) {
      const byte = block[reader.at]!;
      if (byte & 0x80) {
        fields.push(this.field(integer(block, reader, 7)));
      } else if (byte & 0x40) {
        const field = this.literal(block, reader, 6);
        this.add(field);
        fields.push(field);
      } else if (byte & 0x20) {
        // A size update is allowed only before the first field (§4.2).
        if (fields.length > 0) throw new HpackError("a dynamic table size update after a header field");
        const capacity = integer(block, reader, 5);
        if (capacity > this.maxCapacity)
          throw new HpackError(`a dynamic table size of ${capacity}, over the ${this.maxCapacity} allowed`);
        this.capacity = capacity;
        this.evict(0);
      } else {
        // Without indexing (0000) or never indexed (0001): the table is left as it is.
        fields.push(this.unindexedLiteral(block, reader));
      }
    }
    return fields;
  }

  private field(index: number): HeaderField {
    if (index === 0) throw new HpackError("the index 0");
    if (index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1]!;
    const entry = this.table[index - STATIC_TABLE.length - 1];
    if (entry === undefined) throw new HpackError(`the index ${index}, past the dynamic table`);
    return entry;
  }

  private literal(block: Uint8Array, reader: { at: number }, prefix: number): HeaderField {
    const index = integer(block, reader, prefix);
    const name = index === 0 ? string(block, reader) : this.field(index)[0];
    return [name, string(block, reader)];
  }

  /**
   * A literal the table does not keep. Clients send some this way on every request, the same octets each time
   * (nghttp2 never indexes `:path` or `authorization`), so the last value of each name is kept with its octets and
   * not decoded again while they are the same.
   */
  private unindexedLiteral(block: Uint8Array, reader: { at: number }): HeaderField {
    const index = integer(block, reader, 4);
    const name = index === 0 ? string(block, reader) : this.field(index)[0];
    const sent = stringOctets(block, reader);
    const last = this.unindexed.get(name);
    if (last !== undefined && last.huffman === sent.huffman && last.octets.equals(sent.octets))
      return [name, last.value];
    const value = octetsText(sent);
    if (last !== undefined || this.unindexed.size < UNINDEXED_NAMES)
      this.unindexed.set(name, { huffman: sent.huffman, octets: Buffer.from(sent.octets), value });
    return [name, value];
  }

  private add(field: HeaderField): void {
    const size = entrySize(field[0], field[1]);
    this.evict(size);
    // An entry larger than the whole table empties it and is not added (§4.4).
    if (size > this.capacity) return;
    this.table.unshift(field);
    this.size += size;
  }

  /** Evicts the oldest entries until `room` more fits. */
  private evict(room: number): void {
    while (this.table.length > 0 && this.size + room > this.capacity) {
      const [name, value] = this.table.pop()!;
      this.size -= entrySize(name, value);
    }
  }
}

/** An integer with an N-bit prefix (§5.1), advancing the reader. */
function integer(block: Uint8Array, reader: { at: number }, prefix: number): number {
  const mask = (1 << prefix) - 1;
  let value = block[reader.at++]! & mask;
  if (value < mask) return value;
  let shift = 0;
  for (;;) {
    if (reader.at >= block.length) throw new HpackError("an integer cut off at the end of the block");
    const byte = block[reader.at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (value > MAX_INTEGER) throw new HpackError("an integer too large");
    if ((byte & 0x80) === 0) return value;
    shift += 7;
  }
}

/** The names whose last unindexed literal a decoder keeps (a client's per-request fields are a few). */
const UNINDEXED_NAMES = 16;

/** A string literal as sent (§5.2): its length, then its octets, Huffman-coded or not; advances the reader. */
function stringOctets(block: Uint8Array, reader: { at: number }): { huffman: boolean; octets: Buffer } {
  if (reader.at >= block.length) throw new HpackError("a string missing at the end of the block");
  const huffman = (block[reader.at]! & 0x80) !== 0;
  const length = integer(block, reader, 7);
  const end = reader.at + length;
  if (end > block.length) throw new HpackError("a string longer than the block");
  const octets = Buffer.from(block.buffer, block.byteOffset + reader.at, length);
  reader.at = end;
  return { huffman, octets };
}

/** A string literal's text: its octets, decoded when Huffman-coded, as latin1. */
function octetsText(sent: { huffman: boolean; octets: Buffer }): string {
  return sent.huffman ? huffmanDecode(sent.octets) : sent.octets.toString("latin1");
}

/** A string literal (§5.2), read as text. */
function string(block: Uint8Array, reader: { at: number }): string {
  return octetsText(stringOctets(block, reader));
}

/** Where a name is in the static table (its first entry), for encoding. */
const STATIC_NAME = new Map<string, number>();
STATIC_TABLE.forEach(([name], i) => {
  if (!STATIC_NAME.has(name)) STATIC_NAME.set(name, i + 1);
});

/**
 * A header block of the given fields: a field the static table holds whole is its index; any other a literal
 * never indexed (§6.2.3), its name by static index where the table has it. Names must be lower case and values
 * octets (latin1), as HTTP/2 carries them.
 */
export function encodeHeaders(fields: readonly HeaderField[]): Buffer {
  const out: number[] = [];
  for (const [name, value] of fields) {
    const whole = STATIC_TABLE.findIndex(([n, v]) => n === name && v === value && v !== "");
    if (whole >= 0) {
      writeInteger(out, whole + 1, 7, 0x80);
      continue;
    }
    const nameIndex = STATIC_NAME.get(name);
    writeInteger(out, nameIndex ?? 0, 4, 0x10);
    if (nameIndex === undefined) writeString(out, name);
    writeString(out, value);
  }
  return Buffer.from(out);
}

function writeInteger(out: number[], value: number, prefix: number, flags: number): void {
  const mask = (1 << prefix) - 1;
  if (value < mask) {
    out.push(flags | value);
    return;
  }
  out.push(flags | mask);
  let rest = value - mask;
  while (rest >= 0x80) {
    out.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
}

function writeString(out: number[], text: string): void {
  writeInteger(out, text.length, 7, 0);
  for (let i = 0; i < text.length; i++) out.push(text.charCodeAt(i) & 0xff);
}
