/**
 * The native plugin's provider-level methods (plugin info, schema, CheckConfig, DiffConfig, Configure with
 * profiles and env) and Invoke of each of the 9 data sources, against the in-process emulator.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import * as pluginPb from "@pulumi/pulumi/proto/plugin_pb";
import * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import { PluginHarness, plain, secret, startPluginHarness, struct } from "./harness";

const root = path.resolve(__dirname, "../..");
let h: PluginHarness;
beforeAll(async () => {
  h = await startPluginHarness();
});
afterAll(async () => {
  await h.close();
});
beforeEach(async () => {
  h.emulator.reset();
  await h.configure({ apiUrl: h.emulator.url, token: secret(h.emulator.token) });
});

function configRequest(news: Record<string, unknown>, olds: Record<string, unknown> = {}) {
  const request = new providerPb.CheckRequest();
  request.setUrn("urn:pulumi:dev::project::pulumi:providers:platform::default");
  request.setOlds(struct(olds));
  request.setNews(struct(news));
  return request;
}

describe("plugin: provider", () => {
  it("reports the package version and serves schema.json", async () => {
    const info = await h.call<pluginPb.PluginInfo>("getPluginInfo", new Empty());
    const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
      version: string;
    };
    expect(info.getVersion()).toBe(version);
    const response = await h.call<providerPb.GetSchemaResponse>(
      "getSchema",
      new providerPb.GetSchemaRequest(),
    );
    const served = JSON.parse(response.getSchema()) as { version: string };
    expect(served).toEqual(JSON.parse(fs.readFileSync(path.join(root, "schema.json"), "utf8")));
    expect(served.version).toBe(version);
  });

  it("CheckConfig keeps credentials secret even when given in plain, and names a malformed setting", async () => {
    const checked = await h.call<providerPb.CheckResponse>(
      "checkConfig",
      configRequest({ apiUrl: "https://api.example.dev", token: "plain-token", version: "0.1.0" }),
    );
    expect(plain(checked.getInputs())).toEqual({
      props: { apiUrl: "https://api.example.dev", token: "plain-token", version: "0.1.0" },
      secrets: ["token"],
    });
    const bad = await h.call<providerPb.CheckResponse>(
      "checkConfig",
      configRequest({ profiles: "[not json" }),
    );
    expect(bad.getFailuresList().map((f) => f.getProperty())).toEqual(["profiles"]);
  });

  it("DiffConfig reports the changed settings and never replaces", async () => {
    const request = new providerPb.DiffRequest();
    request.setOlds(struct({ apiUrl: "https://a", token: secret("one") }));
    request.setNews(struct({ apiUrl: "https://a", token: secret("two") }));
    const diff = (await h.call<providerPb.DiffResponse>("diffConfig", request)).toObject();
    expect(diff.changes).toBe(2);
    expect(diff.diffsList).toEqual(["token"]);
    expect(diff.replacesList).toEqual([]);
  });

  it("a resource's profile picks the credentials of platform:profiles; an unknown one fails its check", async () => {
    await h.configure({
      apiUrl: h.emulator.url,
      token: secret("not-a-valid-token"),
      profiles: secret(JSON.stringify({ orgb: { token: h.emulator.token } })),
    });
    const inputs = { name: "via-profile", parentUid: h.emulator.orgUid, profile: "orgb" };
    const created = await h.create("platform:iam:Group", inputs);
    expect(created.outputs.props).toMatchObject({ name: "via-profile", profile: "orgb" });
    await expect(h.check("platform:iam:Group", { ...inputs, profile: "nope" })).rejects.toThrow(
      /profile "nope" is not configured/,
    );
  });

  it("without config, the PLATFORM_* environment supplies the settings", async () => {
    const saved = { url: process.env.PLATFORM_API_URL, token: process.env.PLATFORM_TOKEN };
    process.env.PLATFORM_API_URL = h.emulator.url;
    process.env.PLATFORM_TOKEN = h.emulator.token;
    try {
      await h.configure({});
      const created = await h.create("platform:iam:Group", {
        name: "from-env",
        parentUid: h.emulator.orgUid,
      });
      expect(created.id.startsWith(h.emulator.orgUid)).toBe(true);
    } finally {
      for (const [key, value] of [
        ["PLATFORM_API_URL", saved.url],
        ["PLATFORM_TOKEN", saved.token],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });

  it("a failure reads as the dynamic path's message, without the token", async () => {
    await h.configure({ apiUrl: h.emulator.url, token: secret("rejected-token-value") });
    const failure = h.create("platform:iam:Group", { name: "x", parentUid: h.emulator.orgUid });
    await expect(failure).rejects.toThrow(/platform:token/);
    await expect(failure).rejects.not.toThrow(/rejected-token-value/);
  });
});

describe("plugin: Invoke", () => {
  const digest = (c: string) => `sha256:${c.repeat(64)}`;

  it("serves each of the 10 data sources with the configured credentials", async () => {
    h.emulator.seed({
      repos: [{ name: "nginx", tags: [{ name: "latest", digest: digest("a") }] }, { name: "redis" }],
      advisories: [{ advisoryId: "CGA-1", artifactName: "curl", aliases: ["CVE-2026-1"] }],
    });
    const org = h.emulator.orgUid;
    const client = h.emulator.client;
    const group = await client.groups.create(org, { name: "eng" });
    const identity = await client.identities.create(group.uid, {
      name: "ci",
      claimMatch: { issuer: "https://issuer.example.com", subject: "s" },
    });

    const roles = (await h.invoke("platform:iam:getRoles", { name: "viewer" })) as {
      roles: { uid: string }[];
    };
    expect(roles.roles).toHaveLength(1);
    const viewer = await h.invoke("platform:iam:getRole", { name: "viewer" });
    expect(viewer).toMatchObject({ name: "viewer", builtIn: true });
    await client.identityProviders.create(org, {
      name: "sso",
      defaultRole: viewer.uid as string,
      oidc: { issuer: "https://login.example.com", clientId: "c", clientSecret: "s" },
    });
    expect(await h.invoke("platform:iam:getGroup", { name: "eng", organizationUid: org })).toMatchObject({
      uid: group.uid,
    });
    expect(await h.invoke("platform:iam:getIdentity", { uid: identity.uid })).toMatchObject({ name: "ci" });
    const idps = (await h.invoke("platform:iam:getIdentityProviders", { organizationUid: org })) as {
      identityProviders: { name: string }[];
    };
    expect(idps.identityProviders.map((i) => i.name)).toEqual(["sso"]);
    const repos = (await h.invoke("platform:registry:getRepos", { organizationUid: org })) as {
      repos: { name: string; uid: string }[];
    };
    expect(repos.repos.map((r) => r.name).sort()).toEqual(["nginx", "redis"]);
    const nginx = await h.invoke("platform:registry:getRepo", { name: "nginx", organizationUid: org });
    const tags = (await h.invoke("platform:registry:getTags", { repoUid: nginx.uid })) as {
      tags: { name: string }[];
    };
    expect(tags.tags.map((t) => t.name)).toEqual(["latest"]);
    const advisories = (await h.invoke("platform:vulnerabilities:getAdvisories", {
      aliases: secret(["CVE-2026-1"]),
    })) as { advisories: { advisoryId: string }[] };
    expect(advisories.advisories.map((a) => a.advisoryId)).toEqual(["CGA-1"]);
    const access = (await h.invoke("platform:iam:getEffectiveAccess", {
      group: group.uid,
      capability: "CAP_IAM_GROUPS_CREATE",
    })) as { holders: { identityUid: string; grants: { group: string; inherited: boolean }[] }[] };
    expect(access.holders).toEqual([
      expect.objectContaining({
        identityUid: h.emulator.userUid,
        grants: [expect.objectContaining({ group: org, inherited: true })],
      }),
    ]);
  });

  it("names the argument that is wrong, and an unknown function", async () => {
    await expect(h.invoke("platform:iam:getRole", {})).rejects.toThrow(
      /platform:iam:getRole: uid: pass uid or name/,
    );
    await expect(h.invoke("platform:iam:getNothing", {})).rejects.toThrow(
      /unknown function platform:iam:getNothing/,
    );
  });
});

describe("plugin: preview with an explicit provider whose settings are not known yet", () => {
  it("check still validates the inputs but does not ask for an API it cannot know", async () => {
    await h.configure({ apiUrl: "04da6b54-80e4-46f7-96ec-b56ff0331ba9", token: secret("t") });
    const ok = await h.check("platform:iam:Group", { name: "eng", parentUid: h.emulator.orgUid });
    expect(ok).toEqual({
      inputs: { props: { name: "eng", parentUid: h.emulator.orgUid }, secrets: [] },
      failures: [],
    });
    const bad = await h.check("platform:iam:Group", { name: "Bad Name!" });
    expect(bad.failures.map((f) => f.property)).toEqual(["name"]);
  });
});
