/**
 * Property: the gRPC face takes whatever a hostile or broken client sends and answers every HTTP/2 request with a
 * gRPC status, and the emulator keeps answering REST and gRPC afterwards. Loopback only, bounded runs, fixed seeds.
 *
 * - bytes after the HTTP/2 preface that are no HTTP/2 (a clean connection error: GOAWAY or a close, never a hang);
 * - bytes that are neither HTTP/1 nor HTTP/2 (refused or closed);
 * - valid HTTP/2 with random gRPC frames: random message bytes (wrong wire types, truncated varints, lengths past
 *   the end), a declared length far larger than what follows, deep nesting of groups, unknown fields beside a valid
 *   message, a message over the size limit, the compressed flag with no grpc-encoding, frames split anywhere, extra
 *   frames in a unary call, random metadata.
 */
import { connect as netConnect } from "node:net";
import * as http2 from "node:http2";
import fc from "fast-check";
import { servedMethods } from "../../emulator/grpc/protos";
import { start, type Api } from "./helpers";
import { encodeMessage, GrpcWire } from "./grpc-wire";

jest.setTimeout(300_000);

const SEED = 20261128;
const RUNS = Number(process.env.HOSTILE_RUNS ?? 200);

let api: Api;
let wire: GrpcWire;
let port: number;

beforeAll(async () => {
  api = await start();
  port = Number(new URL(api.emulator.url).port);
  wire = new GrpcWire(`127.0.0.1:${port}`);
});

afterAll(async () => {
  wire?.close();
  await api?.emulator.close();
});

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

/** Writes bytes on a fresh TCP connection; resolves how it ended: closed by the server, or still open at the bound. */
function rawSocket(bytes: Buffer, boundMs = 3000): Promise<{ ended: "closed" | "open"; received: Buffer }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = netConnect({ host: "127.0.0.1", port });
    let done = false;
    const finish = (ended: "closed" | "open") => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ended, received: Buffer.concat(chunks) });
    };
    const timer = setTimeout(() => finish("open"), boundMs);
    socket.on("data", (d) => chunks.push(d));
    socket.on("close", () => finish("closed"));
    socket.on("error", () => finish("closed"));
    socket.on("connect", () => socket.write(bytes));
  });
}

/** A GOAWAY frame (type 0x7) among HTTP/2 frames the server sent. */
function hasGoaway(received: Buffer): boolean {
  let offset = 0;
  while (offset + 9 <= received.length) {
    const length = received.readUIntBE(offset, 3);
    if (received[offset + 3] === 0x7) return true;
    offset += 9 + length;
  }
  return false;
}

interface Http2Answer {
  httpStatus?: number;
  headers: http2.IncomingHttpHeaders;
  trailers: http2.IncomingHttpHeaders;
  /** A stream reset instead of an answer: its code. */
  reset?: number;
  error?: string;
  timedOut?: boolean;
}

/** One HTTP/2 request with the given gRPC body chunks, on its own session. */
function h2(
  path: string,
  chunks: Buffer[],
  headers: Record<string, string> = {},
  boundMs = 10_000,
): Promise<Http2Answer> {
  return new Promise((resolve) => {
    // The client's own session may buffer a whole oversized message (node's default of 10 MB would reset the stream
    // on this side with ENHANCE_YOUR_CALM before the server saw it): what is tested is the server's answer.
    const session = http2.connect(`http://127.0.0.1:${port}`, { maxSessionMemory: 1024 });
    const answer: Http2Answer = { headers: {}, trailers: {} };
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      session.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => {
      answer.timedOut = true;
      finish();
    }, boundMs);
    session.on("error", (e) => {
      answer.error = e.message;
      finish();
    });
    const stream = session.request({
      ":method": "POST",
      ":path": path,
      "content-type": "application/grpc",
      te: "trailers",
      authorization: `Bearer ${api.emulator.token}`,
      ...headers,
    });
    stream.on("response", (h) => {
      answer.headers = h;
      answer.httpStatus = Number(h[":status"]);
    });
    stream.on("trailers", (t) => {
      answer.trailers = t;
    });
    stream.on("data", () => undefined);
    stream.on("error", (e) => {
      answer.error = e.message;
    });
    stream.on("close", () => {
      if (stream.rstCode !== undefined && stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR)
        answer.reset = stream.rstCode;
      finish();
    });
    (async () => {
      for (const chunk of chunks) {
        if (stream.destroyed) return;
        await new Promise<void>((r) => stream.write(chunk, () => r()));
      }
      if (!stream.destroyed) stream.end();
    })().catch(() => undefined);
  });
}

/** The grpc-status of an answer (trailers, or headers of a trailers-only answer), or undefined. */
function grpcStatus(answer: Http2Answer): number | undefined {
  const value = answer.trailers["grpc-status"] ?? answer.headers["grpc-status"];
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 && n <= 16 ? n : undefined;
}

function frame(message: Uint8Array, flags = 0, declaredLength = message.length): Buffer {
  const header = Buffer.alloc(5);
  header[0] = flags;
  header.writeUInt32BE(declaredLength >>> 0, 1);
  return Buffer.concat([header, Buffer.from(message)]);
}

/** Splits bytes at random points, as a client (or the network) may send them. */
function split(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let previous = 0;
  for (const p of points) {
    out.push(bytes.subarray(previous, p));
    previous = p;
  }
  out.push(bytes.subarray(previous));
  return out.filter((b) => b.length > 0);
}

const methods = servedMethods();
const listGroups = methods.find((m) => m.fullName.endsWith("GroupsService/ListGroups"))!;

/** The emulator still answers a normal REST and a normal gRPC call. */
async function stillAnswers(): Promise<void> {
  const health = await api.get("/_emulator/health", null);
  expect(health.status).toBe(200);
  const groups = await api.get("/iam/v2beta1/groups");
  expect(groups.status).toBe(200);
  const answer = await wire.call(
    listGroups.path,
    encodeMessage(listGroups.requestType, {}),
    api.emulator.token,
  );
  expect(answer.code).toBe(0);
}

/** A varint's bytes. */
function varint(n: number): number[] {
  const out: number[] = [];
  let v = n >>> 0;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

const hostileMessage: fc.Arbitrary<{ what: string; chunks: (valid: Buffer) => Buffer[] }> = fc.oneof(
  fc
    .uint8Array({ maxLength: 256 })
    .map((bytes) => ({ what: "random message bytes", chunks: () => [frame(bytes)] })),
  fc
    .tuple(fc.uint8Array({ maxLength: 64 }), fc.integer({ min: 1, max: 0xffffffff }))
    .map(([bytes, declared]) => ({
      what: `declared length ${declared}, ${bytes.length} bytes follow`,
      chunks: () => [frame(bytes, 0, Math.max(declared, bytes.length + 1))],
    })),
  fc.integer({ min: 1, max: 200_000 }).map((depth) => ({
    what: `groups nested ${depth} deep`,
    chunks: () => {
      const start = varint((1000 << 3) | 3);
      const end = varint((1000 << 3) | 4);
      const bytes = Buffer.concat([
        Buffer.from(new Array<number[]>(depth).fill(start).flat()),
        Buffer.from(new Array<number[]>(depth).fill(end).flat()),
      ]);
      return [frame(bytes)];
    },
  })),
  fc.integer({ min: 1, max: 20_000 }).map((depth) => ({
    what: `length-delimited field 2 nested ${depth} deep`,
    chunks: () => {
      let bytes = Buffer.alloc(0);
      for (let i = 0; i < depth; i++)
        bytes = Buffer.concat([Buffer.from([0x12, ...varint(bytes.length)]), bytes]);
      return [frame(bytes)];
    },
  })),
  fc
    .tuple(
      fc.integer({ min: 16, max: 536_870_911 }),
      fc.constantFrom(0, 1, 2, 5),
      fc.uint8Array({ maxLength: 16 }),
    )
    .map(([field, wireType, payload]) => ({
      what: `unknown field ${field} wire type ${wireType} beside a valid message`,
      chunks: (valid: Buffer) => {
        const tag = varint((field << 3) | wireType);
        const value =
          wireType === 0
            ? [1]
            : wireType === 1
              ? [0, 0, 0, 0, 0, 0, 0, 0]
              : wireType === 5
                ? [0, 0, 0, 0]
                : [...varint(payload.length), ...payload];
        return [frame(Buffer.concat([valid, Buffer.from([...tag, ...value])]))];
      },
    })),
  fc.constantFrom(0, 1, 3, 5).map((wireType) => ({
    what: `field 1 with wire type ${wireType}`,
    chunks: () => [frame(Buffer.from([(1 << 3) | wireType, 0x05, 0x41, 0x42]))],
  })),
  fc.constantFrom(5 * 1024 * 1024, 16 * 1024 * 1024).map((size) => ({
    what: `a message of ${size} bytes`,
    chunks: () => [
      frame(
        Buffer.concat([Buffer.from([0x0a, ...varint(size - 6)]), Buffer.alloc(size - 6, 0x61)]).subarray(
          0,
          size,
        ),
      ),
    ],
  })),
  fc.uint8Array({ maxLength: 32 }).map((bytes) => ({
    what: "compressed flag with no grpc-encoding",
    chunks: () => [frame(bytes, 1)],
  })),
  fc
    .uint8Array({ maxLength: 8 })
    .map((bytes) => ({ what: "a partial frame header", chunks: () => [Buffer.from(bytes.subarray(0, 4))] })),
  fc.constant({
    what: "two frames in a unary call",
    chunks: (valid: Buffer) => [frame(valid), frame(valid)],
  }),
  fc.constant({ what: "no frame at all", chunks: () => [] }),
);

describe("every HTTP/2 request gets a gRPC status", () => {
  test("random gRPC frames on valid HTTP/2", async () => {
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...methods),
        hostileMessage,
        fc.array(fc.nat(), { maxLength: 3 }),
        async (method, hostile, cuts) => {
          const valid = Buffer.from(encodeMessage(method.requestType, {}));
          const chunks = hostile.chunks(valid).flatMap((c) => split(c, cuts));
          const answer = await h2(method.path, chunks);
          const kind = hostile.what.replace(/\d+/g, "N");
          seen.set(kind, (seen.get(kind) ?? 0) + 1);
          const status = grpcStatus(answer);
          if (status === undefined || answer.httpStatus !== 200) {
            throw new Error(
              `${method.fullName}, ${hostile.what}: no gRPC status (${JSON.stringify({ httpStatus: answer.httpStatus, reset: answer.reset, error: answer.error, timedOut: answer.timedOut, headers: answer.headers, trailers: answer.trailers })})`,
            );
          }
          // A malformed message is refused; it never takes the emulator down.
          expect(status).not.toBe(2);
        },
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    console.log(
      `hostile frames: ${RUNS} runs, seed ${SEED}\n${[...seen].map(([k, n]) => `  ${k}: ${n}`).join("\n")}`,
    );
    await stillAnswers();
  });

  test("a 64 MiB message (over the 1 MiB limit) is RESOURCE_EXHAUSTED", async () => {
    const answer = await h2(listGroups.path, [frame(Buffer.alloc(64 * 1024 * 1024 + 16, 0))]);
    expect(grpcStatus(answer)).toBe(8);
    await stillAnswers();
  });

  test("the compressed flag with no grpc-encoding is an error status", async () => {
    // grpc-go and grpc-js answer INTERNAL; INVALID_ARGUMENT (a malformed request) says as much.
    const answer = await h2(listGroups.path, [frame(Buffer.from([0x1f, 0x8b]), 1)]);
    expect([3, 12, 13]).toContain(grpcStatus(answer));
  });

  test("a grpc-encoding the face cannot read is UNIMPLEMENTED, on a unary call and on reflection", async () => {
    for (const path of [listGroups.path, "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"]) {
      const answer = await h2(path, [frame(Buffer.alloc(0))], { "grpc-encoding": "snappy" });
      expect([path, grpcStatus(answer)]).toEqual([path, 12]);
    }
    await stillAnswers();
  });

  test("random metadata and paths", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constantFrom(...methods).map((m) => m.path),
          fc.string({ maxLength: 40 }).map((s) => `/${s.replace(/[^\x21-\x7e]/g, "x")}`),
        ),
        fc.dictionary(
          fc
            .stringMatching(/^[a-z][a-z0-9-]{0,12}$/)
            .filter(
              (k) =>
                ![
                  "te",
                  "content-type",
                  "connection",
                  "upgrade",
                  "host",
                  "keep-alive",
                  "transfer-encoding",
                  "proxy-connection",
                ].includes(k),
            ),
          fc.stringMatching(/^[\x20-\x7e]{0,40}$/),
          { maxKeys: 4 },
        ),
        async (path, metadata) => {
          const status = grpcStatus(await h2(path, [frame(Buffer.alloc(0))], metadata));
          if (!methods.some((m) => m.path === path)) {
            expect([path, status]).toEqual([path, 12]); // UNIMPLEMENTED: no such method
            return;
          }
          // Metadata the API does not define changes nothing: the answer is the one without it, never a crash.
          const without = grpcStatus(await h2(path, [frame(Buffer.alloc(0))]));
          expect([path, status]).toEqual([path, without]);
          expect([path, status]).toEqual([path, expect.any(Number)]);
          expect([2, 13]).not.toContain(status);
        },
      ),
      { seed: SEED, numRuns: Math.ceil(RUNS / 4), endOnFailure: true },
    );
    await stillAnswers();
  });
});

describe("bytes that are no HTTP/2", () => {
  const closes = { goaway: 0, closed: 0, waiting: 0 };

  test("random bytes after the preface end the connection cleanly (GOAWAY, then close) or wait for more", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 512 }), async (bytes) => {
        const result = await rawSocket(Buffer.concat([PREFACE, Buffer.from(bytes)]), 1000);
        // The server spoke HTTP/2 either way: its SETTINGS first.
        expect(result.received[3]).toBe(0x4);
        if (result.ended === "open") {
          // The bytes may be a valid frame, or the start of one the server waits for: it has not given up on them.
          expect(hasGoaway(result.received)).toBe(false);
          closes.waiting++;
          return;
        }
        // A connection it closes on a protocol error ends with a GOAWAY.
        expect(hasGoaway(result.received)).toBe(true);
        closes.goaway++;
      }),
      { seed: SEED, numRuns: Math.ceil(RUNS / 8), endOnFailure: true },
    );
    console.log(
      `after the preface: ${closes.goaway} GOAWAY and close, ${closes.waiting} waiting for more bytes`,
    );
    await stillAnswers();
  });

  test("random bytes that are neither HTTP/1 nor HTTP/2 are refused with a 400 or closed", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .uint8Array({ minLength: 1, maxLength: 512 })
          .filter((b) => !PREFACE.subarray(0, b.length).equals(Buffer.from(b))),
        async (bytes) => {
          const result = await rawSocket(Buffer.from(bytes), 1500);
          if (result.received.length > 0)
            expect(result.received.toString("latin1")).toMatch(/^HTTP\/1\.[01] 4\d\d /);
          if (result.ended === "closed") closes.closed++;
        },
      ),
      { seed: SEED, numRuns: Math.ceil(RUNS / 4), endOnFailure: true },
    );
    await stillAnswers();
  });
});
