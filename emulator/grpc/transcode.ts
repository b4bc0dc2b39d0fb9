/**
 * A gRPC request as the REST request of the same call, by the method's `google.api.http` rule (AIP-127, as
 * grpc-gateway reads it): the path template's variables filled from the request's fields, `body: "x"` → that
 * field's JSON as the body, `body: "*"` → every field the path does not carry, the remaining fields → query
 * parameters (JSON names, nested fields dotted, repeated fields repeated). Then the route of the table the REST
 * face would route that method and path to. May import: ../dispatch (types), ../routes/types, ../errors, ./protos,
 * ./rest-only, @bufbuild/protobuf.
 */
import type { DescField, DescMessage, JsonObject, JsonValue, Registry } from "@bufbuild/protobuf";
import { invalidArgument, unimplemented } from "../errors";
import type { Dispatch } from "../dispatch";
import type { Query } from "../listing";
import type { Route } from "../routes/types";
import { routeLines, type HttpBinding, type ServedMethod } from "./protos";
import { withoutRestOnly } from "./rest-only";

/** The REST request a gRPC call is, routed: a dispatch but for the caller's credentials and signal. */
export type RestCall = Omit<Dispatch, "authorization" | "signal">;

/** One variable of a path template: `{group.uid=**}` → the JSON path ["group", "uid"]. */
interface Variable {
  /** The field path in JSON names. */
  fields: string[];
  /** The template text it replaces. */
  text: string;
}

interface CompiledBinding {
  binding: HttpBinding;
  variables: Variable[];
  /**
   * The path when its trailing `{field=**}` is empty: `**` matches no segment too, so CreateGroup with no parent is
   * `POST /iam/v2beta1/groups`. Only where no other method's rule is that path (an empty GetGroup uid is not
   * ListGroups): undefined there, and the empty variable stays an empty segment, as REST reads it.
   */
  zeroSegmentPath?: string;
  /** The body field's JSON name, "*" or "". */
  body: string;
  /** The response field's JSON name, or "" for the whole response. */
  responseBody: string;
}

/** The routes of the table by method and path, as fastify matches them: a literal path first, then a `{uid}`. */
export interface RouteFinder {
  find(method: string, path: string): { route: Route; uid: string } | undefined;
}

export function routeFinder(routes: readonly Route[]): RouteFinder {
  const literal = new Map<string, Route>();
  const prefixed: { method: string; prefix: string; route: Route }[] = [];
  for (const route of routes) {
    const url = route.url.replace(/::/g, ":");
    if (url.endsWith("/*")) prefixed.push({ method: route.method, prefix: url.slice(0, -1), route });
    else literal.set(`${route.method} ${url}`, route);
  }
  return {
    find: (method, path) => {
      const exact = literal.get(`${method} ${path}`);
      if (exact !== undefined) return { route: exact, uid: "" };
      for (const candidate of prefixed) {
        if (candidate.method !== method || !path.startsWith(candidate.prefix)) continue;
        // As the REST face's `{uid}`: the rest of the path, slashes kept, trailing ones dropped.
        return { route: candidate.route, uid: path.slice(candidate.prefix.length).replace(/\/+$/, "") };
      }
      return undefined;
    },
  };
}

/** Turns one RPC's requests into REST calls, and REST answers into its response JSON. */
export interface Transcoder {
  readonly method: ServedMethod;
  toRest(request: JsonObject): RestCall;
  /** The REST answer as the response message's JSON (`response_body` wraps it in its field). */
  fromRest(answer: unknown): JsonValue;
}

/**
 * The route lines every served method's rules name exactly (their first `routeLines`): a path one method's rule
 * reaches only through an empty `**` must not be one of these.
 */
export function exactRouteLines(methods: readonly ServedMethod[]): Set<string> {
  return new Set(methods.flatMap((m) => m.http.map((binding) => routeLines(binding)[0]!)));
}

export function transcoder(
  method: ServedMethod,
  registry: Registry,
  routes: RouteFinder,
  exactLines: ReadonlySet<string>,
): Transcoder {
  const schema = registry.getMessage(method.requestType);
  const responseSchema = registry.getMessage(method.responseType);
  if (schema === undefined || responseSchema === undefined)
    throw new Error(`${method.fullName}: its messages are not in the proto files`);
  const bindings = method.http.map((binding) => compile(binding, schema, responseSchema, method, exactLines));
  return {
    method,
    toRest: (request) => {
      for (const compiled of bindings) {
        const call = restCall(compiled, request);
        const found = routes.find(call.method, call.path);
        if (found !== undefined) return { ...call, ...found };
      }
      throw unimplemented(`${method.fullName} has no REST route in the emulator`);
    },
    fromRest: (answer) => {
      const value = (answer ?? {}) as JsonValue;
      const field = bindings[0]?.responseBody ?? "";
      // The spec's REST-only members of a v1 answer (./rest-only.ts) are not sent; any other member the
      // response message lacks stays, and its encoding fails.
      return withoutRestOnly(responseSchema, field === "" ? value : { [field]: value });
    },
  };
}

function compile(
  binding: HttpBinding,
  schema: DescMessage,
  responseSchema: DescMessage,
  method: ServedMethod,
  exactLines: ReadonlySet<string>,
): CompiledBinding {
  const variables: Variable[] = [];
  for (const match of binding.pathTemplate.matchAll(/\{([^}=]+)(=[^}]*)?\}/g)) {
    variables.push({ fields: jsonPath(schema, match[1]!.split("."), method), text: match[0] });
  }
  const body =
    binding.body === "" || binding.body === "*" ? binding.body : jsonName(schema, binding.body, method);
  const responseBody =
    binding.responseBody === "" ? "" : jsonName(responseSchema, binding.responseBody, method);
  const zeroSegment = routeLines(binding)[1];
  const zeroSegmentPath =
    zeroSegment !== undefined && !exactLines.has(zeroSegment)
      ? zeroSegment.slice(binding.method.length + 1)
      : undefined;
  return {
    binding,
    variables,
    body,
    responseBody,
    ...(zeroSegmentPath !== undefined ? { zeroSegmentPath } : {}),
  };
}

/** A field path in proto names (`group.uid`) → the same path in JSON names, through the message's fields. */
function jsonPath(schema: DescMessage, names: string[], method: ServedMethod): string[] {
  const path: string[] = [];
  let message: DescMessage | undefined = schema;
  for (const name of names) {
    // The rule names fields as the .proto spells them; the descriptors may carry them camelCased (keepCase off).
    const field: DescField | undefined = message?.fields.find(
      (f) => f.name === name || f.jsonName === camelCase(name),
    );
    if (field === undefined)
      throw new Error(`${method.fullName}: the http rule names no field ${names.join(".")}`);
    path.push(field.jsonName);
    message = field.message;
  }
  return path;
}

const camelCase = (name: string): string => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function jsonName(schema: DescMessage, name: string, method: ServedMethod): string {
  return jsonPath(schema, [name], method)[0]!;
}

function restCall(compiled: CompiledBinding, request: JsonObject): Omit<RestCall, "route" | "uid"> {
  let path = compiled.binding.pathTemplate;
  // What the path does not carry: path variables are taken out (a deep copy; the request stays as decoded).
  const rest = structuredClone(request);
  for (const variable of compiled.variables) {
    const value = take(rest, variable.fields);
    if (
      value !== undefined &&
      typeof value !== "string" &&
      typeof value !== "number" &&
      typeof value !== "boolean"
    )
      throw invalidArgument(`${variable.fields.join(".")} cannot be a path parameter`);
    const text = value === undefined ? "" : String(value);
    path =
      text === "" && compiled.zeroSegmentPath !== undefined && path.endsWith(`/${variable.text}`)
        ? compiled.zeroSegmentPath
        : path.replace(variable.text, text);
  }
  if (compiled.body === "*") return { method: compiled.binding.method, path, query: {}, body: rest };
  if (compiled.body === "")
    return { method: compiled.binding.method, path, query: queryOf(rest), body: undefined };
  // A body field carries its path variables too (`group.uid`), as a grpc-gateway client writes it.
  const body = Object.hasOwn(request, compiled.body) ? request[compiled.body] : undefined;
  delete rest[compiled.body];
  return { method: compiled.binding.method, path, query: queryOf(rest), body };
}

/** The value at a JSON path, removed from its object (undefined if absent). */
function take(object: JsonObject, fields: string[]): JsonValue | undefined {
  let cursor: JsonValue | undefined = object;
  for (const [index, field] of fields.entries()) {
    if (
      cursor === null ||
      typeof cursor !== "object" ||
      Array.isArray(cursor) ||
      !Object.hasOwn(cursor, field)
    )
      return undefined;
    if (index === fields.length - 1) {
      const value: JsonValue | undefined = cursor[field];
      delete cursor[field];
      return value;
    }
    cursor = cursor[field];
  }
  return undefined;
}

/**
 * A message's fields as query parameters, as grpc-gateway reads them: nested messages as dotted names, repeated
 * fields as the parameter repeated (one value: a plain string, as a query parser gives it), scalars and
 * well-known types (Timestamp, FieldMask) as their JSON text.
 */
function queryOf(json: JsonObject): Query {
  // No prototype: a map key from the request (`__proto__`) is a parameter name like any other.
  const query = Object.create(null) as Record<string, string | string[]>;
  const add = (name: string, value: JsonValue): void => {
    if (Array.isArray(value)) {
      const items = value.map((item) => scalarText(name, item));
      if (items.length > 0) query[name] = items.length === 1 ? items[0]! : items;
    } else if (value !== null && typeof value === "object") {
      for (const [member, inner] of Object.entries(value)) add(`${name}.${member}`, inner);
    } else query[name] = scalarText(name, value);
  };
  for (const [name, value] of Object.entries(json)) add(name, value);
  return query;
}

function scalarText(name: string, value: JsonValue): string {
  if (value !== null && typeof value === "object")
    throw invalidArgument(`${name} is a message or list of messages, which a query parameter cannot carry`, [
      { field: name, description: "must be sent in the request body, or not at all, on this method" },
    ]);
  return String(value);
}
