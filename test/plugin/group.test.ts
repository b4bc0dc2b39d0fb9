/** platform:iam:Group through the native plugin's gRPC service, against the in-process emulator. */
import * as diffModule from "../../provider/core/diff";
import { PluginHarness, UNKNOWN, usePluginHarness } from "./harness";

const GROUP = "platform:iam:Group";
let h: PluginHarness;
usePluginHarness((started) => (h = started));

describe("plugin: Group", () => {
  it("check names the failing field and the rule", async () => {
    const { failures } = await h.check(GROUP, { name: "Not Valid!", parentUid: h.emulator.orgUid });
    expect(failures).toEqual([{ property: "name", reason: expect.stringMatching(/name must match/) }]);
  });

  it("create, read, update and delete", async () => {
    const inputs = { name: "eng", description: "old", parentUid: h.emulator.orgUid };
    const { inputs: checked, failures } = await h.check(GROUP, inputs);
    expect(failures).toEqual([]);
    const { id, outputs } = await h.create(GROUP, checked.props);
    expect(id.startsWith(`${h.emulator.orgUid}/`)).toBe(true);
    expect(outputs.props).toMatchObject({ uid: id, name: "eng", description: "old", verified: false });

    const read = await h.read(GROUP, id, outputs.props, checked.props);
    expect(read.inputs.props).toEqual(inputs);

    const news = { ...inputs, description: "new" };
    const diff = await h.diff(GROUP, id, outputs.props, news);
    expect(diff.changes).toBe(2);
    expect(diff.replacesList).toEqual([]);
    expect(diff.detaileddiffMap).toEqual([["description", { kind: 4, inputdiff: false }]]);
    expect(diff.stablesList).toContain("uid");

    const preview = await h.update(GROUP, id, outputs.props, news, true);
    expect(preview.props).toMatchObject({ description: "new", uid: id });
    const updated = await h.update(GROUP, id, outputs.props, news);
    expect(updated.props).toMatchObject({ description: "new", uid: id });
    expect((await h.emulator.client.groups.get(id)).description).toBe("new");

    await h.delete(GROUP, id, updated.props);
    await expect(h.emulator.client.groups.get(id)).rejects.toThrow();
    // Gone: read answers with no id.
    expect((await h.read(GROUP, id, updated.props)).id).toBe("");
  });

  it("a preview computes one diff: the update's preview takes the mask of the diff before it", async () => {
    const inputs = { name: "eng", description: "old", parentUid: h.emulator.orgUid };
    const { id, outputs } = await h.create(GROUP, inputs);
    // The program drops the description: what the service makes of it is unknown until the update.
    const news = { name: "eng", parentUid: h.emulator.orgUid };
    const diffs = jest.spyOn(diffModule, "diffFields");
    try {
      await h.diff(GROUP, id, outputs.props, news);
      const afterDiff = diffs.mock.calls.length;
      expect(afterDiff).toBeGreaterThan(0);
      const preview = await h.update(GROUP, id, outputs.props, news, true);
      expect(diffs.mock.calls.length).toBe(afterDiff);
      expect(preview.props).toMatchObject({ uid: id, name: "eng", description: UNKNOWN });
      // Without a diff before it (a front that asks for none), the preview computes the mask itself.
      const alone = await h.update(GROUP, id, outputs.props, news, true);
      expect(diffs.mock.calls.length).toBe(afterDiff + 1);
      expect(alone.props).toEqual(preview.props);
    } finally {
      diffs.mockRestore();
    }
  });

  it("a parent change replaces, and the preview of a create leaves the service's values unknown", async () => {
    const diff = await h.diff(
      GROUP,
      "x/y",
      { name: "eng", parentUid: h.emulator.orgUid },
      { name: "eng", parentUid: UNKNOWN },
    );
    expect(diff.replacesList).toEqual(["parentUid"]);
    expect(diff.detaileddiffMap).toEqual([["parentUid", { kind: 5, inputdiff: false }]]);
    const { id, outputs } = await h.create(GROUP, { name: "eng", parentUid: h.emulator.orgUid }, true);
    expect(id).toBe("");
    expect(outputs.props).toMatchObject({ name: "eng", uid: UNKNOWN, createTime: UNKNOWN });
  });

  it("import: a read with no state recovers the inputs from the live object", async () => {
    const live = await h.emulator.client.groups.create(h.emulator.orgUid, {
      name: "ops",
      description: "Ops",
    });
    const read = await h.read(GROUP, live.uid);
    expect(read.id).toBe(live.uid);
    expect(read.inputs.props).toEqual({ name: "ops", description: "Ops", parentUid: h.emulator.orgUid });
  });
});
