/** platform.iam.IdentityProvider's provider against the in-process emulator; clientSecret bookkeeping. */
import provider = require("../../provider/iam/identity-provider.provider");
import { UNKNOWN } from "../../provider/core/check";
import { useHarness } from "./harness";

const h = useHarness();

const SECRET = "s3cr3t-client-value";

async function role(name = "login"): Promise<string> {
  const r = await h.emulator.client.roles.create(h.emulator.orgUid, {
    name,
    capabilities: ["CAP_REPO_LIST"],
  });
  return r.uid;
}

async function inputs(overrides: Record<string, unknown> = {}) {
  return {
    parentUid: h.emulator.orgUid,
    name: "okta",
    defaultRole: await role(),
    issuer: "https://login.example.com",
    clientId: "client-1",
    clientSecret: SECRET,
    additionalScopes: ["email", "profile"],
    ...overrides,
  };
}

/** What the engine does first: check, whose inputs (with defaults) become the resource's inputs. */
async function checked(news: Record<string, unknown>) {
  const result = await provider.check!({}, news);
  expect(result.failures ?? []).toEqual([]);
  return result.inputs as Record<string, unknown> & { clientSecret: string };
}

/** An identity provider made outside the program, as `news` declares it but with its own client secret. */
function existingIdentityProvider(news: Record<string, unknown>, clientSecret: string) {
  return h.emulator.client.identityProviders.create(h.emulator.orgUid, {
    name: news.name as string,
    defaultRole: news.defaultRole as string,
    oidc: { issuer: news.issuer as string, clientId: news.clientId as string, clientSecret },
  });
}

const mentionsSecret = (value: unknown) => JSON.stringify(value ?? null).includes(SECRET);

describe("identity provider", () => {
  it("creates under the organization, sending the secret once inside oidc", async () => {
    const news = await checked(await inputs());
    h.mark();
    const { id, outs } = await provider.create(news);
    const requests = h.requestsSinceMark();
    expect(requests.map((r) => [r.method, r.path])).toEqual([
      ["POST", `/iam/v2beta1/identityProviders/${h.emulator.orgUid}`],
    ]);
    expect(outs).toMatchObject({
      uid: id,
      parentUid: h.emulator.orgUid,
      name: "okta",
      issuer: "https://login.example.com",
      clientId: "client-1",
      pkceEnabled: false,
      // Kept in state (the class marks it secret) so diff can compare with the previous input.
      clientSecret: SECRET,
    });
    const live = await h.emulator.client.identityProviders.get(id);
    expect(live.oidc).toMatchObject({ issuer: "https://login.example.com", clientId: "client-1" });
    expect(mentionsSecret(live)).toBe(false);
  });

  it("read carries the old clientSecret over, rebuilds the rest from the API, and refresh shows no diff", async () => {
    const news = await checked(await inputs());
    const { id, outs } = await provider.create(news);
    const read = await provider.read!(id, outs);
    expect(read.inputs).toMatchObject({ ...news, description: "" });
    expect(read.props).toMatchObject({ clientSecret: SECRET, uid: id });
    const diff = await provider.diff!(id, read.props!, news);
    expect(diff).toMatchObject({ changes: false, replaces: [] });
  });

  it("the API never hands the secret back: get, list and a read without old state hold none", async () => {
    const { id } = await provider.create(await checked(await inputs()));
    const page = await h.emulator.client.identityProviders.list({ childrenOf: h.emulator.orgUid });
    expect(mentionsSecret(page.items)).toBe(false);
    const imported = await provider.read!(id, {});
    expect(imported.id).toBe(id);
    expect(mentionsSecret(imported.props)).toBe(false);
    expect(mentionsSecret(imported.inputs)).toBe(false);
  });

  it("a changed secret is a change, and the PATCH sends oidc with the new secret", async () => {
    const news = await checked(await inputs());
    const { id, outs } = await provider.create(news);
    const next = { ...news, clientSecret: "rotated-secret" };
    expect(await provider.diff!(id, outs, next)).toMatchObject({ changes: true, replaces: [] });
    h.mark();
    const { outs: updated } = await provider.update!(id, outs, next);
    const [patch, ...rest] = h.requestsSinceMark();
    expect(rest).toEqual([]);
    expect([patch!.method, patch!.query.updateMask]).toEqual(["PATCH", "oidc"]);
    expect(updated.clientSecret).toBe("rotated-secret");
  });

  it("an update that does not touch the secret leaves it out of the PATCH and keeps it stored", async () => {
    const news = await checked(await inputs());
    const { id, outs } = await provider.create(news);
    const bodies: unknown[] = [];
    const original = h.emulator.client.identityProviders.update.bind(h.emulator.client.identityProviders);
    // Observe what the provider's own client sends (through a spy on the SDK class's prototype).
    const proto = Object.getPrototypeOf(h.emulator.client.identityProviders) as {
      update: (uid: string, patch: unknown) => Promise<unknown>;
    };
    const spy = jest.spyOn(proto, "update").mockImplementation(function (this: unknown, uid, patch) {
      bodies.push(patch);
      return original(uid as string, patch as never);
    });
    try {
      h.mark();
      const { outs: updated } = await provider.update!(id, outs, { ...news, clientId: "client-2" });
      expect(h.requestsSinceMark().map((r) => r.query.updateMask)).toEqual(["oidc"]);
      expect(bodies).toHaveLength(1);
      expect(mentionsSecret(bodies)).toBe(false);
      expect(bodies[0]).toMatchObject({
        oidc: { clientId: "client-2", issuer: "https://login.example.com" },
      });
      expect(updated).toMatchObject({ clientId: "client-2", clientSecret: SECRET });
    } finally {
      spy.mockRestore();
    }
  });

  it("updates name alone with updateMask=name", async () => {
    const news = await checked(await inputs());
    const { id, outs } = await provider.create(news);
    h.mark();
    const { outs: updated } = await provider.update!(id, outs, { ...news, name: "okta-2" });
    expect(h.requestsSinceMark().map((r) => [r.method, r.query.updateMask])).toEqual([["PATCH", "name"]]);
    expect(updated).toMatchObject({ name: "okta-2", clientSecret: SECRET });
  });

  it("read after an out-of-band change shows the drift, and diff wants it back", async () => {
    const news = await checked(await inputs());
    const { id, outs } = await provider.create(news);
    await h.emulator.client.identityProviders.update(id, { description: "changed by hand" });
    const read = await provider.read!(id, outs);
    expect(read.inputs).toMatchObject({ description: "changed by hand", clientSecret: SECRET });
    expect(await provider.diff!(id, read.props!, news)).toMatchObject({ changes: true, replaces: [] });
  });

  it("replaces when the organization changes", async () => {
    const news = await checked(await inputs());
    const { id, outs } = await provider.create(news);
    expect(
      await provider.diff!(id, outs, { ...news, parentUid: "fedcba9876543210fedcba9876543210fedcba98" }),
    ).toMatchObject({
      changes: true,
      replaces: ["parentUid"],
    });
  });

  it("drops a deleted identity provider on read and treats delete of a missing one as done", async () => {
    const { id, outs } = await provider.create(await checked(await inputs()));
    h.mark();
    await provider.delete!(id, outs);
    expect(h.requestsSinceMark().map((r) => r.method)).toEqual(["DELETE"]);
    expect((await provider.read!(id, outs)).id).toBeUndefined();
    await expect(provider.delete!(id, outs)).resolves.toBeUndefined();
  });

  it("adopts an existing identity provider by name and sets the program's secret on it", async () => {
    const news = await checked(await inputs());
    const existing = await existingIdentityProvider(news, "old");
    h.mark();
    const { id, outs } = await provider.create({ ...news, adopt: true });
    expect(id).toBe(existing.uid);
    // The API cannot tell us the adopted secret, so the program's is sent.
    const patch = h.requestsSinceMark().find((r) => r.method === "PATCH");
    expect(String(patch?.query.updateMask).split(",")).toContain("oidc");
    expect(outs.clientSecret).toBe(SECRET);
  });

  it('an imported provider whose program says clientSecret "" checks again after up recorded it', async () => {
    const news = await checked(await inputs());
    const existing = await existingIdentityProvider(news, "kept");
    // `pulumi import`: a read with no state; the API hands back no secret, and the printed program says "".
    const imported = await provider.read!(existing.uid, undefined as unknown as Record<string, unknown>);
    const program = { ...(imported.inputs as Record<string, unknown>), clientSecret: "" };
    expect(
      (await provider.check!(imported.inputs as Record<string, unknown>, program)).failures ?? [],
    ).toEqual([]);
    // After an up, the state's inputs hold the program's "": the next preview checks the same program again.
    expect((await provider.check!(program, program)).failures ?? []).toEqual([]);
    // A real secret once recorded is required again: "" then is a change to nothing, refused.
    const real = { ...program, clientSecret: SECRET };
    expect((await provider.check!(real, program)).failures?.map((f) => f.property)).toEqual(["clientSecret"]);
  });

  it("check rejects a folder as parent, naming parentUid, with zero API calls", async () => {
    const folder = await h.emulator.client.groups.create(h.emulator.orgUid, { name: "folder" });
    const news = await inputs({ parentUid: folder.uid });
    h.mark();
    const { failures } = await provider.check!({}, news);
    expect(failures?.map((f) => f.property)).toEqual(["parentUid"]);
    expect(failures?.[0]?.reason).toMatch(/organization/);
    expect(h.requestsSinceMark()).toHaveLength(0);
  });

  it("check names each bad field: http issuer, empty clientId, missing secret", async () => {
    const news = await inputs({ issuer: "http://login.example.com", clientId: "" });
    delete (news as Record<string, unknown>).clientSecret;
    h.mark();
    const { failures } = await provider.check!({}, news);
    expect(failures?.map((f) => f.property).sort()).toEqual(["clientId", "clientSecret", "issuer"]);
    expect(failures?.find((f) => f.property === "issuer")?.reason).toMatch(/https/);
    expect(h.requestsSinceMark()).toHaveLength(0);
  });

  it("check accepts an unknown secret and parent at preview", async () => {
    const { failures } = await provider.check!(
      {},
      await inputs({ parentUid: UNKNOWN, clientSecret: UNKNOWN }),
    );
    expect(failures ?? []).toEqual([]);
  });
});
