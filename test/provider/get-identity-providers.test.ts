/** iam.getIdentityProviders against the in-process emulator: scope, name filter, paging, no secrets. */
import * as pulumi from "@pulumi/pulumi";
import type { Emulator } from "../../emulator";
import * as platform from "../../provider";
import { useProgramEmulator } from "./harness";

let emulator: Emulator;
let role: string;
useProgramEmulator((started) => (emulator = started));
beforeEach(async () => {
  role = (
    await emulator.client.roles.create(emulator.orgUid, { name: "login", capabilities: ["CAP_REPO_LIST"] })
  ).uid;
});

async function createIdp(org: string, name: string): Promise<void> {
  await emulator.client.identityProviders.create(org, {
    name,
    defaultRole: role,
    oidc: { issuer: "https://login.example.com", clientId: `client-${name}`, clientSecret: "never-returned" },
  });
}

describe("iam.getIdentityProviders", () => {
  it("lists an organization's identity providers over several pages of 200, without client secrets", async () => {
    const n = 205;
    for (let i = 0; i < n; i++) await createIdp(emulator.orgUid, `idp-${String(i).padStart(3, "0")}`);
    const mark = emulator.requestLog().length;
    const { identityProviders } = await platform.iam.getIdentityProviders({
      organizationUid: emulator.orgUid,
      orderBy: "name",
    });
    expect(identityProviders).toHaveLength(n);
    expect(identityProviders[0]!.name).toBe("idp-000");
    expect(identityProviders[n - 1]!.name).toBe("idp-204");
    expect(JSON.stringify(identityProviders)).not.toContain("never-returned");
    const calls = emulator
      .requestLog()
      .slice(mark)
      .filter((r) => r.path === "/iam/v2beta1/identityProviders");
    expect(calls).toHaveLength(2);
    expect(calls.every((c) => c.query["uidp.children_of"] === emulator.orgUid)).toBe(true);
  });

  it("filters by exact name and leaves out other organizations'", async () => {
    await createIdp(emulator.orgUid, "okta");
    await createIdp(emulator.orgUid, "okta-dev");
    const other = await emulator.client.groups.create(undefined, { name: "other-org" });
    await emulator.client.roles
      .create(other.uid, { name: "login", capabilities: ["CAP_REPO_LIST"] })
      .then((r) =>
        emulator.client.identityProviders.create(other.uid, {
          name: "okta",
          defaultRole: r.uid,
          oidc: { issuer: "https://login.example.com", clientId: "x" },
        }),
      );
    const { identityProviders } = await platform.iam.getIdentityProviders({
      organizationUid: emulator.orgUid,
      name: "okta",
    });
    expect(identityProviders.map((i) => [i.name, i.oidc?.clientId])).toEqual([["okta", "client-okta"]]);
  });

  it("rejects a folder uid before any API call, naming organizationUid", async () => {
    const mark = emulator.requestLog().length;
    await expect(
      platform.iam.getIdentityProviders({ organizationUid: `${emulator.orgUid}/0123456789abcdef` }),
    ).rejects.toThrow(/getIdentityProviders: organizationUid: must be an organization/);
    expect(emulator.requestLog().length).toBe(mark);
  });

  it("the Output form resolves Inputs first", async () => {
    await createIdp(emulator.orgUid, "okta");
    const result = platform.iam.getIdentityProvidersOutput({
      organizationUid: pulumi.output(Promise.resolve(emulator.orgUid)),
    });
    const names = await new Promise<string[]>((resolve) =>
      result.apply((r) => resolve(r.identityProviders.map((i) => i.name))),
    );
    expect(names).toEqual(["okta"]);
  });
});
