/**
 * Messages ↔ JSON by the proto3 JSON mapping, as grpc-gateway writes and reads it: lowerCamelCase JSON names,
 * int64 as decimal strings, enums by name, Timestamp as RFC 3339, FieldMask as comma-joined lowerCamelCase
 * paths, Empty as {}. The REST face speaks exactly this JSON, so a gRPC request becomes the REST request of the
 * same call and a REST answer the gRPC response.
 *
 * @bufbuild/protobuf does the mapping (it passes the protobuf conformance suite, well-known types included); its
 * registry is built from the descriptors of ./descriptors.ts, which reflection serves too, so both read the same
 * files. May import: @bufbuild/protobuf.
 */
import {
  create,
  createFileRegistry,
  fromBinary,
  fromJson,
  toBinary,
  toJson,
  type DescMessage,
  type JsonValue,
  type Message,
  type Registry,
} from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";

export type { JsonValue } from "@bufbuild/protobuf";

/** The messages and enums of the files, by full name, for encoding, decoding and the JSON mapping. */
export function messageRegistry(files: FileDescriptorProto[]): Registry {
  // Services are served by grpc-js from servedMethods(); the registry needs messages and enums only.
  const messagesOnly = files.map((file) => ({ ...file, service: [] }));
  return createFileRegistry(create(FileDescriptorSetSchema, { file: messagesOnly }));
}

/** One message's codec: wire bytes ↔ proto3 JSON, with the registry resolving nested and `Any` types. */
export interface MessageCodec {
  readonly typeName: string;
  /** Wire bytes → JSON; throws on a malformed message. `unknown` lists field numbers the schema lacks. */
  decode(bytes: Uint8Array): { json: JsonValue; unknown: string[] };
  /**
   * JSON → wire bytes; throws when the JSON does not fit the message (a member it lacks, a wrong type). A REST
   * answer's members the spec keeps beyond a v1 message are left out before (./rest-only.ts), and no others.
   */
  encode(json: JsonValue): Uint8Array;
}

export function messageCodec(registry: Registry, typeName: string): MessageCodec {
  const schema = registry.getMessage(typeName);
  if (schema === undefined) throw new Error(`message ${typeName} is not in the proto files`);
  return {
    typeName,
    decode: (bytes) => {
      const message = fromBinary(schema, bytes, { readUnknownFields: true });
      return { json: toJson(schema, message, { registry }), unknown: unknownFields(schema, message) };
    },
    encode: (json) => toBinary(schema, fromJson(schema, json, { registry, ignoreUnknownFields: false })),
  };
}

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
