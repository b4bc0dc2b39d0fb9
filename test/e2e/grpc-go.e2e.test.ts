/**
 * The gRPC face against grpc-go, the transport the service's own clients use (its Go SDK, its Terraform provider,
 * grpcurl): test/e2e/fixtures/grpc-go-client sends raw messages through grpc-go's HTTP/2 (its framer, its HPACK
 * encoder with Huffman coding and a dynamic table, BDP pings and window updates), and every answer must be the one
 * @grpc/grpc-js gets for the same call (node's nghttp2): the same status, message, response bytes and details.
 * A list answer of over 200 kB crosses grpc-go's first windows; calls run one after another on one connection.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { servedMethods } from "../../emulator/grpc/protos";
import { start, type Api } from "../emulator/helpers";
import { decodeMessage, decodeStatus, encodeMessage, GrpcWire } from "../emulator/grpc-wire";

jest.setTimeout(300_000);

const repoRoot = path.join(__dirname, "..", "..");

interface GoCall {
  method: string;
  request: string;
  authorization: string;
  reflection?: boolean;
}

interface GoAnswer {
  code: number;
  message: string;
  response: string | null;
  details: string | null;
}

let api: Api;
let wire: GrpcWire;
let scratch: string;
let client: string;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), "grpc-go-"));
  client = path.join(scratch, "grpc-go-client");
  const build = spawnSync("go", ["build", "-o", client, "."], {
    cwd: path.join(repoRoot, "test", "e2e", "fixtures", "grpc-go-client"),
    encoding: "utf8",
    timeout: 240_000,
  });
  if (build.status !== 0) throw new Error(`go build: ${build.error?.message ?? build.stderr}`);
  api = await start();
  wire = new GrpcWire(new URL(api.emulator.url).host);
});

afterAll(async () => {
  wire?.close();
  await api?.emulator.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** The calls through grpc-go, on one connection, one after another (a child process: the emulator is this one's). */
function throughGo(calls: GoCall[]): Promise<GoAnswer[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(client, [new URL(api.emulator.url).host], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(JSON.parse(out) as GoAnswer[])
        : reject(new Error(`grpc-go-client: ${code} ${err}`)),
    );
    child.stdin.end(JSON.stringify(calls));
  });
}

const rpc = (name: string) => {
  const method = servedMethods().find((m) => m.fullName.endsWith(`/${name}`));
  if (method === undefined) throw new Error(`${name} is not served`);
  return method;
};

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64");

test("grpc-go gets the answers grpc-js gets: lists past its first windows, errors with details, credentials", async () => {
  const org = api.emulator.orgUid;
  const folder = await api.post(`/iam/v2beta1/groups/${org}`, { name: "grpc-go" });
  expect(folder.status).toBe(200);
  // 200 groups with long descriptions: one page of over 200 kB.
  for (let i = 0; i < 200; i++) {
    const made = await api.post(`/iam/v2beta1/groups/${folder.body.uid}`, {
      name: `group-${i}`,
      description: `${i} `.padEnd(1000, "é-x"),
    });
    expect(made.status).toBe(200);
  }
  const token = api.emulator.token;
  const list = rpc("ListGroups");
  const get = rpc("GetGroup");
  const listRequest = encodeMessage(list.requestType, {
    uidp: { children_of: folder.body.uid },
    page_size: 200,
  });
  const cases: { name: string; method: string; request: Uint8Array; authorization: string }[] = [
    { name: "a list of 200", method: list.path, request: listRequest, authorization: `Bearer ${token}` },
    {
      name: "a get",
      method: get.path,
      request: encodeMessage(get.requestType, { uid: folder.body.uid }),
      authorization: `Bearer ${token}`,
    },
    {
      name: "not found",
      method: get.path,
      request: encodeMessage(get.requestType, { uid: `${org}/0123456789abcdef` }),
      authorization: `Bearer ${token}`,
    },
    { name: "lower-case scheme", method: list.path, request: listRequest, authorization: `bearer ${token}` },
    { name: "a bare token", method: list.path, request: listRequest, authorization: token },
    { name: "no credentials", method: list.path, request: listRequest, authorization: "" },
    {
      name: "malformed message",
      method: get.path,
      request: Buffer.from([0x0a, 0x7f]),
      authorization: `Bearer ${token}`,
    },
    {
      name: "unknown method",
      method: "/chainguard.platform.iam.v2beta1.GroupsService/Nothing",
      request: new Uint8Array(),
      authorization: `Bearer ${token}`,
    },
  ];
  // Each case twice, so the second goes through the dynamic tables both sides keep.
  const calls = [...cases, ...cases];
  const go = await throughGo(
    calls.map((c) => ({ method: c.method, request: b64(c.request), authorization: c.authorization })),
  );
  for (const [i, c] of calls.entries()) {
    const js = await wire.call(c.method, c.request, null, {
      metadata: c.authorization === "" ? {} : { authorization: c.authorization },
    });
    const fromGo = go[i]!;
    expect({ case: c.name, code: fromGo.code, message: fromGo.message }).toEqual({
      case: c.name,
      code: js.code,
      message: js.message,
    });
    if (js.code === 0) expect(Buffer.from(fromGo.response ?? "", "base64").equals(js.response!)).toBe(true);
    else
      expect(
        fromGo.details === null ? undefined : decodeStatus(Buffer.from(fromGo.details, "base64")),
      ).toEqual(js.status);
  }
  // What was compared is what was asked: 200 groups, over 200 kB; the errors are the ones the API gives.
  const listed = Buffer.from(go[0]!.response!, "base64");
  expect(listed.length).toBeGreaterThan(200_000);
  expect((decodeMessage(list.responseType, listed).groups as unknown[]).length).toBe(200);
  expect(go.slice(2, 8).map((a) => a.code)).toEqual([5, 0, 16, 16, 3, 12]);
});

test("grpc-go's reflection stream lists the served services", async () => {
  // ServerReflectionRequest { list_services (7): "*" }, written out: reflection's messages are not the API's.
  const request = Buffer.from([(7 << 3) | 2, 1, "*".charCodeAt(0)]);
  const [answer] = await throughGo([
    {
      method: "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
      request: b64(request),
      authorization: "",
      reflection: true,
    },
  ]);
  expect(answer!.code).toBe(0);
  const listed = Buffer.from(answer!.response!, "base64").toString("latin1");
  for (const service of new Set(servedMethods().map((m) => m.service))) expect(listed).toContain(service);
});
