/**
 * The gRPC face as a client of the service meets it: @grpc/grpc-js over an insecure channel to the emulator's one
 * address, messages from the project's own .proto files (emulator/grpc/protos.ts).
 *
 * - server reflection (v1 and v1alpha) lists every service `servedMethods()` names, and describes each;
 * - every served RPC answers once: a table keyed by the RPC's REST route (its `(google.api.http)` binding), so an
 *   RPC added to the protos without a case here fails;
 * - the error trailer (`grpc-status-details-bin`) decodes to the AIP-193 body REST sends for the same request;
 * - the token exchange over gRPC gives a token the REST face accepts;
 * - the package definition `loadServicePackage()` gives, through `grpc.loadPackageDefinition`, clients that work
 *   as generated code would.
 */
import * as grpc from "@grpc/grpc-js";
import * as protobuf from "protobufjs";
import { servedMethods, type ServedMethod } from "../../emulator/grpc/protos";
import { loadServicePackage } from "./proto-sources";
import { start, type Api } from "./helpers";
import { decodeMessage, encodeMessage, GrpcWire, transcode, type HttpRequest, type Json } from "./grpc-wire";

jest.setTimeout(60_000);

let api: Api;
let wire: GrpcWire;
let address: string;
/** The objects every case names, made over REST before the calls. */
const f = {
  org: "",
  owner: "",
  viewer: "",
  folder: "",
  identity: "",
  role: "",
  binding: "",
  idp: "",
  invite: "",
  repo: "",
  tag: "",
  advisory: "",
};

beforeAll(async () => {
  api = await start({
    seed: {
      repos: [{ name: "nginx", tags: [{ name: "latest", digest: "sha256:aa" }] }],
      advisories: [{ advisoryId: "CGA-1111", aliases: ["CVE-2030-1"], artifactName: "nginx" }],
    },
  });
  address = new URL(api.emulator.url).host;
  wire = new GrpcWire(address);
  const org = api.emulator.orgUid;
  const ok = <T>(r: { status: number; body: T; text: string }): T => {
    if (r.status !== 200) throw new Error(`fixture: ${r.status} ${r.text}`);
    return r.body;
  };
  f.org = org;
  f.owner = ok(await api.get("/iam/v2beta1/roles?name=owner")).roles[0].uid;
  f.viewer = ok(await api.get("/iam/v2beta1/roles?name=viewer")).roles[0].uid;
  f.folder = ok(await api.post(`/iam/v2beta1/groups/${org}`, { name: "folder" })).uid;
  f.identity = ok(
    await api.post(`/iam/v2beta1/identities/${org}`, {
      name: "ci",
      claimMatch: { issuer: `${api.emulator.url}/oidc`, subject: "ci" },
    }),
  ).uid;
  f.role = ok(
    await api.post(`/iam/v2beta1/roles/${org}`, { name: "lister", capabilities: ["CAP_IAM_GROUPS_LIST"] }),
  ).uid;
  f.binding = ok(
    await api.post(`/iam/v2beta1/roleBindings/${org}`, { identityUid: f.identity, roleUid: f.owner }),
  ).uid;
  f.idp = ok(
    await api.post(`/iam/v2beta1/identityProviders/${org}`, {
      name: "sso",
      defaultRole: f.viewer,
      oidc: { issuer: "https://sso.example.com", clientId: "cid" },
    }),
  ).uid;
  f.invite = ok(
    await api.post(`/iam/v2beta1/groupInvites/${f.folder}`, { roleUid: f.viewer, ttl: "3600s" }),
  ).uid;
  ok(
    await api.post(`/iam/v2beta1/accountAssociations/${f.folder}`, {
      name: "aws",
      amazon: { account: "123456789012" },
    }),
  );
  f.repo = ok(await api.get("/registry/v2beta1/repos")).repos[0].uid;
  f.tag = ok(await api.get("/registry/v2beta1/tags")).tags[0].uid;
  f.advisory = ok(await api.get("/vulnerabilities/v2beta1/advisories")).advisories[0].uid;
});

afterAll(async () => {
  wire?.close();
  await api?.emulator.close();
});

/** A throwaway object of a kind, made over REST, for the delete cases. */
async function throwaway(collection: string, parent: string, body: Json): Promise<string> {
  const r = await api.post(`${collection}/${parent}`, body);
  if (r.status !== 200) throw new Error(`throwaway ${collection}: ${r.status} ${r.text}`);
  return (r.body.uid as string | undefined) ?? parent;
}

const get = (path: string, query: [string, string][] = []): HttpRequest => ({ method: "GET", path, query });
const post = (path: string, body: Json, query: [string, string][] = []): HttpRequest => ({
  method: "POST",
  path,
  query,
  body,
});
const patch = (path: string, body: Json, mask: string): HttpRequest => ({
  method: "PATCH",
  path,
  query: [["updateMask", mask]],
  body,
});
const del = (path: string): HttpRequest => ({ method: "DELETE", path, query: [] });

interface Case {
  request: () => Promise<HttpRequest>;
  /** The bearer: the owner's by default; the exchange takes a workload's ID token. */
  token?: () => Promise<string>;
}

/**
 * One working call per REST route ("METHOD /path/{uid}", every template variable spelt `{uid}`, as
 * emulator/routes/table.ts writes them). The RPC is found from the route through its binding.
 */
const CASES: Record<string, Case> = {
  "GET /iam/v2beta1/groups": { request: async () => get("/iam/v2beta1/groups") },
  "GET /iam/v2beta1/groups/{uid}": { request: async () => get(`/iam/v2beta1/groups/${f.folder}`) },
  "POST /iam/v2beta1/groups/{uid}": {
    request: async () => post(`/iam/v2beta1/groups/${f.org}`, { name: "made-over-grpc" }),
  },
  "PATCH /iam/v2beta1/groups/{uid}": {
    request: async () =>
      patch(`/iam/v2beta1/groups/${f.folder}`, { description: "over gRPC" }, "description"),
  },
  "DELETE /iam/v2beta1/groups/{uid}": {
    request: async () =>
      del(`/iam/v2beta1/groups/${await throwaway("/iam/v2beta1/groups", f.org, { name: "gone" })}`),
  },
  "GET /iam/v2beta1/identities": { request: async () => get("/iam/v2beta1/identities") },
  "GET /iam/v2beta1/identities:lookupIdentity": {
    request: async () =>
      get("/iam/v2beta1/identities:lookupIdentity", [
        ["issuer", `${api.emulator.url}/oidc`],
        ["subject", "ci"],
      ]),
  },
  "GET /iam/v2beta1/identities/{uid}": { request: async () => get(`/iam/v2beta1/identities/${f.identity}`) },
  "POST /iam/v2beta1/identities/{uid}": {
    request: async () =>
      post(`/iam/v2beta1/identities/${f.folder}`, {
        name: "bot",
        claimMatch: { issuer: "https://issuer.example", subjectPattern: "repo:acme/.*" },
      }),
  },
  "PATCH /iam/v2beta1/identities/{uid}": {
    request: async () => patch(`/iam/v2beta1/identities/${f.identity}`, { description: "d" }, "description"),
  },
  "DELETE /iam/v2beta1/identities/{uid}": {
    request: async () =>
      del(
        `/iam/v2beta1/identities/${await throwaway("/iam/v2beta1/identities", f.folder, {
          name: "gone",
          claimMatch: { issuer: "https://i.example", subject: "s" },
        })}`,
      ),
  },
  "GET /iam/v2beta1/roles": { request: async () => get("/iam/v2beta1/roles") },
  "GET /iam/v2beta1/roles/{uid}": { request: async () => get(`/iam/v2beta1/roles/${f.role}`) },
  "POST /iam/v2beta1/roles/{uid}": {
    request: async () =>
      post(`/iam/v2beta1/roles/${f.folder}`, {
        name: "r2",
        capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"],
      }),
  },
  "PATCH /iam/v2beta1/roles/{uid}": {
    request: async () => patch(`/iam/v2beta1/roles/${f.role}`, { description: "d" }, "description"),
  },
  "DELETE /iam/v2beta1/roles/{uid}": {
    request: async () =>
      del(
        `/iam/v2beta1/roles/${await throwaway("/iam/v2beta1/roles", f.folder, {
          name: "gone",
          capabilities: ["CAP_IAM_GROUPS_LIST"],
        })}`,
      ),
  },
  "GET /iam/v2beta1/roleBindings": { request: async () => get("/iam/v2beta1/roleBindings") },
  "GET /iam/v2beta1/roleBindings/{uid}": {
    request: async () => get(`/iam/v2beta1/roleBindings/${f.binding}`),
  },
  "POST /iam/v2beta1/roleBindings/{uid}": {
    request: async () =>
      post(`/iam/v2beta1/roleBindings/${f.folder}`, { identityUid: f.identity, roleUid: f.viewer }),
  },
  "POST /iam/v2beta1/roleBindings:batchCreate": {
    request: async () =>
      post("/iam/v2beta1/roleBindings:batchCreate", {
        parent: f.folder,
        roleUid: f.role,
        requests: [{ roleBinding: { identityUid: f.identity } }],
      }),
  },
  "PATCH /iam/v2beta1/roleBindings/{uid}": {
    request: async () => patch(`/iam/v2beta1/roleBindings/${f.binding}`, { roleUid: f.owner }, "roleUid"),
  },
  "DELETE /iam/v2beta1/roleBindings/{uid}": {
    request: async () =>
      del(
        `/iam/v2beta1/roleBindings/${await throwaway("/iam/v2beta1/roleBindings", f.folder, {
          identityUid: f.identity,
          roleUid: f.role,
        })}`,
      ),
  },
  "GET /iam/v2beta1/identityProviders": { request: async () => get("/iam/v2beta1/identityProviders") },
  "GET /iam/v2beta1/identityProviders/{uid}": {
    request: async () => get(`/iam/v2beta1/identityProviders/${f.idp}`),
  },
  "POST /iam/v2beta1/identityProviders/{uid}": {
    request: async () =>
      post(`/iam/v2beta1/identityProviders/${f.org}`, {
        name: "sso2",
        defaultRole: f.viewer,
        oidc: { issuer: "https://sso2.example.com", clientId: "cid", clientSecret: "s3cret" },
      }),
  },
  "PATCH /iam/v2beta1/identityProviders/{uid}": {
    request: async () =>
      patch(`/iam/v2beta1/identityProviders/${f.idp}`, { description: "d" }, "description"),
  },
  "DELETE /iam/v2beta1/identityProviders/{uid}": {
    request: async () =>
      del(
        `/iam/v2beta1/identityProviders/${await throwaway("/iam/v2beta1/identityProviders", f.org, {
          name: "gone",
          defaultRole: f.viewer,
          oidc: { issuer: "https://gone.example.com", clientId: "cid" },
        })}`,
      ),
  },
  "GET /iam/v2beta1/groupInvites": { request: async () => get("/iam/v2beta1/groupInvites") },
  "GET /iam/v2beta1/groupInvites/{uid}": {
    request: async () => get(`/iam/v2beta1/groupInvites/${f.invite}`),
  },
  "POST /iam/v2beta1/groupInvites/{uid}": {
    request: async () => post(`/iam/v2beta1/groupInvites/${f.org}`, { roleUid: f.viewer, ttl: "600s" }),
  },
  "DELETE /iam/v2beta1/groupInvites/{uid}": {
    request: async () =>
      del(
        `/iam/v2beta1/groupInvites/${await throwaway("/iam/v2beta1/groupInvites", f.folder, {
          roleUid: f.viewer,
          ttl: "60s",
        })}`,
      ),
  },
  "GET /iam/v2beta1/accountAssociations": { request: async () => get("/iam/v2beta1/accountAssociations") },
  "GET /iam/v2beta1/accountAssociations/{uid}": {
    request: async () => get(`/iam/v2beta1/accountAssociations/${f.folder}`),
  },
  "POST /iam/v2beta1/accountAssociations/{uid}": {
    request: async () =>
      post(`/iam/v2beta1/accountAssociations/${f.org}`, {
        name: "gcp",
        google: { projectId: "p", projectNumber: "42" },
      }),
  },
  "PATCH /iam/v2beta1/accountAssociations/{uid}": {
    request: async () =>
      patch(`/iam/v2beta1/accountAssociations/${f.folder}`, { description: "d" }, "description"),
  },
  "DELETE /iam/v2beta1/accountAssociations/{uid}": {
    request: async () => {
      const group = await throwaway("/iam/v2beta1/groups", f.org, { name: "assoc-gone" });
      await throwaway("/iam/v2beta1/accountAssociations", group, {
        name: "x",
        amazon: { account: "123456789012" },
      });
      return del(`/iam/v2beta1/accountAssociations/${group}`);
    },
  },
  "GET /registry/v2beta1/repos": { request: async () => get("/registry/v2beta1/repos") },
  "GET /registry/v2beta1/repos/{uid}": { request: async () => get(`/registry/v2beta1/repos/${f.repo}`) },
  "GET /registry/v2beta1/tags": { request: async () => get("/registry/v2beta1/tags") },
  "GET /registry/v2beta1/tags/{uid}": { request: async () => get(`/registry/v2beta1/tags/${f.tag}`) },
  "GET /vulnerabilities/v2beta1/advisories": {
    request: async () => get("/vulnerabilities/v2beta1/advisories"),
  },
  "GET /vulnerabilities/v2beta1/advisories/{uid}": {
    request: async () => get(`/vulnerabilities/v2beta1/advisories/${f.advisory}`),
  },
  "POST /sts/exchange": {
    request: async () => ({
      method: "POST",
      path: "/sts/exchange",
      query: [
        ["aud", api.emulator.url],
        ["identity", f.identity],
      ],
    }),
    token: () => api.emulator.mintIdToken({ subject: "ci" }),
  },
  "GET /sts/exchange": {
    request: async () =>
      get("/sts/exchange", [
        ["aud", api.emulator.url],
        ["identity", f.identity],
      ]),
    token: () => api.emulator.mintIdToken({ subject: "ci" }),
  },
  "GET /iam/v1/groups": { request: async () => get("/iam/v1/groups", [["uidp.childrenOf", f.org]]) },
  "GET /iam/v1/groups/{uid}": { request: async () => get(`/iam/v1/groups/${f.folder}`) },
  "PUT /iam/v1/groups/{uid}": {
    request: async () => ({
      method: "PUT",
      path: `/iam/v1/groups/${f.folder}`,
      query: [],
      body: { name: "folder" },
    }),
  },
  "PATCH /iam/v1/groups/{uid}": {
    request: async () => ({
      method: "PATCH",
      path: `/iam/v1/groups/${f.folder}`,
      query: [],
      body: { name: "folder" },
    }),
  },
  "GET /iam/v1/identities": {
    request: async () => get("/iam/v1/identities", [["uidp.descendantsOf", f.org]]),
  },
  "GET /iam/v1/identities/lookup": {
    request: async () =>
      get("/iam/v1/identities/lookup", [
        ["issuer", `${api.emulator.url}/oidc`],
        ["subject", "ci"],
      ]),
  },
  "GET /iam/v1/roles": { request: async () => get("/iam/v1/roles") },
  "GET /iam/v1/rolebindings": {
    request: async () => get("/iam/v1/rolebindings", [["uidp.descendantsOf", f.org]]),
  },
  "GET /iam/v1/group_invites": { request: async () => get("/iam/v1/group_invites") },
  "GET /iam/v1/account_associations": { request: async () => get("/iam/v1/account_associations") },
  "GET /iam/v1/identityProviders": { request: async () => get("/iam/v1/identityProviders") },
  "GET /registry/v1/repos": { request: async () => get("/registry/v1/repos") },
};

/** "GET /iam/v2beta1/groups/{group.uid=**}" → "GET /iam/v2beta1/groups/{uid}". */
function routeOf(binding: { method: string; pathTemplate: string }): string {
  return `${binding.method} ${binding.pathTemplate.replace(/\{[^}]*\}/g, "{uid}")}`;
}

/** Every (RPC, binding) the protos serve; a binding is one REST route. */
function servedRoutes(): { served: ServedMethod; route: string }[] {
  return servedMethods().flatMap((served) => served.http.map((b) => ({ served, route: routeOf(b) })));
}

describe("every served RPC answers once", () => {
  const routes = servedRoutes();

  test("the protos serve RPCs, each with an HTTP binding", () => {
    expect(routes.length).toBeGreaterThan(0);
    expect(
      servedMethods()
        .filter((m) => m.http.length === 0)
        .map((m) => m.fullName),
    ).toEqual([]);
  });

  test("every RPC's route has a case here", () => {
    expect(
      routes.filter((r) => !Object.hasOwn(CASES, r.route)).map((r) => `${r.served.fullName}: ${r.route}`),
    ).toEqual([]);
  });

  test.each(routes.map((r) => [r.served.fullName, r.route, r.served] as const))(
    "%s (%s)",
    async (_name, route, served) => {
      const c = CASES[route];
      if (c === undefined) throw new Error(`no case for ${route}`);
      const http = await c.request();
      const t = transcode(http);
      expect(t.served.fullName).toBe(served.fullName);
      const token = c.token === undefined ? api.emulator.token : await c.token();
      const answer = await wire.call(served.path, encodeMessage(served.requestType, t.request), token);
      expect({ code: answer.code, message: answer.message }).toEqual({ code: 0, message: "" });
      const response = decodeMessage(served.responseType, answer.response ?? Buffer.alloc(0));
      if (
        /^(Get|Create|Update)/.test(served.method) &&
        served.responseType.endsWith(served.method.replace(/^(Get|Create|Update)/, ""))
      ) {
        // v2beta1 objects name themselves by `uid`, v1 objects by `id`.
        const self = response.uid ?? response.id;
        expect({ rpc: served.fullName, named: typeof self === "string" && self !== "" }).toEqual({
          rpc: served.fullName,
          named: true,
        });
      }
    },
  );
});

describe("errors", () => {
  test("the error trailer decodes to the AIP-193 body REST sends for the same request", async () => {
    const cases: HttpRequest[] = [
      post(`/iam/v2beta1/groups/${f.org}`, { description: "no name" }), // name is required
      get("/iam/v2beta1/groups/0123456789abcdef0123456789abcdef01234567"), // not found
      patch(`/iam/v2beta1/groups/${f.folder}`, { name: "folder" }, "bogus"), // bad mask path
      post(`/iam/v2beta1/identities/${f.folder}`, {
        name: "bad",
        claimMatch: { issuer: "https://i", subjectPattern: "(" },
      }),
      post(`/iam/v2beta1/accountAssociations/${f.folder}`, {
        name: "again",
        amazon: { account: "123456789012" },
      }), // exists
    ];
    for (const http of cases) {
      const query = new URLSearchParams(http.query).toString();
      const rest = await api.call(http.method, query === "" ? http.path : `${http.path}?${query}`, {
        ...(http.body !== undefined ? { body: http.body } : {}),
      });
      expect([`${http.method} ${http.path}`, rest.status >= 400]).toEqual([
        `${http.method} ${http.path}`,
        true,
      ]);
      const t = transcode(http);
      const answer = await wire.call(
        t.served.path,
        encodeMessage(t.served.requestType, t.request),
        api.emulator.token,
      );
      expect({ code: answer.code, message: answer.message, status: answer.status }).toEqual({
        code: rest.body.code,
        message: rest.body.message,
        status: { code: rest.body.code, message: rest.body.message, details: rest.body.details },
      });
    }
  });

  test("no token is UNAUTHENTICATED; a stranger's token is refused as REST refuses it", async () => {
    const served = servedMethods().find((m) => m.fullName.endsWith("GroupsService/GetGroup"))!;
    const request = encodeMessage(served.requestType, { uid: f.folder });
    expect((await wire.call(served.path, request, null)).code).toBe(grpc.status.UNAUTHENTICATED);
    const stranger = api.emulator.createUser("stranger");
    const rest = await api.get(`/iam/v2beta1/groups/${f.folder}`, stranger.token);
    const answer = await wire.call(served.path, request, stranger.token);
    expect(answer.code).toBe(rest.body.code);
  });

  test("an unknown method is UNIMPLEMENTED; an unknown service too", async () => {
    for (const path of [
      "/chainguard.platform.iam.v2beta1.GroupsService/NoSuchMethod",
      "/no.such.Service/Get",
    ]) {
      expect((await wire.call(path, Buffer.alloc(0), api.emulator.token)).code).toBe(
        grpc.status.UNIMPLEMENTED,
      );
    }
  });

  test("an expired deadline is DEADLINE_EXCEEDED and the face keeps answering", async () => {
    const served = servedMethods().find((m) => m.fullName.endsWith("GroupsService/ListGroups"))!;
    const answer = await wire.call(served.path, Buffer.alloc(0), api.emulator.token, { deadlineMs: 0 });
    expect(answer.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect((await wire.call(served.path, Buffer.alloc(0), api.emulator.token)).code).toBe(0);
  });
});

describe("CreateGroup with no parent", () => {
  test("creates an organization, as POST /iam/v2beta1/groups does", async () => {
    // `{parent=**}` matches no segment too: the binding of an empty parent is POST /iam/v2beta1/groups.
    const served = servedMethods().find((m) => m.fullName.endsWith("GroupsService/CreateGroup"))!;
    const rest = await api.post("/iam/v2beta1/groups", { name: "org-over-rest" });
    expect(rest.status).toBe(200);
    const answer = await wire.call(
      served.path,
      encodeMessage(served.requestType, { group: { name: "org-over-grpc" } }),
      api.emulator.token,
    );
    expect({ code: answer.code, message: answer.message }).toEqual({ code: 0, message: "" });
    const created = decodeMessage(served.responseType, answer.response!);
    expect(created.uid).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe("faults apply to the REST path each RPC maps to", () => {
  const getGroup = () => servedMethods().find((m) => m.fullName.endsWith("GroupsService/GetGroup"))!;

  afterEach(() => api.emulator.faults.clear());

  test.each([
    [503, grpc.status.UNAVAILABLE],
    [429, grpc.status.RESOURCE_EXHAUSTED],
  ])("a %i fault is gRPC code %i, with the AIP-193 details", async (status, code) => {
    api.emulator.faults.add({ path: "^/iam/v2beta1/groups/", action: "status", status, times: 1 });
    const served = getGroup();
    const answer = await wire.call(
      served.path,
      encodeMessage(served.requestType, { uid: f.folder }),
      api.emulator.token,
    );
    expect(answer.code).toBe(code);
    expect(answer.status?.code).toBe(code);
    // Used once: the next call is answered.
    expect(
      (await wire.call(served.path, encodeMessage(served.requestType, { uid: f.folder }), api.emulator.token))
        .code,
    ).toBe(0);
  });

  test("a dropped request resets the call's stream: no status from the server, the channel goes on", async () => {
    api.emulator.faults.add({ path: "^/iam/v2beta1/groups/", action: "drop", times: 1 });
    const served = getGroup();
    const answer = await wire.call(
      served.path,
      encodeMessage(served.requestType, { uid: f.folder }),
      api.emulator.token,
    );
    expect(answer.code).toBe(grpc.status.INTERNAL);
    expect(answer.status).toBeUndefined();
    expect(
      (await wire.call(served.path, encodeMessage(served.requestType, { uid: f.folder }), api.emulator.token))
        .code,
    ).toBe(0);
  });
});

describe("the request log", () => {
  test("a gRPC call is one logged API request naming its route", async () => {
    api.emulator.clearRequestLog();
    const served = servedMethods().find((m) => m.fullName.endsWith("GroupsService/GetGroup"))!;
    await wire.call(served.path, encodeMessage(served.requestType, { uid: f.folder }), api.emulator.token);
    expect(api.emulator.requestLog()).toEqual([
      expect.objectContaining({ method: "GET", path: `/iam/v2beta1/groups/${f.folder}`, status: 200 }),
    ]);
  });
});

describe("token exchange over gRPC", () => {
  test("the exchanged token is accepted by the REST face", async () => {
    const served = servedMethods().find((m) => m.fullName.endsWith("SecurityTokenService/Exchange"));
    expect(served?.fullName).toBe("chainguard.platform.oidc.SecurityTokenService/Exchange");
    const idToken = await api.emulator.mintIdToken({ subject: "ci" });
    const answer = await wire.call(
      served!.path,
      encodeMessage(served!.requestType, { aud: [api.emulator.url], identity: f.identity }),
      idToken,
    );
    expect(answer.code).toBe(0);
    const token = decodeMessage(served!.responseType, answer.response!).token as string;
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const groups = await api.get(`/iam/v2beta1/groups/${f.org}`, token);
    expect(groups.status).toBe(200);
    expect(groups.body.uid).toBe(f.org);
    // And the ID token itself is no API token.
    expect((await api.get(`/iam/v2beta1/groups/${f.org}`, idToken)).status).toBe(401);
  });

  test("an exchange with no ID token is UNAUTHENTICATED", async () => {
    const served = servedMethods().find((m) => m.fullName.endsWith("SecurityTokenService/Exchange"))!;
    const answer = await wire.call(
      served.path,
      encodeMessage(served.requestType, { identity: f.identity }),
      null,
    );
    expect(answer.code).toBe(grpc.status.UNAUTHENTICATED);
  });
});

describe("clients made from loadServicePackage(), as generated code", () => {
  test("CreateGroup then ListGroups through grpc.loadPackageDefinition", async () => {
    const definition = grpc.loadPackageDefinition(loadServicePackage()) as unknown as {
      chainguard: { platform: { iam: { v2beta1: { GroupsService: grpc.ServiceClientConstructor } } } };
    };
    const Groups = definition.chainguard.platform.iam.v2beta1.GroupsService;
    const client = new Groups(address, grpc.credentials.createInsecure()) as unknown as Record<
      string,
      (
        req: unknown,
        md: grpc.Metadata,
        cb: (e: grpc.ServiceError | null, r: Record<string, unknown>) => void,
      ) => void
    >;
    const metadata = new grpc.Metadata();
    metadata.set("authorization", `Bearer ${api.emulator.token}`);
    const call = (method: string, req: unknown) =>
      new Promise<Record<string, unknown>>((resolve, reject) =>
        client[method]!.call(client, req, metadata, (e, r) => (e ? reject(e) : resolve(r))),
      );
    try {
      const created = await call("CreateGroup", {
        parent: f.folder,
        group: { name: "generated", description: "g" },
      });
      expect(created).toMatchObject({ name: "generated", description: "g" });
      expect(String(created.uid)).toMatch(new RegExp(`^${f.folder}/[0-9a-f]{16}$`));
      const listed = await call("ListGroups", { uidp: { childrenOf: f.folder } });
      expect((listed.groups as { uid: string }[]).map((g) => g.uid)).toContain(created.uid);
      const rest = await api.get(`/iam/v2beta1/groups/${created.uid as string}`);
      expect(rest.body.createTime).toBe(
        new Date(
          Number((created.createTime as { seconds: string }).seconds) * 1000 +
            Math.round(((created.createTime as { nanos?: number }).nanos ?? 0) / 1e6),
        ).toISOString(),
      );
    } finally {
      (client as unknown as grpc.Client).close();
    }
  });
});

describe("server reflection", () => {
  // The reflection messages, written from grpc's reflection.proto (v1 and v1alpha share them field for field).
  const reflection = protobuf.parse(
    `
    syntax = "proto3";
    package reflection;
    message ServerReflectionRequest {
      string host = 1;
      oneof message_request {
        string file_by_filename = 3;
        string file_containing_symbol = 4;
        string list_services = 7;
      }
    }
    message ServerReflectionResponse {
      string valid_host = 1;
      ServerReflectionRequest original_request = 2;
      oneof message_response {
        FileDescriptorResponse file_descriptor_response = 4;
        ListServiceResponse list_services_response = 6;
        ErrorResponse error_response = 7;
      }
    }
    message FileDescriptorResponse { repeated bytes file_descriptor_proto = 1; }
    message ListServiceResponse { repeated ServiceResponse service = 1; }
    message ServiceResponse { string name = 1; }
    message ErrorResponse { int32 error_code = 1; string error_message = 2; }
  `,
    { keepCase: true },
  ).root;
  const Request = reflection.lookupType("reflection.ServerReflectionRequest");
  const Response = reflection.lookupType("reflection.ServerReflectionResponse");

  /** One request on the bidirectional stream, its one answer. */
  function ask(
    version: "v1" | "v1alpha",
    request: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const metadata = new grpc.Metadata();
      const stream = wire.client.makeBidiStreamRequest<Buffer, Buffer>(
        `/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`,
        (b) => b,
        (b) => b,
        metadata,
        { deadline: Date.now() + 10_000 },
      );
      stream.on("data", (data: Buffer) => {
        resolve(Response.toObject(Response.decode(data), { bytes: Buffer, defaults: false }));
        stream.end();
      });
      stream.on("error", reject);
      stream.write(Buffer.from(Request.encode(Request.fromObject(request)).finish()));
    });
  }

  const services = () => [...new Set(servedMethods().map((m) => m.service))].sort();

  test.each(["v1", "v1alpha"] as const)("%s lists every served service", async (version) => {
    const answer = await ask(version, { list_services: "*" });
    const listed = ((answer.list_services_response as { service?: { name: string }[] }).service ?? []).map(
      (s) => s.name,
    );
    expect(listed.filter((s) => !s.startsWith("grpc.reflection."))).toEqual(
      expect.arrayContaining(services()),
    );
    for (const service of services()) expect(listed).toContain(service);
  });

  test.each(["v1", "v1alpha"] as const)("%s describes each service with all its methods", async (version) => {
    const descriptor = await import("protobufjs/ext/descriptor");
    const FileDescriptorProto = (descriptor as unknown as { FileDescriptorProto: protobuf.Type })
      .FileDescriptorProto;
    for (const service of services()) {
      const answer = await ask(version, { file_containing_symbol: service });
      const files = (
        (answer.file_descriptor_response as { file_descriptor_proto?: Buffer[] }).file_descriptor_proto ?? []
      ).map(
        (bytes) =>
          FileDescriptorProto.toObject(FileDescriptorProto.decode(bytes)) as {
            package?: string;
            service?: { name: string; method?: { name: string }[] }[];
          },
      );
      const described = files
        .flatMap((file) =>
          (file.service ?? []).map((s) => ({ full: `${file.package}.${s.name}`, methods: s.method ?? [] })),
        )
        .find((s) => s.full === service);
      expect(described?.methods.map((m) => m.name).sort()).toEqual(
        servedMethods()
          .filter((m) => m.service === service)
          .map((m) => m.method)
          .sort(),
      );
    }
  });
});
