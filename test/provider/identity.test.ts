/** platform.iam.Identity's provider against the in-process emulator. */
import provider = require("../../provider/iam/identity.provider");
import { UNKNOWN } from "../../provider/core/check";
import { useHarness } from "./harness";

const h = useHarness();

const claimMatch = {
  issuer: "https://token.actions.githubusercontent.com",
  subject: "repo:acme/app:ref:refs/heads/main",
};

describe("identity provider", () => {
  it("creates, reads back the same inputs, and shows no diff against the program", async () => {
    const inputs = { parentUid: h.emulator.orgUid, name: "ci", claimMatch };
    const { id, outs } = await provider.create(inputs);
    expect(outs).toMatchObject({ uid: id, name: "ci", claimMatch, parentUid: h.emulator.orgUid });
    const read = await provider.read!(id, outs);
    expect(read.inputs).toMatchObject({
      parentUid: h.emulator.orgUid,
      name: "ci",
      claimMatch,
      description: "",
    });
    expect(await provider.diff!(id, read.props, inputs)).toMatchObject({ changes: false, replaces: [] });
  });

  it("updates claimMatch alone with updateMask=claimMatch", async () => {
    const { id, outs } = await provider.create({ parentUid: h.emulator.orgUid, name: "ci", claimMatch });
    const news = {
      parentUid: h.emulator.orgUid,
      name: "ci",
      claimMatch: { ...claimMatch, subjectPattern: "repo:acme/.*", subject: undefined },
    };
    h.mark();
    const { outs: updated } = await provider.update!(id, outs, news);
    expect(h.requestsSinceMark().map((r) => [r.method, r.query.updateMask])).toEqual([
      ["PATCH", "claimMatch"],
    ]);
    expect(updated.claimMatch).toEqual({ issuer: claimMatch.issuer, subjectPattern: "repo:acme/.*" });
  });

  it("replaces when the parent changes", async () => {
    const { id, outs } = await provider.create({ parentUid: h.emulator.orgUid, name: "ci", claimMatch });
    const folder = await h.emulator.client.groups.create(h.emulator.orgUid, { name: "folder" });
    expect(await provider.diff!(id, outs, { parentUid: folder.uid, name: "ci", claimMatch })).toMatchObject({
      changes: true,
      replaces: ["parentUid"],
    });
  });

  it("drops a deleted identity on read and treats delete of a missing one as done", async () => {
    const { id, outs } = await provider.create({ parentUid: h.emulator.orgUid, name: "ci", claimMatch });
    await h.emulator.client.identities.delete(id);
    expect((await provider.read!(id, outs)).id).toBeUndefined();
    await expect(provider.delete!(id, outs)).resolves.toBeUndefined();
  });

  it("adopts an existing identity by name under the parent", async () => {
    const existing = await h.emulator.client.identities.create(h.emulator.orgUid, { name: "ci", claimMatch });
    const { id } = await provider.create({
      parentUid: h.emulator.orgUid,
      name: "ci",
      claimMatch,
      adopt: true,
    });
    expect(id).toBe(existing.uid);
  });

  it("check requires an issuer or issuerPattern and a subject or subjectPattern, with zero API calls", async () => {
    h.mark();
    const { failures } = await provider.check!(
      {},
      { parentUid: h.emulator.orgUid, name: "ci", claimMatch: { audience: "x" } },
    );
    expect(failures?.map((f) => f.property).sort()).toEqual(["claimMatch.issuer", "claimMatch.subject"]);
    expect(failures?.[0]?.reason).toMatch(/issuer or an issuerPattern|subject or a subjectPattern/);
    expect(h.requestsSinceMark()).toHaveLength(0);
  });

  it("check accepts inputs that are unknown at preview", async () => {
    const { failures } = await provider.check!(
      {},
      { parentUid: UNKNOWN, name: "ci", claimMatch: { issuer: UNKNOWN, subject: "s" } },
    );
    expect(failures ?? []).toEqual([]);
  });

  it("diff with an unknown parent at preview reports a replacement", async () => {
    const { id, outs } = await provider.create({ parentUid: h.emulator.orgUid, name: "ci", claimMatch });
    expect(await provider.diff!(id, outs, { parentUid: UNKNOWN, name: "ci", claimMatch })).toMatchObject({
      changes: true,
      replaces: ["parentUid"],
    });
  });
});

describe("identity kinds: staticKeys and awsIdentity", () => {
  const jwks = JSON.stringify({
    keys: [
      {
        kty: "EC",
        crv: "P-256",
        x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
        y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
      },
    ],
  });
  const expirationTime = () => new Date(h.emulator.clock.now().getTime() + 30 * 86_400_000).toISOString();
  const aws = { awsAccount: "123456789012", arnPattern: "arn:aws:iam::123456789012:role/.*" };

  it("creates with staticKeys or awsIdentity, reads back the same inputs, and shows no diff", async () => {
    const staticKeys = {
      issuer: "https://ci.example",
      subject: "builder",
      issuerKeys: jwks,
      expirationTime: expirationTime(),
    };
    for (const kind of [{ staticKeys }, { awsIdentity: aws }]) {
      const inputs = { parentUid: h.emulator.orgUid, name: "kinds", ...kind };
      const { id, outs } = await provider.create(inputs);
      expect(outs).toMatchObject(kind);
      const read = await provider.read!(id, outs);
      expect(read.inputs).toMatchObject(kind);
      expect(read.inputs).not.toHaveProperty("claimMatch");
      expect(await provider.diff!(id, read.props, inputs)).toMatchObject({ changes: false, replaces: [] });
    }
  });

  it("switching from claimMatch to awsIdentity sends only the new kind; the service clears the old one", async () => {
    const { id, outs } = await provider.create({ parentUid: h.emulator.orgUid, name: "switch", claimMatch });
    const news = { parentUid: h.emulator.orgUid, name: "switch", awsIdentity: aws };
    expect((await provider.diff!(id, outs, news)).changes).toBe(true);
    h.mark();
    const { outs: updated } = await provider.update!(id, outs, news);
    expect(h.requestsSinceMark().map((r) => [r.method, r.query.updateMask])).toEqual([
      ["PATCH", "awsIdentity"],
    ]);
    expect(updated.awsIdentity).toEqual(aws);
    expect(updated.claimMatch).toBeUndefined();
    const read = await provider.read!(id, updated);
    expect(await provider.diff!(id, read.props, news)).toMatchObject({ changes: false });
  });

  it("check takes issuerKeys as the service does (JSON or not), refusing only a private key", async () => {
    const base = { parentUid: h.emulator.orgUid, name: "x" };
    for (const issuerKeys of ["{}", "not json at all", jwks]) {
      const staticKeys = { issuer: "i", subject: "s", issuerKeys, expirationTime: expirationTime() };
      const { failures } = await provider.check!({}, { ...base, staticKeys });
      expect([issuerKeys, failures ?? []]).toEqual([issuerKeys, []]);
    }
  });

  it("a servicePrincipal identity is created, read back the same and shows no diff; another kind replaces it in place", async () => {
    const inputs = {
      parentUid: h.emulator.orgUid,
      name: "ingester",
      servicePrincipal: "SERVICE_PRINCIPAL_INGESTER",
    };
    const { id, outs } = await provider.create(inputs);
    const read = await provider.read!(id, outs);
    expect(read.inputs).toMatchObject({ servicePrincipal: "SERVICE_PRINCIPAL_INGESTER", name: "ingester" });
    expect(await provider.diff!(id, read.props, inputs)).toMatchObject({ changes: false, replaces: [] });
    const news = { parentUid: h.emulator.orgUid, name: "ingester", claimMatch };
    expect(await provider.diff!(id, read.props, news)).toMatchObject({ changes: true, replaces: [] });
    const { outs: updated } = await provider.update!(id, read.props, news);
    expect(updated).toMatchObject({ claimMatch });
    expect(updated.servicePrincipal).toBeUndefined();
    const { failures } = await provider.check!({}, { ...inputs, servicePrincipal: "SOMEONE" });
    expect(failures?.map((f) => f.property)).toEqual(["servicePrincipal"]);
  });

  it("check: exactly one kind; bad keys, accounts and patterns named, with zero API calls", async () => {
    h.mark();
    const base = { parentUid: h.emulator.orgUid, name: "x" };
    const cases: [Record<string, unknown>, string][] = [
      [{}, "claimMatch"],
      [{ claimMatch, awsIdentity: aws }, "awsIdentity"],
      [
        {
          staticKeys: {
            issuer: "i",
            subject: "s",
            issuerKeys: JSON.stringify({ keys: [{ kty: "EC", d: "x" }] }),
            expirationTime: expirationTime(),
          },
        },
        "staticKeys.issuerKeys",
      ],
      [{ staticKeys: { issuer: "i", subject: "s", issuerKeys: jwks } }, "staticKeys.expirationTime"],
      [
        {
          staticKeys: {
            issuer: "i",
            subject: "s",
            issuerKeys: jwks,
            expirationTime: expirationTime(),
            audiences: ["a", "b"],
          },
        },
        "staticKeys.audiences",
      ],
      [{ awsIdentity: { awsAccount: "12" } }, "awsIdentity.awsAccount"],
      [{ awsIdentity: { ...aws, userIdPattern: "(" } }, "awsIdentity.userIdPattern"],
    ];
    for (const [kind, property] of cases) {
      const { failures } = await provider.check!({}, { ...base, ...kind });
      expect([property, failures?.map((f) => f.property)]).toEqual([property, [property]]);
    }
    expect(h.requestsSinceMark()).toHaveLength(0);
  });
});
