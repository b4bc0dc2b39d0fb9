/** platform.iam.RoleBinding's provider against the in-process emulator. */
import provider = require("../../provider/iam/role-binding.provider");
import { useHarness } from "./harness";

const h = useHarness();

async function fixture() {
  const c = h.emulator.client;
  const folder = await c.groups.create(h.emulator.orgUid, { name: "folder" });
  const identity = await c.identities.create(h.emulator.orgUid, {
    name: "ci",
    claimMatch: { issuer: "https://issuer.example", subject: "ci" },
  });
  const role = await c.roles.create(h.emulator.orgUid, { name: "reader", capabilities: ["CAP_REPO_LIST"] });
  /** A binding of the identity to the role on the folder, as a program declares it. */
  const inputs = { groupUid: folder.uid, identityUid: identity.uid, roleUid: role.uid };
  return { folder, identity, role, inputs };
}

describe("role binding provider", () => {
  it("creates a binding whose state holds the three uids, not copies of what they name", async () => {
    const { folder, identity, role, inputs } = await fixture();
    const { id, outs } = await provider.create(inputs);
    expect(outs).toMatchObject({
      uid: id,
      groupUid: folder.uid,
      identityUid: identity.uid,
      roleUid: role.uid,
    });
    // Hydrated copies would go stale on a rename and show as drift on every refresh: getIdentity, getGroup and
    // getRole read them when a program needs them.
    expect(Object.keys(outs).sort()).toEqual(["createTime", "groupUid", "identityUid", "roleUid", "uid"]);
    await h.emulator.client.roles.update(role.uid, { name: "renamed" });
    expect((await provider.read!(id, outs)).props).toEqual(outs);
    expect(typeof outs.createTime).toBe("string");
    const read = await provider.read!(id, outs);
    expect(await provider.diff!(id, read.props, inputs)).toMatchObject({
      changes: false,
    });
  });

  it("replaces when any reference changes", async () => {
    const { identity, inputs } = await fixture();
    const { id, outs } = await provider.create(inputs);
    const other = await h.emulator.client.roles.create(h.emulator.orgUid, {
      name: "other",
      capabilities: ["CAP_IAM_GROUPS_LIST"],
    });
    expect(
      await provider.diff!(id, outs, {
        groupUid: h.emulator.orgUid,
        identityUid: identity.uid,
        roleUid: other.uid,
      }),
    ).toMatchObject({
      changes: true,
      replaces: ["groupUid", "roleUid"],
    });
  });

  it("adopts an identical binding instead of creating a second one", async () => {
    const { folder, identity, role, inputs } = await fixture();
    const existing = await h.emulator.client.roleBindings.create(folder.uid, {
      identityUid: identity.uid,
      roleUid: role.uid,
    });
    const { id } = await provider.create({ ...inputs, adopt: true });
    expect(id).toBe(existing.uid);
  });

  it("does not duplicate when a create 'times out' after the service applied it", async () => {
    const { folder, inputs } = await fixture();
    h.emulator.faults.add({
      method: "POST",
      path: "^/iam/v2beta1/roleBindings",
      action: "applyThenDrop",
      times: 1,
    });
    const { id } = await provider.create(inputs);
    const all = await h.emulator.client.roleBindings.list({ group: folder.uid });
    expect(all.items.map((b) => b.uid)).toEqual([id]);
  });

  it("drops a deleted binding on read; delete of a missing binding succeeds", async () => {
    const { inputs } = await fixture();
    const { id, outs } = await provider.create(inputs);
    await h.emulator.client.roleBindings.delete(id);
    expect((await provider.read!(id, outs)).id).toBeUndefined();
    await expect(provider.delete!(id, outs)).resolves.toBeUndefined();
  });

  it("check accepts a built-in role's 40-hex uid and rejects a malformed one", async () => {
    const { folder, identity } = await fixture();
    const ok = await provider.check!(
      {},
      { groupUid: folder.uid, identityUid: identity.uid, roleUid: "a".repeat(40) },
    );
    expect(ok.failures ?? []).toEqual([]);
    const bad = await provider.check!(
      {},
      { groupUid: folder.uid, identityUid: identity.uid, roleUid: "viewer" },
    );
    expect(bad.failures?.map((f) => f.property)).toEqual(["roleUid"]);
  });
});
