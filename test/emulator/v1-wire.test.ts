/**
 * Every v1 answer is its published message (emulator/grpc/proto/platform, from chainguard-dev/sdk) in the proto3
 * JSON mapping grpc-gateway renders, except the members the spec keeps on REST that the message has no field for:
 * emulator/grpc/rest-only.ts, the one list of those. For an organization holding every kind of object, each
 * answer minus that list encodes strictly into its message (a member without a field fails, naming it) and
 * decodes back to the same JSON; over gRPC each v1 RPC answers with the message the REST answer is.
 */
import * as grpc from "@grpc/grpc-js";
import type { DescMessage, JsonObject, JsonValue } from "@bufbuild/protobuf";
import { exportJWK, generateKeyPair } from "jose";
import { BUILTIN_ROLES } from "../../emulator";
import { messageCodec } from "../../emulator/grpc/json";
import { protoRegistry, servedMethods } from "../../emulator/grpc/protos";
import { REST_ONLY_MEMBERS, withoutRestOnly } from "../../emulator/grpc/rest-only";
import { enc, type Api, startInOrg } from "./helpers";

const registry = protoRegistry();
const schemaOf = (typeName: string): DescMessage => {
  const schema = registry.getMessage(typeName);
  if (schema === undefined) throw new Error(`no message ${typeName}`);
  return schema;
};

/** The v1 RPCs: every served method bound to a /iam/v1/ or /registry/v1/ path. */
const V1_RPCS = servedMethods().filter((m) =>
  m.http.some((b) => /^\/(iam|registry)\/v1\//.test(b.pathTemplate)),
);

let api: Api;
let org: string;
let folder: string;
const ISSUER = "https://issuer.example";

beforeAll(async () => {
  ({ api, org } = await startInOrg());
  const post = async (path: string, body: unknown): Promise<Record<string, string>> => {
    const r = await api.post(path, body);
    expect([path, r.status, r.text]).toEqual([path, 200, r.text]);
    return r.body as Record<string, string>;
  };
  folder = (await post(`/iam/v2beta1/groups/${org}`, { name: "folder", description: "a folder" })).uid!;
  // Every kind of identity v1 has a field for: claimMatch (exchanged, so lastSeen moves), static keys, AWS, a
  // service principal.
  const claimed = await post(`/iam/v2beta1/identities/${folder}`, {
    name: "ci",
    description: "CI",
    claimMatch: { issuer: ISSUER, subject: "repo:acme/web", claims: { ref: "main" } },
  });
  const pair = await generateKeyPair("ES256");
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" }] });
  await post(`/iam/v2beta1/identities/${folder}`, {
    name: "builder",
    staticKeys: { issuer: ISSUER, subject: "builder", issuerKeys: jwks },
  });
  await post(`/iam/v2beta1/identities/${folder}`, {
    name: "aws",
    awsIdentity: { awsAccount: "123456789012", arn: "arn:aws:iam::123456789012:role/x" },
  });
  await post(`/iam/v2beta1/identities/${org}`, {
    name: "signer",
    servicePrincipal: "SERVICE_PRINCIPAL_COSIGNED",
  });
  api.emulator.clock.advance(60_000);
  const role = await post(`/iam/v2beta1/roles/${org}`, {
    name: "puller",
    description: "pulls",
    capabilities: ["CAP_REPO_LIST"],
  });
  await post(`/iam/v2beta1/roleBindings/${folder}`, { identityUid: claimed.uid, roleUid: role.uid });
  await post(`/iam/v2beta1/identityProviders/${org}`, {
    name: "sso",
    description: "single sign-on",
    defaultRole: BUILTIN_ROLES.find((r) => r.name === "viewer")!.uid,
    oidc: { issuer: "https://login.example", clientId: "c", clientSecret: "s", additionalScopes: ["email"] },
  });
  await post(`/iam/v2beta1/groupInvites/${folder}`, { roleUid: role.uid, ttl: "3600s" });
  await post(`/iam/v2beta1/groupInvites/${org}`, {
    roleUid: BUILTIN_ROLES[0]!.uid,
    ttl: "600s",
    email: "someone@example.com",
    singleUse: true,
  });
  await post(`/iam/v2beta1/accountAssociations/${folder}`, {
    name: "clouds",
    description: "accounts",
    amazon: { account: "123456789012" },
    google: { projectId: "p", projectNumber: "1" },
  });
  await api.emulator.seed({
    repos: [
      { name: "plain" },
      {
        name: "rich",
        group: folder,
        description: "a repo",
        catalogTier: "CATALOG_TIER_BASE",
        bundles: ["base"],
        aliases: ["r"],
        activeTags: ["latest"],
        sync_config: {
          source: "cgr.dev/x/rich",
          uniqueTags: true,
          expirationTime: "2027-01-01T00:00:00.000Z",
        },
      },
    ],
  });
}, 60_000);
afterAll(() => api.emulator.close());

/** Every v1 answer: each v1 RPC's REST route, and the v1 routes no RPC serves, with their response messages. */
async function v1Answers(): Promise<{ route: string; message: string; json: JsonObject }[]> {
  const answers: { route: string; message: string; json: JsonObject }[] = [];
  const get = async (route: string, message: string, path: string) => {
    const r = await api.get(path);
    expect([route, r.status, r.text]).toEqual([route, 200, r.text]);
    answers.push({ route, message, json: r.body as JsonObject });
  };
  for (const rpc of V1_RPCS) {
    const binding = rpc.http[0]!;
    if (rpc.fullName === "chainguard.platform.iam.Identities/Lookup") {
      await get(
        rpc.fullName,
        rpc.responseType,
        `${binding.pathTemplate}?issuer=${enc(ISSUER)}&subject=repo:acme/web`,
      );
    } else if (binding.method === "GET") {
      await get(rpc.fullName, rpc.responseType, binding.pathTemplate);
    }
  }
  // Groups/Update (PUT), and the v1 group get, a route of the REST face only (no RPC).
  const put = await api.call("PUT", `/iam/v1/groups/${folder}`, {
    body: { name: "folder", description: "again" },
  });
  expect(put.status).toBe(200);
  answers.push({
    route: "chainguard.platform.iam.Groups/Update",
    message: "chainguard.platform.iam.Group",
    json: put.body,
  });
  await get("GET /iam/v1/groups/{id}", "chainguard.platform.iam.Group", `/iam/v1/groups/${folder}`);
  return answers;
}

/**
 * What proto3 JSON leaves out: a field at its default value ("", false, 0, an empty list or map), at any depth; a
 * map's entries and a set message field are kept whatever their values. A Timestamp is compared as its instant
 * (proto3 JSON writes 0, 3, 6 or 9 fractional digits).
 */
function withoutDefaults(schema: DescMessage, json: JsonValue): JsonValue {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return json;
  const kept = Object.entries(json).flatMap(([member, value]) => {
    const field = schema.fields.find((f) => f.jsonName === member);
    if (value === "" || value === false || value === 0) return [];
    if (Array.isArray(value) && value.length === 0) return [];
    if (
      field?.fieldKind === "map" &&
      value !== null &&
      typeof value === "object" &&
      Object.keys(value).length === 0
    )
      return [];
    const nested = field?.message;
    if (nested?.typeName === "google.protobuf.Timestamp" && typeof value === "string")
      return [[member, new Date(value).toISOString()] as const];
    if (nested === undefined || field?.fieldKind === "map") return [[member, value] as const];
    const inner = Array.isArray(value)
      ? value.map((item) => withoutDefaults(nested, item))
      : withoutDefaults(nested, value);
    return [[member, inner] as const];
  });
  return Object.fromEntries(kept);
}

/** The message a REST answer is: the answer minus its REST-only members, through the wire and back. */
function asMessage(message: string, json: JsonValue): JsonValue {
  const codec = messageCodec(registry, message);
  return codec.decode(codec.encode(withoutRestOnly(schemaOf(message), json))).json;
}

describe("every v1 answer decodes losslessly into its published message, minus the REST-only list", () => {
  test("each one, for an organization holding every kind of object", async () => {
    const answers = await v1Answers();
    expect(answers.map((a) => a.route)).toEqual(expect.arrayContaining(V1_RPCS.map((r) => r.fullName)));
    for (const { route, message, json } of answers) {
      if (Array.isArray(json.items)) expect([route, json.items.length > 0]).toEqual([route, true]);
      let decoded: JsonValue;
      try {
        decoded = asMessage(message, json);
      } catch (error) {
        throw new Error(`${route}: its answer is no ${message}: ${(error as Error).message}`);
      }
      const expected = withoutDefaults(schemaOf(message), withoutRestOnly(schemaOf(message), json));
      expect([route, withoutDefaults(schemaOf(message), decoded)]).toEqual([route, expected]);
    }
  });

  test("the v1 members real clients read are there, by the message's names", async () => {
    const items = async (path: string) => (await api.get(path)).body.items as Record<string, unknown>[];
    // The Terraform provider reads a binding's group.id and role.id (RoleBindingList.Binding has objects).
    const [binding] = (await items("/iam/v1/rolebindings")).filter(
      (b) => b.id !== undefined && b.claimMatchIssuer,
    );
    expect(binding).toMatchObject({
      group: { id: folder, name: "folder" },
      role: { name: "puller", description: "pulls" },
      claimMatchIssuer: ISSUER,
      claimMatchSubject: "repo:acme/web",
    });
    expect(binding).not.toHaveProperty("updatedAt");
    // Identity.last_seen, created_at, updated_at; StaticKeys.expiration; the v1 ServicePrincipal names.
    const identities = await items("/iam/v1/identities");
    const ci = identities.find((i) => i.name === "ci")!;
    expect(ci).toMatchObject({ lastSeen: expect.any(String), createdAt: expect.any(String) });
    expect(ci).not.toHaveProperty("lastSeenTime");
    expect(identities.find((i) => i.name === "builder")).toMatchObject({
      static: { issuer: ISSUER, expiration: expect.any(String) },
    });
    expect(identities.find((i) => i.name === "signer")).toMatchObject({ servicePrincipal: "COSIGNED" });
    // StoredGroupInvite: expiration, a Role with id, no roleUid.
    const invite = (await items("/iam/v1/group_invites")).find((i) => i.email === "someone@example.com")!;
    expect(invite).toMatchObject({ expiration: expect.any(String), role: { id: BUILTIN_ROLES[0]!.uid } });
    expect(invite).not.toHaveProperty("roleUid");
    expect(invite).not.toHaveProperty("expirationTime");
    // Repo: create_time as well as the spec's createdAt; the v1 CatalogTier name; SyncConfig.expiration.
    const rich = (await items("/registry/v1/repos")).find((r) => r.name === "rich")!;
    expect(rich).toMatchObject({
      createTime: expect.any(String),
      createdAt: expect.any(String),
      catalogTier: "BASE",
      sync_config: { expiration: "2027-01-01T00:00:00.000Z" },
    });
  });
});

describe("the REST-only list", () => {
  test("names only members the message has no field for, each sent by some v1 answer", async () => {
    const answers = await v1Answers();
    const seen = new Set<string>();
    const walk = (schema: DescMessage, json: JsonValue): void => {
      if (json === null || typeof json !== "object" || Array.isArray(json)) return;
      for (const [member, value] of Object.entries(json)) {
        seen.add(`${schema.typeName}.${member}`);
        const field = schema.fields.find((f) => f.jsonName === member);
        if (field?.message === undefined) continue;
        for (const item of Array.isArray(value) ? value : [value]) walk(field.message, item);
      }
    };
    for (const { message, json } of answers) walk(schemaOf(message), json);
    for (const [message, { members, why }] of Object.entries(REST_ONLY_MEMBERS)) {
      expect(why).not.toBe("");
      const schema = schemaOf(message);
      for (const member of members) {
        expect([
          message,
          member,
          schema.fields.some((f) => f.jsonName === member || f.name === member),
        ]).toEqual([message, member, false]);
        expect([message, member, seen.has(`${message}.${member}`)]).toEqual([message, member, true]);
      }
    }
  });

  test("any other member a message lacks is refused by the encoding, not dropped", () => {
    const message = "chainguard.platform.iam.IdentityList";
    const answer = {
      items: [{ id: "x", createdAt: "2026-01-01T00:00:00Z", lastSeenTime: "2026-01-01T00:00:00Z" }],
    };
    expect(() => asMessage(message, answer)).toThrow(/lastSeenTime/);
    // A REST-only member is left out only of its own message.
    const group = { items: [{ id: "g", createdAt: "2026-01-01T00:00:00Z" }] };
    expect(asMessage("chainguard.platform.iam.GroupList", group)).toEqual({ items: [{ id: "g" }] });
    expect(() =>
      asMessage("chainguard.platform.iam.RoleBindingList", { items: [{ id: "b", updatedAt: "x" }] }),
    ).toThrow(/updatedAt/);
  });
});

describe("over gRPC, each v1 RPC answers the message its REST answer is", () => {
  /** One unary call, bytes in and out, decoded by the response message (proto3 JSON). */
  const callRaw = async (rpc: (typeof V1_RPCS)[number], request: JsonObject): Promise<JsonValue> => {
    const client = new grpc.Client(new URL(api.emulator.url).host, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set("authorization", `Bearer ${api.emulator.token}`);
    const bytes = messageCodec(registry, rpc.requestType).encode(request);
    try {
      const response = await new Promise<Buffer>((resolve, reject) =>
        client.makeUnaryRequest(
          rpc.path,
          (b: Uint8Array) => Buffer.from(b),
          (b: Buffer) => b,
          bytes,
          metadata,
          (error, value) => (error ? reject(error) : resolve(value!)),
        ),
      );
      return messageCodec(registry, rpc.responseType).decode(response).json;
    } finally {
      client.close();
    }
  };

  test("every v1 list and the lookup", async () => {
    for (const rpc of V1_RPCS.filter((r) => r.http[0]!.method === "GET")) {
      const lookup = rpc.fullName === "chainguard.platform.iam.Identities/Lookup";
      const request: JsonObject = lookup ? { issuer: ISSUER, subject: "repo:acme/web" } : {};
      const path = lookup
        ? `${rpc.http[0]!.pathTemplate}?issuer=${enc(ISSUER)}&subject=repo:acme/web`
        : rpc.http[0]!.pathTemplate;
      const rest = (await api.get(path)).body as JsonObject;
      let answer: JsonValue;
      try {
        answer = await callRaw(rpc, request);
      } catch (error) {
        throw new Error(`${rpc.fullName}: ${(error as Error).message}`);
      }
      expect([rpc.fullName, answer]).toEqual([rpc.fullName, asMessage(rpc.responseType, rest)]);
    }
  });
});
