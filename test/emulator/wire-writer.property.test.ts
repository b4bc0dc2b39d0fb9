/**
 * The gRPC face's wire writer (emulator/grpc/wire-writer.ts) frames nested content with the minimal length varint,
 * whatever room for the length its caller reserved (too little, just enough, too much): for random trees of
 * length-delimited fields and strings, its bytes are those of a plain concatenation. Fixed seeds.
 */
import fc from "fast-check";
import { Wire, WireWriter } from "../../emulator/grpc/wire-writer";

const SEEDS = [20261129, 3, 99];

/** A field's content: raw bytes, a string, or nested fields framed with `reserve` bytes set aside for the length. */
type Node =
  | { kind: "raw"; bytes: Uint8Array }
  | { kind: "string"; text: string }
  | { kind: "nested"; reserve: number; children: Node[] };

const { node } = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record({ kind: fc.constant("raw" as const), bytes: fc.uint8Array({ maxLength: 300 }) }),
    fc.record({
      kind: fc.constant("string" as const),
      text: fc.oneof(fc.string({ unit: "binary", maxLength: 200 }), fc.string({ maxLength: 200 })),
    }),
    fc.record({
      kind: fc.constant("nested" as const),
      reserve: fc.integer({ min: 1, max: 3 }),
      children: fc.array(tie("node"), { maxLength: 4 }),
    }),
  ),
}));

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** The reference: each node as field 1, its length the minimal varint. */
function expected(nodes: Node[]): Buffer {
  return Buffer.concat(
    nodes.map((n) => {
      const content =
        n.kind === "raw"
          ? Buffer.from(n.bytes)
          : n.kind === "string"
            ? Buffer.from(n.text, "utf8")
            : expected(n.children);
      return Buffer.concat([Buffer.from([0x0a, ...varint(content.length)]), content]);
    }),
  );
}

function write(writer: WireWriter, nodes: Node[]): void {
  for (const n of nodes) {
    writer.tag(1, Wire.LengthDelimited);
    if (n.kind === "raw") writer.uint32(n.bytes.length).raw(n.bytes);
    else if (n.kind === "string") writer.string(n.text);
    else {
      writer.fork(n.reserve);
      write(writer, n.children);
      const size = writer.join();
      expect(size).toBe(varint(Buffer.byteLength(expected(n.children))).length);
    }
  }
}

describe("the wire writer", () => {
  test.each(SEEDS)("frames nested content with minimal lengths, whatever was reserved (seed %d)", (seed) => {
    fc.assert(
      fc.property(fc.array(node, { maxLength: 6 }), (nodes) => {
        const writer = new WireWriter();
        write(writer, nodes);
        expect(Buffer.from(writer.finish()).toString("hex")).toBe(expected(nodes).toString("hex"));
      }),
      { seed, numRuns: 200 },
    );
  });
});
