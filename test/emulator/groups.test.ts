/** Groups: uids, timestamps, organizations, PATCH semantics. */
import { RFC3339_MS, ROOT_UID, details, start, type Api } from "./helpers";

let api: Api;
let org: string;
beforeAll(async () => {
  api = await start({ clockStart: "2030-01-01T00:00:00.000Z" });
  org = api.emulator.orgUid;
});
afterAll(() => api.emulator.close());

describe("groups", () => {
  test("the bootstrap organization is a root group with a 40-hex uid, like the real service", async () => {
    expect(org).toMatch(ROOT_UID);
    const r = await api.get(`/iam/v2beta1/groups/${org}`);
    expect(r.body).toEqual(
      expect.objectContaining({ uid: org, name: "demo-org", verified: false, resourceLimits: {} }),
    );
  });

  test("a child uid is the parent uid + / + 16 hex; server sets uid and times from the emulator clock", async () => {
    const r = await api.post(`/iam/v2beta1/groups/${org}`, {
      name: "child",
      uid: "ignored",
      createTime: "1999-01-01T00:00:00.000Z",
    });
    expect(r.status).toBe(200);
    expect(r.body.uid).toMatch(new RegExp(`^${org}/[0-9a-f]{16}$`));
    expect(r.body.createTime).toMatch(RFC3339_MS);
    expect(r.body.createTime.startsWith("2030-01-01")).toBe(true);
    expect(r.body.updateTime).toBe(r.body.createTime);
    const grandchild = await api.post(`/iam/v2beta1/groups/${r.body.uid}`, { name: "grandchild" });
    expect(grandchild.body.uid).toMatch(new RegExp(`^${r.body.uid}/[0-9a-f]{16}$`));
  });

  test("POST /iam/v2beta1/groups creates an organization with an owner binding for the creator", async () => {
    const r = await api.post("/iam/v2beta1/groups", { name: "second org" });
    expect(r.body.uid).toMatch(ROOT_UID);
    const bindings = await api.get(`/iam/v2beta1/roleBindings?group=${r.body.uid}`);
    expect(bindings.body.roleBindings).toHaveLength(1);
    expect(bindings.body.roleBindings[0].role.name).toBe("owner");
    expect(bindings.body.roleBindings[0].identity.uid).toBe(api.emulator.userUid);
    // An organization's own bindings go with it.
    expect((await api.del(`/iam/v2beta1/groups/${r.body.uid}`)).status).toBe(200);
    expect((await api.get(`/iam/v2beta1/groups/${r.body.uid}`)).status).toBe(404);
  });

  test("PATCH without updateMask changes only the fields present and bumps updateTime", async () => {
    const created = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "patchme", description: "keep" }))
      .body;
    api.emulator.clock.advance(5000);
    const r = await api.patch(`/iam/v2beta1/groups/${created.uid}`, { name: "renamed" });
    expect(r.body).toEqual(
      expect.objectContaining({
        uid: created.uid,
        name: "renamed",
        description: "keep",
        createTime: created.createTime,
      }),
    );
    const bumped = Date.parse(r.body.updateTime) - Date.parse(created.updateTime);
    expect(bumped).toBeGreaterThanOrEqual(5000);
    expect(bumped).toBeLessThan(7000);
    expect((await api.get(`/iam/v2beta1/groups/${created.uid}`)).body.name).toBe("renamed");
  });

  test("PATCH with updateMask changes only the listed fields and ignores the rest of the body", async () => {
    const created = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "masked", description: "old" }))
      .body;
    const r = await api.patch(`/iam/v2beta1/groups/${created.uid}?updateMask=description`, {
      name: "NOT VALID",
      description: "new",
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(expect.objectContaining({ name: "masked", description: "new" }));
  });

  test("an unknown updateMask path is code 3 naming updateMask", async () => {
    const created = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "mask2" })).body;
    const r = await api.patch(`/iam/v2beta1/groups/${created.uid}?updateMask=name,color`, { name: "x" });
    expect(r.body.code).toBe(3);
    expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual(["updateMask"]);
    expect((await api.get(`/iam/v2beta1/groups/${created.uid}`)).body.name).toBe("mask2");
  });

  test("PATCH validates the new name", async () => {
    const created = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "valid" })).body;
    const r = await api.patch(`/iam/v2beta1/groups/${created.uid}`, { name: "Not Valid" });
    expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual(["name"]);
  });

  test("DELETE of an empty group returns an empty body; a second delete is 404", async () => {
    const created = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "gone" })).body;
    const r = await api.del(`/iam/v2beta1/groups/${created.uid}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect((await api.del(`/iam/v2beta1/groups/${created.uid}`)).body.code).toBe(5);
  });
});
