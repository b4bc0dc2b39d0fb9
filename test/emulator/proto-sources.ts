/**
 * The gRPC face's .proto files (emulator/grpc/proto) read as a client of the service reads the published ones:
 * with protobuf.js and @grpc/proto-loader, from the sources, independently of the descriptors the emulator serves
 * (compiled by buf at build time, emulator/grpc/protos.ts). Tests check the two against each other.
 */
import { readdirSync } from "node:fs";
import { isAbsolute, join, posix, relative, sep } from "node:path";
import { existsSync } from "node:fs";
import * as protoLoader from "@grpc/proto-loader";
import * as protobuf from "protobufjs";

/** The include root: import lines ("google/api/annotations.proto", ...) resolve against it as upstream. */
export const PROTO_DIR: string = join(__dirname, "..", "..", "emulator", "grpc", "proto");

/**
 * Where imports are looked up, in order: the root, then the v1 directories, whose files import their siblings by
 * bare name ("role.platform.proto") because upstream builds each with its own directory on the include path.
 */
export const INCLUDE_DIRS: readonly string[] = Object.freeze([
  PROTO_DIR,
  ...["platform/iam/v1", "platform/registry/v1"].map((dir) => join(PROTO_DIR, dir)),
]);

function resolveImport(target: string): string {
  return (
    INCLUDE_DIRS.map((dir) => join(dir, target)).find((path) => existsSync(path)) ?? join(PROTO_DIR, target)
  );
}

/** How decoded messages become plain objects: int64 as decimal strings, enums by name, absent fields absent. */
export const PROTO_OBJECT: Readonly<protobuf.IConversionOptions> = Object.freeze({
  longs: String,
  enums: String,
  bytes: String,
  defaults: false,
  arrays: false,
  objects: false,
});

/** How a client's generated code reads messages: lowerCamelCase members, and otherwise as PROTO_OBJECT. */
export const LOADER_OPTIONS: Readonly<protoLoader.Options> = Object.freeze({
  keepCase: false,
  ...PROTO_OBJECT,
  oneofs: false,
  includeDirs: [...INCLUDE_DIRS],
});

/** Every .proto file under PROTO_DIR, relative to it with "/" separators, sorted. */
export function protoSourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith(".proto")) {
        files.push(relative(PROTO_DIR, path).split(sep).join(posix.sep));
      }
    }
  };
  walk(PROTO_DIR);
  return files.sort();
}

let packageDefinition: protoLoader.PackageDefinition | undefined;

/** The package definition of every proto file, as @grpc/proto-loader gives it to a grpc-js client. */
export function loadServicePackage(): protoLoader.PackageDefinition {
  packageDefinition ??= protoLoader.loadSync(protoSourceFiles(), { ...LOADER_OPTIONS });
  return packageDefinition;
}

let root: protobuf.Root | undefined;

/** The same files as a resolved protobuf.js Root, fields named as published (`page_size`). */
export function loadProtoRoot(): protobuf.Root {
  if (root === undefined) {
    const loaded = new protobuf.Root();
    loaded.resolvePath = (_origin, target) => (isAbsolute(target) ? target : resolveImport(target));
    loaded.loadSync(protoSourceFiles(), { keepCase: true });
    loaded.resolveAll();
    root = loaded;
  }
  return root;
}

/** A field's proto3 JSON name: its `json_name` option (Repo's "sync_config"), else its name in lowerCamelCase. */
export function jsonNameOf(field: protobuf.Field): string {
  const option = field.options?.json_name as unknown;
  if (typeof option === "string") return option;
  return field.name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
