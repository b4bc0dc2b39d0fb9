/**
 * The gRPC face's compiled answer encoder (emulator/grpc/json.ts) against @bufbuild/protobuf's own JSON reader and
 * binary writer, which pass the protobuf conformance suite: for random JSON of every served response message
 * (strings with any code points, 64-bit integers at their ends, any timestamp form, maps, oneofs, nesting), the
 * bytes are `toBinary(fromJson(json))`'s, byte for byte; JSON `fromJson` refuses (a member the message lacks, a
 * value of the wrong type, two members of a oneof) the encoder refuses too, also when an object of the same keys
 * was written before (the encoder's learnt shapes), with the same message. Fixed seeds.
 */
import fc from "fast-check";
import {
  fromJson,
  ScalarType,
  toBinary,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
} from "@bufbuild/protobuf";
import { messageCodec, type MessageCodec } from "../../emulator/grpc/json";
import { protoRegistry, servedMethods } from "../../emulator/grpc/protos";
import { REST_ONLY_MEMBERS } from "../../emulator/grpc/rest-only";

const registry = protoRegistry();
const SEEDS = [20261128, 7, 424242];

/** The longest Timestamp: 9999-12-31T23:59:59.999999999Z; the earliest 0001-01-01T00:00:00Z. */
const timestamp = fc.oneof(
  fc
    .date({
      min: new Date("0001-01-01T00:00:00Z"),
      max: new Date("9999-12-31T23:59:59Z"),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString()),
  fc
    .tuple(
      fc.date({
        min: new Date("1000-01-01T00:00:00Z"),
        max: new Date("9000-01-01T00:00:00Z"),
        noInvalidDate: true,
      }),
      fc.integer({ min: 0, max: 9 }),
      fc.integer({ min: 0, max: 999_999_999 }),
      fc.constantFrom("Z", "+01:00", "-05:30", "+00:00"),
    )
    .map(([date, digits, nanos, zone]) => {
      const base = date.toISOString().slice(0, 19);
      const fraction = digits === 0 ? "" : `.${String(nanos).padStart(9, "0").slice(0, digits)}`;
      return `${base}${fraction}${zone}`;
    }),
);

const INT64_MIN = -(BigInt(2) ** BigInt(63));
const INT64_MAX = BigInt(2) ** BigInt(63) - BigInt(1);

/**
 * A scalar's JSON: mostly valid, sometimes text fromJson reads its own way (white space around a number, hex, an
 * exponent, a lone surrogate, a FLOAT past float32), or any JSON at all.
 */
function scalar(type: ScalarType): fc.Arbitrary<JsonValue> {
  return fc.oneof(
    { arbitrary: validScalar(type), weight: 8 },
    {
      arbitrary: fc.constantFrom<JsonValue>(
        " 1",
        "1 ",
        "\t",
        "",
        "0x1f",
        "1e3",
        "1.0",
        "-0",
        "+1",
        "\ud800",
        "a\udc00b",
        1.5,
        1e39,
        -1,
        2 ** 53,
        true,
        null,
      ),
      weight: 1,
    },
  );
}

function validScalar(type: ScalarType): fc.Arbitrary<JsonValue> {
  switch (type) {
    case ScalarType.STRING:
      return fc.string({ unit: "binary", maxLength: 40 });
    case ScalarType.BOOL:
      return fc.boolean();
    case ScalarType.BYTES:
      return fc.uint8Array({ maxLength: 20 }).map((b) => Buffer.from(b).toString("base64"));
    case ScalarType.DOUBLE:
      return fc.oneof(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.constantFrom("NaN", "Infinity", "-Infinity"),
      );
    case ScalarType.FLOAT:
      return fc.float({ noNaN: true, noDefaultInfinity: true }).map((f) => Math.fround(f));
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return fc.oneof(fc.integer(), fc.constantFrom(-(2 ** 31), 2 ** 31 - 1, 0, -1));
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return fc.oneof(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.constant(2 ** 32 - 1));
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return fc.bigInt({ min: BigInt(0), max: BigInt(2) ** BigInt(64) - BigInt(1) }).map(String);
    default:
      return fc.oneof(
        fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).map(String),
        fc.constantFrom(String(INT64_MIN), String(INT64_MAX)),
        fc.integer(),
      );
  }
}

/** Random proto3 JSON of a message, `depth` levels of nesting at most; at most one member of each oneof. */
function messageJson(schema: DescMessage, depth: number): fc.Arbitrary<JsonValue> {
  if (schema.typeName === "google.protobuf.Timestamp") return timestamp;
  if (schema.typeName === "google.protobuf.Empty") return fc.constant({});
  if (schema.typeName === "google.protobuf.FieldMask")
    return fc
      .array(fc.constantFrom("name", "description", "uidp.childrenOf"), { maxLength: 3 })
      .map((p) => p.join(","));
  if (schema.typeName === "google.protobuf.Duration")
    return fc.constantFrom("1s", "1.5s", "-3.000000001s", "0s");
  if (schema.typeName.startsWith("google.protobuf.")) return fc.constant({});
  if (depth <= 0) return fc.constant({});
  const plain = schema.fields.filter((f) => f.oneof === undefined);
  const entries: Record<string, fc.Arbitrary<JsonValue>> = {};
  for (const field of plain) entries[field.jsonName] = fieldJson(field, depth);
  const oneofs = schema.oneofs.map((oneof) =>
    fc.option(
      fc.oneof(...oneof.fields.map((f) => fieldJson(f, depth).map((v) => [f.jsonName, v] as const))),
      { nil: undefined },
    ),
  );
  return fc.tuple(fc.record(entries, { requiredKeys: [] }), fc.tuple(...oneofs)).map(([record, chosen]) => {
    const json: JsonObject = { ...(record as JsonObject) };
    for (const pick of chosen) if (pick !== undefined) json[pick[0]] = pick[1];
    return json;
  });
}

function fieldJson(field: DescField, depth: number): fc.Arbitrary<JsonValue> {
  switch (field.fieldKind) {
    case "scalar":
      return scalar(field.scalar);
    case "enum":
      return fc.constantFrom(...field.enum.values.map((v) => v.name));
    case "message":
      return messageJson(field.message, depth - 1);
    case "list":
      return fc.array(elementJson(field, field.listKind, depth), { maxLength: 3 });
    case "map": {
      const value = elementJson(field, field.mapKind, depth);
      const key =
        field.mapKey === ScalarType.STRING
          ? fc.string({ maxLength: 8 })
          : fc.integer({ min: 0, max: 1000 }).map(String);
      return fc.dictionary(key, value, { maxKeys: 3 });
    }
  }
}

/** One element of a list or one value of a map, by the kind of what the field holds. */
function elementJson(
  field: DescField & { fieldKind: "list" | "map" },
  kind: "scalar" | "enum" | "message",
  depth: number,
): fc.Arbitrary<JsonValue> {
  switch (kind) {
    case "scalar":
      return scalar(field.scalar!);
    case "enum":
      return fc.constantFrom(...field.enum!.values.map((v) => v.name));
    case "message":
      return messageJson(field.message!, depth - 1);
  }
}

/** The reference: what @bufbuild/protobuf writes for the JSON, or its refusal. */
function reference(schema: DescMessage, json: JsonValue): Uint8Array | "refused" {
  try {
    return toBinary(schema, fromJson(schema, json, { registry }));
  } catch {
    return "refused";
  }
}

const codecs = new Map<string, MessageCodec>();

/** Our encoding through one codec per message, as the server keeps them: shapes it learnt before are reused. */
function ours(schema: DescMessage, json: JsonValue): Uint8Array | "refused" {
  let codec = codecs.get(schema.typeName);
  if (codec === undefined) codecs.set(schema.typeName, (codec = messageCodec(registry, schema.typeName)));
  try {
    return codec.encode(json);
  } catch {
    return "refused";
  }
}

/** What a codec does with the JSON: its bytes, or its refusal's message. */
function outcome(codec: MessageCodec, json: JsonValue): string {
  try {
    return Buffer.from(codec.encode(json)).toString("hex");
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

/** A copy of `json` with the value of one of its members or items (at any depth, by `pick`) replaced. */
function replaceOne(json: JsonValue, pick: number, value: JsonValue): JsonValue {
  const copy = JSON.parse(JSON.stringify(json)) as JsonValue;
  const spots: [JsonObject | JsonValue[], string][] = [];
  const walk = (node: JsonValue): void => {
    if (node === null || typeof node !== "object") return;
    for (const key of Object.keys(node)) {
      spots.push([node, key]);
      walk((node as JsonObject)[key]!);
    }
  };
  walk(copy);
  if (spots.length === 0) return copy;
  const [holder, key] = spots[pick % spots.length]!;
  // Defined, not assigned: a member named __proto__ stays a member.
  Object.defineProperty(holder, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

const bytes = (result: Uint8Array | "refused") =>
  result === "refused" ? result : Buffer.from(result).toString("hex");

const responseTypes = [...new Set(servedMethods().map((m) => m.responseType))]
  .map((name) => registry.getMessage(name)!)
  .filter((schema) => !Object.hasOwn(REST_ONLY_MEMBERS, schema.typeName));

describe("the compiled encoder writes what @bufbuild/protobuf writes", () => {
  test.each(SEEDS)("every response message, random JSON (seed %d)", (seed) => {
    for (const schema of responseTypes) {
      fc.assert(
        fc.property(messageJson(schema, 4), (json) => {
          expect([schema.typeName, bytes(ours(schema, json))]).toEqual([
            schema.typeName,
            bytes(reference(schema, json)),
          ]);
        }),
        { seed, numRuns: 25 },
      );
    }
  });

  test.each(SEEDS)("hostile JSON is refused as fromJson refuses it (seed %d)", (seed) => {
    const hostile = fc.oneof(
      fc.constantFrom<JsonValue>(null, 1, "x", [], true),
      fc.dictionary(
        fc.constantFrom("__proto__", "constructor", "nosuch", "uid", "name", "createTime", "groups"),
        fc.oneof(
          fc.constantFrom<JsonValue>(
            1,
            "x",
            true,
            [],
            {},
            "2020-13-01T00:00:00Z",
            "2021-02-29T00:00:00.000Z",
            "2020-02-29T23:59:60.000Z",
            "1e3",
          ),
          fc.string(),
        ),
        { maxKeys: 3 },
      ),
    );
    for (const schema of responseTypes) {
      fc.assert(
        fc.property(hostile, (json) => {
          const mine = ours(schema, json);
          const theirs = reference(schema, json);
          expect([schema.typeName, JSON.stringify(json), bytes(mine)]).toEqual([
            schema.typeName,
            JSON.stringify(json),
            bytes(theirs),
          ]);
        }),
        { seed, numRuns: 40 },
      );
    }
  });

  test.each(SEEDS)(
    "an object of a shape met before is written and refused as the first of its shape (seed %d)",
    (seed) => {
      // A codec learns each valid shape (its keys, in order) and writes later objects of it by the shape; the
      // same keys with a hostile value anywhere must give the bytes, or the refusal word for word, of a codec
      // meeting the shape for the first time.
      const hostileValue = fc.oneof(
        fc.constantFrom<JsonValue>(null, 1, -1, 2 ** 40, 1.5, "x", "", true, false, [], {}, [1], { x: 1 }),
        fc.constantFrom<JsonValue>("2021-02-29T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "1e3", "NaN"),
        fc.string({ unit: "binary", maxLength: 30 }),
      );
      for (const schema of responseTypes) {
        fc.assert(
          fc.property(messageJson(schema, 4), fc.nat(), hostileValue, (valid, pick, value) => {
            const warm = messageCodec(registry, schema.typeName);
            const learnt = outcome(warm, valid);
            expect(outcome(warm, valid)).toBe(learnt);
            const changed = replaceOne(valid, pick, value);
            const first = outcome(messageCodec(registry, schema.typeName), changed);
            expect([schema.typeName, JSON.stringify(changed), outcome(warm, changed)]).toEqual([
              schema.typeName,
              JSON.stringify(changed),
              first,
            ]);
            expect([JSON.stringify(changed), first.startsWith("refused")]).toEqual([
              JSON.stringify(changed),
              reference(schema, changed) === "refused",
            ]);
          }),
          { seed, numRuns: 25 },
        );
      }
    },
  );

  test("two members of a oneof are refused; a REST-only member of a v1 answer is left out and no other", () => {
    const withOneof = [...registry].find(
      (type): type is DescMessage => type.kind === "message" && type.oneofs.some((o) => o.fields.length > 1),
    );
    if (withOneof !== undefined) {
      const [a, b] = withOneof.oneofs.find((o) => o.fields.length > 1)!.fields;
      const json = {
        [a!.jsonName]: fc.sample(fieldJson(a!, 2), { seed: 1, numRuns: 1 })[0]!,
        [b!.jsonName]: fc.sample(fieldJson(b!, 2), { seed: 1, numRuns: 1 })[0]!,
      };
      expect(ours(withOneof, json)).toBe("refused");
    }
    const group = registry.getMessage("chainguard.platform.iam.Group")!;
    const sent = { id: "a/b", name: "n", createdAt: "2024-01-01T00:00:00Z" };
    expect(bytes(ours(group, sent))).toBe(bytes(reference(group, { id: "a/b", name: "n" })));
    expect(ours(group, { ...sent, other: 1 })).toBe("refused");
  });
});
