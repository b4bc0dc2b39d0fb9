/**
 * The gRPC face's mechanism: one port for both faces, each kind of call once, errors with their AIP-193 details,
 * what a gRPC client expects of a server (UNIMPLEMENTED, UNAUTHENTICATED, deadlines, size limits, reflection),
 * faults, the request log. The cross-face property test and the hostile-input test live in their own files.
 */
import * as grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { create, createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import {
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
  type DescriptorProto,
  type FileDescriptorProto,
} from "@bufbuild/protobuf/wkt";
import { protoRegistry, servedMethods } from "../../emulator/grpc/protos";
import { bindMethods } from "../../emulator/grpc/transcode";
import { messageCodec } from "../../emulator/grpc/json";
import { loadProtoRoot } from "./proto-sources";
import { routeTable } from "../../emulator/routes/table";
import type { Control } from "../../emulator/routes/control";
import { BODY_LIMIT_BYTES } from "../../emulator/server";
import { grpcClient, type GrpcClient, type GrpcResult } from "./grpc-client";
import { start, type Api, startInOrg } from "./helpers";

const IAM = "chainguard.platform.iam.v2beta1";
const GROUPS = `${IAM}.GroupsService`;

let api: Api;
let rpc: GrpcClient;
let org: string;

beforeAll(async () => {
  ({ api, org } = await startInOrg());
  rpc = grpcClient(api.emulator.url, api.emulator.token);
});
afterAll(async () => {
  rpc.close();
  await api.emulator.close();
});
afterEach(() => api.emulator.faults.clear());

function ok(result: GrpcResult) {
  if (!result.ok) throw new Error(`expected OK, got ${result.code}: ${result.details}`);
  return result.value;
}

/** A raw connection: what it receives until the server closes it or `ms` pass. */
async function rawExchange(chunks: Buffer[], ms = 1000): Promise<Buffer> {
  const { port } = new URL(api.emulator.url);
  const socket: Socket = connect(Number(port), "127.0.0.1");
  const received: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => received.push(chunk));
  await new Promise((resolve) => socket.once("connect", resolve));
  for (const chunk of chunks) {
    socket.write(chunk);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => {
    socket.once("close", resolve);
    setTimeout(resolve, ms);
  });
  socket.destroy();
  return Buffer.concat(received);
}

describe("one port", () => {
  test("REST and gRPC calls interleaved on the one address get the same answers", async () => {
    const calls = Array.from({ length: 6 }, (_, i) =>
      i % 2 === 0
        ? api.get(`/iam/v2beta1/groups/${org}`).then((r) => r.body.name)
        : rpc.call(`${GROUPS}/GetGroup`, { uid: org }).then((r) => ok(r).name),
    );
    expect(await Promise.all(calls)).toEqual(Array(6).fill("demo-org"));
  });

  test("a preface split across writes is still gRPC: the server answers with HTTP/2 SETTINGS", async () => {
    const preface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
    const settings = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]); // an empty SETTINGS frame
    const answer = await rawExchange([preface.subarray(0, 5), preface.subarray(5), settings], 500);
    expect(answer.length).toBeGreaterThanOrEqual(9);
    expect(answer[3]).toBe(4); // the first frame the server sends is its SETTINGS
    expect(answer.toString("latin1")).not.toContain("HTTP/1.1");
  });

  test("a client that resets its connection before or amid the preface leaves the emulator answering", async () => {
    const { port } = new URL(api.emulator.url);
    for (const first of ["", "PRI * HT", "GET /"]) {
      const socket = connect(Number(port), "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      if (first !== "") socket.write(first);
      await new Promise((resolve) => setTimeout(resolve, 30));
      socket.resetAndDestroy(); // RST: the server's read fails with ECONNRESET
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await api.get("/_emulator/health", null)).status).toBe(200);
    expect(ok(await rpc.call(`${GROUPS}/GetGroup`, { uid: org })).name).toBe("demo-org");
  });

  test("HTTP/1 garbage, and a preface that turns into something else, still get the REST face's 400", async () => {
    for (const bytes of ["GARBAGE\r\n\r\n", "PRI * HTTP/2.1\r\n\r\n", "PRI"]) {
      const answer = (await rawExchange([Buffer.from(bytes, "latin1")], 300)).toString("latin1");
      if (bytes === "PRI") {
        // Three bytes agree with the preface: the connection waits for more, then the client's close decides.
        expect(answer).toBe("");
        continue;
      }
      expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)).code).toBe(3);
    }
    expect((await api.get(`/iam/v2beta1/groups/${org}`)).status).toBe(200);
  });
});

describe("each kind of call", () => {
  test("create, get, list with paging, update with a mask, delete", async () => {
    const created = await Promise.all(
      ["page-a", "page-b", "page-c"].map(async (name) =>
        ok(await rpc.call(`${GROUPS}/CreateGroup`, { parent: org, group: { name, description: "d" } })),
      ),
    );
    expect(created.map((g) => g.uid)).toEqual(
      created.map(() => expect.stringMatching(`^${org}/[0-9a-f]{16}$`)),
    );
    // Timestamps arrive as google.protobuf.Timestamp, equal to the REST face's RFC 3339 text.
    const rest = (await api.get(`/iam/v2beta1/groups/${created[0].uid}`)).body;
    const got = ok(await rpc.call(`${GROUPS}/GetGroup`, { uid: created[0].uid }));
    expect(got).toEqual(
      expect.objectContaining({
        uid: rest.uid,
        name: "page-a",
        description: "d",
        createTime: expect.anything(),
      }),
    );
    const millis = Number(got.createTime.seconds) * 1000 + got.createTime.nanos / 1e6;
    expect(new Date(millis).toISOString()).toBe(rest.createTime);

    const first = ok(await rpc.call(`${GROUPS}/ListGroups`, { uidp: { childrenOf: org }, pageSize: 2 }));
    expect(first.groups).toHaveLength(2);
    expect(first.nextPageToken).toEqual(expect.any(String));
    const second = ok(
      await rpc.call(`${GROUPS}/ListGroups`, {
        uidp: { childrenOf: org },
        pageSize: 2,
        pageToken: first.nextPageToken,
      }),
    );
    const names = [...first.groups, ...second.groups].map((g: { name: string }) => g.name).sort();
    expect(names).toEqual(["page-a", "page-b", "page-c"]);

    // Only the masked field changes: the name sent beside it is ignored, as over REST.
    const updated = ok(
      await rpc.call(`${GROUPS}/UpdateGroup`, {
        group: { uid: created[0].uid, name: "ignored", description: "new" },
        updateMask: { paths: ["description"] },
      }),
    );
    expect([updated.name, updated.description]).toEqual(["page-a", "new"]);
    expect(api.emulator.requestLog().at(-1)).toEqual(
      expect.objectContaining({
        method: "PATCH",
        query: { updateMask: "description" },
        rpc: `${GROUPS}/UpdateGroup`,
      }),
    );

    for (const group of created)
      expect(ok(await rpc.call(`${GROUPS}/DeleteGroup`, { uid: group.uid }))).toEqual({});
    expect((await api.get(`/iam/v2beta1/groups/${created[1].uid}`)).status).toBe(404);
  });

  test("token exchange: the workload's ID token in `authorization`, a token the REST face accepts", async () => {
    const ownerRole = (await api.get("/iam/v2beta1/roles?name=owner")).body.roles[0].uid;
    const identity = (
      await api.post(`/iam/v2beta1/identities/${org}`, {
        name: "grpc-workload",
        claimMatch: { issuer: `${api.emulator.url}/oidc`, subject: "grpc-ci" },
      })
    ).body.uid;
    await api.post(`/iam/v2beta1/roleBindings/${org}`, { identityUid: identity, roleUid: ownerRole });
    const idToken = await api.emulator.mintIdToken({ subject: "grpc-ci" });
    const exchanged = ok(
      await rpc.call(
        "chainguard.platform.oidc.SecurityTokenService/Exchange",
        { aud: [api.emulator.url], identity },
        { token: idToken },
      ),
    );
    expect(exchanged.token).toEqual(expect.any(String));
    // chainguard.dev/sdk's sts.Exchange sends `Bearer <ID token>`; a bare one is refused, as over REST.
    const bare = await rpc.call(
      "chainguard.platform.oidc.SecurityTokenService/Exchange",
      { aud: [api.emulator.url], identity },
      { token: null, metadata: { authorization: idToken } },
    );
    expect(bare.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(Number(exchanged.expiry.seconds) * 1000).toBeGreaterThan(api.emulator.clock.now().getTime());
    expect((await api.get(`/iam/v2beta1/groups/${org}`, exchanged.token)).status).toBe(200);
    // The API token is no ID token: the exchange refuses it as the REST face does.
    const refused = await rpc.call("chainguard.platform.oidc.SecurityTokenService/Exchange", {
      aud: [api.emulator.url],
      identity,
    });
    expect(refused.code).toBe(
      (
        await api.call(
          "GET",
          `/sts/exchange?aud=${encodeURIComponent(api.emulator.url)}&identity=${identity}`,
        )
      ).body.code,
    );
  });
});

/** The google.rpc.Status in a status's trailer, decoded with protobuf.js (not the face's own codec). */
function statusDetails(result: GrpcResult): unknown {
  if (result.ok) throw new Error("expected an error status");
  const [bytes] = result.metadata.get("grpc-status-details-bin");
  const root = loadProtoRoot();
  const status = root.lookupType("google.rpc.Status").decode(bytes as Buffer) as unknown as {
    code: number;
    message: string;
    details: { type_url: string; value: Uint8Array }[];
  };
  const camel = (object: unknown): unknown =>
    Array.isArray(object)
      ? object.map(camel)
      : object !== null && typeof object === "object"
        ? Object.fromEntries(
            Object.entries(object).map(([k, v]) => [
              k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
              camel(v),
            ]),
          )
        : object;
  return {
    code: status.code,
    message: status.message,
    details: status.details.map((any) => {
      const type = root.lookupType(any.type_url.split("/")[1]!);
      const fields = camel(type.toObject(type.decode(any.value), { longs: Number })) as Record<
        string,
        unknown
      >;
      // google.rpc.RetryInfo's Duration in its proto3 JSON form ("0s"), as the REST body writes it (a zero
      // Duration is an empty message on the wire).
      if (type.name === "RetryInfo") {
        const { seconds = 0, nanos = 0 } = (fields.retryDelay ?? {}) as { seconds?: number; nanos?: number };
        fields.retryDelay = `${seconds + nanos / 1e9}s`;
      }
      return { "@type": any.type_url, ...fields };
    }),
  };
}

describe("errors as the real service sends them", () => {
  test("the status and its grpc-status-details-bin equal the REST face's AIP-193 body", async () => {
    const cases: { rpc: string; request: object; method: string; path: string; body?: object }[] = [
      {
        rpc: `${GROUPS}/CreateGroup`,
        request: { parent: org, group: { name: "Bad Name!" } },
        method: "POST",
        path: `/iam/v2beta1/groups/${org}`,
        body: { name: "Bad Name!" },
      },
      {
        rpc: `${GROUPS}/GetGroup`,
        request: { uid: `${org}/0123456789abcdef` },
        method: "GET",
        path: `/iam/v2beta1/groups/${org}/0123456789abcdef`,
      },
      {
        rpc: `${GROUPS}/UpdateGroup`,
        request: { group: { uid: org }, updateMask: { paths: ["nosuch"] } },
        method: "PATCH",
        path: `/iam/v2beta1/groups/${org}?updateMask=nosuch`,
        body: { uid: org },
      },
    ];
    for (const c of cases) {
      const rest = await api.call(c.method, c.path, c.body !== undefined ? { body: c.body } : {});
      const result = await rpc.call(c.rpc, c.request);
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect([result.code, result.details]).toEqual([rest.body.code, rest.body.message]);
      expect(statusDetails(result)).toEqual(rest.body);
    }
  });

  test("`authorization` is read as over REST: RFC 6750's Bearer scheme, any case; a bare token is refused", async () => {
    const get = (authorization: string) =>
      rpc.call(`${GROUPS}/GetGroup`, { uid: org }, { token: null, metadata: { authorization } });
    const token = api.emulator.token;
    for (const accepted of [`Bearer ${token}`, `bearer ${token}`, `BEARER  ${token}`])
      expect(ok(await get(accepted)).name).toBe("demo-org");
    for (const refused of [token, "Bearer", `Basic ${token}`, `Bearer ${token} extra`]) {
      const answer = await get(refused);
      expect(answer.code).toBe(grpc.status.UNAUTHENTICATED);
      const rest = await api.call("GET", `/iam/v2beta1/groups/${org}`, {
        token: null,
        headers: { authorization: refused },
      });
      expect([rest.status, rest.body.code]).toEqual([401, answer.code]);
    }
  });

  test("no token is UNAUTHENTICATED; an unknown method UNIMPLEMENTED", async () => {
    const anonymous = await rpc.call(`${GROUPS}/ListGroups`, {}, { token: null });
    expect(anonymous.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(statusDetails(anonymous)).toEqual((await api.get("/iam/v2beta1/groups", null)).body);
    const client = new grpc.Client(new URL(api.emulator.url).host, grpc.credentials.createInsecure());
    const code = await new Promise<number>((resolve) =>
      client.makeUnaryRequest(
        `/${GROUPS}/NoSuchMethod`,
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.alloc(0),
        (error) => resolve(error?.code ?? 0),
      ),
    );
    client.close();
    expect(code).toBe(grpc.status.UNIMPLEMENTED);
    // In the request log as what it is on the wire, at the HTTP status grpc-gateway maps UNIMPLEMENTED to.
    expect(api.emulator.requestLog().at(-1)).toEqual(
      expect.objectContaining({
        method: "POST",
        path: `/${GROUPS}/NoSuchMethod`,
        rpc: `${GROUPS}/NoSuchMethod`,
        status: 501,
      }),
    );
  });

  test("a malformed message is INVALID_ARGUMENT, an oversized one RESOURCE_EXHAUSTED; the emulator answers on", async () => {
    const client = new grpc.Client(new URL(api.emulator.url).host, grpc.credentials.createInsecure());
    const raw = (bytes: Buffer) =>
      new Promise<grpc.ServiceError | null>((resolve) => {
        const metadata = new grpc.Metadata();
        metadata.set("authorization", `Bearer ${api.emulator.token}`);
        client.makeUnaryRequest(
          `/${GROUPS}/GetGroup`,
          (b: Buffer) => b,
          (b: Buffer) => b,
          bytes,
          metadata,
          (error) => resolve(error),
        );
      });
    // Field 1 (uid) as a length-delimited string claiming 100 bytes, with 1 present.
    expect((await raw(Buffer.from([0x0a, 100, 0x41])))?.code).toBe(grpc.status.INVALID_ARGUMENT);
    // Field 15, which GetGroupRequest lacks: refused, never dropped silently.
    const unknown = await raw(Buffer.from([0x78, 0x01]));
    expect([unknown?.code, unknown?.details]).toEqual([
      grpc.status.INVALID_ARGUMENT,
      expect.stringContaining("#15"),
    ]);
    expect((await raw(Buffer.alloc(BODY_LIMIT_BYTES + 1, 0)))?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    client.close();
    // Logged as what they are on the wire: a POST of the method's gRPC path (the oversized one too, at the HTTP
    // status grpc-gateway maps RESOURCE_EXHAUSTED to).
    const wire = { method: "POST", path: `/${GROUPS}/GetGroup`, rpc: `${GROUPS}/GetGroup` };
    expect(api.emulator.requestLog().slice(-2)).toEqual([
      expect.objectContaining({ ...wire, status: 400 }),
      expect.objectContaining({ ...wire, status: 429 }),
    ]);
    expect(ok(await rpc.call(`${GROUPS}/GetGroup`, { uid: org })).name).toBe("demo-org");
  });
});

describe("faults", () => {
  test("a status fault: 503 is UNAVAILABLE, 429 RESOURCE_EXHAUSTED, with the REST body's details", async () => {
    api.emulator.faults.add({ path: "^/iam/v2beta1/groups$", action: "status", status: 503, times: 1 });
    const unavailable = await rpc.call(`${GROUPS}/ListGroups`, {});
    expect(unavailable.code).toBe(grpc.status.UNAVAILABLE);
    api.emulator.faults.add({ path: "^/iam/v2beta1/groups$", action: "status", status: 429, times: 1 });
    expect((await rpc.call(`${GROUPS}/ListGroups`, {})).code).toBe(grpc.status.RESOURCE_EXHAUSTED);
  });

  test("the retry hint: RetryInfo in the status details, as REST's body carries it beside Retry-After", async () => {
    for (const status of [503, 429]) {
      api.emulator.faults.add({ path: "^/iam/v2beta1/groups$", action: "status", status, times: 2 });
      const answer = await rpc.call(`${GROUPS}/ListGroups`, {});
      const rest = await api.get("/iam/v2beta1/groups");
      expect(rest.headers.get("retry-after")).toBe("0");
      expect(rest.body.details).toContainEqual({
        "@type": "type.googleapis.com/google.rpc.RetryInfo",
        retryDelay: "0s",
      });
      expect(statusDetails(answer)).toEqual(rest.body);
    }
    // No hint where a repeat cannot help.
    const refused = await rpc.call(`${GROUPS}/GetGroup`, { uid: org }, { token: null });
    expect(JSON.stringify(statusDetails(refused))).not.toContain("RetryInfo");
  });

  test("a rule keyed by RPC name fires for that RPC only, never for its REST twin", async () => {
    api.emulator.faults.add({ rpc: "GroupsService/ListGroups$", action: "status", status: 503, times: 2 });
    expect((await api.get("/iam/v2beta1/groups")).status).toBe(200);
    expect((await rpc.call(`${GROUPS}/GetGroup`, { uid: org })).code).toBe(grpc.status.OK);
    expect((await rpc.call(`${GROUPS}/ListGroups`, {})).code).toBe(grpc.status.UNAVAILABLE);
    // A path rule still matches the RPC through its route.
    api.emulator.faults.clear();
    api.emulator.faults.add({
      path: "^/iam/v2beta1/groups$",
      rpc: "GetGroup",
      action: "status",
      status: 503,
    });
    expect((await rpc.call(`${GROUPS}/ListGroups`, {})).code).toBe(grpc.status.OK);
    expect(() => api.emulator.faults.add({ rpc: "(", action: "drop" })).toThrow(/rpc/);
  });

  test("drop resets the call's stream unapplied; applyThenDrop applies first; the connection lives on", async () => {
    api.emulator.faults.add({ method: "POST", action: "drop", times: 1 });
    const dropped = await rpc.call(`${GROUPS}/CreateGroup`, { parent: org, group: { name: "dropped" } });
    expect([dropped.code, dropped.ok ? "" : dropped.details]).toEqual([
      grpc.status.INTERNAL,
      expect.stringContaining("RST_STREAM"),
    ]);
    api.emulator.faults.add({ method: "POST", action: "applyThenDrop", times: 1 });
    const applied = await rpc.call(`${GROUPS}/CreateGroup`, { parent: org, group: { name: "applied" } });
    expect(applied.code).toBe(grpc.status.INTERNAL);
    const names = async (name: string) => ok(await rpc.call(`${GROUPS}/ListGroups`, { name })).groups ?? [];
    expect(await names("dropped")).toHaveLength(0);
    expect(await names("applied")).toHaveLength(1);
  });

  test("a stall past the client's deadline is DEADLINE_EXCEEDED, unapplied, and the emulator goes on", async () => {
    api.emulator.faults.add({ method: "POST", action: "stall", stallMs: 600, times: 1 });
    const late = await rpc.call(
      `${GROUPS}/CreateGroup`,
      { parent: org, group: { name: "late" } },
      { deadlineMs: 150 },
    );
    expect(late.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(ok(await rpc.call(`${GROUPS}/ListGroups`, { name: "late" })).groups ?? []).toHaveLength(0);
  });
});

describe("reflection", () => {
  const reflectionProto = (version: string) =>
    join(require.resolve("@grpc/reflection"), `../../proto/grpc/reflection/${version}/reflection.proto`);

  for (const version of ["v1", "v1alpha"]) {
    test(`${version} lists every served service and describes their files`, async () => {
      const pkg = grpc.loadPackageDefinition(loadSync(reflectionProto(version), { keepCase: true }));
      const Reflection = `grpc.reflection.${version}.ServerReflection`
        .split(".")
        .reduce<unknown>(
          (at, name) => (at as Record<string, unknown>)[name],
          pkg,
        ) as grpc.ServiceClientConstructor;
      const client = new Reflection(new URL(api.emulator.url).host, grpc.credentials.createInsecure());
      const ask = (request: object) =>
        new Promise<Record<string, unknown>>((resolve, reject) => {
          const stream = (
            client as unknown as {
              ServerReflectionInfo(): grpc.ClientDuplexStream<object, Record<string, unknown>>;
            }
          ).ServerReflectionInfo();
          stream.on("data", (response) => {
            resolve(response);
            stream.end();
          });
          stream.on("error", reject);
          stream.write(request);
        });
      const listed = (await ask({ list_services: "" })).list_services_response as {
        service: { name: string }[];
      };
      const names = listed.service.map((s) => s.name);
      for (const service of new Set(servedMethods().map((m) => m.service))) expect(names).toContain(service);
      // Each service's files, as a strict reader (grpcurl's) needs them: every name resolved within the file's
      // declared dependencies, reserved ranges with an exclusive end, map entries named as protoc names them.
      for (const service of new Set(servedMethods().map((m) => m.service))) {
        const answer = (await ask({ file_containing_symbol: service })).file_descriptor_response as {
          file_descriptor_proto: Buffer[];
        };
        const files = new Map(
          answer.file_descriptor_proto
            .map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes))
            .map((file) => [file.name, file]),
        );
        const own = [...files.values()].find((file) =>
          file.service.some((s) => service.endsWith(`.${s.name}`)),
        );
        // Read as a strict reader does: each file after the files it declares as dependencies, every name
        // resolved within them (createFileRegistry's own resolver orders a diamond of imports wrongly).
        const ordered: FileDescriptorProto[] = [];
        const visit = (file: FileDescriptorProto): void => {
          if (ordered.includes(file)) return;
          for (const name of file.dependency) visit(files.get(name)!);
          ordered.push(file);
        };
        visit(own!);
        expect(() => createFileRegistry(create(FileDescriptorSetSchema, { file: ordered }))).not.toThrow();
        const messages = (list: DescriptorProto[]): DescriptorProto[] =>
          list.flatMap((m) => [m, ...messages(m.nestedType)]);
        for (const message of [...files.values()].flatMap((file) => messages(file.messageType))) {
          for (const range of message.reservedRange) expect(range.end).toBeGreaterThan(range.start);
          for (const entry of message.nestedType.filter((n) => n.options?.mapEntry === true))
            expect(entry.name).toMatch(/^[A-Z][A-Za-z0-9]*Entry$/);
        }
      }
      // The fields keep the .proto's own names (grpcurl shows and accepts these).
      const answer = (await ask({ file_containing_symbol: `${IAM}.UpdateGroupRequest` }))
        .file_descriptor_response as { file_descriptor_proto: Buffer[] };
      const request = answer.file_descriptor_proto
        .flatMap((bytes) => fromBinary(FileDescriptorProtoSchema, bytes).messageType)
        .find((m) => m.name === "UpdateGroupRequest");
      expect(request?.field.map((f) => f.name)).toEqual(["group", "update_mask"]);
      client.close();
    });
  }
});

test("every served method is bound at start-up to the route of the table its http rule names", () => {
  const bindings = bindMethods(servedMethods(), routeTable({} as Control));
  expect(bindings.map((b) => b.method.fullName)).toEqual(servedMethods().map((m) => m.fullName));
  for (const face of bindings) {
    const method = face.method;
    expect(face.line).toBe(
      `${method.http[0]!.method} ${method.http[0]!.pathTemplate.replace(/\{[^}]+\}/, "{uid}")}`,
    );
    // Path variables filled with a uid: the rule's path is a route's, with the uid as the route's {uid}.
    const uid = `${"a".repeat(40)}/0123456789abcdef`;
    const request = Object.fromEntries(
      [...method.http[0]!.pathTemplate.matchAll(/\{([^}=.]+)(?:\.([^}=]+))?/g)].map(([, field, inner]) => [
        field!.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
        inner === undefined ? uid : { [inner]: uid },
      ]),
    );
    const call = face.toRest(request);
    expect([method.fullName, call.method, call.path.replace(uid, "{uid}")]).toEqual([
      method.fullName,
      method.http[0]!.method,
      method.http[0]!.pathTemplate.replace(/\{[^}]+\}/, "{uid}"),
    ]);
    if (method.http[0]!.pathTemplate.includes("{")) expect(call.uid).toBe(uid);
  }
  // `**` matches no segment: CreateGroup with no parent is bound to the organization's create route, and only it;
  // an empty GetGroup uid is the {uid} route's empty uid, as REST reads GET /iam/v2beta1/groups/.
  const byRpc = new Map(bindings.map((b) => [b.method.method, b]));
  const organization = byRpc.get("CreateGroup")!.toRest({ group: { name: "org" } });
  expect([organization.route.url, organization.path, organization.uid]).toEqual([
    "/iam/v2beta1/groups",
    "/iam/v2beta1/groups",
    "",
  ]);
  const emptyGet = byRpc.get("GetGroup")!.toRest({});
  expect([emptyGet.route.url, emptyGet.path, emptyGet.uid]).toEqual([
    "/iam/v2beta1/groups/*",
    "/iam/v2beta1/groups/",
    "",
  ]);
});

test("closing the emulator ends its gRPC connections: close resolves, the client's next call is UNAVAILABLE", async () => {
  const other = await start();
  const client = grpcClient(other.emulator.url, other.emulator.token);
  expect(ok(await client.call(`${GROUPS}/GetGroup`, { uid: other.emulator.orgUid })).name).toBe("demo-org");
  const began = Date.now();
  await other.emulator.close();
  expect(Date.now() - began).toBeLessThan(2000);
  expect(
    (await client.call(`${GROUPS}/GetGroup`, { uid: other.emulator.orgUid }, { deadlineMs: 2000 })).code,
  ).toBe(grpc.status.UNAVAILABLE);
  client.close();
});

test("every v2beta1 list answer of the REST face fits its response message whole (nothing left out over gRPC)", async () => {
  // The face leaves out members a response message lacks (the v1 lists' createdAt); v2beta1 has none to leave.
  const viewer = (await api.get("/iam/v2beta1/roles?name=viewer")).body.roles[0].uid;
  await api.post(`/iam/v2beta1/groups/${org}`, { name: "fits", description: "d" });
  await api.post(`/iam/v2beta1/identities/${org}`, {
    name: "wl",
    claimMatch: { issuer: "https://x", subject: "y" },
  });
  await api.post(`/iam/v2beta1/roles/${org}`, { name: "fits", capabilities: ["CAP_IAM_GROUPS_LIST"] });
  await api.post(`/iam/v2beta1/groupInvites/${org}`, { roleUid: viewer });
  api.emulator.seed({
    repos: [{ name: "nginx", tags: [{ name: "latest", digest: `sha256:${"a".repeat(64)}` }] }],
  });
  const registry = protoRegistry();
  const lists = servedMethods().filter(
    (m) =>
      m.service.includes(".v2beta1.") && m.http[0]!.method === "GET" && !/[{:]/.test(m.http[0]!.pathTemplate),
  );
  expect(lists.length).toBeGreaterThanOrEqual(10);
  for (const method of lists) {
    const answer = (await api.get(method.http[0]!.pathTemplate)).body;
    let refusal = "";
    try {
      messageCodec(registry, method.responseType).encode(answer);
    } catch (error) {
      refusal = (error as Error).message;
    }
    expect([method.fullName, refusal]).toEqual([method.fullName, ""]);
  }
});
