/**
 * gRPC server reflection (grpc.reflection.v1 and v1alpha, the same protocol under two names; ./reflection/ has
 * its messages), answered from the compiled files of ./protos.ts as protoc writes them, so a strict reader
 * (grpcurl, Go's protodesc) resolves every name: a symbol's or a file's answer is that file and every file it
 * imports, transitively. Every service of the files is listed, reflection's own included. One answer per request,
 * in order, on the call's stream.
 */
import { create, fromBinary, toBinary, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { messageSchema, protoFiles, protoRegistry, REFLECTION_PACKAGES } from "./protos";

/** The RPC's path under each version: "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo". */
export const REFLECTION_PATHS: readonly string[] = REFLECTION_PACKAGES.map(
  (pkg) => `/${pkg}.ServerReflection/ServerReflectionInfo`,
);

/** Answers one version's requests: request bytes → response bytes. */
export interface Reflector {
  answer(request: Uint8Array): Uint8Array;
}

/** The gRPC code an unknown file or symbol is answered with. */
const NOT_FOUND = 5;
const INVALID_ARGUMENT = 3;

/** What every version shares: the files' encodings, and where each symbol is declared. */
interface Index {
  encoded: Map<string, Uint8Array>;
  byName: Map<string, FileDescriptorProto>;
  /** A service, method, message, enum or extension (full name, no leading dot) → its file's name. */
  fileOfSymbol: Map<string, string>;
  /** A message's full name → its extensions: number → the file declaring it. */
  extensions: Map<string, Map<number, string>>;
  services: string[];
}

let index: Index | undefined;

function buildIndex(): Index {
  const files = protoFiles();
  const fileOfSymbol = new Map<string, string>();
  const extensions = new Map<string, Map<number, string>>();
  for (const file of files) {
    const scope = file.package === "" ? "" : `${file.package}.`;
    for (const service of file.service) {
      fileOfSymbol.set(`${scope}${service.name}`, file.name);
      for (const method of service.method)
        fileOfSymbol.set(`${scope}${service.name}.${method.name}`, file.name);
    }
    for (const extension of file.extension) {
      fileOfSymbol.set(`${scope}${extension.name}`, file.name);
      const extendee = extension.extendee.replace(/^\./, "");
      const numbers = extensions.get(extendee) ?? new Map<number, string>();
      numbers.set(extension.number, file.name);
      extensions.set(extendee, numbers);
    }
    for (const e of file.enumType) fileOfSymbol.set(`${scope}${e.name}`, file.name);
    const messages = (prefix: string, list: FileDescriptorProto["messageType"]): void => {
      for (const message of list) {
        const name = `${prefix}${message.name}`;
        fileOfSymbol.set(name, file.name);
        for (const e of message.enumType) fileOfSymbol.set(`${name}.${e.name}`, file.name);
        for (const field of message.field) fileOfSymbol.set(`${name}.${field.name}`, file.name);
        messages(`${name}.`, message.nestedType);
      }
    };
    messages(scope, file.messageType);
  }
  return {
    encoded: new Map(files.map((file) => [file.name, toBinary(FileDescriptorProtoSchema, file)])),
    byName: new Map(files.map((file) => [file.name, file])),
    fileOfSymbol,
    extensions,
    services: files.flatMap((file) =>
      file.service.map((service) => (file.package === "" ? service.name : `${file.package}.${service.name}`)),
    ),
  };
}

/** The request of reflection's protocol as the registry reads it. */
interface ReflectionRequest {
  host: string;
  messageRequest:
    | {
        case: "fileByFilename" | "fileContainingSymbol" | "allExtensionNumbersOfType" | "listServices";
        value: string;
      }
    | { case: "fileContainingExtension"; value: { containingType: string; extensionNumber: number } }
    | { case: undefined; value?: undefined };
}

export function reflector(pkg: string): Reflector {
  index ??= buildIndex();
  const { encoded, byName, fileOfSymbol, extensions, services } = index;
  const requestSchema = messageSchema(`${pkg}.ServerReflectionRequest`);
  const responseSchema = messageSchema(`${pkg}.ServerReflectionResponse`);
  // A file and what it imports, transitively, the file first (each once).
  const withDependencies = (name: string): Uint8Array[] => {
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file) || !byName.has(file)) return;
      seen.add(file);
      for (const dependency of byName.get(file)!.dependency) visit(dependency);
    };
    visit(name);
    return [...seen].map((file) => encoded.get(file)!);
  };
  const error = (code: number, message: string) => ({
    case: "errorResponse" as const,
    value: { errorCode: code, errorMessage: message },
  });
  const files = (name: string | undefined, what: string) =>
    name === undefined || !byName.has(name)
      ? error(NOT_FOUND, `${what} not found`)
      : { case: "fileDescriptorResponse" as const, value: { fileDescriptorProto: withDependencies(name) } };
  const respond = (request: ReflectionRequest) => {
    const asked = request.messageRequest;
    switch (asked.case) {
      case "listServices":
        return {
          case: "listServicesResponse" as const,
          value: { service: services.map((name) => ({ name })) },
        };
      case "fileByFilename":
        return files(asked.value, `file ${asked.value}`);
      case "fileContainingSymbol":
        return files(fileOfSymbol.get(asked.value.replace(/^\./, "")), `symbol ${asked.value}`);
      case "fileContainingExtension": {
        const { containingType, extensionNumber } = asked.value;
        return files(
          extensions.get(containingType.replace(/^\./, ""))?.get(extensionNumber),
          `extension ${extensionNumber} of ${containingType}`,
        );
      }
      case "allExtensionNumbersOfType": {
        const type = asked.value.replace(/^\./, "");
        if (protoRegistry().getMessage(type) === undefined)
          return error(NOT_FOUND, `type ${asked.value} not found`);
        return {
          case: "allExtensionNumbersResponse" as const,
          value: {
            baseTypeName: type,
            extensionNumber: [...(extensions.get(type)?.keys() ?? [])].sort((a, b) => a - b),
          },
        };
      }
      default:
        return error(INVALID_ARGUMENT, "the request names no question");
    }
  };
  return {
    answer: (bytes) => {
      const request = fromBinary(requestSchema, bytes) as unknown as ReflectionRequest;
      const init = {
        validHost: request.host,
        originalRequest: request,
        messageResponse: respond(request),
      } as unknown as MessageInitShape<DescMessage>;
      return toBinary(responseSchema, create(responseSchema, init));
    },
  };
}
