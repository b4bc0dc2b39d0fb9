/** platform.iam.Identity's provider against the in-process emulator. */
import provider = require("../../provider/iam/identity.provider");
import { UNKNOWN } from "../../provider/core/check";
import { Harness, startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => h.emulator.reset());

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
