/**
 * The gRPC face's answer encoder in process: µs per encode of a 200-group ListGroupsResponse, the REST answer's JSON
 * as the emulator builds it (emulator/routes/groups.ts `toWire`, emulator/routes/crud-list.ts), written to wire
 * bytes by emulator/grpc/json.ts, against `JSON.stringify` of the same JSON (what the REST face does with it).
 * Issue 49 wants the gRPC face's CPU per call within 1.1x of REST's; this isolates the one step the faces do not
 * share. The bytes are checked against @bufbuild/protobuf's `toBinary(fromJson(json))` before timing. Two cases:
 * the same answer again (the emulator lists the same stored objects, whose Timestamps the encoder has read
 * before), and every Timestamp new (setting them is timed on both sides).
 *
 *   TS_NODE_TRANSPILE_ONLY=1 npx ts-node bench/grpc-encode.ts
 *
 * Env: BENCH_ENCODE_ITERATIONS (500 per round), BENCH_ENCODE_ROUNDS (25), BENCH_ENCODE_GROUPS (200).
 * Fixed seed; the two take turns each round. Each figure is the best round (the least disturbed by other work on
 * the machine), the median beside it.
 */
import { fromJson, toBinary, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { messageCodec } from "../emulator/grpc/json";
import { protoRegistry } from "../emulator/grpc/protos";
import { seededRandom } from "../emulator/faults";

const ITERATIONS = Number(process.env.BENCH_ENCODE_ITERATIONS ?? 500);
const ROUNDS = Number(process.env.BENCH_ENCODE_ROUNDS ?? 25);
const GROUPS = Number(process.env.BENCH_ENCODE_GROUPS ?? 200);
const TYPE = "chainguard.platform.iam.v2beta1.ListGroupsResponse";

/** One page of a folder's groups, as the REST face answers `GET /iam/v2beta1/groups?uidp.children_of=`. */
function listAnswer(random: () => number): JsonObject {
  const hex = (length: number) =>
    Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join("");
  const folder = `${hex(40)}/${hex(16)}`;
  const start = Date.UTC(2026, 10, 28, 9, 0, 0);
  const groups: JsonObject[] = [];
  for (let i = 0; i < GROUPS; i++) {
    const created = start + Math.floor(random() * 86_400_000);
    const updated = random() < 0.5 ? created : created + Math.floor(random() * 3_600_000);
    const description = random() < 0.3 ? "" : `the ${hex(6)} team's group for deploys and audits #${i}`;
    // One text for both times until the group changes, as the store keeps them (emulator/service.ts insert).
    const createTime = new Date(created).toISOString();
    // The key order toWire gives: its defaults first, then the stored object's members.
    groups.push({
      resourceLimits: {},
      verified: false,
      description,
      uid: `${folder}/${hex(16)}`,
      name: `group-${String(i).padStart(5, "0")}`,
      createTime,
      updateTime: updated === created ? createTime : new Date(updated).toISOString(),
    });
  }
  return { groups, totalCount: String(GROUPS), skipped: 0 };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * The process's CPU µs per call of `run` over ITERATIONS calls (CPU, not wall time: the machine is shared, and CPU
 * per call is what issue 49 measures); the result is kept so the work is not optimized away.
 */
function time(run: () => { length: number }): number {
  let sink = 0;
  const began = process.cpuUsage();
  for (let i = 0; i < ITERATIONS; i++) sink += run().length;
  const used = process.cpuUsage(began);
  if (sink < 0) console.log(sink);
  return (used.user + used.system) / ITERATIONS;
}

/** Per call, each group's times set to texts not met before (prebuilt: their making is not timed). */
function freshTimes(json: JsonObject): () => void {
  const groups = json.groups as JsonObject[];
  const texts: string[] = [];
  for (let call = 0; call < ITERATIONS; call++)
    for (const group of groups) {
      const shift = (call + 1) * 86_400_000;
      const createTime = new Date(Date.parse(group.createTime as string) + shift).toISOString();
      texts.push(createTime);
      texts.push(
        group.updateTime === group.createTime
          ? createTime
          : new Date(Date.parse(group.updateTime as string) + shift).toISOString(),
      );
    }
  let at = 0;
  return () => {
    if (at === texts.length) at = 0;
    for (const group of groups) {
      group.createTime = texts[at++]!;
      group.updateTime = texts[at++]!;
    }
  };
}

interface Figures {
  encode: number[];
  stringify: number[];
}

/** One round of each, taking turns; `before` runs before every call of both (and is timed with it). */
function round(figures: Figures, encode: () => Uint8Array, json: JsonValue, before: () => void): void {
  figures.stringify.push(
    time(() => {
      before();
      return JSON.stringify(json);
    }),
  );
  figures.encode.push(
    time(() => {
      before();
      return encode();
    }),
  );
}

function report(label: string, figures: Figures): void {
  const best = { encode: Math.min(...figures.encode), stringify: Math.min(...figures.stringify) };
  const typical = { encode: median(figures.encode), stringify: median(figures.stringify) };
  console.log(`  ${label}`);
  const row = (name: string, key: keyof typeof best) =>
    console.log(`    ${name.padEnd(16)}${best[key].toFixed(1).padStart(7)} µs  (${typical[key].toFixed(1)})`);
  row("encode", "encode");
  row("JSON.stringify", "stringify");
  console.log(
    `    ratio           ${(best.encode / best.stringify).toFixed(2).padStart(7)}x   ` +
      `(${(typical.encode / typical.stringify).toFixed(2)}x)`,
  );
}

function main(): void {
  const registry = protoRegistry();
  const schema = registry.getMessage(TYPE)!;
  const codec = messageCodec(registry, TYPE);
  const json = listAnswer(seededRandom(20261129));
  const expected = Buffer.from(toBinary(schema, fromJson(schema, json)));
  if (!expected.equals(codec.encode(json)))
    throw new Error("the encoder's bytes differ from toBinary(fromJson)");

  const encode = () => codec.encode(json);
  const nothing = () => undefined;
  const again: Figures = { encode: [], stringify: [] };
  const first: Figures = { encode: [], stringify: [] };
  const retime = freshTimes(json);
  round({ encode: [], stringify: [] }, encode, json, nothing); // warm-up, so the first round is not the JIT's
  round({ encode: [], stringify: [] }, encode, json, retime);
  for (let r = 0; r < ROUNDS; r++) {
    round(again, encode, json, nothing);
    round(first, encode, json, retime);
  }
  console.log(
    `${TYPE}, ${GROUPS} groups (${expected.length} bytes protobuf, ${JSON.stringify(json).length} bytes JSON), ` +
      `${ROUNDS} rounds of ${ITERATIONS}, node ${process.version}; CPU µs per call, best round (median)`,
  );
  report("listed again (the same stored objects, as a list is read again and again)", again);
  report("first listing (every Timestamp's text new)", first);
}

main();
