/**
 * Each RPC bound, once at start-up, to the route of the table its `google.api.http` rule names (AIP-127, as
 * grpc-gateway reads it), and each call turned into that route's dispatch without routing anything again: the
 * path variable's field is the route's `{uid}`, `body: "x"` → that field's JSON as the body, `body: "*"` → every
 * field the path does not carry, the remaining fields → query parameters (JSON names, nested fields dotted,
 * repeated fields repeated), as the REST face's parsers would give them to the same handler.
 *
 * The path variable is a trailing `{field=**}`, which matches no segment too: where the table has a route for the
 * path without it that no other RPC's rule names (`POST /iam/v2beta1/groups`, an organization's create, for
 * CreateGroup with no parent), an empty value binds there; elsewhere an empty value is the `{uid}` route's empty
 * uid, as REST reads `GET /iam/v2beta1/groups/`.
 */
import type { DescField, DescMessage, JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { Dispatch } from "../dispatch";
import { invalidArgument } from "../errors";
import type { Query } from "../listing";
import type { Route } from "../routes/types";
import { nameMap } from "./name-map";
import { messageSchema, routeLines, type HttpBinding, type ServedMethod } from "./protos";

/** The REST request a gRPC call is: a dispatch but for the caller's credentials and signal. */
export type RestCall = Omit<Dispatch, "authorization" | "signal">;

/** One RPC bound to its route: its calls as dispatches of that route, its answers as the response's JSON. */
export interface Binding {
  readonly method: ServedMethod;
  /** The route line it is bound to, in the table's spelling ("GET /iam/v2beta1/groups/{uid}"). */
  readonly line: string;
  toRest(request: JsonObject): RestCall;
  /** The REST answer as the response message's JSON (`response_body` wraps it in its field). */
  fromRest(answer: unknown): JsonValue;
}

/** A route of the table by its line ("POST /iam/v2beta1/groups/{uid}", the table's own spelling). */
export function lineOf(route: Route): string {
  return `${route.method} ${route.url.replace(/\/\*$/, "/{uid}").replace(/::/g, ":")}`;
}

/**
 * Every method bound to its route; a method none of whose rules names a route of the table is left out (grpc-js
 * answers it UNIMPLEMENTED, as the REST face answers a path it lacks). Throws when a rule names a field its
 * request message lacks: the protos and the table are checked at start-up, not per call.
 */
export function bindMethods(methods: readonly ServedMethod[], routes: readonly Route[]): Binding[] {
  const byLine = new Map(routes.map((route) => [lineOf(route), route]));
  // A path one method's rule names exactly is that method's: another's `**` does not bind there when empty.
  const exact = new Set(methods.flatMap((m) => m.http.map((binding) => routeLines(binding)[0]!)));
  const bound: Binding[] = [];
  for (const method of methods) {
    for (const binding of method.http) {
      const [line, emptyLine] = routeLines(binding);
      const route = byLine.get(line!);
      if (route === undefined) continue;
      const empty = emptyLine !== undefined && !exact.has(emptyLine) ? byLine.get(emptyLine) : undefined;
      bound.push(bind(method, binding, line!, route, empty));
      break;
    }
  }
  return bound;
}

function bind(
  method: ServedMethod,
  binding: HttpBinding,
  line: string,
  route: Route,
  emptyRoute: Route | undefined,
): Binding {
  const request = messageSchema(method.requestType);
  const response = messageSchema(method.responseType);
  const variable = /\{([^}=]+)=\*\*\}/.exec(binding.pathTemplate);
  const fields = variable === null ? [] : jsonPath(request, variable[1]!.split("."), method);
  const literal = binding.pathTemplate.replace(/\{[^}]+\}/, "");
  // "/iam/v2beta1/groups/{parent=**}" → "/iam/v2beta1/groups/" and ""; ":verb" after the variable kept.
  const [before, after] =
    variable === null ? [literal, ""] : (binding.pathTemplate.split(variable[0]) as [string, string]);
  const emptyPath = emptyRoute === undefined ? "" : lineOf(emptyRoute).slice(verbLength(line));
  const body =
    binding.body === "" || binding.body === "*"
      ? binding.body
      : jsonPath(request, [binding.body], method)[0]!;
  const responseBody =
    binding.responseBody === "" ? "" : jsonPath(response, [binding.responseBody], method)[0]!;
  const verb = binding.method;
  return {
    method,
    line,
    toRest: (json) => {
      const { value, rest } = fields.length === 0 ? { value: undefined, rest: json } : without(json, fields);
      let call: Pick<RestCall, "route" | "path" | "uid">;
      if (variable === null) call = { route, path: literal, uid: "" };
      else {
        const text = pathText(value, fields);
        call =
          text === "" && emptyRoute !== undefined
            ? { route: emptyRoute, path: emptyPath, uid: "" }
            : // As the REST face reads its `{uid}`: the rest of the path, slashes kept, trailing ones dropped.
              { route, path: `${before}${text}${after}`, uid: text.replace(/\/+$/, "") };
      }
      if (body === "*") return { ...call, method: verb, query: {}, body: rest };
      if (body === "") return { ...call, method: verb, query: queryOf(rest), body: undefined };
      // A body field carries its path variables too (`group.uid`), as a grpc-gateway client writes it.
      const sent = Object.hasOwn(json, body) ? json[body] : undefined;
      const others = { ...rest };
      delete others[body];
      return { ...call, method: verb, query: queryOf(others), body: sent };
    },
    fromRest: (answer) => {
      const value = (answer ?? {}) as JsonValue;
      return responseBody === "" ? value : { [responseBody]: value };
    },
  };
}

/** Where a route line's path begins ("POST /x" → 5). */
function verbLength(line: string): number {
  return line.indexOf(" ") + 1;
}

/** A path variable's value as path text; a message or list cannot be one. */
function pathText(value: JsonValue | undefined, fields: string[]): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw invalidArgument(`${fields.join(".")} cannot be a path parameter`);
}

/**
 * The request without the value at a JSON path, and that value: the objects along the path copied, the request
 * itself untouched.
 */
function without(json: JsonObject, fields: string[]): { value: JsonValue | undefined; rest: JsonObject } {
  const [field, ...inner] = fields as [string, ...string[]];
  if (!Object.hasOwn(json, field)) return { value: undefined, rest: json };
  const { [field]: member, ...others } = json;
  if (inner.length === 0) return { value: member, rest: others };
  if (member === null || typeof member !== "object" || Array.isArray(member))
    return { value: undefined, rest: json };
  const nested = without(member, inner);
  return { value: nested.value, rest: { ...others, [field]: nested.rest } };
}

/** A field path in proto names (`group.uid`) → the same path in JSON names, through the message's fields. */
function jsonPath(schema: DescMessage, names: string[], method: ServedMethod): string[] {
  const path: string[] = [];
  let message: DescMessage | undefined = schema;
  for (const name of names) {
    const field: DescField | undefined = message?.fields.find((f) => f.name === name);
    if (field === undefined)
      throw new Error(`${method.fullName}: the http rule names no field ${names.join(".")}`);
    path.push(field.jsonName);
    message = field.message;
  }
  return path;
}

/**
 * A message's fields as query parameters, as grpc-gateway reads them: nested messages as dotted names, repeated
 * fields as the parameter repeated (one value: a plain string, as a query parser gives it), scalars and
 * well-known types (Timestamp, FieldMask) as their JSON text.
 */
function queryOf(json: JsonObject): Query {
  // A map key from the request (`__proto__`) is a parameter name like any other.
  const query = nameMap<string | string[]>();
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
