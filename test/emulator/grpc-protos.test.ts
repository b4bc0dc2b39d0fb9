/**
 * The gRPC face's wire contract (emulator/grpc/proto, loaded by emulator/grpc/protos.ts): every file loads on its
 * own; the Google messages the face sends sit at Google's field numbers, which the real clients decode by; the
 * RPCs and the REST route table correspond one to one through the RPCs' `google.api.http` rules; the Capability
 * enum and every served message hold all the OpenAPI names, so nothing REST speaks is unreachable over gRPC.
 */
import { specsInOrder } from "../../emulator/routes/specs";
import * as protoLoader from "@grpc/proto-loader";
import * as protobuf from "protobufjs";
import {
  protoFiles,
  protoRegistry,
  routeLines,
  servedMethods,
  type HttpBinding,
} from "../../emulator/grpc/protos";
import {
  LOADER_OPTIONS,
  jsonNameOf,
  loadProtoRoot,
  loadServicePackage,
  protoSourceFiles,
} from "./proto-sources";
import type { Control } from "../../emulator/routes/control";
import type { CollectionSpec } from "../../emulator/routes/crud";
import { listParameters } from "../../emulator/routes/crud-list";
import { routeTable } from "../../emulator/routes/table";
import { V1_LISTS } from "../../emulator/routes/v1";
import { CapabilityValues } from "../../sdk/schemas/openapi.generated";
import { spec } from "./openapi";

/** A message's fields as "name=number:type" (repeated/map marked), for comparing with published numbers. */
function fieldsOf(typeName: string): string[] {
  const type = loadProtoRoot().lookupType(typeName);
  return type.fieldsArray.map((f) => {
    const kind = f.map
      ? `map<${(f as unknown as { keyType: string }).keyType},${f.type}>`
      : f.repeated
        ? `repeated ${f.type}`
        : f.type;
    return `${f.name}=${f.id}:${kind}`;
  });
}

describe("the proto files", () => {
  test("each loads on its own, its imports resolving under the proto root", () => {
    const files = protoSourceFiles();
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      expect(() => protoLoader.loadSync(file, { ...LOADER_OPTIONS })).not.toThrow();
    }
  });

  test("the package definition holds every service servedMethods lists, each method at its gRPC path", () => {
    const definition = loadServicePackage();
    const methods = servedMethods();
    expect(methods.length).toBeGreaterThan(0);
    for (const m of methods) {
      const service = definition[m.service] as protoLoader.ServiceDefinition | undefined;
      expect(service).toBeDefined();
      const method = service![m.method];
      expect(method?.path).toBe(m.path);
      expect(method?.requestStream).toBe(false);
      expect(method?.responseStream).toBe(false);
      expect(definition[m.requestType]).toBeDefined();
      expect(m.fullName).toBe(`${m.service}/${m.method}`);
    }
  });

  test("the compiled files (buf, at build time) describe every message as the sources read by protobuf.js do", () => {
    const fromSources = new Map<string, string[]>();
    const walk = (namespace: protobuf.NamespaceBase): void => {
      for (const nested of namespace.nestedArray) {
        if (nested instanceof protobuf.Type)
          fromSources.set(
            nested.fullName.slice(1),
            nested.fieldsArray.map((f) => `${f.name}=${f.id}:${jsonNameOf(f)}`),
          );
        if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) walk(nested);
      }
    };
    walk(loadProtoRoot());
    let compared = 0;
    for (const [typeName, fields] of fromSources) {
      if (typeName.startsWith("google.protobuf.")) continue;
      const compiled = protoRegistry().getMessage(typeName);
      expect([typeName, compiled?.fields.map((f) => `${f.name}=${f.number}:${f.jsonName}`)]).toEqual([
        typeName,
        fields,
      ]);
      compared++;
    }
    expect(compared).toBeGreaterThan(100);
    // Every source file is compiled, under its name on upstream's include path (the v1 files by bare name).
    const compiledNames = new Set(protoFiles().map((f) => f.name));
    for (const file of protoSourceFiles())
      expect([file, compiledNames.has(file) || compiledNames.has(file.split("/").pop()!)]).toEqual([
        file,
        true,
      ]);
    expect(servedMethods().find((m) => m.method === "ListGroups")).toBeDefined();
    expect(loadServicePackage()["chainguard.platform.iam.v2beta1.ListGroupsRequest"]).toBeDefined();
  });

  test("the (google.api.http) extension is MethodOptions field 72295728 of type HttpRule", () => {
    const http = loadProtoRoot().lookup("google.api.http");
    expect(http).toMatchObject({ id: 72295728, type: "HttpRule", extend: "google.protobuf.MethodOptions" });
    expect(fieldsOf("google.api.HttpRule")).toEqual([
      "selector=1:string",
      "get=2:string",
      "put=3:string",
      "post=4:string",
      "delete=5:string",
      "patch=6:string",
      "custom=8:CustomHttpPattern",
      "body=7:string",
      "response_body=12:string",
      "additional_bindings=11:repeated HttpRule",
    ]);
  });

  test("google.rpc.Status and the details the face sends are at Google's numbers", () => {
    expect(fieldsOf("google.rpc.Status")).toEqual([
      "code=1:int32",
      "message=2:string",
      "details=3:repeated google.protobuf.Any",
    ]);
    expect(fieldsOf("google.rpc.ErrorInfo")).toEqual([
      "reason=1:string",
      "domain=2:string",
      "metadata=3:map<string,string>",
    ]);
    expect(fieldsOf("google.rpc.BadRequest")).toEqual(["field_violations=1:repeated FieldViolation"]);
    expect(fieldsOf("google.rpc.BadRequest.FieldViolation")).toEqual([
      "field=1:string",
      "description=2:string",
      "reason=3:string",
      "localized_message=4:LocalizedMessage",
    ]);
    expect(fieldsOf("google.rpc.PreconditionFailure")).toEqual(["violations=1:repeated Violation"]);
    expect(fieldsOf("google.rpc.PreconditionFailure.Violation")).toEqual([
      "type=1:string",
      "subject=2:string",
      "description=3:string",
    ]);
  });

  test("every RPC has at least one http binding, each naming one method and a path", () => {
    for (const m of servedMethods()) {
      expect([m.fullName, m.http.length > 0]).toEqual([m.fullName, true]);
      for (const b of m.http) {
        expect(b.method).toMatch(/^(GET|PUT|POST|PATCH|DELETE)$/);
        expect(b.pathTemplate).toMatch(/^\//);
      }
    }
  });
});

/** The table's lines, back from fastify's spelling ("/*" is the final {uid}, "::" an escaped ":"). */
const tableLines = routeTable({} as Control).map(
  (r) => `${r.method} ${r.url.replace(/\/\*$/, "/{uid}").replace(/::/g, ":")}`,
);

/** Routes with no RPC by nature: the emulator's control endpoints and its test OIDC issuer's documents. */
const NOT_RPCS = /^(\w+ \/_emulator\/|GET \/oidc\/)/;

/**
 * Served over REST with no published RPC behind them (v1 has no Get and updates by PUT only): the Terraform
 * provider's v1 REST habits, which no gRPC client can call.
 */
const REST_ONLY = ["GET /iam/v1/groups/{uid}", "PATCH /iam/v1/groups/{uid}"];

interface Bound {
  rpc: string;
  binding: HttpBinding;
  /** Matched with its trailing `**` variable taking no segment (routeLines' second line). */
  empty: boolean;
}

/**
 * Routes a binding answers with its `**` variable empty. Allowed only where meant, so a list route whose List RPC
 * went missing is not silently taken for its Get with an empty uid.
 */
const EMPTY_VARIABLE = ["POST /iam/v2beta1/groups"];

/** Each route line → the binding that answers it: the best-ranked match (see routeLines), which must be unique. */
function answering(lines: string[]): Map<string, Bound[]> {
  const candidates = new Map<string, { bound: Bound; rank: number }[]>();
  for (const m of servedMethods()) {
    for (const binding of m.http) {
      routeLines(binding).forEach((line, rank) => {
        const list = candidates.get(line) ?? [];
        list.push({ bound: { rpc: m.fullName, binding, empty: rank > 0 }, rank });
        candidates.set(line, list);
      });
    }
  }
  const result = new Map<string, Bound[]>();
  for (const line of lines) {
    const found = candidates.get(line) ?? [];
    const best = Math.min(...found.map((c) => c.rank));
    result.set(
      line,
      found.filter((c) => c.rank === best).map((c) => c.bound),
    );
  }
  return result;
}

describe("the RPCs and the REST route table", () => {
  const served = tableLines.filter((line) => !NOT_RPCS.test(line));
  const byLine = answering(served);

  test("every served route is exactly one RPC's binding (but the REST-only ones)", () => {
    const unmatched = served.filter((line) => byLine.get(line)!.length === 0);
    expect(unmatched).toEqual(REST_ONLY);
    const ambiguous = served.filter((line) => byLine.get(line)!.length > 1);
    expect(ambiguous).toEqual([]);
  });

  test("a binding answers with its ** variable empty only where that is meant (an organization's create)", () => {
    const empty = served.filter((line) => byLine.get(line)!.some((b) => b.empty));
    expect(empty).toEqual(EMPTY_VARIABLE);
  });

  test("every RPC binding answers at least one served route", () => {
    const key = (b: Pick<Bound, "rpc" | "binding">) =>
      `${b.rpc}: ${b.binding.method} ${b.binding.pathTemplate}`;
    const used = new Set([...byLine.values()].flat().map(key));
    const unused = servedMethods()
      .flatMap((m) => m.http.map((binding) => key({ rpc: m.fullName, binding })))
      .filter((k) => !used.has(k));
    expect(unused).toEqual([]);
  });

  test("the routes read by other names are the RPCs the real clients call", () => {
    const rpcOf = (line: string) => byLine.get(line)!.map((b) => b.rpc);
    expect(rpcOf("POST /iam/v2beta1/groups")).toEqual([
      "chainguard.platform.iam.v2beta1.GroupsService/CreateGroup",
    ]);
    expect(rpcOf("GET /iam/v2beta1/groups")).toEqual([
      "chainguard.platform.iam.v2beta1.GroupsService/ListGroups",
    ]);
    expect(rpcOf("GET /iam/v2beta1/identities:lookupIdentity")).toEqual([
      "chainguard.platform.iam.v2beta1.IdentitiesService/LookupIdentity",
    ]);
    expect(rpcOf("GET /sts/exchange")).toEqual(["chainguard.platform.oidc.SecurityTokenService/Exchange"]);
    expect(rpcOf("POST /sts/exchange")).toEqual(["chainguard.platform.oidc.SecurityTokenService/Exchange"]);
    expect(rpcOf("GET /iam/v1/groups")).toEqual(["chainguard.platform.iam.Groups/List"]);
    expect(rpcOf("PUT /iam/v1/groups/{uid}")).toEqual(["chainguard.platform.iam.Groups/Update"]);
    expect(rpcOf("GET /iam/v1/identities/lookup")).toEqual(["chainguard.platform.iam.Identities/Lookup"]);
  });

  test("a route added without its RPC, or an RPC without its route, is caught", () => {
    const extra = answering([...served, "GET /iam/v2beta1/widgets"]);
    expect(extra.get("GET /iam/v2beta1/widgets")).toEqual([]);
    const fewer = answering(served.filter((line) => line !== "GET /registry/v2beta1/tags"));
    const used = new Set([...fewer.values()].flat().map((b) => b.rpc));
    expect(used.has("chainguard.platform.registry.v2beta1.TagsService/ListTags")).toBe(false);
  });
});

describe("routeLines", () => {
  const binding = (method: string, pathTemplate: string): HttpBinding => ({
    method,
    pathTemplate,
    body: "",
    responseBody: "",
  });

  test("a trailing ** variable is the table's {uid}, and matches no segment too", () => {
    expect(routeLines(binding("PATCH", "/iam/v2beta1/groups/{group.uid=**}"))).toEqual([
      "PATCH /iam/v2beta1/groups/{uid}",
      "PATCH /iam/v2beta1/groups",
    ]);
    expect(routeLines(binding("POST", "/x/{uid=**}:verb"))).toEqual(["POST /x/{uid}:verb"]);
    expect(routeLines(binding("GET", "/iam/v2beta1/identities:lookupIdentity"))).toEqual([
      "GET /iam/v2beta1/identities:lookupIdentity",
    ]);
  });

  test("templates the table cannot spell are refused, naming the template", () => {
    for (const template of ["/a/{id}", "/a/{id=*}", "/a/{id=**}/b", "a/b", "/a//b", "/a/{id=**", "/a:"]) {
      expect(() => routeLines(binding("GET", template))).toThrow(template);
    }
  });
});

/** Capabilities in the SDK's protos that the OpenAPI of the spec does not list yet (added upstream after it). */
const CAPABILITIES_NEWER_THAN_OPENAPI = [
  "CAP_LIBRARIES_REMOTE_REGISTRIES_CREATE",
  "CAP_LIBRARIES_REMOTE_REGISTRIES_LIST",
  "CAP_LIBRARIES_REMOTE_REGISTRIES_DELETE",
];

describe("the Capability enum", () => {
  const capability = loadProtoRoot().lookupEnum("chainguard.capabilities.Capability");
  const names = Object.keys(capability.values);

  test("holds every capability the OpenAPI names, and only the known newer ones besides", () => {
    expect(CapabilityValues.filter((name) => !names.includes(name))).toEqual([]);
    expect(names.filter((name) => !(CapabilityValues as readonly string[]).includes(name))).toEqual(
      CAPABILITIES_NEWER_THAN_OPENAPI,
    );
  });

  test("roles carry capabilities as this enum over gRPC", () => {
    for (const type of [
      "chainguard.platform.iam.v2beta1.Role",
      "chainguard.platform.iam.v2beta1.GroupInviteRole",
    ]) {
      const field = loadProtoRoot().lookupType(type).fields.capabilities!;
      field.resolve();
      expect([type, field.repeated, field.resolvedType]).toEqual([type, true, capability]);
    }
  });

  test("each value is a distinct number; UNKNOWN is 0", () => {
    const numbers = Object.values(capability.values);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(capability.values.UNKNOWN).toBe(0);
  });
});

/** OpenAPI objects with no message here: their RPCs are not served (see emulator/grpc/proto/README.md). */
const OPENAPI_ONLY: Record<string, string> = {
  "platform.iam.v2beta1.LookupGroupResponse": "GroupsService/LookupGroup is not served",
  "platform.oidc.TokenPair": "SecurityTokenService/ExchangeRefreshToken is not served",
};

describe("the served messages and the OpenAPI objects", () => {
  const schemas = spec.components.schemas as Record<string, { properties?: Record<string, unknown> }>;
  const objects = Object.entries(schemas).filter(
    ([name, schema]) => schema.properties !== undefined && !name.startsWith("google.protobuf."),
  );
  /** "platform.iam.v2beta1.Group" → chainguard.platform.iam.v2beta1.Group; google.rpc.* as named. */
  const messageOf = (name: string): protobuf.Type | undefined => {
    const found = loadProtoRoot().lookup(name.startsWith("platform.") ? `chainguard.${name}` : name);
    return found instanceof protobuf.Type ? found : undefined;
  };

  test("every OpenAPI object has its message, but those of RPCs not served", () => {
    const missing = objects.map(([name]) => name).filter((name) => messageOf(name) === undefined);
    expect(missing).toEqual(Object.keys(OPENAPI_ONLY));
  });

  test("each message has a field of every member's JSON name", () => {
    expect(objects.length).toBeGreaterThan(40);
    const unreachable: string[] = [];
    for (const [name, schema] of objects) {
      const message = messageOf(name);
      if (message === undefined) continue;
      const jsonNames = new Set(message.fieldsArray.map(jsonNameOf));
      for (const member of Object.keys(schema.properties!)) {
        if (!jsonNames.has(member)) unreachable.push(`${name}.${member}`);
      }
    }
    expect(unreachable).toEqual([]);
  });

  test("JSON names follow proto3: lowerCamelCase, or the json_name option", () => {
    const repo = loadProtoRoot().lookupType("chainguard.platform.registry.v2beta1.Repo");
    expect(jsonNameOf(repo.fields.sync_config!)).toBe("sync_config");
    expect(jsonNameOf(repo.fields.active_tags!)).toBe("activeTags");
  });
});

/** A request message's scalar field paths by JSON name, a nested message's as "uidp.childrenOf". */
function fieldPaths(typeName: string, prefix = ""): string[] {
  return loadProtoRoot()
    .lookupType(typeName)
    .fieldsArray.flatMap((field) => {
      field.resolve();
      const path = prefix + jsonNameOf(field);
      const nested = field.resolvedType;
      return nested instanceof protobuf.Type && nested.fullName !== ".google.protobuf.Timestamp"
        ? fieldPaths(nested.fullName.slice(1), `${path}.`)
        : [path];
    });
}

/** The RPC whose GET binding is exactly this path: a list. */
function listRpc(path: string) {
  const found = servedMethods().filter((m) =>
    m.http.some((b) => b.method === "GET" && b.pathTemplate === path),
  );
  expect([path, found.length]).toEqual([path, 1]);
  return found[0]!;
}

describe("the lists' query parameters and their request messages", () => {
  const collections: CollectionSpec[] = specsInOrder();

  test.each(collections.map((spec) => [spec.prefix, spec] as const))(
    "GET %s takes exactly its request message's fields",
    (_prefix, spec) => {
      const rpc = listRpc(spec.prefix);
      expect(Object.keys(listParameters(spec)).sort()).toEqual(fieldPaths(rpc.requestType).sort());
    },
  );

  test.each(V1_LISTS.map((list) => [list.path, list] as const))(
    "v1 GET %s takes exactly the fields of the message it cites",
    (_path, list) => {
      const rpc = listRpc(list.path);
      expect(rpc.requestType.split(".").pop()).toBe(list.message);
      expect(Object.keys(list.params).sort()).toEqual(fieldPaths(rpc.requestType).sort());
    },
  );
});
