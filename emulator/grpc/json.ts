/**
 * Messages ↔ JSON by the proto3 JSON mapping, as grpc-gateway writes and reads it: lowerCamelCase JSON names,
 * int64 as decimal strings, enums by name, Timestamp as RFC 3339, FieldMask as comma-joined lowerCamelCase
 * paths, Empty as {}. The REST face speaks exactly this JSON, so a gRPC request becomes the REST request of the
 * same call and a REST answer the gRPC response.
 *
 * @bufbuild/protobuf does the mapping (it passes the protobuf conformance suite, well-known types included);
 * its registry is built from the descriptors @grpc/proto-loader made of our .proto files, so both read the same
 * files. May import: @bufbuild/protobuf, @grpc/proto-loader.
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
import {
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
  type DescriptorProto,
  type FileDescriptorProto,
} from "@bufbuild/protobuf/wkt";
import type { PackageDefinition } from "@grpc/proto-loader";

export type { JsonValue } from "@bufbuild/protobuf";

/** The messages and enums of a package definition, by full name, for encoding, decoding and the JSON mapping. */
export function messageRegistry(pkg: PackageDefinition): Registry {
  const buffers = new Map<string, Uint8Array>();
  for (const definition of Object.values(pkg)) {
    const files = (definition as { fileDescriptorProtos?: Uint8Array[] }).fileDescriptorProtos;
    for (const file of files ?? []) buffers.set(Buffer.from(file).toString("base64"), file);
  }
  const files = [...buffers.values()].map((buffer) => fromBinary(FileDescriptorProtoSchema, buffer));
  qualifyTypeNames(files);
  declareDependencies(files);
  // Only messages and enums are needed here; options and services (served by grpc-js from the package) are not,
  // and their extensions name google/protobuf/descriptor.proto, which the package does not carry.
  for (const file of files) {
    file.extension = [];
    file.service = [];
    dropExtensionFields(file.messageType);
  }
  return createFileRegistry(create(FileDescriptorSetSchema, { file: dependenciesFirst(files) }));
}

/** The files ordered so that each comes after the files it depends on (the registry reads them in order). */
function dependenciesFirst(files: FileDescriptorProto[]): FileDescriptorProto[] {
  const byName = new Map(files.map((file) => [file.name, file]));
  const ordered: FileDescriptorProto[] = [];
  const visit = (file: FileDescriptorProto): void => {
    if (ordered.includes(file)) return;
    for (const name of file.dependency) {
      const dependency = byName.get(name);
      if (dependency !== undefined && dependency !== file) visit(dependency);
    }
    if (!ordered.includes(file)) ordered.push(file);
  };
  files.forEach(visit);
  return ordered;
}

/**
 * protobuf.js (under proto-loader) writes a field's type as the .proto file spells it ("Rules", not
 * ".pkg.Role.Rules"); a descriptor names it fully qualified. Each name is resolved as protoc does: from the
 * innermost enclosing scope outwards.
 */
function qualifyTypeNames(files: FileDescriptorProto[]): void {
  const known = new Set<string>();
  const walk = (
    scope: string,
    messages: DescriptorProto[],
    visit: (scope: string, m: DescriptorProto) => void,
  ) => {
    for (const message of messages) {
      const name = `${scope}.${message.name}`;
      visit(name, message);
      walk(name, message.nestedType, visit);
    }
  };
  for (const file of files) {
    const scope = file.package === "" ? "" : `.${file.package}`;
    for (const e of file.enumType) known.add(`${scope}.${e.name}`);
    walk(scope, file.messageType, (name, message) => {
      known.add(name);
      for (const e of message.enumType) known.add(`${name}.${e.name}`);
    });
  }
  for (const file of files) {
    const scope = file.package === "" ? "" : `.${file.package}`;
    walk(scope, file.messageType, (name, message) => {
      for (const field of message.field) {
        if (field.typeName === "" || field.typeName.startsWith(".")) continue;
        field.typeName = resolveName(field.typeName, name, known) ?? field.typeName;
      }
    });
  }
}

/**
 * protobuf.js lists an extension (`(chainguard.capabilities.name)`) among the extended message's own fields, and
 * writes an empty json_name.
 */
function dropExtensionFields(messages: DescriptorProto[]): void {
  for (const message of messages) {
    message.field = message.field.filter((field) => !field.name.startsWith(".") && field.extendee === "");
    // protobuf.js writes an empty json_name; protoc writes the lowerCamelCase one the JSON mapping uses.
    for (const field of message.field)
      if (field.jsonName === "")
        field.jsonName = field.name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    message.extension = [];
    dropExtensionFields(message.nestedType);
  }
}

/** Each file's `dependency` list: the files that declare the types its fields name (protobuf.js leaves it out). */
function declareDependencies(files: FileDescriptorProto[]): void {
  const fileOf = new Map<string, string>();
  const declare = (file: FileDescriptorProto, scope: string, messages: DescriptorProto[]): void => {
    for (const message of messages) {
      const name = `${scope}.${message.name}`;
      fileOf.set(name, file.name);
      for (const e of message.enumType) fileOf.set(`${name}.${e.name}`, file.name);
      declare(file, name, message.nestedType);
    }
  };
  for (const file of files) {
    const scope = file.package === "" ? "" : `.${file.package}`;
    for (const e of file.enumType) fileOf.set(`${scope}.${e.name}`, file.name);
    declare(file, scope, file.messageType);
  }
  const fieldsOf = (messages: DescriptorProto[]): string[] =>
    messages.flatMap((m) => [...m.field.map((f) => f.typeName), ...fieldsOf(m.nestedType)]);
  for (const file of files) {
    const needed = new Set(fieldsOf(file.messageType).map((name) => fileOf.get(name)));
    needed.delete(file.name);
    needed.delete(undefined);
    file.dependency = [...needed].filter((name): name is string => name !== undefined).sort();
  }
}

function resolveName(relative: string, scope: string, known: Set<string>): string | undefined {
  for (let outer = scope; ; outer = outer.slice(0, outer.lastIndexOf("."))) {
    const candidate = `${outer}.${relative}`;
    if (known.has(candidate)) return candidate;
    if (outer === "") return undefined;
  }
}

/** One message's codec: wire bytes ↔ proto3 JSON, with the registry resolving nested and `Any` types. */
export interface MessageCodec {
  readonly typeName: string;
  /** Wire bytes → JSON; throws on a malformed message. `unknown` lists field numbers the schema lacks. */
  decode(bytes: Uint8Array): { json: JsonValue; unknown: string[] };
  /**
   * JSON → wire bytes; throws when a member's value does not fit its field (a wrong type). Members the message
   * lacks are refused, or with `dropUnknown` left out (a REST answer's members beyond the published message).
   */
  encode(json: JsonValue, options?: { dropUnknown?: boolean }): Uint8Array;
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
    encode: (json, options = {}) =>
      toBinary(
        schema,
        fromJson(schema, json, { registry, ignoreUnknownFields: options.dropUnknown === true }),
      ),
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
