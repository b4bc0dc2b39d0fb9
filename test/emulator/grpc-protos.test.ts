/**
 * The gRPC face's wire contract (emulator/grpc/proto, loaded by emulator/grpc/protos.ts): every file loads on its
 * own, the package definition serves every service, and the Google messages the face sends sit at Google's field
 * numbers, which the real clients decode by.
 */
import * as protoLoader from "@grpc/proto-loader";
import {
  LOADER_OPTIONS,
  loadProtoRoot,
  loadServicePackage,
  protoFiles,
  servedMethods,
} from "../../emulator/grpc/protos";

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
    const files = protoFiles();
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
