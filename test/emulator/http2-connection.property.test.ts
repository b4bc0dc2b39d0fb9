/**
 * The gRPC face's own HTTP/2 connection (emulator/grpc/http2/), held to a peer we did not write: node:http2's
 * client (nghttp2's framing and HPACK encoder, with its Huffman coding and dynamic table). Loopback, fixed seeds.
 *
 * - the header fields a client sends are read back exactly: any names and values HTTP/2 allows, many requests on
 *   one connection (its dynamic table filling and evicting), values the client marks never-indexed;
 *   the fields the server sends are read by the client exactly;
 * - flow control both ways: an answer larger than every window the client gives arrives whole, in order, while the
 *   client reads slowly; a request larger than the stream window the server gives is read whole;
 * - PING is answered; the client's SETTINGS are acknowledged (node's session waits for both);
 * - Huffman decoding: the RFC 7541 Appendix C examples, every code's round trip, and padding refused unless it
 *   is a short run of ones.
 */
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import * as http2 from "node:http2";
import fc from "fast-check";
import { Connection, type Stream } from "../../emulator/grpc/http2/connection";
import { encodeHeaders, HpackDecoder, type HeaderField } from "../../emulator/grpc/http2/hpack";
import { EOS, huffmanCode, huffmanDecode, HuffmanError } from "../../emulator/grpc/http2/huffman";

jest.setTimeout(120_000);

const SEED = 20261129;

let server: Server;
let url: string;
/** What the test's server does with a stream; set by each test. */
let handle: (stream: Stream) => void = () => undefined;

beforeAll(async () => {
  server = createServer((socket) => new Connection(socket, { onStream: (stream) => handle(stream) }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** A request on the session; resolves the answer's headers, body and trailers. */
function request(
  session: http2.ClientHttp2Session,
  headers: http2.OutgoingHttpHeaders,
  body?: Buffer,
  options: { slow?: boolean } = {},
): Promise<{ headers: http2.IncomingHttpHeaders; body: Buffer; trailers: http2.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers, { endStream: body === undefined });
    const chunks: Buffer[] = [];
    let answer: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    stream.on("response", (h) => (answer = h));
    stream.on("trailers", (t) => (trailers = t));
    stream.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      if (options.slow) {
        // A slow reader: the client's windows close until it reads on.
        stream.pause();
        setTimeout(() => stream.resume(), 2);
      }
    });
    stream.on("error", reject);
    stream.on("end", () => resolve({ headers: answer, body: Buffer.concat(chunks), trailers }));
    if (body !== undefined) stream.end(body);
  });
}

/** A session of the client for `use`, destroyed after it whatever it throws. */
async function onSession(
  settings: http2.Settings,
  use: (session: http2.ClientHttp2Session) => Promise<void>,
): Promise<void> {
  const session = await connect(settings);
  try {
    await use(session);
  } finally {
    session.destroy();
  }
}

/** A handler's answer once the request is read: 200, `body` (in the pieces given), then `trailers`. */
function answer(stream: Stream, body: Buffer | Buffer[], trailers: HeaderField[]): void {
  stream.respond(encodeHeaders([[":status", "200"]]));
  for (const piece of Array.isArray(body) ? body : [body]) stream.write(piece);
  stream.end(encodeHeaders(trailers));
}

function connect(settings: http2.Settings = {}): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url, { settings });
    session.once("connect", () => resolve(session));
    session.once("error", reject);
  });
}

/** Header names HTTP/2 allows a client to send (lower case tokens), but for the ones it gives a meaning. */
const headerName = fc
  .stringMatching(/^[a-z0-9!#$%&'*+.^_`|~-]{1,24}$/)
  .filter(
    (name) =>
      ![
        "connection",
        "keep-alive",
        "proxy-connection",
        "transfer-encoding",
        "upgrade",
        "te",
        "host",
        "http2-settings",
      ].includes(name),
  );
/** Values of any visible latin1 octets and spaces (no leading or trailing space, as node trims neither). */
const headerValue = fc
  .array(
    fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f),
    { maxLength: 300 },
  )
  .map((codes) => String.fromCharCode(...codes).trim());

describe("header blocks, against nghttp2's encoder and decoder", () => {
  test("every field a client sends is read back exactly, request after request on one connection", async () => {
    handle = (stream) => {
      const echoed = Object.entries(stream.headers).filter(([name]) => !name.startsWith(":"));
      stream.onEnd = () => answer(stream, Buffer.from(JSON.stringify(echoed), "latin1"), [["x-done", "yes"]]);
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            fields: fc.dictionary(headerName, headerValue, { maxKeys: 12 }),
            sensitive: fc.boolean(),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        async (requests) => {
          await onSession({}, async (session) => {
            for (const { fields, sensitive } of requests) {
              const sent = { ":method": "POST", ":path": "/x", ...fields } as http2.OutgoingHttpHeaders &
                Record<symbol, string[]>;
              if (sensitive) sent[http2.sensitiveHeaders] = Object.keys(fields);
              const answer = await request(session, sent);
              const echoed = Object.fromEntries(
                JSON.parse(answer.body.toString("latin1")) as [string, string][],
              );
              expect(echoed).toEqual(fields);
              expect(answer.trailers["x-done"]).toBe("yes");
            }
          });
        },
      ),
      { seed: SEED, numRuns: 40 },
    );
  });

  test("never-indexed fields that repeat, change and come back are read exactly, request after request", async () => {
    handle = (stream) => {
      const echoed = [stream.headers[":path"], stream.headers["x-secret"], stream.headers.authorization];
      stream.onEnd = () => answer(stream, Buffer.from(JSON.stringify(echoed), "latin1"), []);
    };
    // Few values of one length and another, so the same octets come again, and others of the same length differ.
    const value = fc.constantFrom("aaaa", "aaab", "baaa", "Bearer t0k3n", "Bearer t0k3m", "", "é");
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(value, value, fc.constantFrom("/p/1", "/p/2")), { minLength: 1, maxLength: 16 }),
        async (requests) => {
          await onSession({}, async (session) => {
            for (const [secret, authorization, path] of requests) {
              const sent = {
                ":method": "POST",
                ":path": path,
                "x-secret": secret,
                authorization,
                [http2.sensitiveHeaders]: ["x-secret", "authorization"],
              };
              const answered = await request(session, sent as http2.OutgoingHttpHeaders);
              // Node's client sends each character as one octet, as the server reads it back (latin1).
              expect(JSON.parse(answered.body.toString("latin1"))).toEqual([path, secret, authorization]);
            }
          });
        },
      ),
      { seed: SEED, numRuns: 30 },
    );
  });

  test("the fields the server sends are read by the client exactly", async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(headerName, headerValue, { maxKeys: 8 }), async (fields) => {
        handle = (stream) => {
          stream.onEnd = () => answer(stream, [], Object.entries(fields));
        };
        await onSession({}, async (session) => {
          const answer = await request(session, { ":method": "POST", ":path": "/x" });
          const trailers = Object.fromEntries(
            Object.entries(answer.trailers).filter(([n]) => !n.startsWith(":")),
          );
          expect(trailers).toEqual(fields);
        });
      }),
      { seed: SEED, numRuns: 40 },
    );
  });
});

describe("flow control", () => {
  test("an answer larger than every window the client gives arrives whole while the client reads slowly", async () => {
    const body = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < body.length; i++) body[i] = (i * 31 + (i >> 10)) & 0xff;
    handle = (stream) => {
      const pieces: Buffer[] = [];
      // In pieces of odd sizes, as answers are written.
      for (let at = 0; at < body.length; at += 70_001) pieces.push(body.subarray(at, at + 70_001));
      stream.onEnd = () => answer(stream, pieces, [["x-done", "yes"]]);
    };
    await onSession({ initialWindowSize: 16_384 }, async (session) => {
      const answer = await request(session, { ":method": "POST", ":path": "/x" }, undefined, { slow: true });
      expect(answer.body.length).toBe(body.length);
      expect(answer.body.equals(body)).toBe(true);
      expect(answer.trailers["x-done"]).toBe("yes");
    });
  });

  test("data written from a buffer the handler reuses arrives as it was when written, whatever the windows", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 40_000 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1_000, max: 70_000 }),
        async (sizes, window) => {
          const expected = sizes.map((size, i) => Buffer.alloc(size, 0x41 + i));
          handle = (stream) => {
            stream.onEnd = () => {
              stream.respond(encodeHeaders([[":status", "200"]]));
              // One buffer lent for every piece (as the encoder lends its own) and spoiled once written.
              const lent = Buffer.alloc(40_000);
              for (const piece of expected) {
                piece.copy(lent);
                stream.write(lent.subarray(0, piece.length));
                lent.fill(0x2a);
              }
              stream.end(encodeHeaders([["x-done", "yes"]]));
            };
          };
          await onSession({ initialWindowSize: window }, async (session) => {
            const answer = await request(session, { ":method": "POST", ":path": "/x" }, undefined, {
              slow: true,
            });
            expect(answer.body.equals(Buffer.concat(expected))).toBe(true);
            expect(answer.trailers["x-done"]).toBe("yes");
          });
        },
      ),
      { seed: SEED, numRuns: 15 },
    );
  });

  test("a request larger than the stream window the server gives is read whole", async () => {
    handle = (stream) => {
      const chunks: Buffer[] = [];
      stream.onData = (chunk) => chunks.push(Buffer.from(chunk));
      stream.onEnd = () => {
        const whole = Buffer.concat(chunks);
        answer(stream, Buffer.from(`${whole.length} ${whole.reduce((sum, b) => (sum + b) % 65_521, 0)}`), []);
      };
    };
    const body = Buffer.alloc(5 * 1024 * 1024, 0);
    for (let i = 0; i < body.length; i++) body[i] = (i * 7) & 0xff;
    await onSession({}, async (session) => {
      const answer = await request(session, { ":method": "POST", ":path": "/x" }, body);
      expect(answer.body.toString()).toBe(`${body.length} ${body.reduce((sum, b) => (sum + b) % 65_521, 0)}`);
    });
  });

  test("a window the client narrows mid-connection is kept to (nghttp2 refuses data past it)", async () => {
    const body = Buffer.alloc(50_000, 7);
    handle = (stream) => {
      stream.onEnd = () => answer(stream, body, [["x-done", "yes"]]);
    };
    await onSession({}, async (session) => {
      // SETTINGS_INITIAL_WINDOW_SIZE changed on an open connection moves the windows of the streams to come.
      await new Promise<void>((resolve, reject) =>
        session.settings({ initialWindowSize: 1_000 }, (error) => (error ? reject(error) : resolve())),
      );
      const answer = await request(session, { ":method": "POST", ":path": "/x" }, undefined, { slow: true });
      expect(answer.body.equals(body)).toBe(true);
      expect(answer.trailers["x-done"]).toBe("yes");
    });
  });

  test("a header block past one frame comes in CONTINUATIONs and is read whole", async () => {
    handle = (stream) => {
      const echoed = Object.entries(stream.headers).filter(([name]) => name.startsWith("x-big"));
      // Trailers past the client's frame size too: this side splits them.
      stream.onEnd = () =>
        answer(stream, Buffer.from(JSON.stringify(echoed)), [["x-long", "t".repeat(40_000)]]);
    };
    const fields = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [`x-big-${i}`, `${i}`.repeat(6_000)]),
    );
    await onSession({}, async (session) => {
      const answer = await request(session, { ":method": "POST", ":path": "/x", ...fields });
      expect(Object.fromEntries(JSON.parse(answer.body.toString()) as [string, string][])).toEqual(fields);
      expect(answer.trailers["x-long"]).toBe("t".repeat(40_000));
    });
  });

  test("PING is answered", async () => {
    await onSession({}, async (session) => {
      const payload = Buffer.from("12345678");
      const echoed = await new Promise<Buffer>((resolve, reject) =>
        session.ping(payload, (error, _ms, back) => (error ? reject(error) : resolve(back))),
      );
      expect(echoed.equals(payload)).toBe(true);
    });
  });
});

describe("HPACK's Huffman code", () => {
  const decodeHex = (hex: string): string => huffmanDecode(Buffer.from(hex.replace(/\s/g, ""), "hex"));

  test("RFC 7541 Appendix C.4 and C.6's Huffman-coded strings", () => {
    expect(decodeHex("f1e3 c2e5 f23a 6ba0 ab90 f4ff")).toBe("www.example.com");
    expect(decodeHex("a8eb 1064 9cbf")).toBe("no-cache");
    expect(decodeHex("25a8 49e9 5ba9 7d7f")).toBe("custom-key");
    expect(decodeHex("25a8 49e9 5bb8 e8b4 bf")).toBe("custom-value");
    expect(decodeHex("6402")).toBe("302");
    expect(decodeHex("aec3 771a 4b")).toBe("private");
    expect(decodeHex("9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3")).toBe("https://www.example.com");
  });

  test("RFC 7541 Appendix C.4.1's whole header block", () => {
    const fields = new HpackDecoder().decode(Buffer.from("828684418cf1e3c2e5f23a6ba0ab90f4ff", "hex"));
    expect(fields).toEqual([
      [":method", "GET"],
      [":scheme", "http"],
      [":path", "/"],
      [":authority", "www.example.com"],
    ]);
  });

  /** Octets Huffman-coded with the codes the table derives, padded with ones. */
  function encode(octets: number[]): Buffer {
    let bits = "";
    for (const octet of octets) {
      const { code, length } = huffmanCode(octet);
      bits += code.toString(2).padStart(length, "0");
    }
    bits += "1".repeat((8 - (bits.length % 8)) % 8);
    const out = Buffer.alloc(bits.length / 8);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(bits.slice(i * 8, i * 8 + 8), 2);
    return out;
  }

  test("any octets round-trip through the derived codes", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 200 }), (octets) => {
        expect(huffmanDecode(encode(octets))).toBe(String.fromCharCode(...octets));
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  test("EOS is 30 ones; an EOS in the string, or padding of zeros or of 8 bits or more, is refused", () => {
    expect(huffmanCode(EOS)).toEqual({ code: 2 ** 30 - 1, length: 30 });
    expect(() => huffmanDecode(Buffer.from([0xff, 0xff, 0xff, 0xff]))).toThrow(HuffmanError);
    // "a" is 00011: padded with zeros instead of ones.
    expect(() => huffmanDecode(Buffer.from([0b00011000]))).toThrow(HuffmanError);
    // "0" is 00000, then a whole byte of ones as padding.
    expect(() => huffmanDecode(Buffer.from([0b00000111, 0xff]))).toThrow(HuffmanError);
    expect(huffmanDecode(Buffer.from([0b00000111]))).toBe("0");
  });
});
