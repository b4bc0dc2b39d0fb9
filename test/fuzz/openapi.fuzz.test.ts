/**
 * The project's property-based test against its OpenAPI: for every operation the emulator serves (its route table,
 * emulator/routes/table.ts) and every OpenAPI operation it does not, fast-check generates valid and invalid
 * requests from spec/openapi-v2beta1.json (./openapi-arbitraries.ts; the product spec's rules as hints) and checks:
 *
 *   no-5xx              no answer is a 5xx;
 *   response-schema     a 200 conforms to the operation's OpenAPI response schema (strictly: enums, formats, no
 *                       undocumented member), an error is an AIP-193 body { code, message, details[@type] };
 *   refuses-invalid     a wrong type, an unknown member at any depth, an out-of-range value, a malformed query
 *                       parameter (an empty int32, a value given twice for a parameter not repeated) or path uid
 *                       is refused with a 4xx; names JavaScript gives a meaning to (`__proto__`, `constructor`,
 *                       ..., ./openapi-arbitraries.ts HOSTILE_NAMES) are unknown members, unknown mask paths and,
 *                       on every operation, unknown query parameters, and free keys of maps in valid bodies;
 *   changes-nothing     a refused request, and every read, leaves the stored objects as they were;
 *   accepts-valid       a valid request (documented members with valid values) is not refused;
 *   create-reads-back   a created object answers, and reads back, every member sent;
 *   update-exact        a PATCH changes exactly what was sent (or what the mask names), and no other object;
 *   delete-deletes      a deleted object reads back as not found;
 *   list-filter         every item of a filtered list matches each documented filter;
 *   paging              pages walked with a small page size give the unpaged list, with the same totalCount;
 *   chain               create → get → update → list → delete over the IAM kinds, each step seeing the last;
 *   allow-header        a 405 names the allowed methods in an Allow header (RFC 9110).
 *
 * Failures are collected per (operation, check) with their first example, not thrown at once, so one run reports
 * them all; the test then requires the failing pairs to be exactly KNOWN_FAILING (empty: every gap found so far
 * is closed). A pair that starts passing must leave the list (the test fails until it does).
 * Fixed seeds and run counts: the same requests every run.
 */
import { IAM_COLLECTIONS } from "../../sdk/collections";
import fc from "fast-check";
import type { Emulator, Kind, StoredObject } from "../../emulator";
import { routeTable } from "../../emulator/routes/table";
import { V1_LISTS as V1_FILTERS } from "../../emulator/routes/v1";
import type { Control } from "../../emulator/routes/control";
import { check, resolve, spec, type Schema } from "../emulator/openapi";
import {
  HOSTILE_NAMES,
  arbitraryOf,
  invalidBodies,
  meaningfulEnum,
  plainText,
  writableMembers,
  type Hints,
} from "./openapi-arbitraries";
import { EVENT_TYPE_FILTER_UNSPECIFIED, EVENT_TYPE_MEMBERS } from "../../sdk/schemas/advisories";
import { start, type Api, type WireResponse } from "../emulator/helpers";

/** The seed of every generator (each operation adds its index in OPERATIONS, so adding one shifts none). */
const SEED = 27_2026;
/** Generated requests per operation and sort. */
const VALID_RUNS = 30;
const INVALID_RUNS = 40;

/**
 * (operation | check) pairs known to fail on this emulator. The test requires each to still fail, so a fix must
 * remove its entry; a new gap is fixed rather than listed.
 */
const KNOWN_FAILING: readonly string[] = [];

type Check =
  | "no-5xx"
  | "response-schema"
  | "refuses-invalid"
  | "changes-nothing"
  | "accepts-valid"
  | "create-reads-back"
  | "update-exact"
  | "delete-deletes"
  | "list-filter"
  | "paging"
  | "chain"
  | "allow-header";

// ---------------------------------------------------------------------------------------------------------------
// The operations: the route table, and the OpenAPI's.

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** "PATCH /iam/v2beta1/groups/{uid}" for every route of the table, as the table spells it. */
function servedOperations(): string[] {
  const control = new Proxy({}, { get: () => () => undefined }) as unknown as Control;
  return routeTable(control).map(
    (r) => `${r.method} ${r.url.replace(/\/\*$/, "/{uid}").replace(/::/g, ":")}`,
  );
}

interface OpenApiOperation {
  parameters?: ({ name: string; in: string; schema: Schema } | { $ref: string })[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

function openApiOperation(line: string): OpenApiOperation | undefined {
  const [method, path] = line.split(" ") as [string, string];
  return spec.paths[path]?.[method.toLowerCase()] as OpenApiOperation | undefined;
}

function openApiOperations(): string[] {
  const out: string[] = [];
  for (const [path, operations] of Object.entries(spec.paths as Record<string, Record<string, unknown>>))
    for (const method of METHODS)
      if (operations[method] !== undefined) out.push(`${method.toUpperCase()} ${path}`);
  return out;
}

function queryParameters(line: string): { name: string; schema: Schema }[] {
  return (openApiOperation(line)?.parameters ?? [])
    .map((p) => ("$ref" in p ? undefined : p))
    .filter((p): p is { name: string; in: string; schema: Schema } => p !== undefined && p.in === "query");
}

function requestSchema(line: string): Schema {
  const content = openApiOperation(line)?.requestBody?.content;
  const schema = content === undefined ? undefined : Object.values(content)[0]?.schema;
  if (schema === undefined) throw new Error(`${line}: no request body in the OpenAPI`);
  return schema;
}

function responseSchemaOf(line: string): Schema | undefined {
  return openApiOperation(line)?.responses["200"]?.content?.["application/json"]?.schema;
}

// ---------------------------------------------------------------------------------------------------------------
// Recording.

const failures = new Map<string, string>();
let requestCount = 0;
const countByOperation = new Map<string, number>();

/** Records the first failure of (operation, check); `facet` narrows the check (the list parameter it is about). */
function fail(operation: string, check: Check, detail: string, facet?: string): void {
  const key = `${operation} | ${check}${facet === undefined ? "" : `(${facet})`}`;
  if (!failures.has(key)) failures.set(key, detail.slice(0, 600));
}

/** Whether the service accepted a valid request; if not, records accepts-valid with the request and its answer. */
function accepted(operation: string, sent: Sent, response: { status: number; text: string }): boolean {
  if (response.status === 200) return true;
  fail(
    operation,
    "accepts-valid",
    `${requestText(sent)} → ${response.status} ${response.text.slice(0, 300)}`,
  );
  return false;
}

/** How many failing pairs each check has ("refuses-invalid(uidp.ids)" counts as refuses-invalid). */
function byCheck(keys: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of keys) {
    const check = key.split(" | ")[1]!.replace(/\(.*$/, "");
    counts[check] = (counts[check] ?? 0) + 1;
  }
  return counts;
}

// ---------------------------------------------------------------------------------------------------------------
// The world the requests run against.

let api: Api;
let emulator: Emulator;
let world: {
  org: string;
  folders: string[];
  identities: Record<"claimMatch" | "staticKeys" | "awsIdentity" | "servicePrincipal" | "assumable", string>;
  roles: string[];
  capabilities: string[];
  viewer: string;
  bindings: string[];
  idp: string;
  invites: string[];
  association: string;
  repos: string[];
  tags: string[];
  advisories: string[];
  issuer: string;
};

interface Sent {
  method: string;
  path: string;
  query?: [string, string][];
  body?: unknown;
  raw?: string;
  token?: string | null;
  headers?: Record<string, string>;
}

function url(sent: Sent): string {
  const query = (sent.query ?? [])
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join("&");
  return query === "" ? sent.path : `${sent.path}?${query}`;
}

function requestText(sent: Sent): string {
  const body = sent.raw ?? (sent.body === undefined ? "" : JSON.stringify(sent.body));
  return `${sent.method} ${url(sent)} ${body.slice(0, 300)}`;
}

function state(): string {
  return JSON.stringify(emulator.snapshot());
}

/**
 * Sends one generated request and runs the checks every answer gets: no 5xx, schema (200) or AIP-193 (error), and
 * for refusals and reads, no stored change.
 */
async function send(
  operation: string,
  sent: Sent,
): Promise<{ response: WireResponse; before: string; after: string }> {
  const before = state();
  const response = await api.call(sent.method, url(sent), {
    ...(sent.body !== undefined ? { body: sent.body } : {}),
    ...(sent.raw !== undefined ? { raw: sent.raw } : {}),
    ...(sent.token !== undefined ? { token: sent.token } : {}),
    ...(sent.headers !== undefined ? { headers: sent.headers } : {}),
  });
  const after = state();
  requestCount++;
  countByOperation.set(operation, (countByOperation.get(operation) ?? 0) + 1);
  const what = `${requestText(sent)} → ${response.status} ${response.text.slice(0, 300)}`;
  if (response.status >= 500) fail(operation, "no-5xx", what);
  if (response.status >= 400) {
    const problems = check(response.body, { $ref: "#/components/schemas/google.rpc.Status" }, "$", true);
    const details = (response.body as { details?: unknown } | undefined)?.details;
    if (!Array.isArray(details) || details.length === 0) problems.push("$.details: empty");
    if (typeof response.body?.message !== "string" || response.body.message === "")
      problems.push("$.message: empty");
    if (problems.length > 0) fail(operation, "response-schema", `${problems.join("; ")} in ${what}`);
    if (before !== after) fail(operation, "changes-nothing", `refused, but stored objects changed: ${what}`);
  } else if (response.status === 200) {
    const schema = responseSchemaOf(operation);
    if (schema !== undefined) {
      const problems = check(response.body, schema, "$", true);
      if (problems.length > 0)
        fail(operation, "response-schema", `${problems.slice(0, 4).join("; ")} in ${what}`);
    }
    if (sent.method === "GET" && before !== after && !operation.includes("/sts/"))
      fail(operation, "changes-nothing", `a read changed stored objects: ${what}`);
  }
  return { response, before, after };
}

async function expectRefused(operation: string, sent: Sent, why: string, facet?: string): Promise<void> {
  const { response } = await send(operation, sent);
  if (response.status < 400 || response.status >= 500)
    fail(
      operation,
      "refuses-invalid",
      `${why}: ${requestText(sent)} → ${response.status} ${response.text.slice(0, 200)}`,
      facet,
    );
}

// ---------------------------------------------------------------------------------------------------------------
// Values.

/** A name every kind accepts: the spec's group-name rule, 3-63 characters (OpenAPI). */
const resourceName = fc
  .tuple(
    fc.string({
      unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789".split("")),
      minLength: 3,
      maxLength: 12,
    }),
    fc.constantFrom("", "-a", ".b", " c", "_d"),
  )
  .map(([stem, tail]) => `${stem}${tail}`);

const httpsUrl = fc
  .string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz".split("")), minLength: 1, maxLength: 10 })
  .map((host) => `https://${host}.example.com`);

const regex = fc.constantFrom("^a.*$", "[0-9]+", "repo:org/.*", ".*");
const twelveDigits = fc.stringMatching(/^\d{12}$/);

/** Per collection: the hints that make an OpenAPI-valid body valid under the product spec's rules too. */
function hintsOf(collection: string): Hints {
  const common: Hints = { name: resourceName, description: plainText };
  switch (collection) {
    case "groups":
      // verified: staff only (OpenAPI); a client sends the default, false, or nothing. kind: "For subgroups, kind
      // is inherited from the root group and cannot be set" (OpenAPI): only an organization's create sends it.
      return { ...common, verified: fc.constant(false), kind: null };
    case "identities":
      return {
        ...common,
        company: plainText,
        "claimMatch.issuer": httpsUrl,
        "claimMatch.issuerPattern": regex,
        "claimMatch.subjectPattern": regex,
        "claimMatch.audiencePattern": regex,
        "claimMatch.claimPatterns.*": regex,
        "staticKeys.issuer": httpsUrl,
        "staticKeys.issuerKeys": fc.constant('{"keys":[]}'),
        "staticKeys.expirationTime": fc
          .integer({ min: 2, max: 300 })
          .map((days) => new Date(emulator.clock.now().getTime() + days * 86_400_000).toISOString()),
        "staticKeys.audiences": fc.array(plainText, { minLength: 1, maxLength: 1 }),
        "awsIdentity.awsAccount": twelveDigits,
        "awsIdentity.arnPattern": regex,
        "awsIdentity.userIdPattern": regex,
      };
    case "roles":
      return {
        ...common,
        capabilities: fc.uniqueArray(fc.constantFrom(...world.capabilities), { minLength: 1, maxLength: 4 }),
      };
    case "roleBindings":
      return {
        // Identities and roles of the organization: visible from every group a binding is made on.
        identityUid: fc.constantFrom(world.identities.awsIdentity, world.identities.assumable),
        roleUid: fc.constantFrom(world.viewer, world.roles[0]!),
      };
    case "identityProviders":
      return {
        ...common,
        defaultRole: fc.constantFrom(world.viewer, world.roles[0]!),
        "oidc.issuer": httpsUrl,
        "oidc.additionalScopes[]": fc.constantFrom("email", "profile", "groups"),
      };
    case "groupInvites":
      return {
        roleUid: fc.constantFrom(world.viewer, world.roles[0]!),
        ttl: fc.integer({ min: 60, max: 86_400 * 30 }).map((s) => `${s}s`),
        email: fc.constantFrom("", "a@example.com", "dev.ops@example.org"),
      };
    case "accountAssociations":
      return {
        ...common,
        "amazon.account": twelveDigits,
        "chainguard.serviceBindings.*": fc.constant(world.identities.claimMatch),
        "github.appInstallations.*.installations[].installationId": fc
          .integer({ min: 1, max: 1e9 })
          .map(String),
        "google.projectNumber": fc.integer({ min: 1, max: 1e9 }).map(String),
      };
  }
  return common;
}

/** At most one of these members is set (a oneof in the API); a valid body keeps the first. */
const ONEOFS: Record<string, readonly string[]> = {
  identities: ["claimMatch", "staticKeys", "awsIdentity", "servicePrincipal"],
};

function oneOf(collection: string, body: Record<string, unknown>): Record<string, unknown> {
  const members = ONEOFS[collection];
  if (members === undefined) return body;
  const present = members.filter((m) => body[m] !== undefined);
  const out = { ...body };
  for (const m of present.slice(1)) delete out[m];
  return out;
}

/** Members accepted but never returned (OpenAPI: secrets, and inputs consumed into other members). */
const WRITE_ONLY = ["oidc.clientSecret", "ttl"];

/** JSON equality, whatever the order of members (values here are plain JSON). */
function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : typeof v === "object" && v !== null
        ? Object.fromEntries(
            Object.entries(v)
              .sort(([x], [y]) => (x < y ? -1 : 1))
              .map(([k, c]) => [k, canonical(c)]),
          )
        : v;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** Values protobuf's JSON mapping may leave out of an answer: a member holding one reads back as absent. */
function isDefault(value: unknown): boolean {
  return (
    value === "" ||
    value === false ||
    value === 0 ||
    (Array.isArray(value) && value.length === 0) ||
    (typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0)
  );
}

/** Leaves of a sent body ("oidc.issuer" → value); arrays and maps are compared whole. */
function leaves(value: unknown, schema: Schema, path = ""): [string, unknown][] {
  const s = resolve(schema);
  if (s.properties !== undefined && typeof value === "object" && value !== null && !Array.isArray(value)) {
    const out: [string, unknown][] = [];
    for (const [name, child] of Object.entries(value as Record<string, unknown>)) {
      const member = (s.properties as Record<string, Schema>)[name];
      const at = path === "" ? name : `${path}.${name}`;
      out.push(...(member === undefined ? [[at, child] as [string, unknown]] : leaves(child, member, at)));
    }
    return out;
  }
  return [[path, value]];
}

/**
 * Members a response carries in another form: a role binding's identityUid and roleUid come back hydrated as
 * identity.uid and role.uid (OpenAPI RoleBinding).
 */
const READ_BACK_AS: Record<string, string> = { identityUid: "identity.uid", roleUid: "role.uid" };

function at(value: unknown, path: string): unknown {
  return path
    .split(".")
    .reduce<unknown>((v, step) => (v as Record<string, unknown> | undefined)?.[step], value);
}

/** Sent members that `answer` does not hold as sent. */
function unhonoured(sent: Record<string, unknown>, schema: Schema, answer: unknown): string[] {
  return leaves(sent, schema)
    .filter(([path]) => !WRITE_ONLY.includes(path))
    .filter(([path, value]) => {
      const got = at(answer, path) ?? (READ_BACK_AS[path] ? at(answer, READ_BACK_AS[path]) : undefined);
      return !(isDeepStrictEqual(got, value) || (got === undefined && isDefault(value)));
    })
    .map(
      ([path, value]) => `${path}: sent ${JSON.stringify(value)}, got ${JSON.stringify(at(answer, path))}`,
    );
}

// ---------------------------------------------------------------------------------------------------------------
// The IAM collections.

/** The IAM collections (sdk/collections). */
const IAM = IAM_COLLECTIONS;
type Collection = (typeof IAM)[number];

const prefix = (c: string): string =>
  (c.startsWith("repos") || c.startsWith("tags")
    ? "/registry/v2beta1/"
    : c === "advisories"
      ? "/vulnerabilities/v2beta1/"
      : "/iam/v2beta1/") + c;

/** Where a create of this collection goes: a group it is valid under. */
async function parentFor(collection: Collection): Promise<string> {
  if (collection === "identityProviders") return world.org;
  if (collection === "accountAssociations")
    return (await api.post(`/iam/v2beta1/groups/${world.org}`, { name: `aa-${requestCount}` })).body.uid;
  return world.folders[requestCount % world.folders.length]!;
}

/** Members the OpenAPI's prose requires on create though its schema does not. */
const REQUIRED_ON_CREATE: Record<string, readonly string[]> = {
  // "Required on Create (at least one)" (OpenAPI Role.capabilities).
  roles: ["capabilities"],
  // "Set identity_uid and role_uid" (OpenAPI RoleBinding create body).
  roleBindings: ["identityUid", "roleUid"],
  // The provider's configuration, a oneof whose only member in the OpenAPI is oidc: nothing to sign in with else.
  identityProviders: ["oidc"],
};

function validBody(collection: Collection, operation: string): fc.Arbitrary<Record<string, unknown>> {
  const required = operation.startsWith("POST") ? (REQUIRED_ON_CREATE[collection] ?? []) : [];
  return (arbitraryOf(requestSchema(operation), hintsOf(collection)) as fc.Arbitrary<Record<string, unknown>>)
    .filter((body) => required.every((m) => body[m] !== undefined))
    .map((body) => oneOf(collection, JSON.parse(JSON.stringify(body)) as Record<string, unknown>));
}

/** A fresh object of `collection` to change or delete, made with a minimal valid body. */
async function scratch(collection: Collection): Promise<string> {
  const parent = await parentFor(collection);
  const bodies: Record<Collection, Record<string, unknown>> = {
    groups: { name: "scratch" },
    identities: { name: "scratch", claimMatch: { issuer: "https://ci.example.com", subject: "s" } },
    roles: { name: "scratch", capabilities: [world.capabilities[0]] },
    roleBindings: { identityUid: world.identities.awsIdentity, roleUid: world.roles[0] },
    identityProviders: {
      name: "scratch",
      defaultRole: world.viewer,
      oidc: { issuer: "https://sso.example.com", clientId: "c" },
    },
    groupInvites: { roleUid: world.viewer, ttl: "3600s" },
    accountAssociations: { name: "scratch" },
  };
  if (collection === "roleBindings") {
    // A binding is unique per (identity, role, group): a fresh group for each.
    const group = (await api.post(`/iam/v2beta1/groups/${world.org}`, { name: "rb-scratch" })).body.uid;
    return (await api.post(`/iam/v2beta1/roleBindings/${group}`, bodies.roleBindings)).body.uid;
  }
  const response = await api.post(`${prefix(collection)}/${parent}`, bodies[collection]);
  if (response.status !== 200) throw new Error(`scratch ${collection}: ${response.status} ${response.text}`);
  return response.body.uid;
}

const CONFLICT_CODES = new Set([6]); // ALREADY_EXISTS: a second association of a group, a duplicate binding

async function fuzzCreate(operation: string, collection: Collection, seed: number): Promise<void> {
  const schema = requestSchema(operation);
  for (const body of fc.sample(validBody(collection, operation), { seed, numRuns: VALID_RUNS })) {
    const parent = await parentFor(collection);
    const sent: Sent = { method: "POST", path: `${prefix(collection)}/${parent}`, body };
    const { response } = await send(operation, sent);
    if (response.status !== 200) {
      if (!CONFLICT_CODES.has(response.body?.code))
        fail(
          operation,
          "accepts-valid",
          `${requestText(sent)} → ${response.status} ${response.text.slice(0, 300)}`,
        );
      continue;
    }
    const problems = unhonoured(body, schema, response.body);
    const read = await api.get(`${prefix(collection)}/${response.body.uid}`);
    problems.push(...unhonoured(body, schema, read.body).map((p) => `read back: ${p}`));
    if (problems.length > 0)
      fail(operation, "create-reads-back", `${problems.join("; ")} (${requestText(sent)})`);
  }
  for (const mutation of fc.sample(invalidBodies(validBody(collection, operation), schema), {
    seed,
    numRuns: INVALID_RUNS,
  })) {
    const parent = await parentFor(collection);
    await expectRefused(
      operation,
      { method: "POST", path: `${prefix(collection)}/${parent}`, body: mutation.body },
      `${mutation.kind} at ${mutation.at}`,
    );
  }
  for (const [what, raw] of [
    ["not an object", "[]"],
    ["null", "null"],
    ["malformed JSON", '{"name":'],
    ["a string", '"x"'],
    ["no body", undefined],
  ] as const) {
    const parent = await parentFor(collection);
    await expectRefused(
      operation,
      { method: "POST", path: `${prefix(collection)}/${parent}`, ...(raw !== undefined ? { raw } : {}) },
      what,
    );
  }
  await expectRefused(
    operation,
    { method: "POST", path: `${prefix(collection)}/not-a-uid`, body: {} },
    "malformed parent uid",
  );
}

async function fuzzUpdate(operation: string, collection: Collection, seed: number): Promise<void> {
  const schema = requestSchema(operation);
  const members = Object.keys(writableMembers(schema));
  const patch = validBody(collection, operation)
    .filter((full) => Object.keys(full).length > 0)
    .chain((full) => {
      const present = Object.keys(full);
      return fc.record({
        body: fc
          .subarray(present, { minLength: 1 })
          .map((keep) => Object.fromEntries(keep.map((k) => [k, full[k]]))),
        mask: fc.option(fc.constantFrom("updateMask", "update_mask"), { nil: undefined }),
      });
    });
  const target = await scratch(collection);
  for (const { body, mask } of fc.sample(patch, { seed, numRuns: VALID_RUNS })) {
    const maskPaths =
      mask === undefined ? undefined : Object.keys(body).slice(0, Math.max(1, Object.keys(body).length - 1));
    const sent: Sent = {
      method: "PATCH",
      path: `${prefix(collection)}/${target}`,
      body,
      ...(mask !== undefined ? { query: [[mask, maskPaths!.join(",")]] as [string, string][] } : {}),
    };
    const previous = (await api.get(`${prefix(collection)}/${target}`)).body;
    const { response, before, after } = await send(operation, sent);
    if (!accepted(operation, sent, response)) continue;
    const now = (await api.get(`${prefix(collection)}/${target}`)).body;
    const changed = maskPaths ?? Object.keys(body);
    const sentChanged = Object.fromEntries(Object.entries(body).filter(([k]) => changed.includes(k)));
    const problems = unhonoured(sentChanged, schema, now);
    const oneof = ONEOFS[collection] ?? [];
    for (const member of members) {
      if (changed.includes(member)) continue;
      if (oneof.includes(member) && changed.some((c) => oneof.includes(c))) continue; // the oneof's others clear
      if (!isDeepStrictEqual(previous[member], now[member]))
        problems.push(
          `${member} not sent${mask ? " in the mask" : ""}, but changed: ${JSON.stringify(previous[member])} → ${JSON.stringify(now[member])}`,
        );
    }
    const others = (snapshot: string) => {
      const all = JSON.parse(snapshot) as Record<Kind, StoredObject[]>;
      return JSON.stringify(
        Object.values(all)
          .flat()
          .filter((o) => o.uid !== target),
      );
    };
    if (others(before) !== others(after)) problems.push("another stored object changed");
    if (problems.length > 0) fail(operation, "update-exact", `${problems.join("; ")} (${requestText(sent)})`);
  }
  // A read-modify-write client sends back what it read (output-only members included) with one change.
  const read = (await api.get(`${prefix(collection)}/${target}`)).body as Record<string, unknown>;
  const echo: Record<string, unknown> =
    collection === "roleBindings" ? { ...read, roleUid: world.viewer } : { ...read, description: "echoed" };
  const echoed = await send(operation, {
    method: "PATCH",
    path: `${prefix(collection)}/${target}`,
    body: echo,
  });
  const after = (await api.get(`${prefix(collection)}/${target}`)).body as Record<string, unknown>;
  const changedKey = collection === "roleBindings" ? "role" : "description";
  const rest = (o: Record<string, unknown>) =>
    JSON.stringify({ ...o, [changedKey]: undefined, updateTime: undefined });
  if (echoed.response.status !== 200)
    fail(
      operation,
      "accepts-valid",
      `echo of a read → ${echoed.response.status} ${echoed.response.text.slice(0, 300)}`,
    );
  else if (rest(read) !== rest(after))
    fail(
      operation,
      "update-exact",
      `echo of a read changed more than ${changedKey}: ${rest(read)} → ${rest(after)}`,
    );
  for (const mutation of fc.sample(invalidBodies(validBody(collection, operation), schema), {
    seed,
    numRuns: INVALID_RUNS,
  }))
    await expectRefused(
      operation,
      { method: "PATCH", path: `${prefix(collection)}/${target}`, body: mutation.body },
      `${mutation.kind} at ${mutation.at}`,
    );
  // An empty update (no body, null or {}) is a true no-op, as the project chose under AIP-134 (emulator/README.md):
  // 200 with the object as it was, and no stored change, updateTime included.
  for (const [what, sent] of [
    ["null body", { raw: "null" }],
    ["no body", {}],
    ["empty object", { body: {} }],
  ] as [string, Partial<Sent>][]) {
    const previous = (await api.get(`${prefix(collection)}/${target}`)).body;
    const noop: Sent = { method: "PATCH", path: `${prefix(collection)}/${target}`, ...sent };
    const { response, before, after } = await send(operation, noop);
    if (response.status !== 200)
      fail(operation, "accepts-valid", `${what}: ${requestText(noop)} → ${response.status}`);
    else if (before !== after || !isDeepStrictEqual(response.body, previous))
      fail(operation, "update-exact", `${what} is no no-op: ${requestText(noop)} changed the stored objects`);
  }
  for (const [what, sent] of [
    ["not an object", { raw: "[]" }],
    ["malformed JSON", { raw: "{" }],
    ["unknown mask path", { body: { description: "x" }, query: [["updateMask", "noSuchField"]] }],
    // A mask path is a name from the request too: never a key into the emulator's objects.
    ...HOSTILE_NAMES.filter((name) => name !== "").flatMap((name) =>
      [name, `${name}.x`, `description.${name}`, `claimMatch.${name}`].map(
        (path): [string, Partial<Sent>] => [
          `mask path ${path.slice(0, 40)}`,
          { body: { description: "x" }, query: [["updateMask", path]] },
        ],
      ),
    ),
  ] as [string, Partial<Sent>][])
    await expectRefused(
      operation,
      { method: "PATCH", path: `${prefix(collection)}/${target}`, ...sent },
      what,
    );
  await expectRefused(
    operation,
    { method: "PATCH", path: `${prefix(collection)}/not-a-uid`, body: { description: "x" } },
    "malformed uid",
  );
}

async function fuzzDelete(operation: string, collection: Collection): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const target = await scratch(collection);
    const { response } = await send(operation, { method: "DELETE", path: `${prefix(collection)}/${target}` });
    if (response.status !== 200) {
      fail(
        operation,
        "accepts-valid",
        `DELETE ${target} → ${response.status} ${response.text.slice(0, 200)}`,
      );
      continue;
    }
    const read = await api.get(`${prefix(collection)}/${target}`);
    if (read.status !== 404) fail(operation, "delete-deletes", `GET after DELETE ${target} → ${read.status}`);
  }
  for (const uid of ["not-a-uid", `${world.org}/zzzz`, `${world.org}/0123456789abcdef`, "%00"])
    await expectRefused(
      operation,
      { method: "DELETE", path: `${prefix(collection)}/${uid}` },
      "malformed or missing uid",
    );
}

// ---------------------------------------------------------------------------------------------------------------
// Get and list, every collection.

const ALL_COLLECTIONS = [...IAM, "repos", "tags", "advisories"] as const;
type AnyCollection = (typeof ALL_COLLECTIONS)[number];

function pool(collection: AnyCollection): string[] {
  switch (collection) {
    case "groups":
      return [world.org, ...world.folders];
    case "identities":
      return Object.values(world.identities);
    case "roles":
      return [world.viewer, ...world.roles];
    case "roleBindings":
      return world.bindings;
    case "identityProviders":
      return [world.idp];
    case "groupInvites":
      return world.invites;
    case "accountAssociations":
      return [world.association];
    case "repos":
      return world.repos;
    case "tags":
      return world.tags;
    case "advisories":
      return world.advisories;
  }
}

async function fuzzGet(operation: string, collection: AnyCollection): Promise<void> {
  for (const uid of pool(collection)) {
    const { response } = await send(operation, { method: "GET", path: `${prefix(collection)}/${uid}` });
    if (response.status !== 200 || response.body?.uid !== uid)
      fail(operation, "accepts-valid", `GET ${uid} → ${response.status} ${response.text.slice(0, 200)}`);
  }
  for (const uid of ["not-a-uid", `${world.org}/0123456789abcdef`, "0".repeat(41), `${world.org}//x`])
    await expectRefused(
      operation,
      { method: "GET", path: `${prefix(collection)}/${uid}` },
      "malformed or missing uid",
    );
}

type Item = Record<string, unknown> & { uid: string };
const isUnder = (uid: string, ancestor: string): boolean => uid.startsWith(`${ancestor}/`);
const parentOf = (uid: string): string => (uid.includes("/") ? uid.slice(0, uid.lastIndexOf("/")) : "");

/**
 * The group an object sits in, for the uidp scopes: its parent; an account association's is its own group, whose
 * uid it shares (OpenAPI AccountAssociation.uid: "the group UIDP this association belongs to").
 */
const placeOf = (item: Item, collection: AnyCollection): string =>
  collection === "accountAssociations" ? item.uid : parentOf(item.uid);

const RELATIONSHIPS: Record<string, string> = {
  RELATIONSHIP_TYPE_CLAIM_MATCH: "claimMatch",
  RELATIONSHIP_TYPE_STATIC: "staticKeys",
  RELATIONSHIP_TYPE_AWS_IDENTITY: "awsIdentity",
  RELATIONSHIP_TYPE_SERVICE_PRINCIPAL: "servicePrincipal",
};
type Event = Record<string, unknown>;
const events = (item: Item): Event[] => (item.events as Event[] | undefined) ?? [];
const anyOf = (values: string[], value: unknown): boolean => values.includes(value as string);

/**
 * What each documented filter means for an item, from the OpenAPI's descriptions (`values` holds the one value of
 * a scalar parameter, every value of a repeated one). A filter without an entry here (`origin`: the Advisory has
 * no member it could be checked against) is still sent and checked for everything else.
 */
const FILTERS: Record<string, (item: Item, values: string[], collection: AnyCollection) => boolean> = {
  "uidp.ancestorsOf": (item, [v]) => isUnder(v!, item.uid),
  // Built-in roles (root uids) are listed with custom roles, except under uidp.childrenOf (emulator README).
  "uidp.descendantsOf": (item, [v], c) =>
    placeOf(item, c) === v || isUnder(placeOf(item, c), v!) || (c === "roles" && !item.uid.includes("/")),
  "uidp.childrenOf": (item, [v], c) => placeOf(item, c) === v,
  "uidp.inRoot": (item, [v]) => v !== "true" || !item.uid.includes("/"),
  "uidp.ids": (item, values) => values.includes(item.uid),
  name: (item, [v]) => item.name === v,
  keyId: (item, [v]) => item.keyId === v,
  identity: (item, [v]) => (item.identity as Item | undefined)?.uid === v,
  group: (item, [v]) => (item.group as Item | undefined)?.uid === v,
  role: (item, [v]) => (item.role as Item | undefined)?.uid === v,
  relationshipType: (item, [v]) => RELATIONSHIPS[v!] === undefined || item[RELATIONSHIPS[v!]!] !== undefined,
  updatedSince: (item, [v]) =>
    typeof item.updateTime === "string" && Date.parse(item.updateTime) >= Date.parse(v!),
  includeReferrers: (item, [v]) => v !== "false" || !/^sha256-/.test(item.name as string),
  includeDates: (item, [v]) => v !== "false" || !/-20\d{6}$/.test(item.name as string),
  includeEpochs: (item, [v]) => v !== "false" || !/-r\d+$/.test(item.name as string),
  digest: (item, [v]) => item.digest === v,
  advisoryIds: (item, values) => anyOf(values, item.advisoryId),
  legacyAdvisoryIds: (item, values) => anyOf(values, item.legacyAdvisoryId),
  artifactNames: (item, values) => anyOf(values, item.artifactName),
  artifactTypes: (item, values) => anyOf(values, item.artifactType),
  artifactArchitectures: (item, values) => anyOf(values, item.artifactArchitecture),
  componentNames: (item, values) => anyOf(values, item.componentName),
  componentTypes: (item, values) => anyOf(values, item.componentType),
  componentLocations: (item, values) => anyOf(values, item.componentLocation),
  aliases: (item, values) => ((item.aliases as string[] | undefined) ?? []).some((a) => values.includes(a)),
  // The enums' zero values (*_UNSPECIFIED) select nothing in particular: alone, they match every item.
  eventReviewStates: (item, values) =>
    values.every((v) => v.endsWith("_UNSPECIFIED")) || events(item).some((e) => anyOf(values, e.reviewState)),
  eventAuthors: (item, values) => events(item).some((e) => anyOf(values, e.author)),
  excludeEventAuthors: (item, values) => !events(item).some((e) => anyOf(values, e.author)),
  eventReviewers: (item, values) => events(item).some((e) => anyOf(values, e.reviewer)),
  eventTypes: (item, values) =>
    values.every((v) => !EVENT_TYPE_MEMBERS.has(v)) ||
    events(item).some((e) =>
      values.some((v) => EVENT_TYPE_MEMBERS.has(v) && e[EVENT_TYPE_MEMBERS.get(v)!] !== undefined),
    ),
  latestEventType: (item, [v]) => {
    const member = EVENT_TYPE_MEMBERS.get(v!);
    if (member === undefined) return true;
    const approved = events(item).filter((e) => e.reviewState === "REVIEW_STATE_APPROVED");
    return approved.length > 0 && approved[approved.length - 1]![member] !== undefined;
  },
  query: (item, [v]) =>
    [item.artifactName, item.componentName, ...((item.aliases as string[] | undefined) ?? [])].some(
      (s) => typeof s === "string" && s.toLowerCase().includes(v!.toLowerCase()),
    ),
};

/** The paging parameters, checked by walking pages rather than per item. */
const PAGING = ["pageSize", "pageToken", "orderBy", "skip"];

/** Valid values for each documented list parameter, from the world. */
function parameterValues(collection: AnyCollection, name: string, schema: Schema): fc.Arbitrary<string[]> {
  const uids = [world.org, ...world.folders, ...pool(collection)];
  const one = (a: fc.Arbitrary<string>) => a.map((v) => [v]);
  const s = resolve(schema);
  switch (name) {
    case "uidp.ancestorsOf":
    case "uidp.descendantsOf":
    case "uidp.childrenOf":
      return one(fc.constantFrom(...uids));
    case "uidp.ids":
      return fc.uniqueArray(fc.constantFrom(...uids), { minLength: 1, maxLength: 3 });
    case "identity":
      return one(fc.constantFrom(...Object.values(world.identities)));
    case "group":
      return one(fc.constantFrom(world.org, ...world.folders));
    case "role":
      return one(fc.constantFrom(world.viewer, ...world.roles));
    case "updatedSince":
      return one(
        fc.constantFrom(
          "2000-01-01T00:00:00Z",
          emulator.clock.now().toISOString(),
          "2099-01-01T00:00:00.000Z",
        ),
      );
    case "pageSize":
      return one(fc.integer({ min: 1, max: 4 }).map(String));
    case "skip":
      return one(fc.integer({ min: 0, max: 5 }).map(String));
    case "orderBy":
      return one(
        fc
          .tuple(fc.constantFrom("uid", "createTime"), fc.constantFrom("", " desc", " asc"))
          .map(([f, d]) => `${f}${d}`),
      );
  }
  if (s.type === "boolean") return one(fc.constantFrom("true", "false"));
  if (s.type === "array") {
    const items = resolve(s.items as Schema);
    if (Array.isArray(items.enum))
      return fc.uniqueArray(fc.constantFrom(...(items.enum as string[])), { minLength: 1, maxLength: 2 });
  }
  if (Array.isArray(s.enum)) return one(fc.constantFrom(...(s.enum as string[])));
  // Free values: what the listed items hold (so filters select some), or anything.
  return fc.uniqueArray(fc.constantFrom(...listedValues(collection, name)), {
    minLength: 1,
    maxLength: s.type === "array" ? 2 : 1,
  });
}

/** Values of the items' members a free-valued filter names (name → names, artifactNames → artifactName, ...). */
const listed = new Map<string, Item[]>();
function listedValues(collection: AnyCollection, parameter: string): string[] {
  const member = parameter
    .replace(/^exclude/, "")
    .replace(/s$/, "")
    .replace(/^event(.)/, (_, c: string) => c.toLowerCase())
    .replace(/^./, (c) => c.toLowerCase());
  const values = new Set<string>(["no-such-value"]);
  for (const item of listed.get(collection) ?? []) {
    const sources = collection === "advisories" && /^(author|reviewer)$/.test(member) ? events(item) : [item];
    for (const source of sources) {
      const v = source[member === "aliase" ? "aliases" : member];
      for (const x of Array.isArray(v) ? v : [v]) if (typeof x === "string") values.add(x);
    }
  }
  if (parameter === "query") values.add("OPENSSL").add("cve-2024");
  return [...values];
}

async function walkPages(
  operation: string,
  collection: AnyCollection,
  query: [string, string][],
): Promise<void> {
  const base = query.filter(([k]) => !PAGING.includes(k) || k === "orderBy");
  const full = await api.get(
    `${url({ method: "GET", path: prefix(collection), query: [...base, ["pageSize", "200"]] })}`,
  );
  if (full.status !== 200) return;
  const expected = (full.body[collection] as Item[]).map((i) => i.uid);
  const pageSize = Number(query.find(([k]) => k === "pageSize")?.[1] ?? "2");
  const skip = Number(query.find(([k]) => k === "skip")?.[1] ?? "0");
  const seen: string[] = [];
  let token: string | undefined;
  for (let page = 0; page < 40; page++) {
    const q: [string, string][] = [
      ...base,
      ["pageSize", String(pageSize)],
      ...(page === 0 && skip > 0 ? [["skip", String(skip)] as [string, string]] : []),
      ...(token ? [["pageToken", token] as [string, string]] : []),
    ];
    const response = await api.get(url({ method: "GET", path: prefix(collection), query: q }));
    if (response.status !== 200)
      return fail(
        operation,
        "paging",
        `page ${page} of ${url({ method: "GET", path: prefix(collection), query: q })} → ${response.status} ${response.text.slice(0, 200)}`,
      );
    seen.push(...(response.body[collection] as Item[]).map((i) => i.uid));
    if (response.body.totalCount !== full.body.totalCount)
      return fail(
        operation,
        "paging",
        `totalCount ${response.body.totalCount} on page ${page}, ${full.body.totalCount} unpaged (${url({ method: "GET", path: prefix(collection), query: q })})`,
      );
    if (page === 0 && response.body.skipped !== skip)
      return fail(operation, "paging", `skipped ${response.body.skipped}, sent skip ${skip}`);
    token = response.body.nextPageToken || undefined;
    if (token === undefined) break;
  }
  if (!isDeepStrictEqual(seen, expected.slice(skip)))
    fail(
      operation,
      "paging",
      `pages of ${pageSize} from skip ${skip} gave ${seen.length} items ${JSON.stringify(seen.slice(0, 3))}..., unpaged ${expected.length - skip} (${url({ method: "GET", path: prefix(collection), query: base })})`,
    );
}

async function fuzzList(operation: string, collection: AnyCollection, seed: number): Promise<void> {
  const refused = REFUSED_PARAMETERS[collection] ?? {};
  const parameters = queryParameters(operation).filter((p) => p.name !== "pageToken" && !(p.name in refused));
  // One to four parameters at a time, so each filter is seen alone and in combinations that still match items.
  const query = fc
    .uniqueArray(fc.constantFrom(...parameters), { minLength: 1, maxLength: 4 })
    .chain((chosen) =>
      fc.tuple(
        ...chosen.map((p) =>
          parameterValues(collection, p.name, p.schema).map((values) =>
            values.map((v) => [p.name, v] as [string, string]),
          ),
        ),
      ),
    )
    .map((parts) => parts.flat());
  for (const q of fc.sample(query, { seed, numRuns: VALID_RUNS * 2 })) {
    const sent: Sent = { method: "GET", path: prefix(collection), query: q };
    const { response } = await send(operation, sent);
    if (!accepted(operation, sent, response)) continue;
    const items = (response.body[collection] ?? []) as Item[];
    const byName = new Map<string, string[]>();
    for (const [k, v] of q) byName.set(k, [...(byName.get(k) ?? []), v]);
    for (const [name, values] of byName) {
      const test = FILTERS[name];
      if (test === undefined) continue;
      const wrong = items.find((item) => !test(item, values, collection));
      if (wrong !== undefined)
        fail(
          operation,
          "list-filter",
          `${name}=${values.join(",")} returned ${wrong.uid} (${requestText(sent)})`,
          name,
        );
    }
    if (q.some(([k]) => k === "pageSize")) await walkPages(operation, collection, q);
  }
  // Malformed values of each documented parameter.
  const malformed: [string, string][] = [
    ["pageSize", "abc"],
    ["pageSize", "-1"],
    ["pageSize", "1.5"],
    ["pageSize", "99999999999"],
    ["skip", "-1"],
    ["skip", "x"],
    ["orderBy", "noSuchField"],
    ["orderBy", "uid sideways"],
    ["pageToken", "not-a-token!"],
  ];
  for (const p of parameters) {
    const s = resolve(p.schema);
    if (p.name.startsWith("uidp.") && p.name !== "uidp.inRoot") malformed.push([p.name, "not a uid"]);
    if (["identity", "group", "role"].includes(p.name)) malformed.push([p.name, "not a uid"]);
    if (s.type === "boolean") malformed.push([p.name, "maybe"]);
    if (s.format === "date-time") malformed.push([p.name, "yesterday"]);
    if (Array.isArray(s.enum)) malformed.push([p.name, "NOT_AN_ENUM_VALUE"]);
    const items = s.items === undefined ? undefined : resolve(s.items as Schema);
    if (items !== undefined && Array.isArray(items.enum)) malformed.push([p.name, "NOT_AN_ENUM_VALUE"]);
  }
  // grpc-gateway (runtime/query.go) parses an int32 and refuses an empty one.
  malformed.push(["pageSize", ""], ["skip", ""]);
  for (const [name, value] of malformed)
    await expectRefused(
      operation,
      { method: "GET", path: prefix(collection), query: [[name, value]] },
      `malformed ${name}`,
      name,
    );
  // A parameter the OpenAPI does not repeat takes one value ("too many values" in grpc-gateway), in either spelling.
  for (const p of parameters.filter((p) => resolve(p.schema).type !== "array")) {
    const [value] = fc.sample(parameterValues(collection, p.name, p.schema), { seed, numRuns: 1 })[0]!;
    for (const name of [p.name, snakeCase(p.name)])
      await expectRefused(
        operation,
        {
          method: "GET",
          path: prefix(collection),
          query: [
            [name, value!],
            [name, value!],
          ],
        },
        `${name} given twice`,
        p.name,
      );
  }
  // A documented parameter the emulator cannot honour is refused naming it, whatever its value.
  for (const [name, why] of Object.entries(refused)) {
    const sent: Sent = { method: "GET", path: prefix(collection), query: [[name, "nginx"]] };
    const { response } = await send(operation, sent);
    const named = (response.body?.details ?? []).some((d: { fieldViolations?: { field: string }[] }) =>
      (d.fieldViolations ?? []).some((v) => v.field === name || v.field === snakeCase(name)),
    );
    if (response.status !== 400 || !named)
      fail(operation, "refuses-invalid", `${name} (${why}): ${requestText(sent)} → ${response.status}`, name);
  }
}

const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Documented list parameters the emulator refuses (400 naming them) rather than honour, with the reason its README
 * gives: the issue allows "refused with a clear 400 naming it", never a 200 that ignores it.
 */
const REFUSED_PARAMETERS: Partial<Record<AnyCollection, Record<string, string>>> = {
  advisories: {
    origin: "resolving an origin package's subpackages needs package data a seed does not carry",
  },
};

// ---------------------------------------------------------------------------------------------------------------
// The other served operations.

async function fuzzLookupIdentity(operation: string): Promise<void> {
  const { response } = await send(operation, {
    method: "GET",
    path: "/iam/v2beta1/identities:lookupIdentity",
    query: [
      ["issuer", world.issuer],
      ["subject", "fuzz-workload"],
    ],
  });
  if (response.body?.uid !== world.identities.assumable)
    fail(operation, "accepts-valid", `lookup → ${response.status} ${response.text}`);
  for (const query of [
    [["issuer", world.issuer]],
    [["subject", "s"]],
    [],
    [
      ["issuer", "a\u0000"],
      ["subject", "s"],
    ],
  ] as [string, string][][])
    await expectRefused(
      operation,
      { method: "GET", path: "/iam/v2beta1/identities:lookupIdentity", query },
      "missing or malformed issuer/subject",
    );
}

/**
 * roleBindings:batchCreate (AIP-233): valid batches (1..25 sub-requests, each naming its role, or inheriting the
 * batch's) are created whole and in order and read back; every mutation of one, and every AIP-233 conflict
 * (another role, another parent, more than 25, none), is refused and changes nothing (`send` checks that).
 */
async function fuzzBatchCreate(operation: string, seed: number): Promise<void> {
  const path = "/iam/v2beta1/roleBindings:batchCreate";
  const identity = fc.constantFrom(world.identities.awsIdentity, world.identities.assumable);
  const role = fc.constantFrom(world.viewer, world.roles[0]!);
  const batch = (parent: string): fc.Arbitrary<Record<string, unknown>> => {
    const sub = (ownRole: fc.Arbitrary<string>, roleRequired: boolean) =>
      fc.record(
        {
          parent: fc.constantFrom("", parent),
          roleBinding: fc.record(
            { identityUid: identity, roleUid: ownRole },
            { requiredKeys: roleRequired ? ["identityUid", "roleUid"] : ["identityUid"] },
          ),
        },
        { requiredKeys: ["roleBinding"] },
      );
    return fc.oneof(
      fc.record({
        parent: fc.constant(parent),
        requests: fc.array(sub(role, true), { minLength: 1, maxLength: 25 }),
      }),
      role.chain((shared) =>
        fc.record({
          parent: fc.constant(parent),
          roleUid: fc.constant(shared),
          requests: fc.array(sub(fc.constant(shared), false), { minLength: 1, maxLength: 25 }),
        }),
      ),
    );
  };
  const parentOfRun = () => world.folders[requestCount % world.folders.length]!;
  for (const body of fc.sample(batch(world.folders[0]!), { seed, numRuns: VALID_RUNS })) {
    const sent: Sent = { method: "POST", path, body: { ...body, parent: parentOfRun() } };
    const parent = (sent.body as { parent: string }).parent;
    (sent.body as { requests: { parent?: string }[] }).requests.forEach((r) => {
      if (r.parent !== undefined && r.parent !== "") r.parent = parent;
    });
    const { response } = await send(operation, sent);
    if (!accepted(operation, sent, response)) continue;
    const requests = (sent.body as { roleUid?: string; requests: { roleBinding: Record<string, string> }[] })
      .requests;
    const made = (response.body?.roleBindings ?? []) as {
      uid: string;
      identity?: { uid?: string };
      role?: { uid?: string };
    }[];
    const expected = requests.map((r) => [r.roleBinding.identityUid, r.roleBinding.roleUid ?? body.roleUid]);
    const answered = made.map((b) => [b.identity?.uid, b.role?.uid]);
    const readBack: unknown[] = [];
    for (const b of made) {
      const read = await api.get(`/iam/v2beta1/roleBindings/${b.uid}`);
      readBack.push([read.body?.identity?.uid, read.body?.role?.uid]);
      if (read.body?.group?.uid !== parent) readBack.push(`group ${read.body?.group?.uid}`);
    }
    if (!isDeepStrictEqual(answered, expected) || !isDeepStrictEqual(readBack, expected))
      fail(
        operation,
        "create-reads-back",
        `sent ${JSON.stringify(expected)}, answered ${JSON.stringify(answered)}, read back ${JSON.stringify(readBack)}`,
      );
  }
  for (const mutation of fc.sample(invalidBodies(batch(world.folders[1]!), requestSchema(operation)), {
    seed,
    numRuns: INVALID_RUNS,
  }))
    await expectRefused(
      operation,
      { method: "POST", path, body: mutation.body },
      `${mutation.kind} at ${mutation.at}`,
    );
  const [a, b] = [world.folders[0]!, world.folders[1]!];
  const one = (roleUid?: string, parent?: string) => ({
    ...(parent !== undefined ? { parent } : {}),
    roleBinding: { identityUid: world.identities.awsIdentity, ...(roleUid !== undefined ? { roleUid } : {}) },
  });
  for (const [why, body] of [
    [
      "another role than the batch's",
      { parent: a, roleUid: world.viewer, requests: [one(), one(world.roles[0])] },
    ],
    ["another parent than the batch's", { parent: a, requests: [one(world.viewer, b)] }],
    ["no role at all", { parent: a, requests: [one()] }],
    ["26 requests", { parent: a, roleUid: world.viewer, requests: Array.from({ length: 26 }, () => one()) }],
    ["no requests", { parent: a, requests: [] }],
    ["no parent", { requests: [one(world.viewer)] }],
    ["a parent that is no group", { parent: `${a}/0123456789abcdef`, requests: [one(world.viewer)] }],
  ] as const)
    await expectRefused(operation, { method: "POST", path, body }, why);
  for (const [what, raw] of [
    ["not an object", "[]"],
    ["null", "null"],
    ["malformed JSON", '{"parent":'],
    ["no body", undefined],
  ] as const)
    await expectRefused(operation, { method: "POST", path, ...(raw !== undefined ? { raw } : {}) }, what);
}

async function fuzzExchange(operation: string): Promise<void> {
  const method = operation.split(" ")[0]!;
  const idToken = await emulator.mintIdToken({ subject: "fuzz-workload", audience: emulator.url });
  const { response } = await send(operation, {
    method,
    path: "/sts/exchange",
    query: [
      ["aud", emulator.url],
      ["identity", world.identities.assumable],
    ],
    token: idToken,
  });
  if (response.status !== 200)
    fail(operation, "accepts-valid", `exchange → ${response.status} ${response.text.slice(0, 200)}`);
  const cases: [string, Sent][] = [
    ["no identity", { method, path: "/sts/exchange", query: [["aud", emulator.url]], token: idToken }],
    [
      "malformed identity",
      { method, path: "/sts/exchange", query: [["identity", "not a uid"]], token: idToken },
    ],
    [
      "identity twice",
      {
        method,
        path: "/sts/exchange",
        query: [
          ["identity", world.identities.assumable],
          ["identity", world.identities.claimMatch],
        ],
        token: idToken,
      },
    ],
    [
      "no token",
      { method, path: "/sts/exchange", query: [["identity", world.identities.assumable]], token: null },
    ],
    [
      "garbage token",
      { method, path: "/sts/exchange", query: [["identity", world.identities.assumable]], token: "garbage" },
    ],
    [
      "unknown cap",
      {
        method,
        path: "/sts/exchange",
        query: [
          ["identity", world.identities.assumable],
          ["cap", "CAP_NOPE"],
        ],
        token: idToken,
      },
    ],
  ];
  for (const [why, sent] of cases) await expectRefused(operation, sent, why);
}

async function fuzzV1(operation: string): Promise<void> {
  const [method, template] = operation.split(" ") as [string, string];
  const folder = world.folders[0]!;
  const path = template.replace("{uid}", folder);
  if (method === "GET") {
    const query: [string, string][] = template.endsWith("lookup")
      ? [
          ["issuer", world.issuer],
          ["subject", "fuzz-workload"],
        ]
      : [];
    const { response } = await send(operation, { method, path, query });
    if (response.status !== 200)
      fail(operation, "accepts-valid", `${path} → ${response.status} ${response.text.slice(0, 200)}`);
    if (template.endsWith("lookup"))
      await expectRefused(operation, { method, path, query: [] }, "missing issuer/subject");
    if (template.endsWith("{uid}"))
      await expectRefused(
        operation,
        { method, path: template.replace("{uid}", "not-a-uid") },
        "malformed uid",
      );
    const kind = V1_LISTS[template];
    if (kind !== undefined) await fuzzV1List(operation, template, kind);
    return;
  }
  const target = await scratch("groups");
  const body = { name: "renamed-v1", description: "v1 update" };
  const { response } = await send(operation, { method, path: template.replace("{uid}", target), body });
  const read = await api.get(`/iam/v2beta1/groups/${target}`);
  if (response.status !== 200)
    fail(operation, "accepts-valid", `${method} v1 → ${response.status} ${response.text.slice(0, 200)}`);
  else if (read.body.name !== body.name || read.body.description !== body.description)
    fail(
      operation,
      "update-exact",
      `v1 ${method} sent ${JSON.stringify(body)}, read ${JSON.stringify(read.body)}`,
    );
  for (const [why, bad] of [
    ["bad name", { name: "UPPER!" }],
    ["wrong type", { name: 5 }],
    ["unknown member", { name: "ok-name", bogusMember: 1 }],
    ["not an object", []],
  ] as [string, unknown][])
    await expectRefused(operation, { method, path: template.replace("{uid}", target), body: bad }, why);
}

/** The v1 lists and the v2 collection each reads (results under `items`, `id` for uid: spec §9). */
const V1_LISTS: Record<string, AnyCollection> = {
  "/iam/v1/groups": "groups",
  "/iam/v1/identities": "identities",
  "/iam/v1/roles": "roles",
  "/iam/v1/rolebindings": "roleBindings",
  "/iam/v1/group_invites": "groupInvites",
  "/iam/v1/account_associations": "accountAssociations",
  "/iam/v1/identityProviders": "identityProviders",
  "/registry/v1/repos": "repos",
};

/**
 * The filters the real clients send to v1 lists (the SDK's Filter messages, emulator/routes/v1.ts): `id`
 * (repeatable) gives exactly those objects, `group` (invites, associations) or `uidp.childrenOf` the group's own; a
 * parameter v1 does not have is refused.
 */
async function fuzzV1List(operation: string, path: string, collection: AnyCollection): Promise<void> {
  // The fields of the SDK's Filter message for this list (emulator/routes/v1.ts): `id` and `group` where it has them.
  const params = V1_FILTERS.find((l) => l.path === path)!.params;
  const has = (name: string) => Object.hasOwn(params, name);
  const unfiltered = await api.get(path);
  const listedIds = ((unfiltered.body?.items ?? []) as { id: string }[]).map((i) => i.id);
  const ids = pool(collection).slice(0, 2);
  const idParam = has("id") ? "id" : "group";
  const byId = await send(operation, {
    method: "GET",
    path,
    query: (has("id") ? ids : ids.slice(0, 1)).map((id) => [idParam, id]),
  });
  const got = ((byId.response.body?.items ?? []) as { id: string }[]).map((i) => i.id).sort();
  const expected = (has("id") ? ids : ids.slice(0, 1)).filter((id) => listedIds.includes(id)).sort();
  if (byId.response.status !== 200 || !isDeepStrictEqual(got, expected))
    fail(
      operation,
      "list-filter",
      `${idParam}=${ids.join(",")} gave ${JSON.stringify(got)} (${byId.response.status}); the unfiltered list holds ${JSON.stringify(expected)}`,
      idParam,
    );
  const group = collection === "groups" ? world.org : world.folders[0]!;
  const scope = has("group") ? "group" : "uidp.childrenOf";
  const byGroup = await send(operation, { method: "GET", path, query: [[scope, group]] });
  if (byGroup.response.status !== 200)
    fail(
      operation,
      "accepts-valid",
      `${scope}=${group} → ${byGroup.response.status} ${byGroup.response.text.slice(0, 200)}`,
    );
  for (const { id } of (byGroup.response.body?.items ?? []) as { id: string }[]) {
    const own = id === group || placeOf({ uid: id }, collection) === group;
    if (!own && !(collection === "roles" && !id.includes("/")))
      fail(operation, "list-filter", `${scope}=${group} returned ${id}`, scope);
  }
  await expectRefused(
    operation,
    { method: "GET", path, query: [["bogusParameter", "1"]] },
    "unknown v1 parameter",
  );
}

/** Control endpoints: valid reads, and malformed bodies refused. reset is left out (it would drop the world). */
async function fuzzControl(operation: string): Promise<void> {
  const [method, path] = operation.split(" ") as [string, string];
  if (method === "GET" || method === "DELETE") {
    const { response } = await send(operation, { method, path });
    if (response.status !== 200) fail(operation, "accepts-valid", `${operation} → ${response.status}`);
    return;
  }
  const bodies: Record<string, unknown[]> = {
    "/_emulator/seed": [{ repos: [{ name: 5 }] }, { bogusMember: [] }, []],
    "/_emulator/oidc/mint": [
      {},
      { subject: 5 },
      { subject: "s", bogusMember: 1 },
      { subject: "s", expiresInSeconds: 1e12 },
    ],
    "/_emulator/clock/advance": [{ ms: -1 }, { ms: "x" }, { ms: 1, bogusMember: 1 }, {}],
    "/_emulator/faults": [{ bogusMember: 1 }, [{ status: "x" }], 5],
    "/_emulator/users": [{ name: 5 }, { name: "" }, { name: "u", bogusMember: 1 }],
  };
  for (const body of bodies[path] ?? [])
    await expectRefused(operation, { method, path, body }, `malformed ${path} body`);
  if (path === "/_emulator/oidc/mint") {
    const { response } = await send(operation, { method, path, body: { subject: "s" } });
    if (response.status !== 200) fail(operation, "accepts-valid", `mint → ${response.status}`);
  }
}

/** A concrete path for an operation of the table: an existing object where it reads, none where it deletes. */
function concretePath(method: string, template: string): string {
  const collection = ALL_COLLECTIONS.find((c) => template === `${prefix(c)}/{uid}`);
  const uid =
    method === "DELETE"
      ? `${world.org}/0123456789abcdef`
      : method === "POST" || collection === undefined
        ? world.folders[0]!
        : pool(collection)[0]!;
  return template.replace("{uid}", uid);
}

/**
 * Every operation, a query parameter with a hostile name (`?toString=1` must not be taken for a parameter we
 * know): never a 5xx, and refused wherever the emulator checks its parameters (every API route but the token
 * exchange, which ignores a parameter it does not know as grpc-gateway does; the OIDC documents take none). Control
 * endpoints get a body with a hostile member, refused (reset is left out: it would drop the world).
 */
async function fuzzHostileNames(operation: string): Promise<void> {
  const [method, template] = operation.split(" ") as [string, string];
  if (template === "/_emulator/reset") return;
  const path = concretePath(method, template);
  const checked = !/^\/(sts|oidc|_emulator)\//.test(template);
  const hasBody = method === "POST" || method === "PATCH" || method === "PUT";
  for (const name of HOSTILE_NAMES) {
    const body = !hasBody
      ? {}
      : template.startsWith("/_emulator/")
        ? { raw: `{${JSON.stringify(name)}:{"a":1}}` }
        : { body: {} };
    const sent: Sent = { method, path, query: [[name, "1"]], ...body };
    const why = `a parameter named ${JSON.stringify(name.slice(0, 40))}`;
    if (checked || (template.startsWith("/_emulator/") && method === "POST"))
      await expectRefused(operation, sent, why, "hostile-name");
    else await send(operation, sent);
  }
}

/** An OpenAPI operation the emulator does not serve: refused (404 or 405), never a 5xx or a change. */
async function fuzzUnserved(operation: string): Promise<void> {
  const [method, template] = operation.split(" ") as [string, string];
  const path = template.replace("{uid}", world.repos[0]!);
  await expectRefused(
    operation,
    { method, path, ...(method === "GET" ? {} : { body: { name: "x" } }) },
    "not served by the emulator",
  );
}

/** For a path of the table: a method it does not serve gets 405 with an Allow header naming those it does. */
async function checkAllow(path: string, served: string[]): Promise<void> {
  const unserved = ["GET", "POST", "PUT", "PATCH", "DELETE"].find((m) => !served.includes(m));
  if (unserved === undefined) return;
  const concrete = path.replace("{uid}", world.folders[0]!);
  const operation = `${unserved} ${path}`;
  const { response } = await send(operation, {
    method: unserved,
    path: concrete,
    ...(unserved === "GET" ? {} : { body: {} }),
  });
  if (response.status !== 405)
    return fail(operation, "refuses-invalid", `${unserved} ${concrete} → ${response.status}, not 405`);
  const allow = (response.headers.get("allow") ?? "")
    .split(",")
    .map((m) => m.trim())
    .filter((m) => m !== "");
  if (!served.every((m) => allow.includes(m)))
    fail(
      operation,
      "allow-header",
      `Allow: ${JSON.stringify(response.headers.get("allow"))}, serves ${served.join(", ")}`,
    );
}

// ---------------------------------------------------------------------------------------------------------------
// Stateful chains.

async function chain(collection: Collection, seed: number): Promise<void> {
  const operation = `chain ${collection}`;
  const create = `POST ${prefix(collection)}/{uid}`;
  const patchLine = `PATCH ${prefix(collection)}/{uid}`;
  const hasUpdate = openApiOperation(patchLine) !== undefined && collection !== "groupInvites";
  for (const body of fc.sample(validBody(collection, create), { seed, numRuns: 3 })) {
    const parent =
      collection === "roleBindings"
        ? (await api.post(`/iam/v2beta1/groups/${world.org}`, { name: "chain" })).body.uid
        : await parentFor(collection);
    const created = await send(create, { method: "POST", path: `${prefix(collection)}/${parent}`, body });
    if (created.response.status !== 200) continue; // accepts-valid has it
    const uid = created.response.body.uid as string;
    const got = await send(`GET ${prefix(collection)}/{uid}`, {
      method: "GET",
      path: `${prefix(collection)}/${uid}`,
    });
    if (got.response.status !== 200) {
      fail(operation, "chain", `get after create → ${got.response.status}`);
      continue;
    }
    if (hasUpdate) {
      const change =
        collection === "roleBindings" ? { roleUid: world.viewer } : { description: `changed ${seed}` };
      const updated = await send(patchLine, {
        method: "PATCH",
        path: `${prefix(collection)}/${uid}`,
        body: change,
      });
      const read = (await api.get(`${prefix(collection)}/${uid}`)).body;
      const [key, value] = Object.entries(change)[0]!;
      const readValue = key === "roleUid" ? read.role?.uid : read[key];
      if (updated.response.status !== 200 || readValue !== value)
        fail(
          operation,
          "chain",
          `update ${JSON.stringify(change)} → ${updated.response.status}, read ${JSON.stringify(readValue)}`,
        );
    }
    const listed = await send(`GET ${prefix(collection)}`, {
      method: "GET",
      path: prefix(collection),
      query: [
        ["uidp.ids", uid],
        ["pageSize", "200"],
      ],
    });
    const items = (listed.response.body?.[collection] ?? []) as Item[];
    if (!items.some((i) => i.uid === uid))
      fail(operation, "chain", `list with uidp.ids=${uid} does not hold it (${items.length} items)`);
    const deleted = await send(`DELETE ${prefix(collection)}/{uid}`, {
      method: "DELETE",
      path: `${prefix(collection)}/${uid}`,
    });
    const gone = await api.get(`${prefix(collection)}/${uid}`);
    const after = await api.get(
      url({
        method: "GET",
        path: prefix(collection),
        query: [
          ["uidp.descendantsOf", world.org],
          ["pageSize", "200"],
        ],
      }),
    );
    if (
      deleted.response.status !== 200 ||
      gone.status !== 404 ||
      (after.body[collection] as Item[]).some((i) => i.uid === uid)
    )
      fail(operation, "chain", `delete → ${deleted.response.status}, get → ${gone.status}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------

beforeAll(async () => {
  api = await start({
    clockStart: "2026-01-01T00:00:00Z",
    seed: {
      repos: [
        {
          name: "nginx",
          tags: [
            { name: "latest", digest: "sha256:aa" },
            { name: "1.25-20260101", digest: "sha256:bb" },
            { name: "sha256-aa.sig", digest: "sha256:cc" },
            { name: "1.25-r1", digest: "sha256:aa" },
          ],
        },
        { name: "redis", tags: [{ name: "7", digest: "sha256:dd" }] },
      ],
      advisories: [
        {
          advisoryId: "CGA-aaaa-bbbb-cccc",
          aliases: ["CVE-2024-0001"],
          artifactName: "nginx",
          artifactType: "apk",
          artifactArchitecture: "x86_64",
          componentName: "openssl",
          componentType: "apk",
          componentLocation: "/usr/lib",
          author: "a@example.com",
          events: [
            { author: "a@example.com", reviewState: "REVIEW_STATE_APPROVED", detection: {} },
            {
              author: "b@example.com",
              reviewer: "r@example.com",
              reviewState: "REVIEW_STATE_APPROVED",
              fixed: { fixedVersion: "1.2" },
            },
          ],
        },
        {
          advisoryId: "CGA-dddd-eeee-ffff",
          aliases: ["GHSA-xxxx"],
          artifactName: "redis",
          artifactType: "oci",
          artifactArchitecture: "aarch64",
          componentName: "zlib",
          componentType: "go-module",
          componentLocation: "./PKGINFO",
          author: "b@example.com",
          events: [
            { author: "b@example.com", reviewState: "REVIEW_STATE_PENDING", truePositiveDetermination: {} },
          ],
        },
      ],
    },
  });
  emulator = api.emulator;
  const org = emulator.orgUid;
  const post = async (path: string, body: unknown): Promise<string> => {
    const r = await api.post(path, body);
    if (r.status !== 200) throw new Error(`set-up ${path}: ${r.status} ${r.text}`);
    return r.body.uid;
  };
  const roles = (await api.get("/iam/v2beta1/roles?name=owner")).body.roles;
  const capabilities = (roles[0].capabilities as string[]).filter((c) => meaningfulEnum([c]).length === 1);
  const viewer = (await api.get("/iam/v2beta1/roles?name=viewer")).body.roles[0].uid;
  const f1 = await post(`/iam/v2beta1/groups/${org}`, { name: "team-a" });
  const f2 = await post(`/iam/v2beta1/groups/${org}`, { name: "team-b" });
  const f3 = await post(`/iam/v2beta1/groups/${f1}`, { name: "team-a-sub" });
  const issuer = `${emulator.url}/oidc`;
  const identities = {
    claimMatch: await post(`/iam/v2beta1/identities/${f1}`, {
      name: "ci",
      claimMatch: { issuer: "https://ci.example.com", subject: "repo:a" },
    }),
    staticKeys: await post(`/iam/v2beta1/identities/${f2}`, {
      name: "static",
      staticKeys: { issuer: "https://k.example.com", subject: "s", issuerKeys: '{"keys":[]}' },
    }),
    awsIdentity: await post(`/iam/v2beta1/identities/${org}`, {
      name: "aws",
      awsIdentity: { awsAccount: "123456789012" },
    }),
    servicePrincipal: await post(`/iam/v2beta1/identities/${f3}`, {
      name: "sp",
      servicePrincipal: "SERVICE_PRINCIPAL_INGESTER",
    }),
    assumable: await post(`/iam/v2beta1/identities/${org}`, {
      name: "workload",
      claimMatch: { issuer, subject: "fuzz-workload" },
    }),
  };
  const r1 = await post(`/iam/v2beta1/roles/${org}`, {
    name: "lister",
    capabilities: ["CAP_IAM_GROUPS_LIST"],
  });
  const r2 = await post(`/iam/v2beta1/roles/${f1}`, {
    name: "reader",
    capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_IAM_IDENTITY_LIST"].filter((c) => capabilities.includes(c)),
  });
  const bindings = [
    await post(`/iam/v2beta1/roleBindings/${f1}`, { identityUid: identities.claimMatch, roleUid: r1 }),
    await post(`/iam/v2beta1/roleBindings/${f2}`, { identityUid: identities.staticKeys, roleUid: viewer }),
    await post(`/iam/v2beta1/roleBindings/${org}`, { identityUid: identities.assumable, roleUid: viewer }),
  ];
  const idp = await post(`/iam/v2beta1/identityProviders/${org}`, {
    name: "sso",
    defaultRole: viewer,
    oidc: { issuer: "https://sso.example.com", clientId: "c" },
  });
  const invites = [
    await post(`/iam/v2beta1/groupInvites/${f1}`, { roleUid: viewer, ttl: "3600s" }),
    await post(`/iam/v2beta1/groupInvites/${org}`, { roleUid: r1, ttl: "7200s", email: "a@example.com" }),
  ];
  const association = await post(`/iam/v2beta1/accountAssociations/${f2}`, {
    name: "aws",
    amazon: { account: "123456789012" },
  });
  const list = async (c: string) => (await api.get(`${prefix(c)}?pageSize=200`)).body[c] as Item[];
  world = {
    org,
    folders: [f1, f2, f3],
    identities,
    roles: [r1, r2],
    capabilities,
    viewer,
    bindings,
    idp,
    invites,
    association,
    repos: (await list("repos")).map((r) => r.uid),
    tags: (await list("tags")).map((r) => r.uid),
    advisories: (await list("advisories")).map((r) => r.uid),
    issuer,
  };
  for (const c of ALL_COLLECTIONS) listed.set(c, await list(c));
}, 60_000);
afterAll(() => emulator?.close());

test("the event type filters read from AdvisoryEvent are the OpenAPI's EVENT_TYPE_FILTER_* values", () => {
  for (const name of ["eventTypes", "latestEventType"]) {
    const parameter = queryParameters("GET /vulnerabilities/v2beta1/advisories").find((p) => p.name === name);
    const schema = resolve(parameter!.schema);
    const values = (schema.type === "array" ? resolve(schema.items as Schema) : schema).enum as string[];
    expect([name, [...values].sort()]).toEqual([
      name,
      [EVENT_TYPE_FILTER_UNSPECIFIED, ...EVENT_TYPE_MEMBERS.keys()].sort(),
    ]);
  }
});

test("every served operation, every check: only the known gaps (none) fail", async () => {
  const served = servedOperations();
  const documented = openApiOperations();
  const started = Date.now();
  let index = 0;
  for (const operation of served) {
    const seed = SEED + index++;
    const [method, path] = operation.split(" ") as [string, string];
    const collection = ALL_COLLECTIONS.find((c) => path === prefix(c) || path === `${prefix(c)}/{uid}`);
    if (path.startsWith("/_emulator/")) {
      if (path !== "/_emulator/reset") await fuzzControl(operation);
    } else if (path.startsWith("/sts/")) await fuzzExchange(operation);
    else if (path.startsWith("/oidc/")) {
      const { response } = await send(operation, { method, path });
      if (response.status !== 200) fail(operation, "accepts-valid", `${operation} → ${response.status}`);
    } else if (path.includes("/v1/")) await fuzzV1(operation);
    else if (path.endsWith(":lookupIdentity")) await fuzzLookupIdentity(operation);
    else if (path.endsWith("roleBindings:batchCreate")) await fuzzBatchCreate(operation, seed);
    else if (path === "/iam/v2beta1/groups" && method === "POST") {
      // Organizations: valid bodies as for a group; an invalid body is refused.
      const organization = arbitraryOf(requestSchema("POST /iam/v2beta1/groups/{uid}"), {
        ...hintsOf("groups"),
        kind: undefined,
      }) as fc.Arbitrary<Record<string, unknown>>;
      for (const body of fc.sample(organization, { seed, numRuns: VALID_RUNS })) {
        const { response } = await send(operation, { method, path, body });
        if (response.status !== 200)
          fail(
            operation,
            "accepts-valid",
            `${JSON.stringify(body)} → ${response.status} ${response.text.slice(0, 200)}`,
          );
      }
      for (const mutation of fc.sample(
        invalidBodies(
          validBody("groups", "POST /iam/v2beta1/groups/{uid}"),
          requestSchema("POST /iam/v2beta1/groups/{uid}"),
        ),
        { seed, numRuns: INVALID_RUNS },
      ))
        await expectRefused(
          operation,
          { method, path, body: mutation.body },
          `${mutation.kind} at ${mutation.at}`,
        );
    } else if (collection === undefined)
      throw new Error(`no fuzzing for served operation ${operation}: add it`);
    else if (method === "GET" && path.endsWith("{uid}")) await fuzzGet(operation, collection);
    else if (method === "GET") await fuzzList(operation, collection, seed);
    else if (method === "POST") await fuzzCreate(operation, collection as Collection, seed);
    else if (method === "PATCH") await fuzzUpdate(operation, collection as Collection, seed);
    else if (method === "DELETE") await fuzzDelete(operation, collection as Collection);
  }
  for (const operation of served) await fuzzHostileNames(operation);
  const unserved = documented.filter((o) => !served.includes(o));
  for (const operation of unserved) await fuzzUnserved(operation);
  const paths = new Map<string, string[]>();
  for (const operation of served) {
    const [method, path] = operation.split(" ") as [string, string];
    if (!path.startsWith("/_emulator/")) paths.set(path, [...(paths.get(path) ?? []), method]);
  }
  for (const [path, methods] of paths) await checkAllow(path, methods);
  for (const [i, collection] of IAM.entries()) await chain(collection, SEED + 1000 + i);

  const seconds = (Date.now() - started) / 1000;
  const failing = [...failures.keys()].sort();
  console.log(
    [
      `openapi fuzz: ${served.length} served operations (+${unserved.length} OpenAPI operations not served), ${requestCount} requests in ${seconds.toFixed(1)}s, seed ${SEED}`,
      `failing (operation | check): ${failing.length}; by check: ${JSON.stringify(byCheck(failing))}`,
      `requests per operation: ${JSON.stringify(Object.fromEntries(countByOperation))}`,
      ...failing.map((k) => `  ${k}: ${failures.get(k)}`),
    ].join("\n"),
  );
  const unexpected = failing.filter((k) => !KNOWN_FAILING.includes(k)).map((k) => `${k}: ${failures.get(k)}`);
  const nowPassing = KNOWN_FAILING.filter((k) => !failures.has(k));
  expect({ unexpected, nowPassing }).toEqual({ unexpected: [], nowPassing: [] });
  // Every operation of the table was exercised.
  for (const operation of served.filter((o) => o !== "POST /_emulator/reset"))
    expect([operation, countByOperation.get(operation) ?? 0]).not.toEqual([operation, 0]);
}, 600_000);
