/**
 * A gRPC client of the emulator for tests: @grpc/grpc-js with the project's own protos (loaded by
 * @grpc/proto-loader, as a client of the service would load the published ones), one unary call at a time.
 */
import * as grpc from "@grpc/grpc-js";
import { loadServicePackage } from "./proto-sources";

/** What a call ended with: the response, or the status (its code, message and trailing metadata). */
export type GrpcResult =
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  { ok: true; value: any; code: 0 } | { ok: false; code: number; details: string; metadata: grpc.Metadata };

export interface GrpcClient {
  /** `rpc` as grpcurl names it: "chainguard.platform.iam.v2beta1.GroupsService/ListGroups". */
  call(
    rpc: string,
    request: unknown,
    options?: { token?: string | null; deadlineMs?: number; metadata?: Record<string, string> },
  ): Promise<GrpcResult>;
  close(): void;
}

/** A client of the emulator at `url` (http://host:port) whose calls carry `token` unless told otherwise. */
export function grpcClient(url: string, token: string): GrpcClient {
  const address = new URL(url).host;
  const pkg = grpc.loadPackageDefinition(loadServicePackage());
  const clients = new Map<string, grpc.Client>();
  const clientOf = (service: string): grpc.Client => {
    let client = clients.get(service);
    if (client === undefined) {
      let constructor: unknown = pkg;
      for (const part of service.split(".")) constructor = (constructor as Record<string, unknown>)[part];
      if (typeof constructor !== "function") throw new Error(`no service ${service} in the protos`);
      client = new (constructor as grpc.ServiceClientConstructor)(address, grpc.credentials.createInsecure());
      clients.set(service, client);
    }
    return client;
  };
  return {
    call: (rpc, request, options = {}) => {
      const [service, method] = rpc.split("/") as [string, string];
      const client = clientOf(service) as unknown as Record<
        string,
        (
          request: unknown,
          metadata: grpc.Metadata,
          options: grpc.CallOptions,
          callback: (error: grpc.ServiceError | null, value?: unknown) => void,
        ) => void
      >;
      const metadata = new grpc.Metadata();
      const bearer = options.token === undefined ? token : options.token;
      if (bearer !== null) metadata.set("authorization", `Bearer ${bearer}`);
      for (const [key, value] of Object.entries(options.metadata ?? {})) metadata.set(key, value);
      const callOptions: grpc.CallOptions =
        options.deadlineMs !== undefined ? { deadline: Date.now() + options.deadlineMs } : {};
      return new Promise((resolve) => {
        client[method]!.call(client, request, metadata, callOptions, (error, value) => {
          if (error === null) resolve({ ok: true, value, code: 0 });
          else resolve({ ok: false, code: error.code, details: error.details, metadata: error.metadata });
        });
      });
    },
    close: () => clients.forEach((client) => client.close()),
  };
}
