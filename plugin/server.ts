/**
 * The ResourceProvider gRPC service of the native plugin `pulumi-resource-platform`: the engine talks to it
 * directly, with the schema's type tokens (`platform:iam:Group`), instead of through the dynamic-provider host.
 *
 * A thin adapter: every resource method calls the resource's operations (./resources, provider/core
 * ResourceOperations), the same ones the dynamic provider is made of, so validation, error messages, create
 * recovery, drift, not-found handling and the diff (computed once, with its per-property detail) are shared. What
 * only this front says is added here: the engine's wire form (detailed diff, stables), previews of create and update,
 * import (a Read with no state), and secrets kept secret on the way back.
 *
 * Why not @pulumi/pulumi's `provider.main`: in 3.248 it does not forward Configure, fails a Read without state
 * (`pulumi import`) and hands raw secret wrappers to handlers.
 */
import * as grpc from "@grpc/grpc-js";
import * as providerGrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import * as pluginPb from "@pulumi/pulumi/proto/plugin_pb";
import { Any } from "google-protobuf/google/protobuf/any_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { UNKNOWN, containsUnknown } from "../provider/core/check";
import { closeClients, configureFromLookup, currentSettings } from "../provider/core/client";
import { isEmptyValue } from "../provider/core/diff";
import { previewCreate, previewUpdate } from "../provider/core/preview";
import { setSettingsSource } from "../provider/core/program-client";
import { DATA_SOURCES } from "./data-sources";
import {
  CONFIG_INPUTS,
  SECRET_CONFIG_INPUTS,
  configFailures,
  inputsOfVariables,
  lookupOf,
} from "./provider-config";
import { resourceOf, typeOfUrn, type ServedResource } from "./resources";
import { fromStruct, isEmptyStruct, toStruct, type Props } from "./values";
import packageJson from "../package.json";
import schema from "../schema.json";

/** The plugin's version: the package's (GetPluginInfo, and the schema's `version`). */
export const PLUGIN_VERSION: string = packageJson.version;

const Kind = providerPb.PropertyDiff.Kind;
const DiffChanges = providerPb.DiffResponse.DiffChanges;

type Failure = { property: string; reason: string };

function checkResponse(inputs: Props, secrets: Iterable<string>, failures: Failure[] = []) {
  const response = new providerPb.CheckResponse();
  response.setInputs(toStruct(inputs, secrets));
  response.setFailuresList(
    failures.map((f) => {
      const failure = new providerPb.CheckFailure();
      failure.setProperty(f.property);
      failure.setReason(f.reason);
      return failure;
    }),
  );
  return response;
}

/** How one property changed, for the engine's detailed diff. */
function propertyDiff(kind: providerPb.PropertyDiff.Kind): providerPb.PropertyDiff {
  const diff = new providerPb.PropertyDiff();
  diff.setKind(kind);
  // The comparison is between the old OUTPUTS (state) and the new inputs, like the dynamic path's diff.
  diff.setInputdiff(false);
  return diff;
}

/** The union of several sets of property names, as a set. */
function union(...sets: Iterable<string>[]): Set<string> {
  const out = new Set<string>();
  for (const set of sets) for (const key of set) out.add(key);
  return out;
}

/** The secret properties of a resource's outputs: its own secrets, and whatever the program made secret. */
function outputSecrets(resource: ServedResource, ...fromRequest: Iterable<string>[]): Set<string> {
  return union(resource.declaration.secrets, ...fromRequest);
}

const KIND_OF_CHANGE = {
  add: [Kind.ADD, Kind.ADD_REPLACE],
  delete: [Kind.DELETE, Kind.DELETE_REPLACE],
  update: [Kind.UPDATE, Kind.UPDATE_REPLACE],
} as const;

/**
 * The update mask of each resource's last diff, by URN, until the preview of its update uses it: the engine asks for
 * the diff, then previews the update of the same inputs, and the preview needs the mask the diff already computed.
 */
const lastMasks = new Map<string, readonly string[]>();

/** The resource's diff of its state against new inputs, in the engine's form: one line per changed property. */
async function diffResource(
  resource: ServedResource,
  id: string,
  olds: Props,
  news: Props,
  urn?: string,
): Promise<providerPb.DiffResponse> {
  // The URN goes along: the access review's lines go under the resource.
  const diff = await resource.operations.diff(id, olds, news, urn);
  if (urn !== undefined) {
    if (diff.changes && diff.replaces.length === 0) lastMasks.set(urn, diff.changedFields);
    else lastMasks.delete(urn);
  }
  const response = new providerPb.DiffResponse();
  const detailed = response.getDetaileddiffMap();
  for (const [key, change] of diff.properties)
    detailed.set(key, propertyDiff(KIND_OF_CHANGE[change.kind][change.replaces ? 1 : 0]));
  response.setChanges(diff.changes ? DiffChanges.DIFF_SOME : DiffChanges.DIFF_NONE);
  response.setDiffsList([...diff.properties.keys()].sort());
  response.setReplacesList(diff.replaces);
  response.setHasdetaileddiff(true);
  response.setDeletebeforereplace(diff.deleteBeforeReplace);
  if (diff.replaces.length === 0) {
    // What an update leaves as it is: the uid and creation time, and every property it does not change.
    const stable = [...resource.declaration.properties, "adopt"];
    response.setStablesList(stable.filter((key) => !diff.properties.has(key)));
  }
  return response;
}

/** Drops "", [] and {} members: absent and empty are the same to every resource's diff. */
function withoutEmpty(props: Props): Props {
  return Object.fromEntries(Object.entries(props).filter(([, value]) => !isEmptyValue(value)));
}

/** Options of the server. */
export interface PluginServerOptions {
  /** Where to listen; default 127.0.0.1:0 (a free port). */
  address?: string;
}

export interface PluginServer {
  port: number;
  server: grpc.Server;
  /** Stops the server and closes every client. */
  close(): Promise<void>;
}

/** Wraps an async handler into grpc-js's callback form; a thrown error reaches the engine as its message. */
function unary<Req, Res>(handler: (request: Req) => Promise<Res>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    handler(call.request).then(
      (response) => callback(null, response),
      (err: unknown) => {
        if (err instanceof InitFailed) return callback(err.serviceError, null);
        const message = err instanceof Error ? err.message : String(err);
        callback({ code: grpc.status.UNKNOWN, details: message, message } as grpc.ServiceError, null);
      },
    );
  };
}

/**
 * A create or update that failed after changing something: the error carries the state to record (`id`,
 * `properties`, `reasons`: the contract the dynamic-provider host reads too), and the engine gets it as a
 * pulumirpc.ErrorResourceInitFailed detail, records the resource with its initErrors and updates it next run.
 */
class InitFailed extends Error {
  readonly serviceError: grpc.ServiceError;
  constructor(message: string, id: string, properties: Struct) {
    super(message);
    const detail = new providerPb.ErrorResourceInitFailed();
    detail.setId(id);
    detail.setProperties(properties);
    detail.setReasonsList([message]);
    const any = new Any();
    any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    const status = new Status();
    status.setCode(grpc.status.UNKNOWN);
    status.setMessage(message);
    status.addDetails(any);
    const metadata = new grpc.Metadata();
    metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
    this.serviceError = Object.assign(new Error(message), {
      code: grpc.status.UNKNOWN,
      details: message,
      metadata,
    }) as grpc.ServiceError;
  }
}

/** `err` as the engine should see it: with the state to record when it carries one (see InitFailed). */
function withPartialState(err: unknown, secrets: Iterable<string>): unknown {
  const partial = err as { id?: unknown; properties?: unknown; message?: unknown } | null;
  if (partial === null || typeof partial !== "object" || typeof partial.id !== "string") return err;
  if (typeof partial.properties !== "object" || partial.properties === null) return err;
  return new InitFailed(String(partial.message), partial.id, toStruct(partial.properties as Props, secrets));
}

/** The service implementation (exported for tests, which may also serve it themselves). */
export function providerService(): providerGrpc.IResourceProviderServer {
  // Data sources use the settings Configure gave, not a program's config (there is no program here).
  setSettingsSource(currentSettings);
  let configuredWithUnknowns = false;

  const service: Partial<providerGrpc.IResourceProviderServer> = {
    getPluginInfo: unary(async () => {
      const info = new pluginPb.PluginInfo();
      info.setVersion(PLUGIN_VERSION);
      return info;
    }),

    getSchema: unary(async (request: providerPb.GetSchemaRequest) => {
      if (request.getSubpackageName()) throw new Error("this provider has no subpackages");
      const response = new providerPb.GetSchemaResponse();
      response.setSchema(JSON.stringify(schema));
      return response;
    }),

    checkConfig: unary(async (request: providerPb.CheckRequest) => {
      const news = fromStruct(request.getNews());
      const failures = configFailures(news.props, (v) => containsUnknown(v));
      return checkResponse(news.props, union(news.secrets, SECRET_CONFIG_INPUTS), failures);
    }),

    diffConfig: unary(async (request: providerPb.DiffRequest) => {
      const olds = fromStruct(request.getOlds()).props;
      const news = fromStruct(request.getNews()).props;
      const response = new providerPb.DiffResponse();
      const changed = CONFIG_INPUTS.filter(
        (key) =>
          containsUnknown(news[key]) ||
          JSON.stringify(olds[key] ?? null) !== JSON.stringify(news[key] ?? null),
      );
      // New credentials or endpoints reconfigure the provider; they never replace what it manages.
      for (const key of changed) response.getDetaileddiffMap().set(key, propertyDiff(Kind.UPDATE));
      response.setChanges(changed.length > 0 ? DiffChanges.DIFF_SOME : DiffChanges.DIFF_NONE);
      response.setDiffsList(changed);
      response.setHasdetaileddiff(true);
      return response;
    }),

    configure: unary(async (request: providerPb.ConfigureRequest) => {
      const inputs = request.hasArgs()
        ? fromStruct(request.getArgs()).props
        : inputsOfVariables(request.getVariablesMap().getEntryList());
      // Unknown at preview (an explicit provider fed by another resource's output): configure what is known,
      // and let Check skip its "is there a usable API" test until the values are.
      const known = Object.fromEntries(Object.entries(inputs).filter(([, v]) => !containsUnknown(v)));
      configuredWithUnknowns = Object.keys(known).length < Object.keys(inputs).length;
      await configureFromLookup(lookupOf(known));
      const response = new providerPb.ConfigureResponse();
      response.setAcceptsecrets(true);
      response.setAcceptresources(true);
      response.setSupportspreview(true);
      return response;
    }),

    check: unary(async (request: providerPb.CheckRequest) => {
      const resource = resourceOf(request.getType() || typeOfUrn(request.getUrn()));
      const olds = fromStruct(request.getOlds());
      const news = fromStruct(request.getNews());
      // The kit tests for a usable API unless the profile is unknown: with the provider's own config still
      // unknown, present the profile as unknown to it, and give the program's back.
      const probe = configuredWithUnknowns ? { ...news.props, profile: UNKNOWN } : news.props;
      // The URN goes along: the resources that claim bindings (provider/iam/access) name their conflicts by it.
      const result = await resource.operations.check(olds.props, probe, request.getUrn());
      const inputs = { ...result.inputs, profile: news.props.profile };
      if (inputs.profile === undefined) delete inputs.profile;
      return checkResponse(inputs, union(news.secrets, resource.declaration.secrets), result.failures);
    }),

    diff: unary(async (request: providerPb.DiffRequest) => {
      const resource = resourceOf(request.getType() || typeOfUrn(request.getUrn()));
      const olds = fromStruct(request.getOlds()).props;
      const news = fromStruct(request.getNews()).props;
      return diffResource(resource, request.getId(), olds, news, request.getUrn() || undefined);
    }),

    create: unary(async (request: providerPb.CreateRequest) => {
      const resource = resourceOf(request.getType() || typeOfUrn(request.getUrn()));
      const inputs = fromStruct(request.getProperties());
      const secrets = outputSecrets(resource, inputs.secrets);
      const response = new providerPb.CreateResponse();
      if (request.getPreview()) {
        const outputs = previewCreate(resource.declaration, inputs.props);
        response.setId("");
        response.setProperties(toStruct(outputs, secrets));
        return response;
      }
      const result = await resource.operations.create(inputs.props).catch((err: unknown) => {
        throw withPartialState(err, secrets);
      });
      response.setId(result.id);
      response.setProperties(toStruct(result.outs, secrets));
      return response;
    }),

    read: unary(async (request: providerPb.ReadRequest) => {
      const resource = resourceOf(request.getType() || typeOfUrn(request.getUrn()));
      const state = fromStruct(request.getProperties());
      const oldInputs = fromStruct(request.getInputs());
      // No state (`pulumi import`, or a `get` by id): the inputs are rebuilt from the live object alone.
      const props = isEmptyStruct(request.getProperties()) ? undefined : state.props;
      const result = await resource.operations.read(request.getId(), props);
      const response = new providerPb.ReadResponse();
      if (result.id === undefined || result.id === "") return response; // gone: the engine drops it
      response.setId(result.id);
      response.setProperties(
        toStruct(result.props ?? {}, outputSecrets(resource, state.secrets, oldInputs.secrets)),
      );
      const inputs = result.inputs ?? {};
      // An import's inputs are what a program would write: no empty values, which the diff equates with absent
      // ones and which some checks refuse (an invite's email must be an address when given).
      response.setInputs(
        toStruct(
          props === undefined ? withoutEmpty(inputs) : inputs,
          union(resource.declaration.secrets, oldInputs.secrets),
        ),
      );
      return response;
    }),

    update: unary(async (request: providerPb.UpdateRequest) => {
      const resource = resourceOf(request.getType() || typeOfUrn(request.getUrn()));
      const olds = fromStruct(request.getOlds());
      const news = fromStruct(request.getNews());
      const secrets = outputSecrets(resource, olds.secrets, news.secrets);
      const response = new providerPb.UpdateResponse();
      const mask = lastMasks.get(request.getUrn());
      lastMasks.delete(request.getUrn());
      if (request.getPreview()) {
        const outputs = previewUpdate(resource.declaration, olds.props, news.props, mask);
        response.setProperties(toStruct(outputs, secrets));
        return response;
      }
      const result = await resource.operations
        .update(request.getId(), olds.props, news.props)
        .catch((err: unknown) => {
          throw withPartialState(err, secrets);
        });
      response.setProperties(toStruct(result.outs, secrets));
      return response;
    }),

    delete: unary(async (request: providerPb.DeleteRequest) => {
      const resource = resourceOf(request.getType() || typeOfUrn(request.getUrn()));
      await resource.operations.delete(request.getId(), fromStruct(request.getProperties()).props);
      return new Empty();
    }),

    invoke: unary(async (request: providerPb.InvokeRequest) => {
      const token = request.getTok();
      const dataSource = DATA_SOURCES.get(token);
      if (dataSource === undefined) {
        throw new Error(
          `unknown function ${token}; this provider serves ${[...DATA_SOURCES.keys()].join(", ")}`,
        );
      }
      const args = fromStruct(request.getArgs()).props;
      const result = (await dataSource(args)) as Props;
      const response = new providerPb.InvokeResponse();
      response.setReturn(toStruct(result));
      return response;
    }),

    cancel: unary(async () => new Empty()),

    getMapping: unary(async () => {
      const response = new providerPb.GetMappingResponse();
      response.setProvider("");
      response.setData(new Uint8Array());
      return response;
    }),

    getMappings: unary(async () => new providerPb.GetMappingsResponse()),

    attach: unary(async () => new Empty()),
  };
  return service as providerGrpc.IResourceProviderServer;
}

/** Starts the service on 127.0.0.1 (a free port unless told otherwise). */
export async function startPluginServer(options: PluginServerOptions = {}): Promise<PluginServer> {
  const server = new grpc.Server({
    // The engine sends whole states; the default 4 MB would refuse large ones.
    "grpc.max_receive_message_length": 256 * 1024 * 1024,
  });
  server.addService(providerGrpc.ResourceProviderService, providerService());
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      options.address ?? "127.0.0.1:0",
      grpc.ServerCredentials.createInsecure(),
      (err, bound) => (err ? reject(err) : resolve(bound)),
    ),
  );
  return {
    port,
    server,
    close: async () => {
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      await closeClients();
    },
  };
}
