/** platform.iam.Group's provider against the in-process emulator. */
import provider = require("../../provider/iam/group.provider");
import { useHarness } from "./harness";

const h = useHarness();

const create = (inputs: Record<string, unknown>) => provider.create(inputs);

describe("group provider", () => {
  it("creates a folder under the organization and returns outputs with uid and times", async () => {
    const { id, outs } = await create({
      name: "eng",
      description: "engineering",
      parentUid: h.emulator.orgUid,
    });
    expect(id.startsWith(`${h.emulator.orgUid}/`)).toBe(true);
    expect(outs).toMatchObject({
      uid: id,
      name: "eng",
      description: "engineering",
      parentUid: h.emulator.orgUid,
      verified: false,
    });
    expect(typeof outs.createTime).toBe("string");
    // Nothing the class does not expose: no updateTime (it changes with every edit) and no empty resourceLimits.
    expect(outs).not.toHaveProperty("updateTime");
    expect(outs).not.toHaveProperty("resourceLimits");
    expect((await h.emulator.client.groups.get(id)).name).toBe("eng");
  });

  it("creates an organization when parentUid is omitted", async () => {
    const { id, outs } = await create({ name: "new-org" });
    expect(id).toMatch(/^[0-9a-f]{40}$/);
    expect(outs.parentUid).toBeUndefined();
  });

  it("reads the live object and rebuilds inputs, carrying profile and adopt over", async () => {
    const { id } = await create({ name: "eng", parentUid: h.emulator.orgUid });
    const result = await provider.read!(id, { name: "eng", parentUid: h.emulator.orgUid, adopt: true });
    expect(result.id).toBe(id);
    expect(result.inputs).toEqual({
      name: "eng",
      description: "",
      parentUid: h.emulator.orgUid,
      adopt: true,
    });
    expect(result.props).toMatchObject({ uid: id, name: "eng" });
  });

  it("updates with ONE PATCH whose updateMask lists exactly the changed fields", async () => {
    const { id, outs } = await create({ name: "eng", description: "old", parentUid: h.emulator.orgUid });
    const news = { name: "eng", description: "new", parentUid: h.emulator.orgUid };
    const diff = await provider.diff!(id, outs, news);
    expect(diff).toMatchObject({ changes: true, replaces: [] });
    h.mark();
    const { outs: updated } = await provider.update!(id, outs, news);
    const patches = h.requestsSinceMark().filter((r) => r.method === "PATCH");
    expect(patches).toHaveLength(1);
    expect(patches[0]!.query.updateMask).toBe("description");
    expect(h.requestsSinceMark()).toHaveLength(1);
    expect(updated).toMatchObject({ description: "new", name: "eng" });
    expect((await h.emulator.client.groups.get(id)).description).toBe("new");
  });

  it("renames and re-describes in one PATCH with both fields in the mask", async () => {
    const { id, outs } = await create({ name: "eng", description: "a", parentUid: h.emulator.orgUid });
    h.mark();
    await provider.update!(id, outs, { name: "engineering", description: "b", parentUid: h.emulator.orgUid });
    const patches = h.requestsSinceMark().filter((r) => r.method === "PATCH");
    expect(patches).toHaveLength(1);
    expect(String(patches[0]!.query.updateMask).split(",").sort()).toEqual(["description", "name"]);
  });

  it("shows an out-of-band change as a diff after read, and none when it matches again", async () => {
    const { id } = await create({ name: "eng", description: "mine", parentUid: h.emulator.orgUid });
    await h.emulator.client.groups.update(id, { description: "someone else's" });
    const read = await provider.read!(id, { name: "eng", description: "mine", parentUid: h.emulator.orgUid });
    expect(read.props!.description).toBe("someone else's");
    const program = { name: "eng", description: "mine", parentUid: h.emulator.orgUid };
    expect(await provider.diff!(id, read.props, program)).toMatchObject({ changes: true, replaces: [] });
    // Right after a refresh with the program matching the live object: no diff.
    expect(await provider.diff!(id, read.props, read.inputs)).toMatchObject({ changes: false });
  });

  it("treats an absent description like the empty one the service returns (no phantom diff)", async () => {
    const { id } = await create({ name: "eng", parentUid: h.emulator.orgUid });
    const read = await provider.read!(id, {});
    expect(await provider.diff!(id, read.props, { name: "eng", parentUid: h.emulator.orgUid })).toMatchObject(
      {
        changes: false,
      },
    );
  });

  it("reports an out-of-band delete as gone (no id) so refresh drops it", async () => {
    const { id } = await create({ name: "eng", parentUid: h.emulator.orgUid });
    await h.emulator.client.groups.delete(id);
    const result = await provider.read!(id, { name: "eng" });
    expect(result.id).toBeUndefined();
  });

  it("deletes, and deleting a missing group succeeds", async () => {
    const { id, outs } = await create({ name: "eng", parentUid: h.emulator.orgUid });
    await provider.delete!(id, outs);
    await expect(h.emulator.client.groups.get(id)).rejects.toThrow();
    await expect(provider.delete!(id, outs)).resolves.toBeUndefined();
  });

  it("refuses to delete a non-empty group with a message naming what still lives in it", async () => {
    const { id, outs } = await create({ name: "eng", parentUid: h.emulator.orgUid });
    const child = await h.emulator.client.groups.create(id, { name: "platform-team" });
    const err = await provider.delete!(id, outs).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toContain(`platform:iam:Group`);
    expect(err!.message).toContain(id);
    expect(err!.message).toContain(child.uid);
    expect(err!.message).toMatch(/Delete or move what still lives in it/);
    expect(err!.message).not.toContain(h.emulator.token);
  });

  it("replaces on a parent change", async () => {
    const { id, outs } = await create({ name: "eng", parentUid: h.emulator.orgUid });
    const other = await h.emulator.client.groups.create(h.emulator.orgUid, { name: "other" });
    const diff = await provider.diff!(id, outs, { name: "eng", parentUid: other.uid });
    expect(diff.changes).toBe(true);
    expect(diff.replaces).toEqual(["parentUid"]);
  });

  it("adopts an existing group with the same name under the same parent and updates it to match", async () => {
    const existing = await h.emulator.client.groups.create(h.emulator.orgUid, {
      name: "eng",
      description: "old",
    });
    h.mark();
    const { id, outs } = await create({
      name: "eng",
      description: "new",
      parentUid: h.emulator.orgUid,
      adopt: true,
    });
    expect(id).toBe(existing.uid);
    expect(outs.description).toBe("new");
    const requests = h.requestsSinceMark();
    expect(requests.filter((r) => r.method === "POST")).toHaveLength(0);
    expect(requests.filter((r) => r.method === "PATCH").map((r) => r.query.updateMask)).toEqual([
      "description",
    ]);
  });

  it("does not duplicate when a create 'times out' after the service applied it", async () => {
    h.emulator.faults.add({
      method: "POST",
      path: "^/iam/v2beta1/groups",
      action: "applyThenDrop",
      times: 1,
    });
    h.mark();
    const { id } = await create({ name: "eng", parentUid: h.emulator.orgUid });
    // The create failed on the client side (only then does the provider look the object up by name)...
    const lookups = h.requestsSinceMark().filter((r) => r.method === "GET" && r.query.name === "eng");
    expect(lookups).toHaveLength(1);
    // ...and found the applied one instead of sending a second create.
    const children = await h.emulator.client.groups.list({ childrenOf: h.emulator.orgUid, name: "eng" });
    expect(children.items.map((g) => g.uid)).toEqual([id]);
  });

  it("retries the create once when the dropped request never reached the service", async () => {
    h.emulator.faults.add({ method: "POST", path: "^/iam/v2beta1/groups", action: "drop", times: 1 });
    const { id } = await create({ name: "eng", parentUid: h.emulator.orgUid });
    const children = await h.emulator.client.groups.list({ childrenOf: h.emulator.orgUid, name: "eng" });
    expect(children.items.map((g) => g.uid)).toEqual([id]);
  });

  it("check rejects bad input naming the field, with zero API calls", async () => {
    h.mark();
    const result = await provider.check!({}, { name: "Not Valid!", parentUid: "nope" });
    expect(result.failures?.map((f) => f.property).sort()).toEqual(["name", "parentUid"]);
    expect(result.failures?.find((f) => f.property === "name")?.reason).toMatch(/\^\[a-z0-9 \._-\]\{1,\}\$/);
    expect(h.requestsSinceMark()).toHaveLength(0);
  });
});

describe("group provider credentials", () => {
  it("with a profile whose identity has no role on the parent, the error says what to do", async () => {
    const outsider = h.emulator.createUser("outsider");
    const { configureFromLookup } = await import("../../provider/core/client");
    await configureFromLookup(
      (key) =>
        ({
          "platform:apiUrl": h.emulator.url,
          "platform:token": h.emulator.token,
          "platform:profiles": JSON.stringify({ outsider: { token: outsider.token } }),
        })[key],
    );
    const err = await create({ name: "eng", parentUid: h.emulator.orgUid, profile: "outsider" }).then(
      () => undefined,
      (e: Error) => e,
    );
    if (process.env.SHOW_MESSAGES) console.log(err?.message);
    expect(err?.message).toMatch(/^Could not create platform:iam:Group "eng"/);
    expect(err?.message).toMatch(/profile "outsider"/);
    expect(err?.message).not.toContain(outsider.token);
    // The default credentials still work in the same provider process.
    await expect(create({ name: "eng", parentUid: h.emulator.orgUid })).resolves.toMatchObject({
      outs: { name: "eng" },
    });
  });
});
