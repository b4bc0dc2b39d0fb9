/**
 * Every other resource kind through the native plugin's gRPC service (Group has its own file): check failures name
 * the field, diff reports each changed property and the replacements, create/read/update/delete reach the
 * emulator, a read with no state (import) recovers the inputs, and secret properties come back as secrets.
 */
import { PluginHarness, UNKNOWN, secret, usePluginHarness } from "./harness";

const IDENTITY = "platform:iam:Identity";
const ROLE = "platform:iam:Role";
const BINDING = "platform:iam:RoleBinding";
const IDP = "platform:iam:IdentityProvider";
const INVITE = "platform:iam:GroupInvite";
const ASSOCIATION = "platform:iam:AccountAssociation";

let h: PluginHarness;
usePluginHarness((started) => (h = started));

const org = () => h.emulator.orgUid;
const folder = async (name = "eng") => (await h.emulator.client.groups.create(org(), { name })).uid;
const viewerUid = async () =>
  (await h.emulator.client.roles.list({ name: "viewer", pageSize: 200 })).items.find(
    (r) => r.name === "viewer",
  )!.uid;
const claimMatch = { issuer: "https://issuer.example.com", subject: "repo:acme/app" };

/** Check, then create with the checked inputs, as the engine does. */
async function checkAndCreate(type: string, inputs: Record<string, unknown>) {
  const checked = await h.check(type, inputs);
  expect(checked.failures).toEqual([]);
  const created = await h.create(type, checked.inputs.props);
  return { ...created, checked: checked.inputs };
}

describe("plugin: Identity", () => {
  it("names the failing field, creates, updates one field, reads it back and deletes", async () => {
    const parentUid = await folder();
    const bad = await h.check(IDENTITY, { parentUid, name: "ci" });
    expect(bad.failures.length).toBeGreaterThan(0);
    expect(bad.failures.map((f) => f.reason).join(" ")).toMatch(/claimMatch|staticKeys|awsIdentity/);

    const { id, outputs } = await checkAndCreate(IDENTITY, { parentUid, name: "ci", claimMatch });
    const news = { parentUid, name: "ci", claimMatch: { ...claimMatch, subject: "repo:acme/other" } };
    const diff = await h.diff(IDENTITY, id, outputs.props, news);
    expect(diff.detaileddiffMap).toEqual([["claimMatch", { kind: 4, inputdiff: false }]]);
    expect(diff.replacesList).toEqual([]);
    const updated = await h.update(IDENTITY, id, outputs.props, news);
    expect(updated.props.claimMatch).toMatchObject({ subject: "repo:acme/other" });

    const imported = await h.read(IDENTITY, id);
    expect(imported.inputs.props).toEqual({ parentUid, name: "ci", claimMatch: news.claimMatch });
    await h.delete(IDENTITY, id, updated.props);
    expect((await h.read(IDENTITY, id)).id).toBe("");
  });
});

describe("plugin: Role", () => {
  it("capabilities are a set; a new parent replaces", async () => {
    const { id, outputs } = await checkAndCreate(ROLE, {
      parentUid: org(),
      name: "deployer",
      capabilities: ["CAP_REPO_LIST", "CAP_IAM_GROUPS_LIST"],
    });
    const reordered = {
      parentUid: org(),
      name: "deployer",
      capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"],
    };
    expect((await h.diff(ROLE, id, outputs.props, reordered)).changes).toBe(1); // DIFF_NONE
    const moved = await h.diff(ROLE, id, outputs.props, { ...reordered, parentUid: await folder() });
    expect(moved.replacesList).toEqual(["parentUid"]);
    expect(moved.deletebeforereplace).toBe(false);
    const bad = await h.check(ROLE, { ...reordered, capabilities: ["CAP_NOT_A_THING"] });
    expect(bad.failures[0]?.property).toMatch(/^capabilities/);
    expect((await h.read(ROLE, id)).inputs.props).toEqual({
      parentUid: org(),
      name: "deployer",
      capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"],
    });
  });
});

describe("plugin: RoleBinding", () => {
  it("every reference replaces, unknown ones too; import recovers the references", async () => {
    const group = await folder();
    const identity = await h.emulator.client.identities.create(group, { name: "ci", claimMatch });
    const roleUid = await viewerUid();
    const inputs = { groupUid: group, identityUid: identity.uid, roleUid };
    const { id, outputs } = await checkAndCreate(BINDING, inputs);
    const diff = await h.diff(BINDING, id, outputs.props, { ...inputs, roleUid: UNKNOWN });
    expect(diff.replacesList).toEqual(["roleUid"]);
    expect(diff.detaileddiffMap).toEqual([["roleUid", { kind: 5, inputdiff: false }]]);
    expect((await h.read(BINDING, id)).inputs.props).toEqual(inputs);
    const missing = await h.check(BINDING, { groupUid: group, identityUid: identity.uid });
    expect(missing.failures).toEqual([{ property: "roleUid", reason: "required" }]);
  });
});

describe("plugin: IdentityProvider", () => {
  it("clientSecret stays secret in inputs and outputs, and is compared with the previous input", async () => {
    const inputs = {
      parentUid: org(),
      name: "sso",
      defaultRole: await viewerUid(),
      issuer: "https://login.example.com",
      clientId: "console",
      clientSecret: secret("s3cret-value"),
    };
    const checked = await h.check(IDP, inputs);
    expect(checked.failures).toEqual([]);
    expect(checked.inputs.secrets).toEqual(["clientSecret"]);
    expect(checked.inputs.props.clientSecret).toBe("s3cret-value");
    const { id, outputs } = await h.create(IDP, checked.inputs.props);
    expect(outputs.secrets).toEqual(["clientSecret"]);

    const rotated = { ...checked.inputs.props, clientSecret: "rotated" };
    const diff = await h.diff(IDP, id, outputs.props, rotated);
    expect(diff.detaileddiffMap).toEqual([["clientSecret", { kind: 4, inputdiff: false }]]);
    h.emulator.clearRequestLog();
    const updated = await h.update(IDP, id, outputs.props, rotated);
    expect(updated.secrets).toEqual(["clientSecret"]);
    expect(h.emulator.requestLog().filter((r) => r.method === "PATCH")).toHaveLength(1);

    const refreshed = await h.read(IDP, id, updated.props, rotated);
    expect(refreshed.outputs.secrets).toEqual(["clientSecret"]);
    expect(refreshed.inputs.secrets).toEqual(["clientSecret"]);

    // Imported: no secret in state; the program's value is taken as the live one, so no phantom change.
    const imported = await h.read(IDP, id);
    expect(imported.inputs.props.clientSecret).toBeUndefined();
    // `pulumi import` checks the read inputs against themselves: the absent secret is no failure then.
    const reimported = await h.check(IDP, imported.inputs.props, imported.inputs.props);
    expect(reimported.failures).toEqual([]);
    // The program `pulumi import` prints gives it as "" (Go, Python and YAML send that): no failure, no change.
    const printed = { ...imported.inputs.props, clientSecret: "" };
    expect((await h.check(IDP, printed, imported.inputs.props)).failures).toEqual([]);
    expect((await h.diff(IDP, id, imported.outputs.props, printed)).changes).toBe(1); // DIFF_NONE
    expect((await h.check(IDP, printed)).failures).toEqual([
      { property: "clientSecret", reason: "clientSecret must not be empty" },
    ]);
    const created = await h.check(IDP, imported.inputs.props);
    expect(created.failures).toEqual([{ property: "clientSecret", reason: "required" }]);
    const afterImport = await h.diff(IDP, id, imported.outputs.props, {
      ...imported.inputs.props,
      clientSecret: "x",
    });
    expect(afterImport.changes).toBe(1);
  });

  it("an issuer that is not https fails check on that field", async () => {
    const { failures } = await h.check(IDP, {
      parentUid: org(),
      name: "sso",
      defaultRole: await viewerUid(),
      issuer: "http://login.example.com",
      clientId: "console",
      clientSecret: secret("x"),
    });
    expect(failures).toEqual([{ property: "issuer", reason: "issuer must be an https URL" }]);
  });
});

describe("plugin: GroupInvite", () => {
  it("the code is a secret output; the preview of a create leaves it unknown; every change replaces", async () => {
    const groupUid = await folder();
    const inputs = { groupUid, roleUid: await viewerUid(), ttl: "72h" };
    const preview = await h.create(INVITE, inputs, true);
    expect(preview.outputs.props.code).toBe(UNKNOWN);
    expect(preview.outputs.secrets).toEqual(["code"]);

    const { id, outputs, checked } = await checkAndCreate(INVITE, inputs);
    expect(checked.props.singleUse).toBe(false); // check fills the default, so diff sees no phantom
    expect(outputs.secrets).toEqual(["code"]);
    expect(typeof outputs.props.code).toBe("string");
    expect(outputs.props.ttl).toBe("72h");

    expect((await h.diff(INVITE, id, outputs.props, { ...checked.props, ttl: "259200s" })).changes).toBe(1);
    const diff = await h.diff(INVITE, id, outputs.props, { ...checked.props, email: "a@example.com" });
    expect(diff.replacesList).toEqual(["email"]);
    expect(diff.detaileddiffMap).toEqual([["email", { kind: 1, inputdiff: false }]]); // ADD_REPLACE

    const refreshed = await h.read(INVITE, id, outputs.props, checked.props);
    expect(refreshed.outputs.props.code).toBe(outputs.props.code);
    expect(refreshed.outputs.secrets).toEqual(["code"]);

    const imported = await h.read(INVITE, id);
    expect(imported.inputs.props).toEqual({
      groupUid,
      roleUid: inputs.roleUid,
      expirationTime: expect.any(String),
      singleUse: false,
    });
    const both = await h.check(INVITE, { ...inputs, expirationTime: "2099-01-01T00:00:00Z" });
    expect(both.failures).toEqual([
      { property: "expirationTime", reason: "give a ttl or an expirationTime, not both" },
    ]);
  });
});

describe("plugin: AccountAssociation", () => {
  it("removing a block replaces it, deleting the old one first (one association per group)", async () => {
    const groupUid = await folder();
    const amazon = { account: "123456789012" };
    const azure = { tenantId: "t", clientIds: { platform: "c" } };
    const { id, outputs } = await checkAndCreate(ASSOCIATION, { groupUid, name: "aws", amazon, azure });
    expect(id).toBe(groupUid);
    const removed = await h.diff(ASSOCIATION, id, outputs.props, {
      groupUid,
      name: "aws",
      amazon: amazon,
    });
    expect(removed.replacesList).toEqual(["azure"]);
    expect(removed.detaileddiffMap).toEqual([["azure", { kind: 3, inputdiff: false }]]); // DELETE_REPLACE
    expect(removed.deletebeforereplace).toBe(true);

    const moved = await h.diff(ASSOCIATION, id, outputs.props, {
      ...outputs.props,
      groupUid: await folder("ops"),
    });
    expect(moved.replacesList).toEqual(["groupUid"]);
    expect(moved.deletebeforereplace).toBe(false);

    const renamed = {
      groupUid,
      name: "aws-2",
      amazon: amazon,
      azure,
    };
    const updated = await h.update(ASSOCIATION, id, outputs.props, renamed);
    expect(updated.props.name).toBe("aws-2");
    expect((await h.read(ASSOCIATION, id)).inputs.props).toMatchObject({ groupUid, name: "aws-2" });
    await h.delete(ASSOCIATION, id, updated.props);
    await h.delete(ASSOCIATION, id, updated.props); // already gone is success
  });
});
