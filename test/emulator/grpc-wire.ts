/**
 * Wire-level helpers for the tests of the emulator's gRPC face, written as a client of the service would be: the
 * project's own .proto files (emulator/grpc/protos.ts), @grpc/grpc-js over an insecure channel, raw message bytes.
 *
 * - `GrpcWire`: unary calls by :path with encoded bytes; an error's `grpc-status-details-bin` decoded as
 *   google.rpc.Status with its typed details in the proto3 JSON form (`{"@type": ..., ...}`).
 * - `transcode`: an HTTP request of the REST face → the RPC and the request message grpc-gateway would build from
 *   it, following each RPC's published `(google.api.http)` binding; a request that has no such message (an unknown
 *   member, a JSON value of the wrong type) says why.
 * - `canonical`: a message (proto3 JSON from REST, or decoded bytes from gRPC) in one normal form, so proto3's
 *   absent defaults are not differences; a REST member the message type has no field for is reported as lost.
 * - `HexMap`: the uids, key ids and codes each emulator draws at random, paired through a sequence.
 */
import * as grpc from "@grpc/grpc-js";
import * as protobuf from "protobufjs";
import { servedMethods, type ServedMethod } from "../../emulator/grpc/protos";
import { loadProtoRoot, PROTO_OBJECT } from "./proto-sources";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function protoRoot(): protobuf.Root {
  return loadProtoRoot();
}

export function messageType(name: string): protobuf.Type {
  return protoRoot().lookupType(name.replace(/^\./, ""));
}

/** "claim_match" → "claimMatch" (proto3 JSON names). */
export function jsonName(field: protobuf.Field): string {
  const explicit = (field.options as Record<string, unknown> | undefined)?.json_name;
  if (typeof explicit === "string") return explicit;
  return field.name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

function fieldByName(type: protobuf.Type, key: string): protobuf.Field | undefined {
  // Own fields only: a key is data from the request, never a way into the type's prototype.
  for (const field of type.fieldsArray) if (field.name === key || jsonName(field) === key) return field;
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Calls

export interface GrpcAnswer {
  /** The gRPC status code (0 on success). */
  code: number;
  /** grpc-message. */
  message: string;
  /** The response bytes on success. */
  response?: Buffer;
  /** The decoded `grpc-status-details-bin`, when the trailer was sent. */
  status?: { code: number; message: string; details: Json[] };
  /** The trailer's raw presence, and whether it decoded. */
  statusDetailsError?: string;
  metadata?: grpc.Metadata;
}

export class GrpcWire {
  readonly client: grpc.Client;

  constructor(readonly address: string) {
    this.client = new grpc.Client(address, grpc.credentials.createInsecure(), {
      "grpc.max_receive_message_length": 64 * 1024 * 1024,
      "grpc.max_send_message_length": 64 * 1024 * 1024,
    });
  }

  /** One unary call: the request's bytes as given, the answer's bytes as received. */
  call(
    path: string,
    request: Uint8Array,
    token: string | null,
    options: { deadlineMs?: number; metadata?: Record<string, string> } = {},
  ): Promise<GrpcAnswer> {
    const metadata = new grpc.Metadata();
    if (token !== null) metadata.set("authorization", `Bearer ${token}`);
    for (const [key, value] of Object.entries(options.metadata ?? {})) metadata.set(key, value);
    const callOptions: grpc.CallOptions = {
      deadline: Date.now() + (options.deadlineMs ?? 20_000),
    };
    return new Promise((resolve) => {
      this.client.makeUnaryRequest<Buffer, Buffer>(
        path,
        (b) => b,
        (b) => b,
        Buffer.from(request),
        metadata,
        callOptions,
        (error, response) => {
          if (error === null || error === undefined) {
            resolve({ code: 0, message: "", ...(response !== undefined ? { response } : {}) });
            return;
          }
          const answer: GrpcAnswer = {
            code: error.code,
            message: error.details,
            metadata: error.metadata,
          };
          const bin = error.metadata?.get("grpc-status-details-bin") ?? [];
          if (bin.length > 0) {
            try {
              answer.status = decodeStatus(Buffer.from(bin[0] as Buffer));
            } catch (e) {
              answer.statusDetailsError = (e as Error).message;
            }
          }
          resolve(answer);
        },
      );
    });
  }

  close(): void {
    this.client.close();
  }
}

/** grpc-status-details-bin → google.rpc.Status in JSON form, each Any as `{"@type", ...fields}`. */
export function decodeStatus(bytes: Uint8Array): { code: number; message: string; details: Json[] } {
  const Status = messageType("google.rpc.Status");
  const decoded = Status.toObject(Status.decode(bytes), { longs: String, enums: String, bytes: String }) as {
    code?: number;
    message?: string;
    details?: { type_url?: string; value?: string }[];
  };
  return {
    code: decoded.code ?? 0,
    message: decoded.message ?? "",
    details: (decoded.details ?? []).map((any) => {
      const typeUrl = any.type_url ?? "";
      const type = messageType(typeUrl.slice(typeUrl.lastIndexOf("/") + 1));
      const value = type.decode(Buffer.from(any.value ?? "", "base64"));
      return { "@type": typeUrl, ...(toJson(type, type.toObject(value, PROTO_OBJECT)) as object) };
    }),
  };
}

export function decodeMessage(typeName: string, bytes: Uint8Array): Record<string, unknown> {
  const type = messageType(typeName);
  return type.toObject(type.decode(bytes), PROTO_OBJECT);
}

export function encodeMessage(typeName: string, object: Record<string, unknown>): Uint8Array {
  const type = messageType(typeName);
  return type.encode(type.fromObject(object)).finish();
}

// ---------------------------------------------------------------------------------------------------------
// proto3 JSON ↔ protobuf.js objects (snake_case keys, as loadProtoRoot keeps them)

/** A request that has no protobuf form: the path and the rule it breaks. */
export class Untranslatable extends Error {}

const TIMESTAMP = ".google.protobuf.Timestamp";
const DURATION = ".google.protobuf.Duration";
const FIELD_MASK = ".google.protobuf.FieldMask";
const EMPTY = ".google.protobuf.Empty";
const INT64 = new Set(["int64", "uint64", "sint64", "fixed64", "sfixed64"]);
const INT32 = new Set(["int32", "uint32", "sint32", "fixed32", "sfixed32"]);

/** RFC 3339 → {seconds, nanos}; Untranslatable when it is not one. */
export function parseTimestamp(text: string, path: string): { seconds: string; nanos: number } {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i.exec(text);
  const ms = m === null ? NaN : Date.parse(`${m[1]}${m[3]}`);
  if (m === null || !Number.isFinite(ms)) throw new Untranslatable(`${path}: not an RFC 3339 timestamp`);
  return { seconds: String(Math.floor(ms / 1000)), nanos: Number((m[2] ?? "").padEnd(9, "0")) };
}

export function formatTimestamp(value: { seconds?: string | number; nanos?: number }): string {
  const seconds = Number(value.seconds ?? 0);
  const nanos = value.nanos ?? 0;
  const base = new Date(seconds * 1000).toISOString().replace(/\.000Z$/, "");
  if (nanos === 0) return `${base}Z`;
  let fraction = String(nanos).padStart(9, "0");
  while (fraction.endsWith("000")) fraction = fraction.slice(0, -3);
  return `${base}.${fraction}Z`;
}

function parseDuration(text: string, path: string): { seconds: string; nanos: number } {
  const m = /^(-?)(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (m === null) throw new Untranslatable(`${path}: not a Duration`);
  const sign = m[1] === "-" ? -1 : 1;
  return { seconds: String(sign * Number(m[2])), nanos: sign * Number((m[3] ?? "").padEnd(9, "0")) };
}

/** proto3 JSON of one field's value → its protobuf.js object form. */
function fieldFromJson(field: protobuf.Field, value: Json, path: string): unknown {
  if (field.map) {
    if (value === null || typeof value !== "object" || Array.isArray(value))
      throw new Untranslatable(`${path}: not an object`);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, {
        value: singleFromJson(field, v, `${path}.${k}`),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  if (field.repeated) {
    if (!Array.isArray(value)) throw new Untranslatable(`${path}: not an array`);
    return value.map((v, i) => singleFromJson(field, v, `${path}[${i}]`));
  }
  return singleFromJson(field, value, path);
}

function singleFromJson(field: protobuf.Field, value: Json, path: string): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Enum) {
    if (typeof value === "string" && Object.hasOwn(resolved.values, value)) return value;
    if (typeof value === "number" && Number.isInteger(value)) return value;
    throw new Untranslatable(`${path}: not a value of ${resolved.name}`);
  }
  if (resolved instanceof protobuf.Type) {
    switch (resolved.fullName) {
      case TIMESTAMP:
        if (typeof value !== "string") throw new Untranslatable(`${path}: a Timestamp is a string`);
        return parseTimestamp(value, path);
      case DURATION:
        if (typeof value !== "string") throw new Untranslatable(`${path}: a Duration is a string`);
        return parseDuration(value, path);
      case FIELD_MASK:
        if (typeof value !== "string") throw new Untranslatable(`${path}: a FieldMask is a string`);
        return { paths: value === "" ? [] : value.split(",").map(snakePath) };
      default:
        return messageFromJson(resolved, value, path);
    }
  }
  switch (field.type) {
    case "string":
      if (typeof value !== "string") throw new Untranslatable(`${path}: not a string`);
      return value;
    case "bool":
      if (typeof value !== "boolean") throw new Untranslatable(`${path}: not a boolean`);
      return value;
    case "bytes":
      if (typeof value !== "string") throw new Untranslatable(`${path}: not base64`);
      return value;
    case "double":
    case "float":
      if (typeof value !== "number") throw new Untranslatable(`${path}: not a number`);
      return value;
    default: {
      const text = typeof value === "number" ? String(value) : typeof value === "string" ? value : "";
      if (!/^-?\d+$/.test(text)) throw new Untranslatable(`${path}: not an integer`);
      if (INT32.has(field.type)) {
        const n = Number(text);
        const unsigned = field.type.startsWith("u") || field.type === "fixed32";
        if (n > (unsigned ? 4294967295 : 2147483647) || n < (unsigned ? 0 : -2147483648))
          throw new Untranslatable(`${path}: out of range`);
        return n;
      }
      return text;
    }
  }
}

/** "claimMatch.subjectPattern" → "claim_match.subject_pattern". */
export function snakePath(path: string): string {
  return path.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export function messageFromJson(type: protobuf.Type, value: Json, path = ""): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new Untranslatable(`${path || "body"}: not an object`);
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    const at = path === "" ? key : `${path}.${key}`;
    const field = fieldByName(type, key);
    if (field === undefined) throw new Untranslatable(`${at}: no such field`);
    if (member === null) continue;
    field.resolve();
    Object.defineProperty(out, field.name, {
      value: fieldFromJson(field, member, at),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** A protobuf.js object (snake_case, PROTO_OBJECT conversion) → proto3 JSON. */
export function toJson(type: protobuf.Type, object: unknown): Json {
  const value = (object ?? {}) as Record<string, unknown>;
  const out: Record<string, Json> = {};
  for (const field of type.fieldsArray) {
    if (!Object.hasOwn(value, field.name)) continue;
    field.resolve();
    out[jsonName(field)] = fieldToJson(field, value[field.name]);
  }
  return out;
}

function fieldToJson(field: protobuf.Field, value: unknown): Json {
  if (field.map) {
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(value as object)) out[k] = singleToJson(field, v);
    return out;
  }
  if (field.repeated) return (value as unknown[]).map((v) => singleToJson(field, v));
  return singleToJson(field, value);
}

function singleToJson(field: protobuf.Field, value: unknown): Json {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) {
    switch (resolved.fullName) {
      case TIMESTAMP:
        return formatTimestamp(value as { seconds?: string; nanos?: number });
      case DURATION: {
        const d = value as { seconds?: string; nanos?: number };
        const nanos = d.nanos ?? 0;
        return `${d.seconds ?? "0"}${nanos === 0 ? "" : `.${String(Math.abs(nanos)).padStart(9, "0")}`}s`;
      }
      case FIELD_MASK:
        return ((value as { paths?: string[] }).paths ?? [])
          .map((p) => p.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()))
          .join(",");
      default:
        return toJson(resolved, value);
    }
  }
  return value as Json;
}

// ---------------------------------------------------------------------------------------------------------
// One normal form for comparing a REST object with a gRPC one

export interface Canonical {
  value: Json;
  /** Members of the REST JSON that the message type has no field for (what gRPC would lose). */
  lost: string[];
}

/**
 * A message in one normal form: keys are field names, a value equal to its proto3 default (and not a field with
 * presence) is absent, timestamps are RFC 3339 with the digits they carry, enums by name, int64 as strings.
 * `value` is proto3 JSON (from REST) or a protobuf.js object decoded with PROTO_OBJECT (from gRPC).
 */
export function canonical(typeName: string, value: unknown, from: "json" | "proto"): Canonical {
  const lost: string[] = [];
  const out = canonicalMessage(messageType(typeName), value, from, "", lost);
  return { value: out, lost };
}

function canonicalMessage(
  type: protobuf.Type,
  value: unknown,
  from: "json" | "proto",
  path: string,
  lost: string[],
): Json {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    lost.push(`${path || "body"} (not an object: ${JSON.stringify(value)})`);
    return null;
  }
  const out: Record<string, Json> = {};
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    const at = path === "" ? key : `${path}.${key}`;
    const field = fieldByName(type, key);
    if (field === undefined) {
      lost.push(at);
      continue;
    }
    field.resolve();
    const c = canonicalField(field, member, from, at, lost);
    if (c !== undefined) out[field.name] = c;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function hasPresence(field: protobuf.Field): boolean {
  return (
    field.partOf !== null ||
    (field.options as Record<string, unknown> | undefined)?.proto3_optional === true ||
    (field.resolvedType instanceof protobuf.Type && !field.repeated && !field.map)
  );
}

function canonicalField(
  field: protobuf.Field,
  value: unknown,
  from: "json" | "proto",
  path: string,
  lost: string[],
): Json | undefined {
  if (value === null || value === undefined) return undefined;
  if (field.map) {
    if (typeof value !== "object" || Array.isArray(value)) {
      lost.push(`${path} (not a map)`);
      return undefined;
    }
    const entries = Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => [k, canonicalSingle(field, v, from, `${path}.${k}`, lost)] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return entries.length === 0 ? undefined : Object.fromEntries(entries.map(([k, v]) => [k, v ?? null]));
  }
  if (field.repeated) {
    if (!Array.isArray(value)) {
      lost.push(`${path} (not a list)`);
      return undefined;
    }
    const items = value.map((v, i) => canonicalSingle(field, v, from, `${path}[${i}]`, lost) ?? null);
    return items.length === 0 ? undefined : items;
  }
  const single = canonicalSingle(field, value, from, path, lost);
  if (single === undefined) return undefined;
  if (!hasPresence(field) && isDefault(single)) return undefined;
  return single;
}

function isDefault(value: Json): boolean {
  return value === "" || value === 0 || value === "0" || value === false || value === "@default";
}

function canonicalSingle(
  field: protobuf.Field,
  value: unknown,
  from: "json" | "proto",
  path: string,
  lost: string[],
): Json | undefined {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Enum) {
    const name =
      typeof value === "number"
        ? resolved.valuesById[value]
        : typeof value === "string" && Object.hasOwn(resolved.values, value)
          ? value
          : undefined;
    if (name === undefined) {
      lost.push(`${path} (${JSON.stringify(value)} is no ${resolved.name})`);
      return undefined;
    }
    return resolved.values[name] === 0 ? "@default" : name;
  }
  if (resolved instanceof protobuf.Type) {
    switch (resolved.fullName) {
      case TIMESTAMP:
        if (from === "json") {
          if (typeof value !== "string") {
            lost.push(`${path} (not a timestamp)`);
            return undefined;
          }
          try {
            return formatTimestamp(parseTimestamp(value, path));
          } catch {
            lost.push(`${path} (not a timestamp: ${value})`);
            return undefined;
          }
        }
        return formatTimestamp(value as { seconds?: string; nanos?: number });
      case DURATION:
        if (from === "json") return typeof value === "string" ? value : JSON.stringify(value);
        return singleToJson(field, value);
      case FIELD_MASK:
        return from === "json" ? String(value) : singleToJson(field, value);
      case EMPTY:
        return {};
      default:
        return canonicalMessage(resolved, value, from, path, lost);
    }
  }
  switch (field.type) {
    case "string":
    case "bytes":
    case "bool":
      return value as Json;
    case "double":
    case "float":
      return Number(value);
    default:
      return INT64.has(field.type) ? String(value) : Number(value);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Random hex each emulator draws (uids, key ids, invite codes), paired through a sequence

const HEX_RUN = /[0-9a-f]{16,}/g;

export class HexMap {
  private readonly aToB = new Map<string, string>();
  private readonly bToA = new Map<string, string>();
  readonly conflicts: string[] = [];

  /** Pairs every hex run of `a` with the one at the same place in `b` when the rest of the strings agree. */
  learnStrings(a: string, b: string): void {
    const runsA = a.match(HEX_RUN) ?? [];
    const runsB = b.match(HEX_RUN) ?? [];
    if (runsA.length !== runsB.length || a.replace(HEX_RUN, "#") !== b.replace(HEX_RUN, "#")) return;
    runsA.forEach((run, i) => this.pair(run, runsB[i]!));
  }

  pair(a: string, b: string): void {
    if (a.length !== b.length) return;
    const knownB = this.aToB.get(a);
    const knownA = this.bToA.get(b);
    if (knownB === undefined && knownA === undefined) {
      this.aToB.set(a, b);
      this.bToA.set(b, a);
    } else if (knownB !== b || knownA !== a) {
      this.conflicts.push(`${a} ↔ ${b} (already ${a} ↔ ${knownB ?? "?"}, ${knownA ?? "?"} ↔ ${b})`);
    }
  }

  /** Walks two values of the same shape and learns the pairs of their strings. */
  learn(a: unknown, b: unknown): void {
    if (typeof a === "string" && typeof b === "string") this.learnStrings(a, b);
    else if (Array.isArray(a) && Array.isArray(b)) a.forEach((v, i) => this.learn(v, b[i]));
    else if (a !== null && b !== null && typeof a === "object" && typeof b === "object") {
      for (const key of Object.keys(a))
        if (Object.hasOwn(b, key)) this.learn(a[key as never], b[key as never]);
    }
  }

  /** `value` (a string, or any JSON) with every hex run of B's that is paired replaced by A's. */
  toA<T>(value: T): T {
    return this.translate(value, this.bToA);
  }

  toB<T>(value: T): T {
    return this.translate(value, this.aToB);
  }

  private translate<T>(value: T, map: Map<string, string>): T {
    if (typeof value === "string") return value.replace(HEX_RUN, (run) => map.get(run) ?? run) as T;
    if (Array.isArray(value)) return value.map((v) => this.translate(v, map)) as T;
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value))
        Object.defineProperty(out, this.translate(k, map), {
          value: this.translate(v, map),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return out as T;
    }
    return value;
  }
}

// ---------------------------------------------------------------------------------------------------------
// HTTP request → the RPC and its request message (grpc-gateway's direction)

export interface HttpRequest {
  method: string;
  /** The path as sent, percent-encoded. */
  path: string;
  query: [string, string][];
  body?: Json;
}

export interface Transcoded {
  served: ServedMethod;
  /** protobuf.js object form (snake_case keys). */
  request: Record<string, unknown>;
}

interface Compiled {
  served: ServedMethod;
  method: string;
  regex: RegExp;
  variables: string[];
  literal: number;
  body: string;
}

let compiled: Compiled[] | undefined;

/** `{uid=**}` → one or more segments; `{x}` / `{x=*}` one; a leading `/{parent=**}` may match nothing. */
function compile(): Compiled[] {
  if (compiled !== undefined) return compiled;
  const out: Compiled[] = [];
  for (const served of servedMethods()) {
    for (const binding of served.http) {
      const variables: string[] = [];
      let literal = 0;
      let source = "";
      const parts = binding.pathTemplate.split(/(\/?\{[^}]+\})/);
      for (const part of parts) {
        const v = /^(\/?)\{([^}=]+)(?:=([^}]*))?\}$/.exec(part);
        if (v === null) {
          literal += part.length;
          source += part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
          continue;
        }
        variables.push(v[2]!);
        const multi = v[3] !== undefined && v[3].includes("**");
        const segment = multi ? "(.+)" : "([^/]+)";
        source += v[1] === "/" ? (multi ? `(?:/${segment})?` : `/${segment}`) : segment;
      }
      out.push({
        served,
        method: binding.method,
        regex: new RegExp(`^${source}$`),
        variables,
        literal,
        body: binding.body,
      });
    }
  }
  // Most literal first: GET /iam/v2beta1/groups is ListGroups before GetGroup with an empty uid.
  out.sort((a, b) => b.literal - a.literal || a.variables.length - b.variables.length);
  compiled = out;
  return out;
}

/** Every method with its HTTP binding, for the tests that need the REST twin of an RPC. */
export function restTwin(served: ServedMethod): { method: string; pathTemplate: string; body: string } {
  const binding = served.http[0];
  if (binding === undefined) throw new Error(`${served.fullName} has no HTTP binding`);
  return binding;
}

function setPath(
  target: Record<string, unknown>,
  type: protobuf.Type,
  dotted: string[],
  value: unknown,
): void {
  let cursorType = type;
  let cursor = target;
  dotted.forEach((key, i) => {
    const field = fieldByName(cursorType, key);
    if (field === undefined) throw new Untranslatable(`${dotted.join(".")}: no such field`);
    field.resolve();
    if (i === dotted.length - 1) {
      const converted = convertQueryValue(field, value, dotted.join("."));
      if (field.repeated) {
        const list = (Object.hasOwn(cursor, field.name) ? cursor[field.name] : []) as unknown[];
        define(cursor, field.name, [...list, ...(converted as unknown[])]);
      } else {
        if (Object.hasOwn(cursor, field.name))
          throw new Untranslatable(`${dotted.join(".")}: given more than once`);
        define(cursor, field.name, converted);
      }
      return;
    }
    if (!(field.resolvedType instanceof protobuf.Type) || field.repeated || field.map)
      throw new Untranslatable(`${dotted.join(".")}: not a message path`);
    if (!Object.hasOwn(cursor, field.name)) define(cursor, field.name, {});
    cursor = cursor[field.name] as Record<string, unknown>;
    cursorType = field.resolvedType;
  });
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A query parameter's text → the field's value, as grpc-gateway's runtime.PopulateQueryParameters parses it. */
function convertQueryValue(field: protobuf.Field, value: unknown, path: string): unknown {
  if (typeof value !== "string") return value;
  if (field.map) throw new Untranslatable(`${path}: a map is not a query parameter`);
  const one = (text: string): unknown => {
    const resolved = field.resolvedType;
    if (resolved instanceof protobuf.Type) {
      if (resolved.fullName === FIELD_MASK)
        return { paths: text === "" ? [] : text.split(",").map(snakePath) };
      if (resolved.fullName === TIMESTAMP) return parseTimestamp(text, path);
      if (resolved.fullName === DURATION) return parseDuration(text, path);
      throw new Untranslatable(`${path}: a message is not a query parameter`);
    }
    if (resolved instanceof protobuf.Enum) {
      if (Object.hasOwn(resolved.values, text)) return text;
      if (/^-?\d+$/.test(text)) return Number(text);
      throw new Untranslatable(`${path}: not a value of ${resolved.name}`);
    }
    switch (field.type) {
      case "string":
        return text;
      case "bool":
        if (text === "true" || text === "false") return text === "true";
        throw new Untranslatable(`${path}: not a boolean`);
      case "bytes":
        return text;
      case "double":
      case "float":
        if (!Number.isFinite(Number(text)) || text.trim() === "")
          throw new Untranslatable(`${path}: not a number`);
        return Number(text);
      default:
        return singleFromJson(field, text, path);
    }
  };
  return field.repeated ? [one(value)] : one(value);
}

/**
 * The HTTP body as proto3 JSON of the message grpc-gateway builds from it: what the service behind a gateway
 * sees. proto3 has no presence for scalars, so `""`, `0`, `false` and `[]` read as "not sent".
 */
export function protoBody(http: HttpRequest): Json | undefined {
  if (http.body === undefined) return undefined;
  const t = transcode(http);
  const binding = t.served.http.find((b) => b.method === http.method.toUpperCase())!;
  const type = messageType(t.served.requestType);
  if (binding.body === "*") return toJson(type, withoutDefaults(type, t.request));
  const field = fieldByName(type, binding.body);
  if (field === undefined || !(field.resolvedType instanceof protobuf.Type)) return http.body;
  const value = Object.hasOwn(t.request, field.name) ? t.request[field.name] : {};
  return toJson(field.resolvedType, withoutDefaults(field.resolvedType, value));
}

/** A protobuf.js object without the members proto3 does not tell from absent (defaults of fields without presence). */
function withoutDefaults(type: protobuf.Type, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries((value ?? {}) as Record<string, unknown>)) {
    const field = fieldByName(type, key);
    if (field === undefined) continue;
    field.resolve();
    const resolved = field.resolvedType;
    const isMessage = resolved instanceof protobuf.Type;
    const wellKnown = isMessage && /^\.google\.protobuf\./.test(resolved.fullName);
    let kept: unknown = member;
    if (field.map) {
      const entries = Object.entries(member as object);
      if (entries.length === 0) continue;
      kept = Object.fromEntries(
        entries.map(([k, v]) => [k, isMessage && !wellKnown ? withoutDefaults(resolved, v) : v]),
      );
    } else if (field.repeated) {
      if ((member as unknown[]).length === 0) continue;
      kept =
        isMessage && !wellKnown ? (member as unknown[]).map((v) => withoutDefaults(resolved, v)) : member;
    } else if (isMessage) {
      kept = wellKnown ? member : withoutDefaults(resolved, member);
    } else if (!hasPresence(field)) {
      const enumZero =
        resolved instanceof protobuf.Enum && (member === 0 || resolved.values[member as string] === 0);
      if (member === "" || member === 0 || member === "0" || member === false || enumZero) continue;
    }
    define(out, field.name, kept);
  }
  return out;
}

/** The RPC and request message grpc-gateway builds from `http`, or Untranslatable. */
export function transcode(http: HttpRequest): Transcoded {
  const rawPath = http.path;
  for (const c of compile()) {
    if (c.method !== http.method.toUpperCase()) continue;
    const match = c.regex.exec(rawPath);
    if (match === null) continue;
    const type = messageType(c.served.requestType);
    const request: Record<string, unknown> = {};
    c.variables.forEach((variable, i) => {
      const raw = match[i + 1];
      if (raw === undefined) return;
      let decoded: string;
      try {
        decoded = decodeURIComponent(raw);
      } catch {
        throw new Untranslatable(`${variable}: malformed percent-encoding`);
      }
      setPath(request, type, variable.split("."), decoded);
    });
    if (c.body === "*") {
      if (http.body !== undefined) {
        const fromBody = messageFromJson(type, http.body);
        for (const [k, v] of Object.entries(fromBody)) {
          if (Object.hasOwn(request, k)) continue;
          define(request, k, v);
        }
      }
    } else if (c.body !== "") {
      const field = fieldByName(type, c.body);
      if (field === undefined) throw new Error(`${c.served.fullName}: body field ${c.body} missing`);
      field.resolve();
      if (http.body !== undefined && http.body !== null) {
        const fromBody = fieldFromJson(field, http.body, "") as Record<string, unknown>;
        const existing = (Object.hasOwn(request, field.name) ? request[field.name] : {}) as Record<
          string,
          unknown
        >;
        // Path variables inside the body field (`{group.uid=**}`) win, as grpc-gateway sets them after the body.
        define(request, field.name, { ...fromBody, ...existing });
      }
    } else if (http.body !== undefined) {
      throw new Untranslatable("body: this method takes none");
    }
    for (const [key, value] of http.query) {
      const dotted = key.split(".");
      const first = fieldByName(type, dotted[0]!);
      if (first !== undefined && (first.name === c.body || c.body === "*"))
        throw new Untranslatable(`${key}: a body field is not a query parameter`);
      setPath(request, type, dotted, value);
    }
    return { served: c.served, request };
  }
  throw new Untranslatable(`${http.method} ${http.path}: no RPC has this binding`);
}
