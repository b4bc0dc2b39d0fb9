/**
 * Property: the gRPC face and the REST face are one service. Random sequences of operations (creates of every IAM
 * kind, updates with masks, lists with filters and paging, gets, deletes, malformed requests, callers without
 * access or without a token, and the same raw `Authorization` values on both faces: a bare token, a lower-case
 * scheme, two spaces, a wrong scheme, the scheme alone) go through REST to one emulator and, transcoded the way grpc-gateway reads the same
 * HTTP request (each RPC's published `(google.api.http)` binding), through gRPC to another emulator started the same
 * way. Each step must give the same object (compared in one normal form: proto3's absent defaults are no
 * difference, a member REST returns that the message has no field for is) or the same error: the gRPC code is the
 * AIP-193 body's `code`, the HTTP status is the one grpc-gateway maps that code to, and `grpc-status-details-bin`
 * decodes (with the project's protos) to the body's message and details.
 *
 * The two emulators share a frozen `Date` (only Date is faked), so their clocks read alike and times compare
 * exactly; the uids, key ids and codes each draws at random are paired through the sequence (HexMap). A request
 * that has no protobuf form (an unknown member, a JSON value of the wrong type, an unknown query parameter) is sent
 * over gRPC as its nearest wire form (an unknown field, a wrong wire type) and only the codes are compared.
 */
import { COLLECTIONS, COLLECTION_NAMES, IAM_COLLECTIONS } from "../../sdk/collections";
import fc from "fast-check";
import type { Kind } from "../../emulator/model";
import { HTTP_STATUS_BY_CODE } from "../../sdk/schemas/common";
import { start, type Api, type WireResponse } from "./helpers";
import {
  canonical,
  decodeMessage,
  encodeMessage,
  GrpcWire,
  HexMap,
  messageType,
  protoBody,
  transcode,
  Untranslatable,
  type GrpcAnswer,
  type HttpRequest,
  type Json,
} from "./grpc-wire";

jest.setTimeout(600_000);

const SEEDS = [20261128, 7, 424242];
const RUNS_PER_SEED = Number(process.env.PARITY_RUNS ?? 25);
const MAX_OPS = 30;
const START = new Date("2030-01-01T00:00:00.000Z");
const SEED_DATA = {
  repos: [{ name: "nginx", tags: [{ name: "latest", digest: "sha256:aa" }] }],
  advisories: [{ advisoryId: "CGA-1111", aliases: ["CVE-2030-1"], artifactName: "nginx" }],
};

// ---------------------------------------------------------------------------------------------------------
// The operations, as data (fast-check prints and shrinks them); "@kind:n" strings are references resolved when
// the step runs: the n-th object of that kind made so far (modulo), or a well-formed uid nobody has.

/** Each kind's REST collection (sdk/collections). */
const COLLECTION: Record<Kind, string> = Object.fromEntries(
  COLLECTION_NAMES.map((c) => [c, COLLECTIONS[c].path]),
) as Record<Kind, string>;
/** The kinds a client writes: the IAM collections (sdk/collections). */
const WRITABLE: Kind[] = IAM_COLLECTIONS;
const UPDATABLE: Kind[] = WRITABLE.filter((k) => k !== "groupInvites");
const ALL: Kind[] = Object.keys(COLLECTION) as Kind[];

/**
 * Who calls, as the raw `Authorization` value both faces receive (the REST header, the gRPC metadata): the owner's
 * token as `Bearer <token>`, another user's, none, and the raw forms a client may get wrong or differently right
 * (RFC 6750: the scheme is case-insensitive and followed by one or more spaces; a bare token or another scheme is
 * no bearer token).
 */
type Caller =
  | "owner"
  | "stranger"
  | "none"
  | "bareToken"
  | "lowerCaseScheme"
  | "twoSpaces"
  | "wrongScheme"
  | "schemeOnly";

const RAW_CALLERS: Caller[] = ["bareToken", "lowerCaseScheme", "twoSpaces", "wrongScheme", "schemeOnly"];

interface Op {
  caller: Caller;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** A collection, then "/@kind:n" or a literal suffix. */
  path: string;
  query: [string, string][];
  body?: Json;
}

const ref = (kind: Kind) => fc.nat(40).map((n) => `@${kind}:${n}`);
const hostileUid = fc.constantFrom(
  "0123456789abcdef0123456789abcdef01234567",
  "0123456789abcdef0123456789abcdef01234567/0123456789abcdef",
  "not-a-uid",
  "ABCDEF",
  "..%2F..",
  "%00",
  "__proto__",
);
const target = (kind: Kind) =>
  fc.oneof({ weight: 12, arbitrary: ref(kind) }, { weight: 1, arbitrary: hostileUid });

const name = fc.oneof(
  { weight: 12, arbitrary: fc.stringMatching(/^[a-z][a-z0-9-]{2,20}$/) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("", "ab", "x".repeat(64), "__proto__", "constructor", "bad name!", "ünï-code"),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 70 }) },
);
const description = fc.option(fc.string({ maxLength: 30 }), { nil: undefined });
/** Output-only members a read-modify-write client echoes back (AIP-203: ignored when well-typed). */
const outputOnly = fc.option(
  fc.constantFrom<Record<string, Json>>(
    { uid: "0123456789abcdef0123456789abcdef01234567" },
    { createTime: "2001-02-03T04:05:06Z" },
    { updateTime: "2001-02-03T04:05:06.123456Z" },
  ),
  { nil: undefined, freq: 2 },
);
/** What a protobuf message cannot carry: an unknown member, a JSON value of the wrong type. */
const malformed = fc.oneof(
  { weight: 8, arbitrary: fc.constant(undefined) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Record<string, Json>>(
      { bogus: 1 },
      { __proto__x: "x" },
      { name: 5 },
      { description: { nested: true } },
      { createTime: 5 },
    ),
  },
);

function body(...parts: (Record<string, Json> | undefined)[]): Json {
  const out: Record<string, Json> = {};
  for (const part of parts) if (part !== undefined) Object.assign(out, part);
  return out;
}

const capability = fc.constantFrom(
  "CAP_IAM_GROUPS_LIST",
  "CAP_IAM_GROUPS_CREATE",
  "CAP_IAM_IDENTITY_LIST",
  "CAP_REPO_LIST",
  "CAP_IAM_ROLE_BINDINGS_LIST",
  "CAP_BOGUS",
);
const claimMatch = fc.oneof(
  fc.record({ issuer: fc.constant("https://issuer.example"), subject: fc.stringMatching(/^[a-z]{1,8}$/) }),
  fc.record({
    issuer: fc.constant("https://token.actions.githubusercontent.com"),
    subjectPattern: fc.constant("repo:acme/.*"),
  }),
  fc.record({ issuerPattern: fc.constant("https://.*"), subject: fc.constant("x") }),
  fc.record({ issuer: fc.constant("https://i"), subjectPattern: fc.constant("(") }),
  fc.constant({}),
);

function createBody(kind: Kind): fc.Arbitrary<Json> {
  const common = fc.tuple(name, description, outputOnly, malformed);
  const base = ([n, d, o, m]: [
    string,
    string | undefined,
    Record<string, Json> | undefined,
    Record<string, Json> | undefined,
  ]) => [{ name: n, ...(d !== undefined ? { description: d } : {}) }, o, m] as const;
  switch (kind) {
    case "groups":
      return common.map((c) => body(...base(c)));
    case "identities":
      return fc.tuple(common, claimMatch).map(([c, cm]) => {
        const [b, o, m] = base(c);
        return body(b, { claimMatch: cm }, o, m);
      });
    case "roles":
      return fc.tuple(common, fc.uniqueArray(capability, { maxLength: 3 })).map(([c, caps]) => {
        const [b, o, m] = base(c);
        return body(b, { capabilities: caps }, o, m);
      });
    case "roleBindings":
      return fc
        .tuple(ref("identities"), ref("roles"), malformed)
        .map(([i, r, m]) => body({ identityUid: i, roleUid: r }, m));
    case "identityProviders":
      return fc.tuple(common, ref("roles"), fc.boolean()).map(([c, r, secret]) => {
        const [b, o, m] = base(c);
        return body(
          b,
          {
            defaultRole: r,
            oidc: {
              issuer: "https://sso.example.com",
              clientId: "cid",
              ...(secret ? { clientSecret: "s3cret" } : {}),
            },
          },
          o,
          m,
        );
      });
    case "groupInvites":
      return fc
        .tuple(ref("roles"), fc.constantFrom("3600s", "86400s", "1h", "0s"), fc.boolean(), malformed)
        .map(([r, ttl, single, m]) => body({ roleUid: r, ttl, ...(single ? { singleUse: true } : {}) }, m));
    case "accountAssociations":
      return fc
        .tuple(name, fc.constantFrom("123456789012", "12"), malformed)
        .map(([n, account, m]) => body({ name: n, amazon: { account } }, m));
    default:
      throw new Error(`no create for ${kind}`);
  }
}

const MASKS = [
  "name",
  "description",
  "*",
  "name,description",
  "bogus",
  "uid",
  "create_time",
  "createTime",
  "claimMatch.issuer",
  "claim_match.subject",
  "capabilities",
  "oidc.clientId",
  "defaultRole",
  "amazon.account",
  "name,bogus",
  "",
];

const update = fc.constantFrom(...UPDATABLE).chain((kind) =>
  fc.record({
    caller: caller(),
    method: fc.constant("PATCH" as const),
    path: target(kind).map((t) => `${COLLECTION[kind]}/${t}`),
    query: fc
      .option(fc.constantFrom(...MASKS), { nil: undefined })
      .map((m): [string, string][] => (m === undefined ? [] : [["updateMask", m]])),
    body: fc
      .tuple(fc.option(name, { nil: undefined }), description, outputOnly, malformed)
      .map(([n, d, o, m]) =>
        body(
          n !== undefined ? { name: n } : undefined,
          d !== undefined ? { description: d } : undefined,
          o,
          m,
        ),
      ),
  }),
);

function caller(): fc.Arbitrary<Caller> {
  return fc.oneof(
    { weight: 20, arbitrary: fc.constant("owner" as const) },
    { weight: 1, arbitrary: fc.constant("stranger" as const) },
    { weight: 1, arbitrary: fc.constant("none" as const) },
    { weight: 3, arbitrary: fc.constantFrom(...RAW_CALLERS) },
  );
}

/** The raw `Authorization` value a caller sends to one side (each side has its own tokens), or none. */
function authorizationOf(caller: Caller, side: Side): string | undefined {
  const owner = side.api.emulator.token;
  switch (caller) {
    case "owner":
      return `Bearer ${owner}`;
    case "stranger":
      return `Bearer ${side.stranger}`;
    case "none":
      return undefined;
    case "bareToken":
      return owner;
    case "lowerCaseScheme":
      return `bearer ${owner}`;
    case "twoSpaces":
      return `Bearer  ${owner}`;
    case "wrongScheme":
      return `Basic ${owner}`;
    case "schemeOnly":
      return "Bearer";
  }
}

const create = fc.constantFrom(...WRITABLE).chain((kind) =>
  fc.record({
    caller: caller(),
    method: fc.constant("POST" as const),
    path:
      kind === "groups"
        ? fc.oneof(
            { weight: 5, arbitrary: target("groups").map((t) => `${COLLECTION.groups}/${t}`) },
            { weight: 1, arbitrary: fc.constant(COLLECTION.groups) },
          )
        : target("groups").map((t) => `${COLLECTION[kind]}/${t}`),
    query: fc.constant([] as [string, string][]),
    body: createBody(kind),
  }),
);

const listParam = fc.oneof(
  ref("groups").map((r): [string, string] => ["uidp.descendants_of", r]),
  ref("groups").map((r): [string, string] => ["uidp.childrenOf", r]),
  ref("groups").map((r): [string, string] => ["uidp.ancestors_of", r]),
  fc.constant<[string, string]>(["uidp.in_root", "true"]),
  name.map((n): [string, string] => ["name", n]),
  fc
    .constantFrom("-1", "0", "1", "2", "3", "201", "abc", "99999999999")
    .map((n): [string, string] => ["page_size", n]),
  fc
    .oneof(
      fc.nat(10).map((n) => `@token:${n}`),
      fc.constant("garbage"),
    )
    .map((t): [string, string] => ["page_token", t]),
  fc.constantFrom("0", "1", "3", "-1").map((n): [string, string] => ["skip", n]),
  fc
    .constantFrom("name", "name desc", "create_time desc", "bogus")
    .map((o): [string, string] => ["order_by", o]),
  fc.constant<[string, string]>(["bogus", "1"]),
);

const list = fc.record({
  caller: caller(),
  method: fc.constant("GET" as const),
  path: fc.constantFrom(...ALL).map((k) => COLLECTION[k]),
  query: fc.uniqueArray(listParam, { maxLength: 4, selector: ([k]) => k }),
});

/** A call on one object of one of `kinds`, without a query. */
const onOne = (kinds: readonly Kind[], method: "GET" | "DELETE") =>
  fc.constantFrom(...kinds).chain((kind) =>
    fc.record({
      caller: caller(),
      method: fc.constant(method),
      path: target(kind).map((t) => `${COLLECTION[kind]}/${t}`),
      query: fc.constant([] as [string, string][]),
    }),
  );

const get = onOne(ALL, "GET");
const del = onOne(WRITABLE, "DELETE");

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: create },
  { weight: 3, arbitrary: update },
  { weight: 3, arbitrary: list },
  { weight: 2, arbitrary: get },
  { weight: 1, arbitrary: del },
);

// ---------------------------------------------------------------------------------------------------------
// Two emulators, one sequence

interface Side {
  api: Api;
  wire?: GrpcWire;
  stranger: string;
}

let rest: Side;
let grpc: Side;

beforeAll(async () => {
  jest.useFakeTimers({
    now: START,
    doNotFake: [
      "hrtime",
      "nextTick",
      "performance",
      "queueMicrotask",
      "requestAnimationFrame",
      "cancelAnimationFrame",
      "requestIdleCallback",
      "cancelIdleCallback",
      "setImmediate",
      "clearImmediate",
      "setInterval",
      "clearInterval",
      "setTimeout",
      "clearTimeout",
    ],
  });
  const options = { clockStart: START, seed: SEED_DATA };
  rest = { api: await start(options), stranger: "" };
  grpc = { api: await start(options), stranger: "" };
  grpc.wire = new GrpcWire(new URL(grpc.api.emulator.url).host);
});

afterAll(async () => {
  grpc?.wire?.close();
  await rest?.api.emulator.close();
  await grpc?.api.emulator.close();
  jest.useRealTimers();
});

/** Objects made so far (A's uids), per kind; the built-in viewer role is there from the start. */
interface State {
  objects: Record<Kind, string[]>;
  pageTokens: { a: string; b: string }[];
  hex: HexMap;
}

function resolve(text: string, state: State): string {
  return text.replace(/@(\w+):(\d+)/g, (_m, kind: string, n: string) => {
    if (kind === "token") {
      const token = state.pageTokens[Number(n) % Math.max(1, state.pageTokens.length)];
      return token?.a ?? "garbage";
    }
    const objects = state.objects[kind as Kind] ?? [];
    return objects.length === 0
      ? "0123456789abcdef0123456789abcdef0123456f"
      : objects[Number(n) % objects.length]!;
  });
}

function resolveJson(value: Json | undefined, state: State): Json | undefined {
  if (typeof value === "string") return resolve(value, state);
  if (Array.isArray(value)) return value.map((v) => resolveJson(v, state) as Json);
  if (value !== null && typeof value === "object") {
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, {
        value: resolveJson(v, state),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return value;
}

function pathOf(op: Op, state: State): string {
  // References are uids with their slashes; hostile ones stay as written (already percent-encoded where meant).
  return resolve(op.path, state);
}

function lowerCamelPath(path: string): string {
  return path.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

function restUrlPath(http: HttpRequest): string {
  const query = new URLSearchParams(http.query).toString();
  return query === "" ? http.path : `${http.path}?${query}`;
}

/** The protobuf field of the request message the HTTP body fills: for a wrong wire type when the body has no form. */
function bodyFieldNumber(http: HttpRequest): number | undefined {
  try {
    const t = transcode({ ...http, query: [], body: undefined });
    const binding = t.served.http[0]!;
    const type = messageType(t.served.requestType);
    return type.fieldsArray.find((f) => f.name === binding.body)?.id;
  } catch {
    return undefined;
  }
}

/** An unknown field (number 1000, varint 1) or a varint where a message is due: what a JSON body that no message carries becomes. */
function nearestWireForm(
  http: HttpRequest,
  reason: string,
): { path: string; rpc: string; bytes: Uint8Array } | undefined {
  let base;
  try {
    base = transcode({ ...http, query: [], body: undefined });
  } catch {
    return undefined;
  }
  const encoded = Buffer.from(encodeMessage(base.served.requestType, base.request));
  const fieldNumber = bodyFieldNumber(http);
  const suffix =
    /no such field/.test(reason) || fieldNumber === undefined
      ? Buffer.from([0xc0, 0x3e, 0x01]) // field 1000, wire type 0, value 1
      : Buffer.from([(fieldNumber << 3) | 0, 0x05]); // a varint where a message is due
  return { path: base.served.path, rpc: base.served.fullName, bytes: Buffer.concat([encoded, suffix]) };
}

interface Step {
  op: Op;
  http: HttpRequest;
  restAnswer: WireResponse;
  grpcAnswer?: GrpcAnswer;
  rpc?: string;
  translatable: boolean;
}

function describeStep(step: Step, hex: HexMap): string {
  const grpcSide = step.grpcAnswer;
  return JSON.stringify(
    {
      caller: step.op.caller,
      request: `${step.http.method} ${restUrlPath(step.http)}`,
      body: step.http.body,
      rpc: step.rpc ?? "(none)",
      translatable: step.translatable,
      rest: {
        status: step.restAnswer.status,
        body: step.restAnswer.body ?? step.restAnswer.text.slice(0, 300),
      },
      grpc:
        grpcSide === undefined
          ? "(not sent)"
          : {
              code: grpcSide.code,
              message: hex.toA(grpcSide.message),
              status: hex.toA(grpcSide.status),
              statusDetailsError: grpcSide.statusDetailsError,
            },
    },
    null,
    2,
  );
}

/** Adds what a successful REST step made to the state. */
function record(step: Step, state: State): void {
  const { op, restAnswer } = step;
  if (op.method !== "POST" || restAnswer.status !== 200) return;
  const kind = (Object.keys(COLLECTION) as Kind[]).find(
    (k) => step.http.path.startsWith(`${COLLECTION[k]}/`) || step.http.path === COLLECTION[k],
  );
  if (kind === undefined) return;
  if (kind === "accountAssociations") {
    state.objects.accountAssociations.push(
      decodeURIComponent(step.http.path.slice(COLLECTION.accountAssociations.length + 1)),
    );
  } else if (typeof restAnswer.body?.uid === "string") state.objects[kind].push(restAnswer.body.uid);
}

const TOKEN_FIELDS = new Set(["next_page_token"]);

/** Compares one step; returns the difference, or undefined when the two faces agree. */
function compare(step: Step, state: State): string | undefined {
  const { restAnswer, grpcAnswer } = step;
  if (grpcAnswer === undefined) return "no gRPC call was made for a request REST answered";
  const hex = state.hex;
  if (restAnswer.status >= 200 && restAnswer.status < 300) {
    if (!step.translatable) return "REST accepted a request that has no protobuf form";
    if (grpcAnswer.code !== 0) return `REST ${restAnswer.status}, gRPC code ${grpcAnswer.code}`;
    const served = transcode(step.http).served;
    const restCanon = canonical(served.responseType, restAnswer.body ?? {}, "json");
    if (restCanon.lost.length > 0) return `REST members gRPC has no field for: ${restCanon.lost.join(", ")}`;
    const grpcCanon = canonical(
      served.responseType,
      decodeMessage(served.responseType, grpcAnswer.response ?? Buffer.alloc(0)),
      "proto",
    );
    const a = restCanon.value as Record<string, Json>;
    const b = grpcCanon.value as Record<string, Json>;
    for (const field of TOKEN_FIELDS) {
      const ta = a[field];
      const tb = b[field];
      if ((ta === undefined) !== (tb === undefined))
        return `${field}: REST ${String(ta)}, gRPC ${String(tb)}`;
      if (typeof ta === "string" && typeof tb === "string") state.pageTokens.push({ a: ta, b: tb });
      delete a[field];
      delete b[field];
    }
    hex.learn(a, b);
    const translated = hex.toA(b);
    if (JSON.stringify(translated) !== JSON.stringify(a))
      return `objects differ:\nREST ${JSON.stringify(a)}\ngRPC ${JSON.stringify(translated)}`;
    return undefined;
  }
  const body = restAnswer.body as { code?: number; message?: string; details?: Json[] } | undefined;
  if (body === undefined || typeof body.code !== "number")
    return `REST ${restAnswer.status} without an AIP-193 body`;
  // A request with no protobuf form is sent as a malformed message: the face may refuse it as malformed before
  // the check REST failed it on (grpc-gateway would too: it decodes before it calls), never accept it.
  const codeAgrees =
    grpcAnswer.code === body.code || (!step.translatable && grpcAnswer.code === 3); /* INVALID_ARGUMENT */
  if (!codeAgrees)
    return `codes differ: REST ${body.code} (HTTP ${restAnswer.status}), gRPC ${grpcAnswer.code}`;
  if (restAnswer.status !== HTTP_STATUS_BY_CODE[body.code])
    return `HTTP ${restAnswer.status} is not grpc-gateway's status for code ${body.code}`;
  if (!step.translatable) return undefined;
  if (grpcAnswer.status === undefined)
    return `gRPC error without a decodable grpc-status-details-bin (${grpcAnswer.statusDetailsError ?? "absent"})`;
  hex.learn(body.message ?? "", grpcAnswer.status.message);
  hex.learn(body.details ?? [], grpcAnswer.status.details);
  const grpcStatus = hex.toA(grpcAnswer.status);
  if (grpcStatus.code !== body.code)
    return `grpc-status-details-bin code ${grpcStatus.code}, REST ${body.code}`;
  if (grpcStatus.message !== body.message)
    return `messages differ: REST ${body.message}, gRPC status ${grpcStatus.message}`;
  if (hex.toA(grpcAnswer.message) !== body.message)
    return `grpc-message ${grpcAnswer.message}, REST ${body.message}`;
  const restDetails = JSON.stringify(normaliseDetails(body.details ?? []));
  const grpcDetails = JSON.stringify(normaliseDetails(grpcStatus.details));
  if (restDetails !== grpcDetails) return `details differ:\nREST ${restDetails}\ngRPC ${grpcDetails}`;
  return undefined;
}

/** Each detail in the normal form of its message type (a REST detail with a member its type lacks stays visible). */
function normaliseDetails(details: Json[]): Json[] {
  return details.map((detail) => {
    const d = detail as Record<string, Json>;
    const typeUrl = String(d["@type"] ?? "");
    const { ["@type"]: _drop, ...rest } = d;
    void _drop;
    const c = canonical(typeUrl.slice(typeUrl.lastIndexOf("/") + 1), rest, "json");
    return { "@type": typeUrl, ...(c.value as object), ...(c.lost.length > 0 ? { lost: c.lost } : {}) };
  });
}

async function runStep(op: Op, state: State): Promise<Step> {
  jest.setSystemTime(new Date(Date.now() + 1000));
  const resolved = resolveJson(op.body, state);
  const http: HttpRequest = {
    method: op.method,
    path: pathOf(op, state),
    // Parameters in their proto3 JSON spelling (`page_size` → `pageSize`): a refusal names a parameter as it was
    // sent, and a gRPC request has no spelling but the field's.
    // An update mask's paths too, as proto3 JSON writes a FieldMask.
    query: op.query.map(([k, v]) => {
      const key = lowerCamelPath(k);
      return [key, key === "updateMask" ? lowerCamelPath(v) : resolve(v, state)];
    }),
    ...(resolved !== undefined ? { body: resolved } : {}),
  };
  // REST gets the body a gateway would hand the service: the message's proto3 JSON (where it has one), so an
  // empty string is "not sent" on both faces; a body with no protobuf form goes as written.
  try {
    const normal = protoBody(http);
    if (normal !== undefined) http.body = normal;
  } catch (e) {
    if (!(e instanceof Untranslatable)) throw e;
  }
  const body = http.body;
  // The same raw header on both faces: REST's Authorization, gRPC's `authorization` metadata.
  const headers = (side: Side): Record<string, string> => {
    const authorization = authorizationOf(op.caller, side);
    return authorization === undefined ? {} : { authorization };
  };
  const restAnswer = await rest.api.call(op.method, restUrlPath(http), {
    token: null,
    headers: headers(rest),
    ...(body !== undefined ? { body } : {}),
  });
  // The same request in B's uids, with B's page tokens.
  const httpB: HttpRequest = {
    method: http.method,
    path: state.hex.toB(http.path),
    query: http.query.map(([k, v]) => [
      k,
      k === "page_token" || k === "pageToken"
        ? (state.pageTokens.find((t) => t.a === v)?.b ?? v)
        : state.hex.toB(v),
    ]),
    ...(http.body !== undefined ? { body: state.hex.toB(http.body) } : {}),
  };
  const step: Step = { op, http, restAnswer, translatable: true };
  let path: string;
  let bytes: Uint8Array;
  try {
    const t = transcode(httpB);
    path = t.served.path;
    step.rpc = t.served.fullName;
    bytes = encodeMessage(t.served.requestType, t.request);
  } catch (e) {
    if (!(e instanceof Untranslatable)) throw e;
    step.translatable = false;
    const nearest = nearestWireForm(httpB, e.message);
    if (nearest === undefined) {
      // No RPC has this HTTP binding at all: only a request the REST face refuses too may lack one.
      step.rpc = `(none: ${e.message})`;
      return step;
    }
    path = nearest.path;
    bytes = nearest.bytes;
    step.rpc = `${nearest.rpc} (nearest wire form: ${e.message})`;
  }
  step.grpcAnswer = await grpc.wire!.call(path, bytes, null, { metadata: headers(grpc) });
  return step;
}

async function freshState(): Promise<State> {
  rest.api.emulator.reset();
  grpc.api.emulator.reset();
  rest.stranger = rest.api.emulator.createUser("stranger").token;
  grpc.stranger = grpc.api.emulator.createUser("stranger").token;
  const hex = new HexMap();
  hex.pair(rest.api.emulator.orgUid, grpc.api.emulator.orgUid);
  hex.pair(rest.api.emulator.userUid, grpc.api.emulator.userUid);
  const viewer = (await rest.api.get("/iam/v2beta1/roles?name=viewer")).body.roles[0].uid as string;
  const objects = Object.fromEntries(ALL.map((k) => [k, [] as string[]])) as Record<Kind, string[]>;
  objects.groups.push(rest.api.emulator.orgUid);
  objects.roles.push(viewer);
  // The seeded read-only objects, paired by name.
  for (const kind of ["repos", "tags", "advisories"] as const) {
    const a = (await rest.api.get(COLLECTION[kind])).body;
    const b = (await grpc.api.get(COLLECTION[kind])).body;
    hex.learn(a, b);
    for (const item of Object.values(a).find(Array.isArray) as { uid: string }[])
      objects[kind].push(item.uid);
  }
  return { objects, pageTokens: [], hex };
}

interface Tally {
  steps: number;
  errors: number;
  untranslatable: number;
  byRpc: Map<string, number>;
}

const tally: Tally = { steps: 0, errors: 0, untranslatable: 0, byRpc: new Map() };

describe("gRPC and REST faces agree step by step", () => {
  test.each(SEEDS)("seed %i", async (seed) => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: MAX_OPS, size: "max" }), async (ops) => {
        const state = await freshState();
        for (const [i, o] of ops.entries()) {
          const step = await runStep(o, state);
          tally.steps++;
          if (step.restAnswer.status >= 300) tally.errors++;
          if (!step.translatable) tally.untranslatable++;
          if (step.rpc !== undefined && !step.rpc.startsWith("("))
            tally.byRpc.set(step.rpc.split(" ")[0]!, (tally.byRpc.get(step.rpc.split(" ")[0]!) ?? 0) + 1);
          const difference = compare(step, state);
          if (difference !== undefined || state.hex.conflicts.length > 0) {
            throw new Error(
              `step ${i + 1} of ${ops.length}: ${difference ?? `uid pairs conflict: ${state.hex.conflicts.join("; ")}`}\n${describeStep(step, state.hex)}`,
            );
          }
          record(step, state);
        }
      }),
      { seed, numRuns: RUNS_PER_SEED, endOnFailure: true },
    );
  });

  afterAll(() => {
    // What the runs covered, for the record (the assertions are above).
    const rpcs = [...tally.byRpc.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
    console.log(
      `parity: ${tally.steps} steps (${tally.errors} refused, ${tally.untranslatable} with no protobuf form), seeds ${SEEDS.join(", ")}, ${RUNS_PER_SEED} runs each\n` +
        rpcs.map(([rpc, n]) => `  ${rpc}: ${n}`).join("\n"),
    );
  });
});
