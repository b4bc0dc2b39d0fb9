/** platform.iam.Role's provider against the in-process emulator. */
import provider = require("../../provider/iam/role.provider");
import { useHarness } from "./harness";

const h = useHarness();

const caps = ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"];

describe("role provider", () => {
  it("creates a custom role and sees no diff when only the capability order differs", async () => {
    const { id, outs } = await provider.create({
      parentUid: h.emulator.orgUid,
      name: "reader",
      capabilities: caps,
    });
    expect(outs.capabilities).toEqual([...caps].sort());
    const diff = await provider.diff!(id, outs, {
      parentUid: h.emulator.orgUid,
      name: "reader",
      capabilities: [...caps].reverse(),
    });
    expect(diff).toMatchObject({ changes: false, replaces: [] });
  });

  it("updates capabilities with one PATCH masked to capabilities", async () => {
    const { id, outs } = await provider.create({
      parentUid: h.emulator.orgUid,
      name: "reader",
      capabilities: caps,
    });
    h.mark();
    const news = {
      parentUid: h.emulator.orgUid,
      name: "reader",
      capabilities: [...caps, "CAP_IAM_ROLES_LIST"],
    };
    const { outs: updated } = await provider.update!(id, outs, news);
    expect(h.requestsSinceMark().map((r) => [r.method, r.query.updateMask])).toEqual([
      ["PATCH", "capabilities"],
    ]);
    expect([...(updated.capabilities as string[])].sort()).toEqual([...news.capabilities].sort());
  });

  it("a profile-only change is a change but sends nothing", async () => {
    const { id, outs } = await provider.create({
      parentUid: h.emulator.orgUid,
      name: "reader",
      capabilities: caps,
    });
    const news = { parentUid: h.emulator.orgUid, name: "reader", capabilities: caps, profile: "other" };
    expect(await provider.diff!(id, outs, news)).toMatchObject({ changes: true, replaces: [] });
    h.mark();
    const { outs: updated } = await provider.update!(id, outs, news);
    expect(h.requestsSinceMark()).toHaveLength(0);
    expect(updated.profile).toBe("other");
    expect(updated.uid).toBe(id);
  });

  it("an adopt flag change alone is no diff", async () => {
    const { id, outs } = await provider.create({
      parentUid: h.emulator.orgUid,
      name: "reader",
      capabilities: caps,
    });
    expect(
      await provider.diff!(id, outs, {
        parentUid: h.emulator.orgUid,
        name: "reader",
        capabilities: caps,
        adopt: true,
      }),
    ).toMatchObject({
      changes: false,
    });
  });

  it("shows an out-of-band capability change after read", async () => {
    const { id, outs } = await provider.create({
      parentUid: h.emulator.orgUid,
      name: "reader",
      capabilities: caps,
    });
    await h.emulator.client.roles.update(id, { capabilities: ["CAP_REPO_LIST"] });
    const read = await provider.read!(id, outs);
    expect(read.inputs!.capabilities).toEqual(["CAP_REPO_LIST"]);
    expect(
      await provider.diff!(id, read.props, {
        parentUid: h.emulator.orgUid,
        name: "reader",
        capabilities: caps,
      }),
    ).toMatchObject({
      changes: true,
    });
  });

  it("check names an unknown capability with its index, with zero API calls", async () => {
    h.mark();
    const { failures } = await provider.check!(
      {},
      { parentUid: h.emulator.orgUid, name: "r", capabilities: ["CAP_REPO_LIST", "CAP_NOPE"] },
    );
    expect(failures).toEqual([
      { property: "capabilities[1]", reason: expect.stringMatching(/unknown capability "CAP_NOPE"/) },
    ]);
    const empty = await provider.check!({}, { parentUid: h.emulator.orgUid, name: "r", capabilities: [] });
    expect(empty.failures?.[0]?.property).toBe("capabilities");
    const missing = await provider.check!({}, { name: "r", capabilities: caps });
    expect(missing.failures?.[0]?.property).toBe("parentUid");
    expect(h.requestsSinceMark()).toHaveLength(0);
  });

  it("delete of a missing role succeeds", async () => {
    await expect(provider.delete!(`${h.emulator.orgUid}/0123456789abcdef`, {})).resolves.toBeUndefined();
  });
});
