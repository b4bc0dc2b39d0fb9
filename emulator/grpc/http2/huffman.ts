/**
 * HPACK's Huffman code (RFC 7541 §5.2 and Appendix B), decoding only: the emulator writes its own header strings
 * as plain literals, and reads whatever a client's encoder chose.
 *
 * The code is canonical: its codes, taken in order of length and then of symbol, are consecutive numbers, each
 * length's first code the previous length's last one plus one, shifted left by the difference in length. So the
 * code lengths of Appendix B are the whole table, and a code is decoded a bit at a time by counting how many codes
 * each length has (the way zlib's `puff` reads a canonical code).
 */

/** The code length of each symbol 0..255 and of EOS (256), in bits: RFC 7541 Appendix B's third column. */
const CODE_LENGTHS: readonly number[] = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28,
  28, 28, 28, 28, 28, 6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7,
  8, 15, 6, 12, 10, 13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19,
  13, 14, 6, 15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13,
  28, 20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21,
  22, 23, 22, 23, 23, 24, 22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23,
  22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, 26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,
  19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, 20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25,
  25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, 30,
];

export const EOS = 256;
const LONGEST = 30;

/** How many codes each length has, and the symbols in code order (by length, then symbol). */
const COUNTS = new Array<number>(LONGEST + 1).fill(0);
for (const length of CODE_LENGTHS) COUNTS[length]! += 1;
const SYMBOLS = CODE_LENGTHS.map((length, symbol) => ({ length, symbol }))
  .sort((a, b) => a.length - b.length || a.symbol - b.symbol)
  .map((entry) => entry.symbol);

/** Each symbol's code, derived from the lengths as the canonical rule says, by symbol. */
const CODES: readonly number[] = (() => {
  const codes = new Array<number>(CODE_LENGTHS.length);
  let code = 0;
  let length = CODE_LENGTHS[SYMBOLS[0]!]!;
  for (const symbol of SYMBOLS) {
    const next = CODE_LENGTHS[symbol]!;
    // The next code: one past the last, shifted left by how much longer it is.
    code *= 2 ** (next - length);
    length = next;
    codes[symbol] = code;
    code += 1;
  }
  return codes;
})();

/** A symbol's code and its length in bits (for tests that check the table). */
export function huffmanCode(symbol: number): { code: number; length: number } {
  return { code: CODES[symbol]!, length: CODE_LENGTHS[symbol]! };
}

/** A Huffman-coded string that breaks the rules: an EOS inside it, or padding that is not a short run of ones. */
export class HuffmanError extends Error {}

/**
 * Every code of 8 bits or fewer (the letters, digits and punctuation of tokens, paths and names) by the byte that
 * begins with it: `length << 8 | symbol`, 0 where the byte begins a longer code.
 */
const SHORT = new Uint16Array(256);
CODE_LENGTHS.forEach((length, symbol) => {
  if (length > 8) return;
  const first = CODES[symbol]! << (8 - length);
  for (let rest = 0; rest < 1 << (8 - length); rest++) SHORT[first | rest] = (length << 8) | symbol;
});

/** Where decoded octets are written: grown as needed, reused (a decode is synchronous). */
let scratch = Buffer.allocUnsafe(1024);

/** The octets a Huffman-coded string stands for, as a latin1 string (one char per octet). */
export function huffmanDecode(bytes: Uint8Array): string {
  // The shortest code has 5 bits: at most 8/5 octets per byte.
  if (scratch.length < bytes.length * 2) scratch = Buffer.allocUnsafe(bytes.length * 2);
  const out = scratch;
  let n = 0;
  const total = bytes.length * 8;
  let pos = 0;
  while (pos < total) {
    // The 8 bits from `pos` (ones past the end, which no short code is made of) find a short code at once.
    const at = pos >>> 3;
    const window = (bytes[at]! << 8) | (at + 1 < bytes.length ? bytes[at + 1]! : 0xff);
    const entry = SHORT[(window >>> (8 - (pos & 7))) & 0xff]!;
    const length = entry >>> 8;
    if (entry !== 0 && pos + length <= total) {
      out[n++] = entry & 0xff;
      pos += length;
      continue;
    }
    const long = longCode(bytes, pos);
    if (long.symbol !== undefined) out[n++] = long.symbol;
    pos = long.next;
  }
  return out.toString("latin1", 0, n);
}

/**
 * One code read a bit at a time from `pos` (the canonical walk: each length's codes counted off in turn): its
 * symbol and where the next code starts. A string that ends amid the code ends in padding (no symbol), which
 * must be the first bits of EOS (all ones) and shorter than a byte.
 */
function longCode(bytes: Uint8Array, pos: number): { symbol?: number; next: number } {
  const total = bytes.length * 8;
  let code = 0;
  let first = 0;
  let index = 0;
  let ones = true;
  for (let p = pos; p < total; p++) {
    const bit = (bytes[p >>> 3]! >> (7 - (p & 7))) & 1;
    code |= bit;
    ones &&= bit === 1;
    const length = p - pos + 1;
    const count = COUNTS[length]!;
    if (code - count < first) {
      const symbol = SYMBOLS[index + (code - first)]!;
      if (symbol === EOS) throw new HuffmanError("a Huffman-coded string holds EOS");
      return { symbol, next: p + 1 };
    }
    if (length >= LONGEST) throw new HuffmanError("a Huffman code longer than any the table has");
    index += count;
    first = (first + count) * 2;
    code *= 2;
  }
  if (total - pos > 7 || !ones)
    throw new HuffmanError("a Huffman-coded string ends in padding that is not EOS's prefix");
  return { next: total };
}
