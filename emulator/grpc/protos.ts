/**
 * The wire contract of the gRPC face: the .proto files under ./proto (ours, written from the service's published
 * protos; ./proto/README.md says from which and what is left out), compiled at build time by buf into
 * ./descriptor-set.generated.ts (scripts/generate-protos.js; a drift test keeps it current). At run time:
 *
 *   protoFiles()      the files as protoc writes them (FileDescriptorProto), what server reflection serves
 *   protoRegistry()   their messages, enums, services and extensions (@bufbuild/protobuf, the one runtime)
 *   servedMethods()   every RPC with its request and response types and its `(google.api.http)` bindings,
 *                     which name the REST route the same RPC is (see ../routes/table.ts)
 */
import {
  createFileRegistry,
  fromBinary,
  getExtension,
  type DescExtension,
  type DescMessage,
  type FileRegistry,
} from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { FileDescriptorSetSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { DESCRIPTOR_SET_BASE64 } from "./descriptor-set.generated";

/** The reflection protocol's packages: served by ./reflection.ts, not bound to a route. */
export const REFLECTION_PACKAGES: readonly string[] = Object.freeze([
  "grpc.reflection.v1",
  "grpc.reflection.v1alpha",
]);

let files: FileDescriptorProto[] | undefined;

/** Every compiled file, dependencies before their dependents (as buf writes them), decoded once. */
export function protoFiles(): readonly FileDescriptorProto[] {
  files ??= fromBinary(FileDescriptorSetSchema, base64Decode(DESCRIPTOR_SET_BASE64)).file;
  return files;
}

let registry: FileRegistry | undefined;

/** The files' types by full name: for encoding, decoding, the JSON mapping and reflection. Built once. */
export function protoRegistry(): FileRegistry {
  registry ??= createFileRegistry({
    $typeName: "google.protobuf.FileDescriptorSet",
    file: [...protoFiles()],
  });
  return registry;
}

/** A message of the files by its full name; throws when there is none. */
export function messageSchema(typeName: string): DescMessage {
  const schema = protoRegistry().getMessage(typeName);
  if (schema === undefined) throw new Error(`message ${typeName} is not in the proto files`);
  return schema;
}

/** One HTTP binding of an RPC, from its `(google.api.http)` option. */
export interface HttpBinding {
  /** "GET", "POST", "PUT", "PATCH", "DELETE", or a custom pattern's kind. */
  method: string;
  /** As published: "/iam/v2beta1/groups/{group.uid=**}". */
  pathTemplate: string;
  /** The request field the HTTP body fills: "*" (all), a field name, or "" (no body). */
  body: string;
  /** The response field sent as the HTTP body; "" for the whole response. */
  responseBody: string;
}

/** One RPC the emulator serves. */
export interface ServedMethod {
  /** "chainguard.platform.iam.v2beta1.GroupsService". */
  service: string;
  /** "CreateGroup". */
  method: string;
  /** "chainguard.platform.iam.v2beta1.GroupsService/CreateGroup", as grpcurl names it. */
  fullName: string;
  /** The HTTP/2 :path of a call: "/chainguard.platform.iam.v2beta1.GroupsService/CreateGroup". */
  path: string;
  /** Full message names: "chainguard.platform.iam.v2beta1.CreateGroupRequest". */
  requestType: string;
  responseType: string;
  /** The primary binding first, then the additional bindings in order. */
  http: HttpBinding[];
}

let served: ServedMethod[] | undefined;

/** Every RPC of every service in the proto files (reflection's aside), in file and declaration order. */
export function servedMethods(): ServedMethod[] {
  if (served === undefined) {
    const http = protoRegistry().getExtension("google.api.http");
    if (http === undefined) throw new Error("google/api/annotations.proto is not among the proto files");
    served = [];
    for (const file of protoFiles()) {
      if (REFLECTION_PACKAGES.includes(file.package)) continue;
      for (const service of file.service) {
        const serviceName = `${file.package}.${service.name}`;
        for (const method of service.method) {
          const fullName = `${serviceName}/${method.name}`;
          served.push({
            service: serviceName,
            method: method.name,
            fullName,
            path: `/${fullName}`,
            requestType: method.inputType.replace(/^\./, ""),
            responseType: method.outputType.replace(/^\./, ""),
            http:
              method.options === undefined ? [] : httpBindings(getExtension(method.options, http), fullName),
          });
        }
      }
    }
  }
  return served;
}

/** The shape of google.api.HttpRule as the registry reads it (its own generated type is not in this package). */
interface HttpRule {
  pattern: { case: string | undefined; value?: unknown };
  body: string;
  responseBody: string;
  additionalBindings: HttpRule[];
}

/** The method's `(google.api.http)` rule and its additional bindings, flattened. */
function httpBindings(value: unknown, rpc: string): HttpBinding[] {
  const rule = value as HttpRule;
  if (rule.pattern.case === undefined) return [];
  return [binding(rule, rpc), ...rule.additionalBindings.map((additional) => binding(additional, rpc))];
}

function binding(rule: HttpRule, rpc: string): HttpBinding {
  const { pattern } = rule;
  let method: string;
  let path: unknown;
  if (pattern.case === "custom") {
    const custom = pattern.value as { kind: string; path: string };
    [method, path] = [custom.kind, custom.path];
  } else [method, path] = [String(pattern.case).toUpperCase(), pattern.value];
  if (typeof path !== "string" || path === "")
    throw new Error(`${rpc}: an http rule needs exactly one of get/put/post/delete/patch/custom`);
  return { method, pathTemplate: path, body: rule.body, responseBody: rule.responseBody };
}

/**
 * The route-table lines (../routes/table.ts spelling: "POST /iam/v2beta1/groups/{uid}", a custom method as
 * ":verb") a binding answers, best match first: its path with the trailing `{field=**}` as `{uid}`; then, since
 * `**` matches no segment too, the path without it ("POST /iam/v2beta1/groups" is CreateGroup with no parent).
 * Only literal segments and one trailing `**` variable occur in the served protos; anything else throws, so a new
 * kind of template is noticed rather than mismatched.
 */
export function routeLines(binding: HttpBinding): string[] {
  const { segments, verb } = parseTemplate(binding.pathTemplate);
  const suffix = verb === undefined ? "" : `:${verb}`;
  const literals: string[] = [];
  for (const [index, segment] of segments.entries()) {
    if (!segment.startsWith("{")) {
      literals.push(segment);
      continue;
    }
    if (index !== segments.length - 1 || !/^\{[a-z_][a-z0-9_.]*=\*\*\}$/.test(segment)) {
      throw new Error(
        `${binding.method} ${binding.pathTemplate}: only a trailing {field=**} variable is supported`,
      );
    }
    const prefix = `${binding.method} /${literals.join("/")}`;
    return verb === undefined ? [`${prefix}/{uid}`, prefix] : [`${prefix}/{uid}${suffix}`];
  }
  return [`${binding.method} /${literals.join("/")}${suffix}`];
}

/** "/a/{b.c=**}:verb" → segments ["a", "{b.c=**}"] and verb "verb" (a ":" inside braces is no verb). */
function parseTemplate(template: string): { segments: string[]; verb?: string } {
  if (!template.startsWith("/")) throw new Error(`${template}: a path template starts with "/"`);
  const segments: string[] = [];
  let current = "";
  let depth = 0;
  let verb: string | undefined;
  for (let i = 1; i < template.length; i++) {
    const char = template[i]!;
    if (char === "{") depth++;
    if (char === "}") depth--;
    if (depth === 0 && char === ":") {
      verb = template.slice(i + 1);
      break;
    }
    if (depth === 0 && char === "/") {
      segments.push(current);
      current = "";
    } else current += char;
  }
  segments.push(current);
  if (depth !== 0 || segments.some((s) => s === "") || verb === "") {
    throw new Error(`${template}: malformed path template`);
  }
  return verb === undefined ? { segments } : { segments, verb };
}

/** The `(google.api.http)` extension, for tests that read it as the registry does. */
export function httpExtension(): DescExtension {
  const http = protoRegistry().getExtension("google.api.http");
  if (http === undefined) throw new Error("google/api/annotations.proto is not among the proto files");
  return http;
}
