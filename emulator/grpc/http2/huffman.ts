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

/** Each symbol's code, derived from the lengths as the canonical rule says (for tests that check the table). */
export function huffmanCode(symbol: number): { code: number; length: number } {
  let code = 0;
  let length = CODE_LENGTHS[SYMBOLS[0]!]!;
  for (let i = 1; i <= SYMBOLS.indexOf(symbol); i++) {
    const next = CODE_LENGTHS[SYMBOLS[i]!]!;
    code = (code + 1) * 2 ** (next - length);
    length = next;
  }
  return { code, length };
}

/** A Huffman-coded string that breaks the rules: an EOS inside it, or padding that is not a short run of ones. */
export class HuffmanError extends Error {}

/** The octets a Huffman-coded string stands for, as a latin1 string (one char per octet). */
export function huffmanDecode(bytes: Uint8Array): string {
  const out: number[] = [];
  // The code read so far: its value, its length, and where its length's codes start (`first`, `index`).
  let code = 0;
  let length = 0;
  let first = 0;
  let index = 0;
  let ones = true;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    for (let bit = 7; bit >= 0; bit--) {
      const b = (byte >> bit) & 1;
      code |= b;
      ones &&= b === 1;
      length++;
      const count = COUNTS[length]!;
      if (code - count < first) {
        const symbol = SYMBOLS[index + (code - first)]!;
        if (symbol === EOS) throw new HuffmanError("a Huffman-coded string holds EOS");
        out.push(symbol);
        code = first = index = length = 0;
        ones = true;
        continue;
      }
      index += count;
      first = (first + count) * 2;
      code *= 2;
      if (length >= LONGEST) throw new HuffmanError("a Huffman code longer than any the table has");
    }
  }
  // What is left is padding: the most significant bits of EOS (all ones), shorter than a byte.
  if (length > 7 || !ones)
    throw new HuffmanError("a Huffman-coded string ends in padding that is not EOS's prefix");
  return latin1(out);
}

/** Octets as a latin1 string, in slices (String.fromCharCode takes its arguments on the stack). */
export function latin1(octets: number[]): string {
  let text = "";
  for (let at = 0; at < octets.length; at += 4096)
    text += String.fromCharCode(...octets.slice(at, at + 4096));
  return text;
}
