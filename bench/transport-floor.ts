/**
 * The transports' own cost, with nothing of the emulator behind them: the server process's CPU per call for a bare
 * gRPC unary answer (a 2-byte message and its trailers, what the emulator's gRPC face sends at the least) on
 * node:http2 and on the emulator's own HTTP/2 connection (emulator/grpc/http2/connection.ts, what the gRPC face is
 * served on), against a bare fastify GET answering `{"a":1}` over HTTP/1.1 keep-alive (what its REST face does at
 * the least), each server in a child process, 8 connections per transport, one call in flight on each (as
 * bench/grpc.ts). The difference between the emulator's connection and fastify is the floor under bench/grpc.ts's
 * gRPC/REST ratio: what no change to the rest of the face can remove.
 *
 *   TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/transport-floor.ts   # under flock /tmp/heavy.lock; Linux (/proc)
 *
 * Env: BENCH_REQUESTS (4000 per transport and round), BENCH_GRPC_ROUNDS (2).
 */
import { fork } from "node:child_process";
import type { AddressInfo } from "node:net";
import * as grpc from "@grpc/grpc-js";
import { Pool } from "undici";
import { processCpuMs } from "./cli-emulator";

const CALLS = Number(process.env.BENCH_REQUESTS ?? 4000);
const ROUNDS = Number(process.env.BENCH_GRPC_ROUNDS ?? 2);
const LANES = 8;

type Transport = "fastify" | "http2" | "connection";

const TRANSPORTS: Transport[] = ["fastify", "http2", "connection"];

/** The child: one bare server, its port sent to the parent. */
async function serve(transport: Transport): Promise<void> {
  if (transport === "http2") {
    const { createServer } = await import("node:http2");
    const server = createServer();
    server.on("stream", (stream) => {
      stream.on("error", () => undefined);
      stream.on("data", () => undefined);
      stream.once("end", () => {
        stream.respond(
          { ":status": 200, "content-type": "application/grpc+proto" },
          { waitForTrailers: true },
        );
        stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
        stream.end(Buffer.from([0, 0, 0, 0, 2, 8, 1]));
      });
    });
    server.listen(0, "127.0.0.1", () => process.send!((server.address() as AddressInfo).port));
  } else if (transport === "connection") {
    const { createServer } = await import("node:net");
    const { Connection } = await import("../emulator/grpc/http2/connection");
    const { encodeHeaders } = await import("../emulator/grpc/http2/hpack");
    const headers = encodeHeaders([
      [":status", "200"],
      ["content-type", "application/grpc+proto"],
    ]);
    const trailers = encodeHeaders([["grpc-status", "0"]]);
    const server = createServer(
      (socket) =>
        new Connection(socket, {
          onStream: (stream) => {
            stream.onEnd = () => {
              stream.respond(headers);
              stream.write(Buffer.from([0, 0, 0, 0, 2, 8, 1]));
              stream.end(trailers);
            };
          },
        }),
    );
    server.listen(0, "127.0.0.1", () => process.send!((server.address() as AddressInfo).port));
  } else {
    const { default: Fastify } = await import("fastify");
    const app = Fastify();
    app.get("/x", async () => ({ a: 1 }));
    await app.listen({ port: 0, host: "127.0.0.1" });
    process.send!((app.server.address() as AddressInfo).port);
  }
}

/** CPU microseconds per call of the server, after a warm-up of as many calls. */
async function measure(transport: Transport): Promise<number> {
  const child = fork(__filename, ["serve", transport], { execArgv: process.execArgv });
  const port = await new Promise<number>((resolve) => child.once("message", (m) => resolve(m as number)));
  let calls: (() => Promise<unknown>)[];
  let close: () => Promise<void>;
  if (transport !== "fastify") {
    const channels = Array.from(
      { length: LANES },
      () =>
        new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
          "grpc.use_local_subchannel_pool": 1,
        }),
    );
    calls = channels.map(
      (channel) => () =>
        new Promise((resolve, reject) =>
          channel.makeUnaryRequest(
            "/bench.Floor/Call",
            (b: Buffer) => b,
            (b: Buffer) => b,
            Buffer.alloc(3),
            (error, value) => (error ? reject(error) : resolve(value)),
          ),
        ),
    );
    close = async () => channels.forEach((channel) => channel.close());
  } else {
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: LANES, pipelining: 1 });
    calls = Array.from({ length: LANES }, () => async () => {
      const response = await pool.request({ method: "GET", path: "/x" });
      await response.body.text();
    });
    close = () => pool.close();
  }
  const drive = async (): Promise<void> => {
    let next = 0;
    await Promise.all(
      calls.map(async (call) => {
        while (next++ < CALLS) await call();
      }),
    );
  };
  await drive();
  const before = processCpuMs(child.pid!);
  await drive();
  const perCall = ((processCpuMs(child.pid!) - before) / CALLS) * 1000;
  await close();
  child.kill();
  return perCall;
}

async function main(): Promise<void> {
  const figures: Record<Transport, number[]> = { fastify: [], http2: [], connection: [] };
  for (let round = 0; round < ROUNDS; round++)
    for (const transport of TRANSPORTS) figures[transport].push(await measure(transport));
  const mean = (list: number[]) => list.reduce((a, b) => a + b, 0) / list.length;
  process.stdout.write(
    `server CPU µs per bare call (${CALLS} calls, ${LANES} connections, ${ROUNDS} rounds): ` +
      `fastify HTTP/1.1 ${mean(figures.fastify).toFixed(1)}, node:http2 gRPC ${mean(figures.http2).toFixed(1)}, ` +
      `the emulator's HTTP/2 connection gRPC ${mean(figures.connection).toFixed(1)}\n`,
  );
}

if (process.argv[2] === "serve") void serve(process.argv[3] as Transport);
else if (require.main === module) void main();
