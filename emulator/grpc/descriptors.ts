/**
 * The proto files as descriptors a strict reader accepts, in protoc's form: what server reflection serves (grpcurl
 * reads it with Go's strict reader) and what the JSON mapping (./json.ts) is built from. @grpc/proto-loader hands
 * out protobuf.js's descriptors, written loosely: relative type names, no dependency lists, no json_name,
 * google/protobuf merged into one proto3 file, extensions listed as the extended message's fields, reserved ranges
 * with an inclusive end, map entries named after the field as spelt. `descriptorFiles` mends each of them.
 *
 * May import: @bufbuild/protobuf, @grpc/proto-loader (its types), protobufjs, ./protos.
 */
import { clone, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  file_google_protobuf_any,
  file_google_protobuf_duration,
  file_google_protobuf_empty,
  file_google_protobuf_field_mask,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_wrappers,
  FileDescriptorProtoSchema,
  type DescriptorProto,
  type FileDescriptorProto,
} from "@bufbuild/protobuf/wkt";
import type { PackageDefinition } from "@grpc/proto-loader";
import * as protobuf from "protobufjs";
import { jsonNameOf, loadProtoRoot } from "./protos";

/** The well-known types' own files (what google/protobuf/*.proto the protos import). */
const WELL_KNOWN_FILES = [
  file_google_protobuf_any,
  file_google_protobuf_duration,
  file_google_protobuf_empty,
  file_google_protobuf_field_mask,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_wrappers,
];

/**
 * The package definition's files as descriptors a strict reader accepts (protoc's form), each looseness of
 * protobuf.js's mended. Services and options are kept; extension declarations
 * (`google.api.http`, which extend google/protobuf/descriptor.proto, not among the files) are left out.
 */
export function descriptorFiles(pkg: PackageDefinition): FileDescriptorProto[] {
  const buffers = new Map<string, Uint8Array>();
  for (const definition of Object.values(pkg)) {
    const files = (definition as { fileDescriptorProtos?: Uint8Array[] }).fileDescriptorProtos;
    for (const file of files ?? []) buffers.set(Buffer.from(file).toString("base64"), file);
  }
  // protobuf.js merges google/protobuf's files into one, marked proto3 though descriptor.proto's part is proto2:
  // the published files of the well-known types stand in for it.
  const files = [
    ...WELL_KNOWN_FILES.map((file) => clone(FileDescriptorProtoSchema, file.proto)),
    ...[...buffers.values()]
      .map((buffer) => fromBinary(FileDescriptorProtoSchema, buffer))
      .filter((file) => file.package !== "google.protobuf"),
  ];
  qualifyTypeNames(files);
  for (const file of files) {
    file.extension = [];
    if (file.package === "google.protobuf") continue;
    dropExtensionFields(file.messageType);
    publishedJsonNames(file.package, file.messageType);
    exclusiveReservedEnds(file.messageType);
    protocMapEntryNames(file.messageType, file.package === "" ? "" : `.${file.package}`);
  }
  declareDependencies(files);
  return dependenciesFirst(files);
}

/** The files as server reflection serves them: a package definition of their encodings (@grpc/reflection). */
export function reflectionPackage(files: FileDescriptorProto[]): PackageDefinition {
  const fileDescriptorProtos = files.map((file) => toBinary(FileDescriptorProtoSchema, file));
  return {
    files: { format: "Protocol Buffer 3 FileDescriptorProto", fileDescriptorProtos },
  } as unknown as PackageDefinition;
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
 * A map field's entry message is named as protoc names it (`app_installations` → `AppInstallationsEntry`), which a
 * strict reader checks; protobuf.js names it after the field as spelt (`App_installationsEntry`).
 */
function protocMapEntryNames(messages: DescriptorProto[], scope: string): void {
  for (const message of messages) {
    const name = `${scope}.${message.name}`;
    for (const entry of message.nestedType) {
      if (entry.options?.mapEntry !== true) continue;
      const field = message.field.find((f) => f.typeName === `${name}.${entry.name}`);
      if (field === undefined) continue;
      entry.name = `${field.name.replace(/(?:^|_)([a-z0-9])/g, (_, c: string) => c.toUpperCase())}Entry`;
      field.typeName = `${name}.${entry.name}`;
    }
    protocMapEntryNames(message.nestedType, name);
  }
}

/** protobuf.js writes a message's reserved range with its last number as `end`; a descriptor's `end` is exclusive. */
function exclusiveReservedEnds(messages: DescriptorProto[]): void {
  for (const message of messages) {
    for (const range of message.reservedRange) range.end += 1;
    exclusiveReservedEnds(message.nestedType);
  }
}

/**
 * protobuf.js lists an extension (`(chainguard.capabilities.name)`) among the extended message's own fields.
 */
function dropExtensionFields(messages: DescriptorProto[]): void {
  for (const message of messages) {
    message.field = message.field.filter((field) => !field.name.startsWith(".") && field.extendee === "");
    message.extension = [];
    dropExtensionFields(message.nestedType);
  }
}

/**
 * Each field's JSON name as protoc writes it: its `json_name` option (Repo's `sync_config`), else its name in
 * lowerCamelCase. protobuf.js writes an empty json_name and drops the option from the descriptor, so the option is
 * read from the parsed files (./protos.ts), by message and field number.
 */
function publishedJsonNames(scope: string, messages: DescriptorProto[]): void {
  for (const message of messages) {
    const name = scope === "" ? message.name : `${scope}.${message.name}`;
    const parsed = loadProtoRoot().lookup(name);
    for (const field of message.field) {
      if (field.jsonName !== "") continue;
      const published = parsed instanceof protobuf.Type ? parsed.fieldsById[field.number] : undefined;
      field.jsonName =
        published !== undefined
          ? jsonNameOf(published)
          : field.name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    }
    publishedJsonNames(name, message.nestedType);
  }
}

/**
 * Each file's `dependency` list: the files that declare the types its fields and methods name (protobuf.js leaves
 * it out; a strict reader, such as grpcurl's, resolves no name outside a file's declared dependencies).
 */
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
  const methodsOf = (file: FileDescriptorProto): string[] =>
    file.service.flatMap((service) => service.method.flatMap((m) => [m.inputType, m.outputType]));
  for (const file of files) {
    const needed = new Set(
      [...fieldsOf(file.messageType), ...methodsOf(file)].map((name) => fileOf.get(name)),
    );
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
