/** platform.iam.AccountAssociation's provider against the in-process emulator. */
import provider = require("../../provider/iam/account-association.provider");
import { useHarness } from "./harness";

const h = useHarness();

const amazon = { account: "123456789012" };
const google = { projectId: "acme-prod", projectNumber: "987654321" };

async function folder(name = "cloud"): Promise<string> {
  return (await h.emulator.client.groups.create(h.emulator.orgUid, { name })).uid;
}

describe("account association", () => {
  it("creates at the group's uid and reads back the same inputs with no diff", async () => {
    const groupUid = await folder();
    const news = { groupUid, name: "accounts", amazon, google };
    h.mark();
    const { id, outs } = await provider.create(news);
    expect(h.requestsSinceMark().map((r) => [r.method, r.path])).toEqual([
      ["POST", `/iam/v2beta1/accountAssociations/${groupUid}`],
    ]);
    expect(id).toBe(groupUid);
    expect(outs).toMatchObject({ uid: groupUid, groupUid, name: "accounts", amazon, google });
    const read = await provider.read!(id, outs);
    expect(read.inputs).toMatchObject({ ...news, description: "" });
    expect(await provider.diff!(id, read.props!, news)).toMatchObject({ changes: false, replaces: [] });
  });

  it("updates with an updateMask listing exactly the changed blocks and fields", async () => {
    const groupUid = await folder();
    const news = { groupUid, name: "accounts", amazon, google };
    const { id, outs } = await provider.create(news);
    const next = {
      ...news,
      description: "prod",
      google: { ...google, projectId: "acme-prod-2" },
      azure: { tenantId: "t-1", clientIds: { platform: "c-1" } },
    };
    expect(await provider.diff!(id, outs, next)).toMatchObject({ changes: true, replaces: [] });
    h.mark();
    const { outs: updated } = await provider.update!(id, outs, next);
    const requests = h.requestsSinceMark();
    expect(requests).toHaveLength(1);
    expect(requests[0]!.method).toBe("PATCH");
    expect(String(requests[0]!.query.updateMask).split(",").sort()).toEqual([
      "azure",
      "description",
      "google",
    ]);
    expect(updated).toMatchObject({ description: "prod", azure: next.azure, google: next.google, amazon });
  });

  it("replaces when the group changes or a block is removed (a PATCH cannot clear a block)", async () => {
    const groupUid = await folder();
    const news = { groupUid, name: "accounts", amazon, google };
    const { id, outs } = await provider.create(news);
    // Another group: the new association does not collide with the old one, so it is created first.
    expect(await provider.diff!(id, outs, { ...news, groupUid: await folder("other") })).toMatchObject({
      changes: true,
      replaces: ["groupUid"],
      deleteBeforeReplace: false,
    });
    // The same group: one association per group, so the old one must go first or the create is refused.
    const { google: _dropped, ...withoutGoogle } = news;
    expect(await provider.diff!(id, outs, withoutGoogle)).toMatchObject({
      changes: true,
      replaces: ["google"],
      deleteBeforeReplace: true,
    });
    await expect(provider.create(withoutGoogle)).rejects.toThrow(/already has an account association/);
    await provider.delete!(id, outs);
    await expect(provider.create(withoutGoogle)).resolves.toMatchObject({ id });
  });

  it("read after an out-of-band change shows the drift", async () => {
    const groupUid = await folder();
    const news = { groupUid, name: "accounts", amazon };
    const { id, outs } = await provider.create(news);
    await h.emulator.client.accountAssociations.update(groupUid, { amazon: { account: "210987654321" } });
    const read = await provider.read!(id, outs);
    expect(read.inputs).toMatchObject({ amazon: { account: "210987654321" } });
    expect(await provider.diff!(id, read.props!, news)).toMatchObject({ changes: true, replaces: [] });
  });

  it("drops a deleted association on read and treats delete of a missing one as done", async () => {
    const groupUid = await folder();
    const { id, outs } = await provider.create({ groupUid, name: "accounts", amazon });
    await provider.delete!(id, outs);
    await expect(h.emulator.client.accountAssociations.get(groupUid)).rejects.toThrow(/not found/i);
    expect((await provider.read!(id, outs)).id).toBeUndefined();
    await expect(provider.delete!(id, outs)).resolves.toBeUndefined();
  });

  it("adopt takes over the group's existing association and updates it to match", async () => {
    const groupUid = await folder();
    await h.emulator.client.accountAssociations.create(groupUid, { name: "legacy", amazon });
    h.mark();
    const { id, outs } = await provider.create({ groupUid, name: "accounts", amazon, google, adopt: true });
    expect(id).toBe(groupUid);
    const requests = h.requestsSinceMark();
    expect(requests.map((r) => r.method)).toEqual(["GET", "PATCH"]);
    expect(String(requests[1]!.query.updateMask).split(",").sort()).toEqual(["google", "name"]);
    expect(outs).toMatchObject({ name: "accounts", google, amazon });
  });

  it("without adopt, an existing association fails with a message naming the group", async () => {
    const groupUid = await folder();
    await h.emulator.client.accountAssociations.create(groupUid, { name: "legacy", amazon });
    await expect(provider.create({ groupUid, name: "accounts", amazon })).rejects.toThrow(
      new RegExp(`already has an account association`),
    );
  });

  it("check names bad blocks' fields, with zero API calls", async () => {
    h.mark();
    const { failures } = await provider.check!(
      {},
      {
        groupUid: h.emulator.orgUid,
        name: "",
        amazon: { account: "12" },
        google: { projectId: "p", projectNumber: "" },
      },
    );
    expect(failures?.map((f) => f.property).sort()).toEqual([
      "amazon.account",
      "google.projectNumber",
      "name",
    ]);
    expect(failures?.find((f) => f.property === "amazon.account")?.reason).toMatch(/12 digits/);
    expect(h.requestsSinceMark()).toHaveLength(0);
  });
});
