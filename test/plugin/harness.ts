/**
 * Drives the native plugin's gRPC service in process, as the engine would, against the in-process emulator:
 * a real grpc-js client over loopback, requests built from plain values (secrets given as `secret(value)`), and
 * responses turned back into plain values with the secret properties named.
 */
import * as grpc from "@grpc/grpc-js";
import * as providerGrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { startEmulator, type Emulator } from "../../emulator";
import { startPluginServer, type PluginServer } from "../../plugin/server";
import { SECRET_SIG, SIG_KEY, fromStruct, type Props } from "../../plugin/values";

export { UNKNOWN } from "../../provider/core/check";

/** A secret input, as the engine sends it. */
export function secret(value: unknown): Props {
  return { [SIG_KEY]: SECRET_SIG, value };
}

export function struct(value: Props): Struct {
  return Struct.fromJavaScript(value as Parameters<typeof Struct.fromJavaScript>[0]);
}

/** Plain properties and which of them came back secret. */
export interface Plain {
  props: Props;
  secrets: string[];
}

export function plain(value: Struct | undefined): Plain {
  const { props, secrets } = fromStruct(value);
  return { props, secrets: [...secrets].sort() };
}

export function urnOf(type: string, name = "test"): string {
  return `urn:pulumi:dev::project::${type}::${name}`;
}

/** `request`, addressed to a resource of `type`: its URN and its type set, as the engine sends them. */
function addressedTo<R extends { setUrn(urn: string): unknown; setType(type: string): unknown }>(
  type: string,
  request: R,
): R {
  request.setUrn(urnOf(type));
  request.setType(type);
  return request;
}

type Client = providerGrpc.ResourceProviderClient;

export interface PluginHarness {
  emulator: Emulator;
  plugin: PluginServer;
  client: Client;
  /** Calls one unary method; rejects with the service's message. */
  call<Res>(method: keyof Client, request: unknown): Promise<Res>;
  configure(inputs: Props): Promise<providerPb.ConfigureResponse>;
  check(
    type: string,
    news: Props,
    olds?: Props,
  ): Promise<{ inputs: Plain; failures: { property: string; reason: string }[] }>;
  diff(type: string, id: string, olds: Props, news: Props): Promise<providerPb.DiffResponse.AsObject>;
  create(type: string, inputs: Props, preview?: boolean): Promise<{ id: string; outputs: Plain }>;
  read(
    type: string,
    id: string,
    state?: Props,
    inputs?: Props,
  ): Promise<{ id: string; outputs: Plain; inputs: Plain }>;
  update(type: string, id: string, olds: Props, news: Props, preview?: boolean): Promise<Plain>;
  delete(type: string, id: string, state: Props): Promise<void>;
  invoke(token: string, args: Props): Promise<Props>;
  close(): Promise<void>;
}

/**
 * A harness for a test file: started before its tests (its emulator reset before each test) and closed after them;
 * `set` receives it once started.
 */
export function usePluginHarness(set: (harness: PluginHarness) => void): void {
  let harness: PluginHarness | undefined;
  beforeAll(async () => {
    harness = await startPluginHarness();
    set(harness);
  });
  afterAll(async () => harness?.close());
  beforeEach(() => harness?.emulator.reset());
}

export async function startPluginHarness(): Promise<PluginHarness> {
  const emulator = await startEmulator();
  const plugin = await startPluginServer();
  const client = new providerGrpc.ResourceProviderClient(
    `127.0.0.1:${plugin.port}`,
    grpc.credentials.createInsecure(),
  );
  const call = <Res>(method: keyof Client, request: unknown): Promise<Res> =>
    new Promise((resolve, reject) => {
      const fn = client[method] as unknown as (
        req: unknown,
        cb: (err: grpc.ServiceError | null, res: Res) => void,
      ) => void;
      fn.call(client, request, (err, res) => (err ? reject(new Error(err.details)) : resolve(res)));
    });

  const h: PluginHarness = {
    emulator,
    plugin,
    client,
    call,
    configure: (inputs) => {
      const request = new providerPb.ConfigureRequest();
      request.setArgs(struct(inputs));
      request.setAcceptsecrets(true);
      request.setAcceptresources(true);
      return call("configure", request);
    },
    async check(type, news, olds = {}) {
      const request = addressedTo(type, new providerPb.CheckRequest());
      request.setOlds(struct(olds));
      request.setNews(struct(news));
      const response = await call<providerPb.CheckResponse>("check", request);
      return {
        inputs: plain(response.getInputs()),
        failures: response
          .getFailuresList()
          .map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
      };
    },
    async diff(type, id, olds, news) {
      const request = addressedTo(type, new providerPb.DiffRequest());
      request.setId(id);
      request.setOlds(struct(olds));
      request.setNews(struct(news));
      return (await call<providerPb.DiffResponse>("diff", request)).toObject();
    },
    async create(type, inputs, preview = false) {
      const request = addressedTo(type, new providerPb.CreateRequest());
      request.setProperties(struct(inputs));
      request.setPreview(preview);
      const response = await call<providerPb.CreateResponse>("create", request);
      return { id: response.getId(), outputs: plain(response.getProperties()) };
    },
    async read(type, id, state, inputs) {
      const request = addressedTo(type, new providerPb.ReadRequest());
      request.setId(id);
      if (state) request.setProperties(struct(state));
      if (inputs) request.setInputs(struct(inputs));
      const response = await call<providerPb.ReadResponse>("read", request);
      return {
        id: response.getId(),
        outputs: plain(response.getProperties()),
        inputs: plain(response.getInputs()),
      };
    },
    async update(type, id, olds, news, preview = false) {
      const request = addressedTo(type, new providerPb.UpdateRequest());
      request.setId(id);
      request.setOlds(struct(olds));
      request.setNews(struct(news));
      request.setPreview(preview);
      return plain((await call<providerPb.UpdateResponse>("update", request)).getProperties());
    },
    async delete(type, id, state) {
      const request = addressedTo(type, new providerPb.DeleteRequest());
      request.setId(id);
      request.setProperties(struct(state));
      await call<Empty>("delete", request);
    },
    async invoke(token, args) {
      const request = new providerPb.InvokeRequest();
      request.setTok(token);
      request.setArgs(struct(args));
      const response = await call<providerPb.InvokeResponse>("invoke", request);
      return (response.getReturn()?.toJavaScript() ?? {}) as Props;
    },
    async close() {
      client.close();
      await plugin.close();
      await emulator.close();
    },
  };
  await h.configure({ apiUrl: emulator.url, token: secret(emulator.token) });
  return h;
}
