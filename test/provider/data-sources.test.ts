/** Data sources against the in-process emulator: paging, filters, lookups by name and uid, profiles. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import type { Emulator } from "../../emulator";
import * as platform from "../../provider";
import { collect } from "../../provider/core/program-client";
import { getsSince, useProgramEmulator } from "./harness";

let emulator: Emulator;
useProgramEmulator((started) => (emulator = started));

const since = (mark: number, path: string) => getsSince(emulator, mark, path);

describe("registry.getRepos", () => {
  it("pages through more than 200 repos with ceil(n/200) list calls of 200", async () => {
    const n = 437;
    emulator.seed({
      repos: Array.from({ length: n }, (_, i) => ({ name: `repo-${String(i).padStart(3, "0")}` })),
    });
    const mark = emulator.requestLog().length;
    const { repos } = await platform.registry.getRepos({
      organizationUid: emulator.orgUid,
      orderBy: "name desc",
    });
    expect(repos).toHaveLength(n);
    expect(new Set(repos.map((r) => r.uid)).size).toBe(n);
    expect(repos[0]!.name).toBe("repo-436");
    expect(repos[n - 1]!.name).toBe("repo-000");
    const calls = since(mark, "/registry/v2beta1/repos");
    expect(calls).toHaveLength(Math.ceil(n / 200));
    expect(calls.every((c) => String(c.query.page_size ?? c.query.pageSize) === "200")).toBe(true);
  });

  it("filters by exact name", async () => {
    emulator.seed({ repos: [{ name: "nginx" }, { name: "nginx-fips" }, { name: "python" }] });
    const { repos } = await platform.registry.getRepos({ organizationUid: emulator.orgUid, name: "nginx" });
    expect(repos.map((r) => r.name)).toEqual(["nginx"]);
  });

  it("getRepo finds one by name in an organization and by uid", async () => {
    emulator.seed({ repos: [{ name: "nginx" }, { name: "python" }] });
    const byName = await platform.registry.getRepo({ name: "python", organizationUid: emulator.orgUid });
    expect(byName.name).toBe("python");
    expect((await platform.registry.getRepo({ uid: byName.uid })).name).toBe("python");
    await expect(
      platform.registry.getRepo({ name: "ruby", organizationUid: emulator.orgUid }),
    ).rejects.toThrow(/no repo named "ruby"/);
  });

  it("the Output form resolves Inputs first", async () => {
    emulator.seed({ repos: [{ name: "nginx" }] });
    const org = pulumi.output(Promise.resolve(emulator.orgUid));
    const result = platform.registry.getReposOutput({ organizationUid: org, name: "nginx" });
    const names = await new Promise<string[]>((resolve) =>
      result.apply((r) => resolve(r.repos.map((x) => x.name))),
    );
    expect(names).toEqual(["nginx"]);
  });
});

describe("iam data sources", () => {
  it("getRole finds the built-in viewer role by name (40-hex uid) and a custom one", async () => {
    const viewer = await platform.iam.getRole({ name: "viewer" });
    expect(viewer.uid).toMatch(/^[0-9a-f]{40}$/);
    expect(viewer.builtIn).toBe(true);
    const custom = await emulator.client.roles.create(emulator.orgUid, {
      name: "reader",
      capabilities: ["CAP_REPO_LIST"],
    });
    const found = await platform.iam.getRole({ name: "reader", parentUid: emulator.orgUid });
    expect(found).toMatchObject({ uid: custom.uid, builtIn: false });
    expect((await platform.iam.getRole({ uid: viewer.uid })).name).toBe("viewer");
  });

  it("getRoles lists built-in and custom roles", async () => {
    await emulator.client.roles.create(emulator.orgUid, { name: "reader", capabilities: ["CAP_REPO_LIST"] });
    const { roles } = await platform.iam.getRoles();
    const names = roles.map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(["viewer", "reader"]));
  });

  it("getGroup finds a group by name within the organization, and by uid", async () => {
    const folder = await emulator.client.groups.create(emulator.orgUid, { name: "platform" });
    const nested = await emulator.client.groups.create(folder.uid, { name: "team-a" });
    const byName = await platform.iam.getGroup({ name: "team-a", organizationUid: emulator.orgUid });
    expect(byName).toMatchObject({ uid: nested.uid, parentUid: folder.uid });
    expect((await platform.iam.getGroup({ uid: folder.uid })).name).toBe("platform");
  });

  it("getGroup by a shared name picks the verified group when exactly one is verified, else names every uid", async () => {
    // Only the service's staff verify a group; the emulator's seed stands in for them.
    const org = emulator.orgUid;
    const verifiedUid = `${org}/00000000000000b1`;
    emulator.seed({
      groups: [
        { uid: verifiedUid, name: "acme", verified: true },
        { name: "acme" },
        { name: "twins", verified: true },
        { name: "twins", verified: true },
        { name: "plain" },
        { name: "plain" },
      ],
    });
    const chosen = await platform.iam.getGroup({ name: "acme", organizationUid: org });
    expect([chosen.uid, chosen.verified]).toEqual([verifiedUid, true]);
    for (const [name, verified] of [
      ["twins", "2"],
      ["plain", "none"],
    ] as const) {
      const failure = platform.iam.getGroup({ name, organizationUid: org });
      await expect(failure).rejects.toThrow(
        new RegExp(`2 groups are named "${name}".*${verified} of them verified`),
      );
      const uids = (await emulator.client.groups.list({ descendantsOf: org, name })).items.map((g) => g.uid);
      expect(uids).toHaveLength(2);
      for (const uid of uids) await expect(failure).rejects.toThrow(uid);
    }
  });

  it("getIdentity finds an identity by name below a group", async () => {
    const identity = await emulator.client.identities.create(emulator.orgUid, {
      name: "ci",
      claimMatch: { issuer: "https://issuer.example", subject: "ci" },
    });
    const found = await platform.iam.getIdentity({ name: "ci", parentUid: emulator.orgUid });
    expect(found).toMatchObject({ uid: identity.uid, parentUid: emulator.orgUid });
    // Never federated: lastSeenTime is the creation time, and the result's doc says what that means.
    expect(found.lastSeenTime).toBe(identity.createTime);
    const schema = JSON.parse(readFileSync(join(__dirname, "..", "..", "schema.json"), "utf8")) as {
      functions: Record<string, { outputs: { properties: Record<string, { description?: string }> } }>;
    };
    expect(
      schema.functions["platform:iam:getIdentity"]!.outputs.properties.lastSeenTime!.description,
    ).toMatch(/not after its createTime was never used/);
  });

  it("getIdentity finds an identity by issuer and subject (the service's lookup), or answers the uid alone", async () => {
    const issuer = "https://auth.example/";
    const identity = await emulator.client.identities.create(emulator.orgUid, {
      name: "person",
      claimMatch: { issuer, subject: "idp|user-1" },
    });
    const found = await platform.iam.getIdentity({ issuer, subject: "idp|user-1" });
    expect(found).toMatchObject({ uid: identity.uid, name: "person", parentUid: emulator.orgUid });
    // Nobody registered yet: the uid the person will get, and nothing invented about them.
    const unknown = await platform.iam.getIdentity({ issuer, subject: "idp|user-2" });
    expect(unknown.uid).toMatch(/^[0-9a-f]{40}$/);
    expect(unknown.name).toBeUndefined();
    await expect(platform.iam.getIdentity({ issuer })).rejects.toThrow(
      /pass uid, or name with parentUid, or issuer with subject/,
    );
  });

  it("a name that several objects share fails with every candidate's uid, and one that none has, plainly", async () => {
    // Names are not unique under a parent, so a by-name lookup must not pick one silently.
    const a = await emulator.client.groups.create(emulator.orgUid, { name: "shared" });
    const b = await emulator.client.groups.create(emulator.orgUid, { name: "shared" });
    const failure = platform.iam.getGroup({ name: "shared", organizationUid: emulator.orgUid });
    await expect(failure).rejects.toThrow(/platform:iam:getGroup: 2 groups are named "shared"/);
    await expect(failure).rejects.toThrow(a.uid);
    await expect(failure).rejects.toThrow(b.uid);
    await expect(
      platform.iam.getGroup({ name: "nowhere", organizationUid: emulator.orgUid }),
    ).rejects.toThrow(/no group named "nowhere" in organization/);

    const claimMatch = { issuer: "https://issuer.example", subject: "ci" };
    await emulator.client.identities.create(emulator.orgUid, { name: "twin", claimMatch });
    await emulator.client.identities.create(a.uid, { name: "twin", claimMatch });
    await expect(platform.iam.getIdentity({ name: "twin", parentUid: emulator.orgUid })).rejects.toThrow(
      /2 identities are named "twin" below .*: pass uid/,
    );
  });

  it("rejects bad arguments before any API call, naming the field", async () => {
    const mark = emulator.requestLog().length;
    await expect(platform.iam.getGroup({ name: "x" })).rejects.toThrow(
      /platform:iam:getGroup: uid: pass uid, or name with organizationUid/,
    );
    await expect(platform.iam.getGroup({ uid: "not-a-uid" })).rejects.toThrow(/uid: must be a uid/);
    expect(emulator.requestLog().length).toBe(mark);
  });
});

describe("vulnerabilities.getAdvisories", () => {
  it("pages over more than 200 advisories and applies a filter", async () => {
    const advisories = Array.from({ length: 230 }, (_, i) => ({
      advisoryId: `CGA-${i}`,
      artifactName: i % 2 === 0 ? "openssl" : "curl",
      aliases: [`CVE-2026-${1000 + i}`],
    }));
    emulator.seed({ advisories });
    const mark = emulator.requestLog().length;
    const all = await platform.vulnerabilities.getAdvisories({});
    expect(all.advisories).toHaveLength(230);
    expect(since(mark, "/vulnerabilities/v2beta1/advisories")).toHaveLength(2);
    const byAlias = await platform.vulnerabilities.getAdvisories({
      aliases: ["CVE-2026-1003", "CVE-2026-1004"],
    });
    expect(byAlias.advisories.map((a) => a.advisoryId).sort()).toEqual(["CGA-3", "CGA-4"]);
    const curl = await platform.vulnerabilities.getAdvisories({ query: "curl" });
    expect(curl.advisories).toHaveLength(115);
    expect(curl.advisories.every((a) => a.artifactName === "curl")).toBe(true);
  });
});

describe("credentials and profiles", () => {
  it("a profile brings its own credentials: requests run as that profile's identity", async () => {
    const other = emulator.createUser("orgb-admin");
    pulumi.runtime.setAllConfig(
      {
        "platform:apiUrl": emulator.url,
        "platform:token": emulator.token,
        "platform:profiles": JSON.stringify({ orgb: { token: other.token } }),
      },
      ["platform:token", "platform:profiles"],
    );
    const mark = emulator.requestLog().length;
    await platform.iam.getRoles({ profile: "orgb" });
    await platform.iam.getRoles({});
    const who = since(mark, "/iam/v2beta1/roles").map((r) => r.identityUid);
    expect(who[0]).toBe(other.uid);
    expect(who[who.length - 1]).toBe(emulator.userUid);
  });

  it("an unknown profile fails with how to configure it", async () => {
    await expect(platform.iam.getRoles({ profile: "nope" })).rejects.toThrow(
      /platform:profiles\.nope\.token/,
    );
  });

  it("a rejected token produces advice on platform:token / PLATFORM_TOKEN and never echoes the token", async () => {
    const bogus = "bogus-token-value-123456";
    pulumi.runtime.setAllConfig({ "platform:apiUrl": emulator.url, "platform:token": bogus }, [
      "platform:token",
    ]);
    const err = await platform.iam.getRoles({}).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/platform:token/);
    expect(err?.message).toMatch(/PLATFORM_TOKEN/);
    expect(err?.message).not.toContain(bogus);
  });
});

describe("iam.getEffectiveAccess", () => {
  /** org → a → a/child, and b beside a; a custom role on a; one user bound at each level of a's branch. */
  async function world() {
    const client = emulator.client;
    const org = emulator.orgUid;
    const roles = await collect(client.roles.list({ pageSize: 200 }));
    const builtin = (name: string) => roles.find((r) => r.name === name && !r.uid.includes("/"))!;
    const a = await client.groups.create(org, { name: "a" });
    const child = await client.groups.create(a.uid, { name: "child" });
    const b = await client.groups.create(org, { name: "b" });
    const custom = await client.roles.create(a.uid, { name: "deployer", capabilities: ["CAP_REPO_CREATE"] });
    const user = emulator.createUser("ada");
    const other = emulator.createUser("bob");
    const viewerOnOrg = await client.roleBindings.create(org, {
      identityUid: user.uid,
      roleUid: builtin("viewer").uid,
    });
    const editorOnA = await client.roleBindings.create(a.uid, {
      identityUid: user.uid,
      roleUid: builtin("editor").uid,
    });
    const customOnChild = await client.roleBindings.create(child.uid, {
      identityUid: user.uid,
      roleUid: custom.uid,
    });
    await client.roleBindings.create(b.uid, { identityUid: other.uid, roleUid: builtin("owner").uid });
    return { org, a, child, b, custom, user, other, viewerOnOrg, editorOnA, customOnChild, builtin };
  }

  it("lists an identity's capabilities on a group, each with the bindings that grant it", async () => {
    const w = await world();
    const mark = emulator.requestLog().length;
    const result = await platform.iam.getEffectiveAccess({ group: w.child.uid, identity: w.user.uid });
    const held = new Map(result.capabilities!.map((c) => [c.capability, c.grants]));
    // Union of viewer (org), editor (a) and the custom role (child), nothing else.
    const expected = new Set([
      ...w.builtin("viewer").capabilities!,
      ...w.builtin("editor").capabilities!,
      "CAP_REPO_CREATE",
    ]);
    expect([...held.keys()]).toEqual([...expected].sort());
    // Why: nearest group first; inherited exactly when the binding is above the group asked about.
    expect(held.get("CAP_IAM_GROUPS_LIST")).toEqual([
      {
        bindingUid: w.editorOnA.uid,
        roleUid: w.builtin("editor").uid,
        roleName: "editor",
        group: w.a.uid,
        inherited: true,
      },
      {
        bindingUid: w.viewerOnOrg.uid,
        roleUid: w.builtin("viewer").uid,
        roleName: "viewer",
        group: w.org,
        inherited: true,
      },
    ]);
    expect(held.get("CAP_REPO_CREATE")).toEqual([
      {
        bindingUid: w.customOnChild.uid,
        roleUid: w.custom.uid,
        roleName: "deployer",
        group: w.child.uid,
        inherited: false,
      },
    ]);
    // Bounded reads: one binding list per level of the group's path, one role list.
    expect(since(mark, "/iam/v2beta1/roleBindings")).toHaveLength(3);
    expect(since(mark, "/iam/v2beta1/roles")).toHaveLength(1);
    // On b, the user holds only what the organization-wide viewer binding grants.
    const onB = await platform.iam.getEffectiveAccess({ group: w.b.uid, identity: w.user.uid });
    expect(onB.capabilities!.map((c) => c.capability)).toEqual([...w.builtin("viewer").capabilities!].sort());
    expect(onB.capabilities!.every((c) => c.grants.every((g) => g.group === w.org && g.inherited))).toBe(
      true,
    );
  });

  it("lists the identities holding a capability on a group, and agrees with what the emulator enforces", async () => {
    const w = await world();
    const result = await platform.iam.getEffectiveAccess({
      group: w.child.uid,
      capability: "CAP_IAM_GROUPS_CREATE",
    });
    const owner = emulator.userUid;
    expect(result.holders!.map((h) => h.identityUid)).toEqual([owner, w.user.uid].sort());
    const ada = result.holders!.find((h) => h.identityUid === w.user.uid)!;
    expect(ada.identityName).toBe("ada");
    expect(ada.grants.map((g) => [g.roleName, g.group, g.inherited])).toEqual([["editor", w.a.uid, true]]);
    // bob (owner of b) is not a holder on a's child, and indeed cannot create there; ada can.
    const create = (token: string) =>
      fetch(`${emulator.url}/iam/v2beta1/groups/${w.child.uid}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "x" }),
      });
    expect((await create(w.other.token)).status).toBe(404);
    expect((await create(w.user.token)).status).toBe(200);
    // Nobody holds a capability no role grants there.
    const none = await platform.iam.getEffectiveAccess({ group: w.child.uid, capability: "CAP_REPO_DELETE" });
    expect(none.holders!.map((h) => h.identityUid)).toEqual([owner]);
  });

  it("rejects bad arguments before any API call, naming the field", async () => {
    const mark = emulator.requestLog().length;
    const org = emulator.orgUid;
    await expect(platform.iam.getEffectiveAccess({ group: org })).rejects.toThrow(
      /getEffectiveAccess: identity: pass exactly one of identity and capability/,
    );
    await expect(
      platform.iam.getEffectiveAccess({ group: org, identity: org, capability: "CAP_REPO_LIST" }),
    ).rejects.toThrow(/pass exactly one of identity and capability/);
    await expect(platform.iam.getEffectiveAccess({ group: org, capability: "CAP_NOPE" })).rejects.toThrow(
      /capability: is not a known capability/,
    );
    await expect(platform.iam.getEffectiveAccess({ group: "", identity: org })).rejects.toThrow(/group/);
    expect(emulator.requestLog().length).toBe(mark);
  });
});
