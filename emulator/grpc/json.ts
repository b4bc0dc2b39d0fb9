/**
 * Messages ↔ JSON by the proto3 JSON mapping, as grpc-gateway writes and reads it: lowerCamelCase JSON names,
 * int64 as decimal strings, enums by name, Timestamp as RFC 3339, FieldMask as comma-joined lowerCamelCase
 * paths, Empty as {}. The REST face speaks exactly this JSON, so a gRPC request becomes the REST request of the
 * same call and a REST answer the gRPC response.
 *
 * Requests (small) are read by @bufbuild/protobuf (`fromBinary`, `toJson`: it passes the protobuf conformance
 * suite). Answers (a list of hundreds of objects) are written straight from the REST answer's JSON to the wire by
 * an encoder compiled once per message from its descriptor (`jsonEncoder`): no message objects in between, which
 * is where the time of `fromJson` + `toBinary` went. It writes the bytes `toBinary(fromJson(json))` writes
 * (test/emulator/grpc-codec.property.test.ts holds it to that), refuses the JSON `fromJson` refuses (a member
 * the message lacks, a value of the wrong type), and leaves out only the REST-only members of ./rest-only.ts.
 * Well-known types other than Empty and the emulator's own Timestamps go through @bufbuild/protobuf.
 */
import {
  fromBinary,
  fromJson,
  ScalarType,
  toBinary,
  toJson,
  type DescEnum,
  type DescField,
  type DescMessage,
  type JsonValue,
  type Message,
  type Registry,
} from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { REST_ONLY_MEMBERS } from "./rest-only";
import { isoMillis } from "./timestamp";
import { Wire as WireType, WireWriter as BinaryWriter } from "./wire-writer";

export type { JsonValue } from "@bufbuild/protobuf";

/** One message's codec: wire bytes ↔ proto3 JSON, with the registry resolving nested and `Any` types. */
export interface MessageCodec {
  readonly typeName: string;
  /** Wire bytes → JSON; throws on a malformed message. `unknown` lists field numbers the schema lacks. */
  decode(bytes: Uint8Array): { json: JsonValue; unknown: string[] };
  /**
   * JSON → wire bytes, a copy the caller owns; throws when the JSON does not fit the message (a member it lacks, a
   * wrong type). A REST answer's members the spec keeps beyond a v1 message (./rest-only.ts) are left out, and no
   * others.
   */
  encode(json: JsonValue): Buffer;
  /**
   * As `encode`, the bytes lent to `use` after `headroom` bytes left for it to fill (a gRPC frame's prefix): they are
   * the encoder's own buffer, valid only while `use` runs, so an answer is copied once, where it is sent. A refused
   * encoding throws before `use` is called.
   */
  lend(json: JsonValue, headroom: number, use: (bytes: Buffer) => void): void;
}

export function messageCodec(registry: Registry, typeName: string): MessageCodec {
  const schema = registry.getMessage(typeName);
  if (schema === undefined) throw new Error(`message ${typeName} is not in the proto files`);
  const encoder = jsonEncoder(schema, registry);
  const lend = (json: JsonValue, headroom: number, use: (bytes: Buffer) => void): void => {
    const writer = idleWriter ?? new BinaryWriter();
    idleWriter = undefined;
    try {
      writer.begin(headroom);
      try {
        encoder(writer, json);
      } catch (error) {
        if (!(error instanceof EncodeError)) throw error;
        throw new Error(`cannot encode ${typeName}${error.path}: ${error.message}`);
      }
      use(writer.view());
    } finally {
      writer.reset();
      idleWriter = writer;
    }
  };
  return {
    typeName,
    decode: (bytes) => {
      const message = fromBinary(schema, bytes, { readUnknownFields: true });
      return { json: toJson(schema, message, { registry }), unknown: unknownFields(schema, message) };
    },
    encode: (json) => {
      let owned = NO_BYTES;
      lend(json, 0, (bytes) => {
        owned = Buffer.from(bytes);
      });
      return owned;
    },
    lend,
  };
}

const NO_BYTES = Buffer.alloc(0);

/** The writer encodings share, keeping its room (they run one at a time; one inside another gets its own). */
let idleWriter: BinaryWriter | undefined;

/** The paths of fields a message carries that its schema lacks ("group.#12"), at any depth. */
function unknownFields(schema: DescMessage, message: Message, prefix = ""): string[] {
  const found: string[] = [];
  const record = message as unknown as Record<string, unknown> & { $unknown?: { no: number }[] };
  for (const field of record.$unknown ?? []) found.push(`${prefix}#${field.no}`);
  for (const field of schema.fields) {
    if (field.message === undefined) continue;
    const value = record[field.localName];
    const children = Array.isArray(value)
      ? value
      : value !== null && typeof value === "object" && field.fieldKind === "map"
        ? Object.values(value)
        : [value];
    for (const child of children) {
      if (child !== null && typeof child === "object" && "$typeName" in child)
        found.push(...unknownFields(field.message, child as Message, `${prefix}${field.jsonName}.`));
    }
  }
  return found;
}

/** Writes one message's JSON as its fields (no tag, no length: the caller frames it). Throws an EncodeError. */
type Encoder = (writer: BinaryWriter, json: JsonValue) => void;

/** JSON that does not fit its message: the reason, and where (`.groups[3].name`, prefixed as it propagates). */
class EncodeError extends Error {
  path = "";
}

/** An error from inside a member or item, its path prefixed with the step into it. */
function within(error: unknown, step: string): unknown {
  if (error instanceof EncodeError) error.path = `${step}${error.path}`;
  else if (error instanceof Error) {
    // @bufbuild/protobuf's refusals (a well-known type's JSON) get a path too.
    const wrapped = new EncodeError(error.message);
    wrapped.path = step;
    return wrapped;
  }
  return error;
}

/** A JSON object's members as `fromJson` reads them: only a plain object is a message. */
function members(json: JsonValue, typeName: string): { [member: string]: JsonValue } {
  if (json === null || typeof json !== "object" || Array.isArray(json))
    throw new EncodeError(`${typeName} takes a JSON object, got ${describe(json)}`);
  return json;
}

function describe(json: JsonValue): string {
  return json === null ? "null" : Array.isArray(json) ? "an array" : typeof json;
}

/**
 * The encoder of one message, compiled from its descriptor once (nested messages' encoders compiled on first
 * use, so recursive messages work).
 */
export function jsonEncoder(schema: DescMessage, registry: Registry): Encoder {
  const cache = new Map<string, Encoder>();
  const of = (message: DescMessage): Encoder => {
    let encoder = cache.get(message.typeName);
    if (encoder === undefined) {
      // Registered before it is built: a field of its own type finds it.
      let built: Encoder | undefined;
      encoder = (writer, json) => (built ??= compileMessage(message, registry, of))(writer, json);
      cache.set(message.typeName, encoder);
    }
    return encoder;
  };
  return of(schema);
}

/** One field of a compiled message: its two member names and how its value is written. */
interface FieldPlan {
  readonly json: string;
  readonly name: string;
  readonly write: FieldWrite;
}

type FieldWrite = (writer: BinaryWriter, value: JsonValue) => void;

/**
 * The members of one shape of object (its own keys, in their order), as the fields they are written as, in
 * field-number order. Only a shape the message accepts whatever its values has one: every member a field or
 * REST-only, no field by both its names, no two members of a oneof.
 */
interface Shape {
  readonly keys: readonly string[];
  /** Each field written: its member, where its value is among the object's (its key's place), and how. */
  readonly steps: readonly {
    readonly member: string;
    readonly position: number;
    readonly write: FieldWrite;
  }[];
}

/**
 * The values of the objects being written, read as their shape is matched: an object's at its keys' places from
 * `base`, a nested object's after them. A stack, so an answer allocates nothing per object, and every value is
 * read by for-in's own fast load, where `object[step.member]` (a different name at each step) was a megamorphic
 * lookup, about 2% of a 200-group list's CPU in the emulator (perf).
 */
const values: JsonValue[] = [];
/** The first free place in `values`: back where it was once an object is written, or refused. */
let valuesTop = 0;

/** How many shapes a message remembers: a message's answers come in a few (with and without optional members). */
const SHAPES = 8;

function compileMessage(
  schema: DescMessage,
  registry: Registry,
  of: (message: DescMessage) => Encoder,
): Encoder {
  const special = wellKnown(schema, registry);
  if (special !== undefined) return special;
  // In field-number order, as @bufbuild/protobuf writes them; a member by its JSON name or its proto name.
  const fields: FieldPlan[] = [...schema.fields]
    .sort((a, b) => a.number - b.number)
    .map((field) => ({ json: field.jsonName, name: field.name, write: fieldWriter(field, registry, of) }));
  const rules = memberRules(schema, fields);
  const general = generalEncoder(fields, rules);
  const shapes: Shape[] = [];
  // Objects of one shape (the items of a list) are written by the shape's steps: no name looked up per member.
  return (writer, json) => {
    const object = members(json, schema.typeName);
    const base = valuesTop;
    const shape = shapeOf(shapes, object, base);
    if (shape === undefined) {
      const keys = Object.keys(object);
      general(writer, object, keys);
      const learnt = learnShape(keys, fields, rules);
      if (learnt === undefined) return;
      if (shapes.length === SHAPES) shapes.pop();
      shapes.unshift(learnt);
      return;
    }
    const steps = shape.steps;
    valuesTop = base + shape.keys.length;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      const value = values[base + step.position]!;
      // null is "not set" in proto3 JSON.
      if (value === null) continue;
      try {
        step.write(writer, value);
      } catch (error) {
        valuesTop = base;
        throw within(error, `.${step.member}`);
      }
    }
    valuesTop = base;
  };
}

/**
 * The shape the object is, if it is one of `shapes`, its values put in `values` from `base`: its keys walked with
 * for-in, which allocates nothing (where Object.keys made an array per item, 200 per list, for the collector).
 * for-in also walks inherited enumerable keys, so only an object whose prototype has none (a plain object's, or
 * none) is matched here; any other goes the general way, by its own keys.
 */
function shapeOf(
  shapes: readonly Shape[],
  object: { [member: string]: JsonValue },
  base: number,
): Shape | undefined {
  const prototype: unknown = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  search: for (let s = 0; s < shapes.length; s++) {
    const keys = shapes[s]!.keys;
    let i = 0;
    for (const key in object) {
      if (i === keys.length || keys[i] !== key) continue search;
      values[base + i] = object[key]!;
      i++;
    }
    if (i === keys.length) return shapes[s];
  }
  return undefined;
}

/** Which members a message takes beyond its fields, and which of its fields are a oneof's. */
interface MemberRules {
  readonly typeName: string;
  /** A field's index (in field-number order) by its JSON name and by its proto name. */
  readonly fieldOf: ReadonlyMap<string, number>;
  /** The REST-only members the message leaves out (./rest-only.ts). */
  readonly restOnly: ReadonlySet<string>;
  /** A oneof's name by its members' names (both spellings). */
  readonly oneofOf: ReadonlyMap<string, string>;
}

function memberRules(schema: DescMessage, fields: readonly FieldPlan[]): MemberRules {
  const fieldOf = new Map<string, number>();
  fields.forEach((field, index) => fieldOf.set(field.json, index).set(field.name, index));
  const restOnly = new Set(
    Object.hasOwn(REST_ONLY_MEMBERS, schema.typeName) ? REST_ONLY_MEMBERS[schema.typeName]!.members : [],
  );
  const oneofOf = new Map<string, string>();
  for (const field of schema.fields) {
    if (field.oneof === undefined) continue;
    oneofOf.set(field.jsonName, field.oneof.name);
    oneofOf.set(field.name, field.oneof.name);
  }
  return { typeName: schema.typeName, fieldOf, restOnly, oneofOf };
}

/**
 * The steps of these keys' shape, or undefined when the message refuses the shape or may, by its values (a member
 * it lacks, a field by both its names, two members of a oneof): those objects are left to the general encoder.
 */
function learnShape(
  keys: readonly string[],
  fields: readonly FieldPlan[],
  rules: MemberRules,
): Shape | undefined {
  const memberOf: (string | undefined)[] = fields.map(() => undefined);
  const oneofs = new Set<string>();
  for (const member of keys) {
    const index = rules.fieldOf.get(member);
    if (index === undefined) {
      if (rules.restOnly.has(member)) continue;
      return undefined;
    }
    if (memberOf[index] !== undefined) return undefined;
    memberOf[index] = member;
    const oneof = rules.oneofOf.get(member);
    if (oneof !== undefined) {
      if (oneofs.has(oneof)) return undefined;
      oneofs.add(oneof);
    }
  }
  const steps = fields.flatMap((field, index) => {
    const member = memberOf[index];
    return member === undefined ? [] : [{ member, position: keys.indexOf(member), write: field.write }];
  });
  return { keys: [...keys], steps };
}

/**
 * Any object of the message, and the refusals with their reasons: each field in field-number order (by its JSON
 * name, else its proto name), then every member checked to be a field or REST-only, then the oneofs.
 */
function generalEncoder(
  fields: readonly FieldPlan[],
  rules: MemberRules,
): (writer: BinaryWriter, object: { [member: string]: JsonValue }, keys: readonly string[]) => void {
  const { typeName, fieldOf, restOnly, oneofOf } = rules;
  return (writer, object, keys) => {
    let found = 0;
    for (const field of fields) {
      let member = field.json;
      if (!Object.hasOwn(object, member)) {
        if (field.name === member || !Object.hasOwn(object, field.name)) continue;
        member = field.name;
      }
      found++;
      const value = object[member]!;
      // null is "not set" in proto3 JSON.
      if (value === null) continue;
      try {
        field.write(writer, value);
      } catch (error) {
        throw within(error, `.${member}`);
      }
    }
    // Every member is a field, or one of the REST-only members this message leaves out.
    if (found !== keys.length) {
      for (const member of keys) {
        if (fieldOf.has(member)) continue;
        if (!restOnly.has(member)) throw new EncodeError(`${typeName} has no field "${member}"`);
      }
      if (keys.filter((member) => fieldOf.has(member)).length !== found)
        throw new EncodeError(`a field of ${typeName} is given twice, by both its names`);
    }
    if (oneofOf.size > 0) oneMemberPerOneof(object, oneofOf, typeName);
  };
}

/** A oneof takes one member at most, as `fromJson` says (a null member is not set). */
function oneMemberPerOneof(
  object: { [member: string]: JsonValue },
  oneofOf: ReadonlyMap<string, string>,
  typeName: string,
): void {
  const set = new Set<string>();
  for (const member of Object.keys(object)) {
    const oneof = oneofOf.get(member);
    if (oneof === undefined || object[member] === null) continue;
    if (set.has(oneof)) throw new EncodeError(`${typeName}.${oneof} takes one member`);
    set.add(oneof);
  }
}

/** Timestamp and Empty written directly; the other well-known types through @bufbuild/protobuf. */
function wellKnown(schema: DescMessage, registry: Registry): Encoder | undefined {
  if (schema.typeName === "google.protobuf.Timestamp") return timestampEncoder(schema, registry);
  if (schema.typeName === "google.protobuf.Empty")
    return (_writer, json) => {
      if (Object.keys(members(json, schema.typeName)).length > 0)
        throw new EncodeError(`google.protobuf.Empty has no fields`);
    };
  if (!schema.typeName.startsWith("google.protobuf.")) return undefined;
  return (writer, json) => writer.raw(toBinary(schema, fromJson(schema, json, { registry })));
}

/**
 * A Timestamp: the emulator's own (isoMillis) written here; any other form through @bufbuild/protobuf, which
 * decides what it accepts.
 */
function timestampEncoder(schema: DescMessage, registry: Registry): Encoder {
  const general: Encoder = (writer, json) =>
    writer.raw(toBinary(schema, fromJson(schema, json, { registry })));
  return (writer, json) => {
    const ms = typeof json === "string" ? isoMillis(json) : NaN;
    if (Number.isNaN(ms)) general(writer, json);
    else writeTimestamp(writer, ms);
  };
}

/** A Timestamp's fields for `ms` from isoMillis (seconds, nanos; a zero one is not written). */
function writeTimestamp(writer: BinaryWriter, ms: number): void {
  const seconds = Math.floor(ms / 1000);
  const nanos = (ms - seconds * 1000) * 1_000_000;
  if (seconds !== 0) writer.tag(1, WireType.Varint).safeUint(seconds);
  if (nanos !== 0) writer.tag(2, WireType.Varint).uint32(nanos);
}

/** How one field's JSON value is written, tag included; a zero scalar without presence is not written. */
function fieldWriter(
  field: DescField,
  registry: Registry,
  of: (message: DescMessage) => Encoder,
): (writer: BinaryWriter, value: JsonValue) => void {
  const no = field.number;
  switch (field.fieldKind) {
    case "message": {
      const encode = of(field.message);
      return (writer, value) => {
        writer.tag(no, WireType.LengthDelimited).fork();
        encode(writer, value);
        writer.join();
      };
    }
    case "scalar": {
      const always = field.presence !== IMPLICIT || field.oneof !== undefined;
      if (field.scalar === ScalarType.STRING) {
        // The most common field, written without the general scalar path.
        const tag = (no << 3) | WireType.LengthDelimited;
        return (writer, value) => {
          if (typeof value !== "string" || !wellFormed(value)) scalarValue(ScalarType.STRING, value);
          else if (value !== "" || always) writer.uint32(tag).string(value);
        };
      }
      if (field.scalar === ScalarType.BOOL) {
        // As common in answers (`verified`), and as simple: only true and false are a bool.
        const tag = (no << 3) | WireType.Varint;
        return (writer, value) => {
          if (typeof value !== "boolean") scalarValue(ScalarType.BOOL, value);
          else if (value || always) writer.uint32(tag).bool(value);
        };
      }
      const write = scalarWriter(field.scalar, field.name);
      return (writer, value) => write(writer, no, value, always);
    }
    case "enum": {
      const number = enumReader(field.enum);
      const always = field.presence !== IMPLICIT || field.oneof !== undefined;
      return (writer, value) => {
        const n = number(value);
        if (n !== 0 || always) writer.tag(no, WireType.Varint).int32(n);
      };
    }
    case "list":
      return listWriter(field, registry, of);
    case "map":
      return mapWriter(field, registry, of);
  }
}

/** Implicit presence (proto3 without `optional`): a zero value is not on the wire. */
const IMPLICIT = 2;

function listWriter(
  field: DescField & { fieldKind: "list" },
  registry: Registry,
  of: (message: DescMessage) => Encoder,
): (writer: BinaryWriter, value: JsonValue) => void {
  const no = field.number;
  const items = (value: JsonValue): JsonValue[] => {
    if (!Array.isArray(value)) throw new EncodeError(`a repeated field takes an array`);
    return value;
  };
  if (field.listKind === "message") {
    const encode = of(field.message);
    // Items are alike: room for the length the last one's took, so the bytes seldom move.
    let reserve = 1;
    return (writer, value) => {
      const list = items(value);
      for (let i = 0; i < list.length; i++) {
        writer.tag(no, WireType.LengthDelimited).fork(reserve);
        try {
          encode(writer, list[i]!);
        } catch (error) {
          throw within(error, `[${i}]`);
        }
        reserve = writer.join();
      }
    };
  }
  if (field.listKind === "enum") {
    const number = enumReader(field.enum);
    return (writer, value) => {
      const list = items(value);
      if (list.length === 0) return;
      writer.tag(no, WireType.LengthDelimited).fork();
      for (const item of list) writer.int32(number(item));
      writer.join();
    };
  }
  const write = scalarWriter(field.scalar, field.name);
  const packable = field.scalar !== ScalarType.STRING && field.scalar !== ScalarType.BYTES;
  if (!packable || !field.packed)
    return (writer, value) => {
      for (const item of items(value)) write(writer, no, item, true);
    };
  const raw = scalarValueWriter(field.scalar);
  return (writer, value) => {
    const list = items(value);
    if (list.length === 0) return;
    writer.tag(no, WireType.LengthDelimited).fork();
    for (const item of list) raw(writer, scalarValue(field.scalar, item));
    writer.join();
  };
}

function mapWriter(
  field: DescField & { fieldKind: "map" },
  registry: Registry,
  of: (message: DescMessage) => Encoder,
): (writer: BinaryWriter, value: JsonValue) => void {
  const no = field.number;
  const key = scalarWriter(field.mapKey, "key");
  let value: (writer: BinaryWriter, json: JsonValue) => void;
  if (field.mapKind === "message") {
    const encode = of(field.message);
    value = (writer, json) => {
      writer.tag(2, WireType.LengthDelimited).fork();
      encode(writer, json);
      writer.join();
    };
  } else if (field.mapKind === "enum") {
    const number = enumReader(field.enum);
    value = (writer, json) => void writer.tag(2, WireType.Varint).int32(number(json));
  } else {
    const write = scalarWriter(field.scalar, "value");
    value = (writer, json) => write(writer, 2, json, true);
  }
  const keyText = mapKeyJson(field.mapKey);
  return (writer, json) => {
    const entries = members(json, "map");
    for (const name of Object.keys(entries)) {
      writer.tag(no, WireType.LengthDelimited).fork();
      key(writer, 1, keyText(name), true);
      try {
        value(writer, entries[name]!);
      } catch (error) {
        throw within(error, `[${JSON.stringify(name)}]`);
      }
      writer.join();
    }
  };
}

/** A map key's JSON text as the JSON value of its scalar type ("true" → true for bool keys). */
function mapKeyJson(type: ScalarType): (name: string) => JsonValue {
  if (type === ScalarType.BOOL)
    return (name) => {
      if (name !== "true" && name !== "false") throw new EncodeError(`a bool map key, got ${name}`);
      return name === "true";
    };
  return (name) => name;
}

function enumReader(desc: DescEnum): (value: JsonValue) => number {
  const byName = new Map(desc.values.map((v) => [v.name, v.number]));
  return (value) => {
    if (typeof value === "string") {
      const n = byName.get(value);
      if (n !== undefined) return n;
    } else if (typeof value === "number" && Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31)
      return value;
    throw new EncodeError(`${String(value)} is not a value of ${desc.typeName}`);
  };
}

type ScalarValue = string | number | boolean | bigint | Uint8Array;

/** The wire type each scalar is written with. */
function wireTypeOf(type: ScalarType): WireType {
  switch (type) {
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return WireType.LengthDelimited;
    case ScalarType.DOUBLE:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return WireType.Bit64;
    case ScalarType.FLOAT:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return WireType.Bit32;
    default:
      return WireType.Varint;
  }
}

/** Writes a scalar field (tag and value), its zero value only when `always`. */
function scalarWriter(
  type: ScalarType,
  _name: string,
): (writer: BinaryWriter, no: number, value: JsonValue, always: boolean) => void {
  const wire = wireTypeOf(type);
  const raw = scalarValueWriter(type);
  return (writer, no, json, always) => {
    const value = scalarValue(type, json);
    if (!always && isZero(value)) return;
    raw(writer.tag(no, wire), value);
  };
}

const ZERO_BIGINT = BigInt(0);

function isZero(value: ScalarValue): boolean {
  if (value instanceof Uint8Array) return value.length === 0;
  return value === "" || value === 0 || value === false || value === ZERO_BIGINT || Object.is(value, -0);
}

function scalarValueWriter(type: ScalarType): (writer: BinaryWriter, value: ScalarValue) => void {
  switch (type) {
    case ScalarType.STRING:
      return (w, v) => w.string(v as string);
    case ScalarType.BOOL:
      return (w, v) => w.bool(v as boolean);
    case ScalarType.DOUBLE:
      return (w, v) => w.double(v as number);
    case ScalarType.FLOAT:
      return (w, v) => w.float(v as number);
    case ScalarType.INT32:
      return (w, v) => w.int32(v as number);
    case ScalarType.UINT32:
      return (w, v) => w.uint32(v as number);
    case ScalarType.SINT32:
      return (w, v) => w.sint32(v as number);
    case ScalarType.FIXED32:
      return (w, v) => w.fixed32(v as number);
    case ScalarType.SFIXED32:
      return (w, v) => w.sfixed32(v as number);
    case ScalarType.INT64:
      return (w, v) => w.int64(v as bigint);
    case ScalarType.UINT64:
      return (w, v) => w.uint64(v as bigint);
    case ScalarType.SINT64:
      return (w, v) => w.sint64(v as bigint);
    case ScalarType.FIXED64:
      return (w, v) => w.fixed64(v as bigint);
    case ScalarType.SFIXED64:
      return (w, v) => w.sfixed64(v as bigint);
    case ScalarType.BYTES:
      return (w, v) => w.bytes(v as Uint8Array);
  }
}

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };
const UINT32 = { min: 0, max: 2 ** 32 - 1 };
const INT64 = { min: -(BigInt(2) ** BigInt(63)), max: BigInt(2) ** BigInt(63) - BigInt(1) };
const UINT64 = { min: BigInt(0), max: BigInt(2) ** BigInt(64) - BigInt(1) };

/** A number's JSON text as `fromJson` reads it: NaN when empty or with white space around it. */
function numberText(text: string): number {
  return text !== "" && text.trim().length === text.length ? Number(text) : NaN;
}

/**
 * Whether a string is well-formed UTF-16 (no lone surrogate), so it has UTF-8: `fromJson` refuses one that is not,
 * where Buffer#write would write U+FFFD. String#isWellFormed is in node 20 and up, not in TypeScript's ES2022.
 */
function wellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/** A scalar's JSON value, checked as `fromJson` checks it, as the value the writer takes. */
function scalarValue(type: ScalarType, json: JsonValue): ScalarValue {
  const refuse = (): never => {
    throw new EncodeError(`${JSON.stringify(json)} is not a valid ${ScalarType[type]}`);
  };
  switch (type) {
    case ScalarType.STRING:
      return typeof json === "string" && wellFormed(json) ? json : refuse();
    case ScalarType.BOOL:
      return typeof json === "boolean" ? json : refuse();
    case ScalarType.BYTES:
      if (typeof json !== "string") return refuse();
      try {
        return base64Decode(json);
      } catch {
        return refuse();
      }
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT: {
      if (typeof json === "number")
        return type === ScalarType.FLOAT && !Number.isFinite(Math.fround(json)) ? refuse() : json;
      if (json === "NaN") return NaN;
      if (json === "Infinity") return Infinity;
      if (json === "-Infinity") return -Infinity;
      const n = typeof json === "string" ? numberText(json) : NaN;
      // A FLOAT beyond float32's range would be written as infinity: refused, as fromJson refuses it.
      if (type === ScalarType.FLOAT && !Number.isFinite(Math.fround(n))) return refuse();
      return Number.isFinite(n) ? n : refuse();
    }
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
    case ScalarType.UINT32:
    case ScalarType.FIXED32: {
      const range = type === ScalarType.UINT32 || type === ScalarType.FIXED32 ? UINT32 : INT32;
      const n = typeof json === "number" ? json : typeof json === "string" ? numberText(json) : NaN;
      return Number.isInteger(n) && n >= range.min && n <= range.max ? n : refuse();
    }
    default: {
      const range = type === ScalarType.UINT64 || type === ScalarType.FIXED64 ? UINT64 : INT64;
      let n: bigint;
      // What BigInt reads, as fromJson takes it: a whole number, or text ("12", " 12 ", "0x1f"; not "" or "1e3").
      try {
        if (typeof json === "number" || (typeof json === "string" && json !== "")) n = BigInt(json);
        else return refuse();
      } catch {
        return refuse();
      }
      return n >= range.min && n <= range.max ? n : refuse();
    }
  }
}
