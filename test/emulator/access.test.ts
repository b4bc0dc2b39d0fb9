/** Identity-based access: what is out of view is 404, visible-but-forbidden is 403, lists omit what you cannot see. */
import { type Api, startInOrg } from "./helpers";

let api: Api;
let org: string;
let folder: string;
let roles: Record<string, string>;

beforeAll(async () => {
  ({ api, org } = await startInOrg());
  folder = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "folder" })).body.uid;
  const listed = await api.get("/iam/v2beta1/roles?page_size=200");
  roles = Object.fromEntries(listed.body.roles.map((r: { name: string; uid: string }) => [r.name, r.uid]));
});
afterAll(() => api.emulator.close());

const bind = (group: string, identityUid: string, role: string) =>
  api.post(`/iam/v2beta1/roleBindings/${group}`, { identityUid, roleUid: roles[role] });

describe("access", () => {
  test("built-in roles have fixed 40-hex uids and are listed with custom roles", async () => {
    for (const name of ["owner", "editor", "viewer", "registry.pull"])
      expect(roles[name]).toMatch(/^[0-9a-f]{40}$/);
    const custom = await api.post(`/iam/v2beta1/roles/${org}`, {
      name: "puller",
      capabilities: ["CAP_REPO_LIST"],
    });
    const listed = await api.get(`/iam/v2beta1/roles?uidp.descendants_of=${org}`);
    const listedNames = listed.body.roles.map((r: { name: string }) => r.name);
    expect(listedNames).toEqual(expect.arrayContaining(["owner", "viewer", "puller"]));
    const builtinGet = await api.get(`/iam/v2beta1/roles/${roles.viewer}`);
    expect(builtinGet.body.capabilities).toEqual(expect.arrayContaining(["CAP_IAM_GROUPS_LIST"]));
    expect(builtinGet.body.capabilities.every((c: string) => c.endsWith("_LIST"))).toBe(true);
    expect((await api.del(`/iam/v2beta1/roles/${roles.viewer}`)).body.code).toBe(7);
    expect((await api.del(`/iam/v2beta1/roles/${custom.body.uid}`)).status).toBe(200);
  });

  test("a caller with no binding in an organization gets 404 on its objects and lists omit them", async () => {
    const stranger = api.emulator.createUser("stranger");
    expect((await api.get(`/iam/v2beta1/groups/${org}`, stranger.token)).status).toBe(404);
    expect((await api.get(`/iam/v2beta1/groups/${folder}`, stranger.token)).body.code).toBe(5);
    expect((await api.del(`/iam/v2beta1/groups/${folder}`, stranger.token)).body.code).toBe(5);
    expect((await api.post(`/iam/v2beta1/groups/${folder}`, { name: "x" }, stranger.token)).body.code).toBe(
      5,
    );
    const listed = await api.get(`/iam/v2beta1/groups?uidp.descendants_of=${org}`, stranger.token);
    expect(listed.body.groups).toEqual([]);
    expect(listed.body.totalCount).toBe("0");
  });

  test("a viewer can read but not change: 403 with code 7", async () => {
    const viewer = api.emulator.createUser("viewer");
    expect((await bind(folder, viewer.uid, "viewer")).status).toBe(200);
    expect((await api.get(`/iam/v2beta1/groups/${folder}`, viewer.token)).status).toBe(200);
    const patch = await api.patch(`/iam/v2beta1/groups/${folder}`, { description: "nope" }, viewer.token);
    expect([patch.status, patch.body.code]).toEqual([403, 7]);
    expect(patch.body.message).toMatch(/^Permission denied: /);
    expect((await api.post(`/iam/v2beta1/groups/${folder}`, { name: "nope" }, viewer.token)).body.code).toBe(
      7,
    );
    // The binding is on the folder: the organization above it is out of view, the same 404 as a missing group.
    const above = await api.get(`/iam/v2beta1/groups/${org}`, viewer.token);
    expect([above.status, above.body.message]).toEqual([404, `Not found: group ${org}`]);
    const listed = await api.get(`/iam/v2beta1/groups?uidp.descendants_of=${org}`, viewer.token);
    expect(listed.body.groups.map((g: { uid: string }) => g.uid)).toEqual([folder]);
  });

  test("an editor manages groups below its binding but not identity providers", async () => {
    const editor = api.emulator.createUser("editor");
    await bind(folder, editor.uid, "editor");
    const child = await api.post(`/iam/v2beta1/groups/${folder}`, { name: "by editor" }, editor.token);
    expect(child.status).toBe(200);
    expect(
      (await api.patch(`/iam/v2beta1/groups/${child.body.uid}`, { description: "ok" }, editor.token)).status,
    ).toBe(200);
    expect((await api.del(`/iam/v2beta1/groups/${child.body.uid}`, editor.token)).status).toBe(200);
    const otherFolder = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "sibling" })).body.uid;
    // A sibling of its folder is out of view: 404, as if it did not exist (AIP-211).
    expect(
      (await api.post(`/iam/v2beta1/groups/${otherFolder}`, { name: "x" }, editor.token)).body.code,
    ).toBe(5);
    const editorOrgWide = api.emulator.createUser("editor2");
    await bind(org, editorOrgWide.uid, "editor");
    const idp = await api.post(
      `/iam/v2beta1/identityProviders/${org}`,
      { name: "sso", defaultRole: roles.viewer, oidc: { issuer: "https://sso.example.com", clientId: "c" } },
      editorOrgWide.token,
    );
    expect(idp.body.code).toBe(7);
  });

  test("a refused group delete counts only what the caller may list; the rest is said to exist, not counted", async () => {
    const box = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "box" })).body.uid;
    await api.post(`/iam/v2beta1/groups/${box}`, { name: "inner" });
    await api.post(`/iam/v2beta1/identities/${box}`, {
      name: "hidden",
      claimMatch: { issuer: "https://i.example.com", subject: "s" },
    });
    const deleter = (
      await api.post(`/iam/v2beta1/roles/${org}`, {
        name: "deleter",
        capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_IAM_GROUPS_DELETE"],
      })
    ).body.uid;
    const user = api.emulator.createUser("deleter");
    await api.post(`/iam/v2beta1/roleBindings/${box}`, { identityUid: user.uid, roleUid: deleter });
    const refused = await api.del(`/iam/v2beta1/groups/${box}`, user.token);
    expect(refused.body.code).toBe(9);
    expect(refused.body.message).toContain("1 subgroup, objects you cannot list");
    expect(refused.body.message).not.toMatch(/identit/);
    const byOwner = await api.del(`/iam/v2beta1/groups/${box}`);
    expect(byOwner.body.message).toContain("1 subgroup, 1 identity, 1 role binding");
  });

  test("root-level users may create organizations; workload identities only with CAP_IAM_GROUPS_CREATE", async () => {
    const founder = api.emulator.createUser("founder");
    const created = await api.post("/iam/v2beta1/groups", { name: "founded" }, founder.token);
    expect(created.status).toBe(200);
    expect((await api.get(`/iam/v2beta1/groups/${created.body.uid}`, founder.token)).status).toBe(200);
    // The bootstrap owner has no binding there: invisible.
    expect((await api.get(`/iam/v2beta1/groups/${created.body.uid}`)).status).toBe(404);

    const identity = await api.post(`/iam/v2beta1/identities/${org}`, {
      name: "ci",
      claimMatch: { issuer: `${api.emulator.url}/oidc`, subject: "ci" },
    });
    await bind(org, identity.body.uid, "viewer");
    const idToken = await api.emulator.mintIdToken({ subject: "ci" });
    const exchanged = await api.get(
      `/sts/exchange?aud=${encodeURIComponent(api.emulator.url)}&identity=${encodeURIComponent(identity.body.uid)}`,
      idToken,
    );
    expect(exchanged.status).toBe(200);
    const denied = await api.post("/iam/v2beta1/groups", { name: "nope" }, exchanged.body.token);
    expect(denied.body.code).toBe(7);
    expect((await api.get(`/iam/v2beta1/groups/${folder}`, exchanged.body.token)).status).toBe(200);
    // With a role that may create groups (owner), the same workload may found an organization, as the Terraform provider's own tests do.
    await bind(org, identity.body.uid, "owner");
    const founded = await api.post("/iam/v2beta1/groups", { name: "by-workload" }, exchanged.body.token);
    expect(founded.status).toBe(200);
  });
});
