/**
 * gRPC against REST on the emulator: the same three calls through each face of one CLI-built emulator
 * (dist/emulator/cli.js, one address for both), at the emulator bench's settings (BENCH_REQUESTS per face and
 * scenario, BENCH_CONCURRENCY calls in flight), and the ratio of the two:
 *   - GetGroup        vs GET /iam/v2beta1/groups/{uid}             (one of 200 groups, by uid)
 *   - ListGroups      vs GET /iam/v2beta1/groups?uidp.children_of= (the folder's 200 groups, one page of 200)
 *   - CreateGroup     vs POST /iam/v2beta1/groups/{parent}         (a new group under a folder of its own per face)
 * The same number of connections on each face: BENCH_CONCURRENCY undici connections for REST, as many gRPC channels
 * (each its own HTTP/2 connection: a local subchannel pool), one call in flight on each. The figure that decides is
 * the emulator process's own CPU time per call (all its threads, read from /proc around each timed round: the
 * bench's client work is not in it), beside throughput and latency, which the client shares the machine with.
 * The faces take turns in rounds (REST, gRPC, REST, ...) so a burst of load on a shared machine hits both alike;
 * compare the ratios, not seconds across runs. Requests are encoded with the project's protos on the gRPC side, and
 * one answer in CHECK_EVERY is decoded (protobuf, JSON) and checked on each face; the rest are read whole as bytes.
 * Each round's calls are counted in the emulator's request log (one entry per call, whichever face); a call that
 * is not exactly one logged API request fails the bench. Writes bench/results/grpc.json and prints a table.
 *
 *   npx tsc -p tsconfig.build.json && TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/grpc.ts
 *
 * Env: BENCH_REQUESTS (2000 per face and scenario), BENCH_CONCURRENCY (8), BENCH_GRPC_ROUNDS (4).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { Pool } from "undici";
import { fromBinary, fromJson, toBinary, type JsonValue } from "@bufbuild/protobuf";
import { messageSchema, protoRegistry, servedMethods, type ServedMethod } from "../emulator/grpc/protos";
import { startCliEmulator, type CliEmulator } from "./cli-emulator";

const ROOT = join(__dirname, "..");
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ROUNDS = Number(process.env.BENCH_GRPC_ROUNDS ?? 4);
const LIST_SIZE = 200;
/** The most the emulator's CPU per call over gRPC may be, as a multiple of its REST twin's (issue 49). */
export const CPU_GOAL = 1.1;

type Face = "REST" | "gRPC";

interface Figures {
  requests: number;
  seconds: number;
  /** The emulator process's CPU milliseconds per call. */
  cpuMsPerCall: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
}

export interface GrpcResults {
  requests: number;
  concurrency: number;
  rounds: number;
  rows: Row[];
}

/** The table of a run (also printed by bench/report.ts from bench/results/grpc.json). */
export function grpcTable(results: GrpcResults): string[] {
  return [
    `gRPC vs REST on one emulator (CLI, loopback): ${results.requests} calls per face and scenario in ${results.rounds} alternating rounds, ${results.concurrency} connections per face, one call in flight on each`,
    "",
    "| scenario | RPC | emulator CPU ms/call REST | gRPC | gRPC/REST CPU | REST req/s | gRPC req/s | gRPC/REST req/s | REST p50 / p95 / p99 ms | gRPC p50 / p95 / p99 ms | logged per call (REST, gRPC) |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...results.rows.map(
      (r) =>
        `| ${r.scenario} | ${r.rpc} | ${r.rest.cpuMsPerCall} | ${r.grpc.cpuMsPerCall} | ${r.cpuRatio}${r.cpuRatio > CPU_GOAL ? ` (over ${CPU_GOAL})` : ""} | ${r.rest.rps} | ${r.grpc.rps} | ${r.rpsRatio} | ${r.rest.p50} / ${r.rest.p95} / ${r.rest.p99} | ${r.grpc.p50} / ${r.grpc.p95} / ${r.grpc.p99} | ${r.loggedPerCall.rest}, ${r.loggedPerCall.grpc} |`,
    ),
    "",
  ];
}

export interface Row {
  scenario: string;
  rpc: string;
  rest: Figures;
  grpc: Figures;
  /** The emulator's CPU per call over gRPC over REST's: the figure that decides (at most CPU_GOAL). */
  cpuRatio: number;
  /** gRPC's requests per second over REST's: above 1, gRPC is faster. */
  rpsRatio: number;
  /** gRPC's p50 over REST's: below 1, gRPC is faster. */
  p50Ratio: number;
  /** API requests in the emulator's request log per call, per face (1 is the only right answer). */
  loggedPerCall: { rest: number; grpc: number };
}

/**
 * One call of a scenario on one face, the i-th, on connection `lane` (0 .. CONCURRENCY-1, one call in flight on
 * each): resolves when the answer is read and decoded; throws on an error.
 */
type Call = (i: number, lane: number) => Promise<void>;

interface Scenario {
  name: string;
  rpc: string;
  rest: Call;
  grpc: Call;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round2 = (n: number): number => Math.round(n * 100) / 100;

/** `count` calls, CONCURRENCY in flight; the latencies (ms) and the wall time (s). */
async function drive(
  call: Call,
  count: number,
  offset: number,
): Promise<{ latencies: number[]; seconds: number }> {
  const latencies: number[] = [];
  let next = 0;
  const begin = process.hrtime.bigint();
  const worker = async (lane: number): Promise<void> => {
    while (next < count) {
      const i = offset + next++;
      const start = process.hrtime.bigint();
      await call(i, lane);
      latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, lane) => worker(lane)));
  return { latencies, seconds: Number(process.hrtime.bigint() - begin) / 1e9 };
}

function figures(latencies: number[], seconds: number, cpuMs: number): Figures {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    seconds: round2(seconds),
    cpuMsPerCall: Math.round((cpuMs / sorted.length) * 1000) / 1000,
    rps: Math.round(sorted.length / seconds),
    p50: round2(percentile(sorted, 50)),
    p95: round2(percentile(sorted, 95)),
    p99: round2(percentile(sorted, 99)),
  };
}

/** The two faces in turns: warm-up (untimed), then ROUNDS rounds each; every timed call counted in the log. */
async function measure(emulator: CliEmulator, scenario: Scenario): Promise<Row> {
  let offset = 0;
  for (const face of ["REST", "gRPC"] as Face[]) {
    await drive(face === "REST" ? scenario.rest : scenario.grpc, Math.ceil(REQUESTS / 4), offset);
    offset += REQUESTS;
  }
  const per = Math.ceil(REQUESTS / ROUNDS);
  const collected: Record<Face, { latencies: number[]; seconds: number; cpuMs: number; logged: number }> = {
    REST: { latencies: [], seconds: 0, cpuMs: 0, logged: 0 },
    gRPC: { latencies: [], seconds: 0, cpuMs: 0, logged: 0 },
  };
  for (let r = 0; r < ROUNDS; r++) {
    const order: Face[] = r % 2 === 0 ? ["REST", "gRPC"] : ["gRPC", "REST"];
    for (const face of order) {
      await emulator.clearRequests();
      // The control calls around the round are outside the CPU window.
      const cpuBefore = emulator.cpuMs();
      const { latencies, seconds } = await drive(
        face === "REST" ? scenario.rest : scenario.grpc,
        per,
        offset,
      );
      collected[face].cpuMs += emulator.cpuMs() - cpuBefore;
      offset += per;
      collected[face].latencies.push(...latencies);
      collected[face].seconds += seconds;
      collected[face].logged += (await emulator.requests()).length;
    }
  }
  const rest = figures(collected.REST.latencies, collected.REST.seconds, collected.REST.cpuMs);
  const grpcFigures = figures(collected.gRPC.latencies, collected.gRPC.seconds, collected.gRPC.cpuMs);
  return {
    scenario: scenario.name,
    rpc: scenario.rpc,
    rest,
    grpc: grpcFigures,
    cpuRatio: round2(grpcFigures.cpuMsPerCall / rest.cpuMsPerCall),
    rpsRatio: round2(grpcFigures.rps / rest.rps),
    p50Ratio: round2(grpcFigures.p50 / rest.p50),
    loggedPerCall: {
      rest: round2(collected.REST.logged / rest.requests),
      grpc: round2(collected.gRPC.logged / grpcFigures.requests),
    },
  };
}

/**
 * Which calls' answers are decoded and checked, on either face: one in CHECK_EVERY. The others are read whole and
 * left as bytes. Decoding is the client's work, not the emulator's, and it is far from equal: @bufbuild/protobuf
 * decoding 200 groups costs the bench several times what JSON.parse of the same answer does, and on a machine of two
 * cores a busier client measurably raises the emulator's CPU per call (caches and memory shared, and an emulator
 * left idle between calls); decoding every answer had the list's ratio about 0.1 higher.
 */
const CHECK_EVERY = 25;
const checked = (i: number): boolean => i % CHECK_EVERY === 0;

/**
 * A unary gRPC call of `served` on the lane's channel: the request encoded; the answer read whole, and decoded into
 * its message object (as generated code does) when `decode`, else its bytes.
 */
function grpcCall(
  channels: grpc.Client[],
  served: ServedMethod,
  token: string,
): (request: object, lane: number, decode: boolean) => Promise<unknown> {
  const registry = protoRegistry();
  const requestType = messageSchema(served.requestType);
  const responseType = messageSchema(served.responseType);
  return (request, lane, decode) =>
    new Promise((resolve, reject) => {
      const metadata = new grpc.Metadata();
      metadata.set("authorization", `Bearer ${token}`);
      channels[lane]!.makeUnaryRequest<object, unknown>(
        served.path,
        (message) =>
          Buffer.from(toBinary(requestType, fromJson(requestType, message as JsonValue, { registry }))),
        (bytes: Buffer) => bytes,
        request,
        metadata,
        {},
        (error, bytes) =>
          error
            ? reject(new Error(`${served.fullName}: ${error.code} ${error.details}`))
            : resolve(decode ? fromBinary(responseType, bytes as Buffer) : bytes),
      );
    });
}

function rpc(name: string): ServedMethod {
  const served = servedMethods().find((m) => m.fullName === name);
  if (served === undefined) throw new Error(`${name} is not served (emulator/grpc/protos.ts)`);
  return served;
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, "dist", "emulator", "cli.js")) || process.env.BENCH_BUILD !== "0") {
    spawnSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "ignore" });
  }
  const emulator = await startCliEmulator(ROOT);
  const pool = new Pool(emulator.url, { connections: CONCURRENCY, pipelining: 1 });
  // A channel per lane, each on its own connection (grpc-js shares one subchannel between channels otherwise).
  const channels = Array.from(
    { length: CONCURRENCY },
    () =>
      new grpc.Client(new URL(emulator.url).host, grpc.credentials.createInsecure(), {
        "grpc.use_local_subchannel_pool": 1,
      }),
  );
  try {
    const hex16 = (): string => randomBytes(8).toString("hex");
    const folder = `${emulator.orgUid}/${hex16()}`;
    const restParent = `${emulator.orgUid}/${hex16()}`;
    const grpcParent = `${emulator.orgUid}/${hex16()}`;
    const children = Array.from({ length: LIST_SIZE }, (_, i) => ({
      uid: `${folder}/${hex16()}`,
      parent: folder,
      name: `group-${String(i).padStart(3, "0")}`,
    }));
    await emulator.seed({
      groups: [
        { uid: folder, name: "listed" },
        { uid: restParent, name: "rest-creates" },
        { uid: grpcParent, name: "grpc-creates" },
        ...children,
      ],
    });

    const rest = async (
      method: "GET" | "POST",
      path: string,
      decode: boolean,
      body?: unknown,
    ): Promise<unknown> => {
      const response = await pool.request({
        method,
        path,
        headers: {
          authorization: `Bearer ${emulator.token}`,
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.body.text();
      if (response.statusCode !== 200)
        throw new Error(`${method} ${path}: ${response.statusCode} ${text.slice(0, 200)}`);
      return decode ? (JSON.parse(text) as unknown) : text;
    };
    const getGroup = grpcCall(
      channels,
      rpc("chainguard.platform.iam.v2beta1.GroupsService/GetGroup"),
      emulator.token,
    );
    const listGroups = grpcCall(
      channels,
      rpc("chainguard.platform.iam.v2beta1.GroupsService/ListGroups"),
      emulator.token,
    );
    const createGroup = grpcCall(
      channels,
      rpc("chainguard.platform.iam.v2beta1.GroupsService/CreateGroup"),
      emulator.token,
    );
    const pick = (i: number): string => children[(i * 7919) % children.length]!.uid;
    const listed = (i: number, body: unknown, member: string): void => {
      if (!checked(i)) return;
      const n = ((body as Record<string, unknown[]>)[member] ?? []).length;
      if (n !== LIST_SIZE) throw new Error(`a list of ${LIST_SIZE} gave ${n}`);
    };

    const scenarios: Scenario[] = [
      {
        name: "get a group by uid",
        rpc: "GetGroup",
        rest: async (i) => void (await rest("GET", `/iam/v2beta1/groups/${pick(i)}`, checked(i))),
        grpc: async (i, lane) => void (await getGroup({ uid: pick(i) }, lane, checked(i))),
      },
      {
        name: `list ${LIST_SIZE} groups (children_of, page_size ${LIST_SIZE})`,
        rpc: "ListGroups",
        rest: async (i) =>
          listed(
            i,
            await rest(
              "GET",
              `/iam/v2beta1/groups?uidp.children_of=${encodeURIComponent(folder)}&page_size=${LIST_SIZE}`,
              checked(i),
            ),
            "groups",
          ),
        grpc: async (i, lane) =>
          listed(
            i,
            await listGroups({ uidp: { children_of: folder }, page_size: LIST_SIZE }, lane, checked(i)),
            "groups",
          ),
      },
      {
        name: "create a group",
        rpc: "CreateGroup",
        rest: async (i) =>
          void (await rest("POST", `/iam/v2beta1/groups/${restParent}`, checked(i), { name: `made-${i}` })),
        grpc: async (i, lane) =>
          void (await createGroup({ parent: grpcParent, group: { name: `made-${i}` } }, lane, checked(i))),
      },
    ];
    const rows: Row[] = [];
    for (const scenario of scenarios) rows.push(await measure(emulator, scenario));

    const results: GrpcResults = { requests: REQUESTS, concurrency: CONCURRENCY, rounds: ROUNDS, rows };
    process.stdout.write(`${grpcTable(results).join("\n")}\n`);
    mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
    writeFileSync(
      join(ROOT, "bench", "results", "grpc.json"),
      `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...results }, null, 2)}\n`,
    );
    const miscounted = rows.filter((r) => r.loggedPerCall.rest !== 1 || r.loggedPerCall.grpc !== 1);
    if (miscounted.length > 0) {
      process.stderr.write(
        `bench: a call is not one logged API request: ${miscounted.map((r) => `${r.scenario} (REST ${r.loggedPerCall.rest}, gRPC ${r.loggedPerCall.grpc})`).join("; ")}\n`,
      );
      process.exitCode = 1;
    }
  } finally {
    for (const channel of channels) channel.close();
    await pool.close();
    await emulator.stop();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
