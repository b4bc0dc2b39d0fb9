/**
 * The wire contract of the gRPC face: the .proto files under ./proto (ours, written from the service's published
 * protos; ./proto/README.md says from which and what is left out), loaded two ways:
 *
 *   loadServicePackage()  the @grpc/proto-loader package definition that @grpc/grpc-js serves
 *   servedMethods()       every RPC with its request and response types and its `(google.api.http)` bindings,
 *                         which name the REST route the same RPC is (see ../routes/table.ts)
 *
 * The proto directory sits next to this file both in the sources and in dist/ (`npm run build` copies it), so
 * one path serves ts-jest, the built CLI and the installed package.
 */
import { existsSync, readdirSync } from "node:fs";
import { isAbsolute, join, posix, relative, sep } from "node:path";
import * as protoLoader from "@grpc/proto-loader";
import * as protobuf from "protobufjs";

/** The include root: import lines ("google/api/annotations.proto", ...) resolve against it as upstream. */
export const PROTO_DIR: string = join(__dirname, "proto");

/**
 * Where imports are looked up, in order: the root, then the v1 directories, whose files import their siblings by
 * bare name ("role.platform.proto") because upstream builds each with its own directory on the include path.
 */
export const INCLUDE_DIRS: readonly string[] = Object.freeze([
  PROTO_DIR,
  ...["platform/iam/v1", "platform/registry/v1"].map((dir) => join(PROTO_DIR, dir)),
]);

/** The file an import names: the first include directory holding it. */
export function resolveImport(target: string): string {
  return (
    INCLUDE_DIRS.map((dir) => join(dir, target)).find((path) => existsSync(path)) ?? join(PROTO_DIR, target)
  );
}

/**
 * How messages become objects, chosen so a gRPC request reads like the REST body of the same call:
 * - keepCase false: lowerCamelCase member names, the proto3 JSON names the REST face speaks;
 * - longs String: int64 (`totalCount`) as a decimal string, as proto3 JSON writes it;
 * - enums String: enum values by name (`CAP_IAM_GROUPS_LIST`), as REST sends them;
 * - defaults false, arrays/objects false: a field the client did not send is absent, not a default, so
 *   "not given" stays distinguishable where the REST handlers care (validation, implied update masks);
 * - oneofs false: no virtual oneof member (REST bodies have none; it would be a member REST never accepts).
 * Timestamp, FieldMask and Empty stay protobuf.js objects ({seconds, nanos}, {paths}); the face converts them.
 */
export const LOADER_OPTIONS: Readonly<protoLoader.Options> = Object.freeze({
  keepCase: false,
  longs: String,
  enums: String,
  bytes: String,
  defaults: false,
  arrays: false,
  objects: false,
  oneofs: false,
  includeDirs: [...INCLUDE_DIRS],
});

/** Every .proto file under PROTO_DIR, relative to it with "/" separators, sorted. */
export function protoFiles(): string[] {
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

/** The package definition of every proto file (services, messages, enums), loaded once. */
export function loadServicePackage(): protoLoader.PackageDefinition {
  packageDefinition ??= protoLoader.loadSync(protoFiles(), { ...LOADER_OPTIONS });
  return packageDefinition;
}

let reflectionPackage: protoLoader.PackageDefinition | undefined;

/**
 * The same files with their fields named as published (`page_size`, not `pageSize`), for server reflection.
 * protobuf.js renames fields when it parses them with keepCase off, and its descriptors carry that name, so the
 * package above describes `pageSize`; a reflection client (grpcurl) then knows no `page_size` and takes JSON by
 * the camelCase name only. Field numbers and types, all the wire depends on, are the same in both. Loaded once.
 */
export function loadReflectionPackage(): protoLoader.PackageDefinition {
  reflectionPackage ??= protoLoader.loadSync(protoFiles(), { ...LOADER_OPTIONS, keepCase: true });
  return reflectionPackage;
}

let root: protobuf.Root | undefined;

/**
 * The same files as a protobuf.js Root, resolved: for reading descriptors (field numbers, http options) and for
 * encoding or decoding a message by its full name (`lookupType("google.rpc.Status")`). Loaded once.
 */
export function loadProtoRoot(): protobuf.Root {
  if (root === undefined) {
    const loaded = new protobuf.Root();
    // Imports resolve as proto-loader resolves them; the well-known google/protobuf files come with protobuf.js
    // (descriptor.proto registered by proto-loader, imported above).
    loaded.resolvePath = (_origin, target) => (isAbsolute(target) ? target : resolveImport(target));
    loaded.loadSync(protoFiles(), { keepCase: true });
    loaded.resolveAll();
    root = loaded;
  }
  return root;
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

const HTTP_OPTION = "(google.api.http)";
const VERBS = ["get", "put", "post", "delete", "patch"] as const;

/** Every RPC of every service in the proto files, in file and declaration order. */
export function servedMethods(): ServedMethod[] {
  const methods: ServedMethod[] = [];
  for (const service of servicesOf(loadProtoRoot())) {
    const serviceName = fullName(service);
    for (const method of service.methodsArray) {
      method.resolve();
      methods.push({
        service: serviceName,
        method: method.name,
        fullName: `${serviceName}/${method.name}`,
        path: `/${serviceName}/${method.name}`,
        requestType: fullName(method.resolvedRequestType!),
        responseType: fullName(method.resolvedResponseType!),
        http: httpBindings(method),
      });
    }
  }
  return methods;
}

function servicesOf(namespace: protobuf.NamespaceBase): protobuf.Service[] {
  const services: protobuf.Service[] = [];
  for (const nested of namespace.nestedArray) {
    if (nested instanceof protobuf.Service) services.push(nested);
    else if (nested instanceof protobuf.Namespace) services.push(...servicesOf(nested));
  }
  return services;
}

/** ".chainguard.platform.iam.v2beta1.Group" → "chainguard.platform.iam.v2beta1.Group". */
function fullName(object: protobuf.ReflectionObject): string {
  return object.fullName.replace(/^\./, "");
}

/** The method's `(google.api.http)` rule and its additional bindings, flattened. */
function httpBindings(method: protobuf.Method): HttpBinding[] {
  const rules = (method.parsedOptions ?? []).flatMap((option: Record<string, unknown>) =>
    Object.prototype.hasOwnProperty.call(option, HTTP_OPTION) ? [option[HTTP_OPTION]] : [],
  );
  const bindings: HttpBinding[] = [];
  for (const rule of rules) {
    const parsed = asRecord(rule, method);
    bindings.push(binding(parsed, method));
    for (const additional of asList(parsed.additional_bindings))
      bindings.push(binding(asRecord(additional, method), method));
  }
  return bindings;
}

function binding(rule: Record<string, unknown>, method: protobuf.Method): HttpBinding {
  const patterns: { method: string; path: unknown }[] = [];
  for (const verb of VERBS) {
    if (rule[verb] !== undefined) patterns.push({ method: verb.toUpperCase(), path: rule[verb] });
  }
  if (rule.custom !== undefined) {
    const custom = asRecord(rule.custom, method);
    patterns.push({ method: String(custom.kind), path: custom.path });
  }
  const [pattern, ...extra] = patterns;
  if (pattern === undefined || extra.length > 0 || typeof pattern.path !== "string") {
    throw new Error(`${method.fullName}: an http rule needs exactly one of get/put/post/delete/patch/custom`);
  }
  return {
    method: pattern.method,
    pathTemplate: pattern.path,
    body: typeof rule.body === "string" ? rule.body : "",
    responseBody: typeof rule.response_body === "string" ? rule.response_body : "",
  };
}

function asRecord(value: unknown, method: protobuf.Method): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`${method.fullName}: malformed (google.api.http) option`);
  }
  return value as Record<string, unknown>;
}

/** protobuf.js gives a repeated option field once as a value, more than once as an array. */
function asList(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
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

/** A field's proto3 JSON name: its `json_name` option (Repo's "sync_config"), else its name in lowerCamelCase. */
export function jsonNameOf(field: protobuf.Field): string {
  const option = field.options?.json_name as unknown;
  if (typeof option === "string") return option;
  return field.name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
