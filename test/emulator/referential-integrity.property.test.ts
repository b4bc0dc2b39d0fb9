/**
 * Referential integrity when a role is deleted (fast-check, fixed seed): for a custom role
 * with a generated set of role bindings, group invites and identity providers using it, deleting the role
 *   - is refused with code 9 (PreconditionFailure RESOURCE_IN_USE) while any invite or identity provider uses it,
 *     naming exactly those the caller may list (others are said to exist, never named), and changes nothing;
 *   - otherwise succeeds and takes the role's bindings with it (its grants), as deleting an identity does.
 * Why refuse rather than cascade: emulator/README.md, "Deleting a role".
 */
import fc from "fast-check";
import { details, type Api, startInOrg } from "./helpers";

export const INTEGRITY_RUNS = 60;

let api: Api;
let org: string;
let folder: string;
let identity: string;
/** May list and delete roles on the folder, but not list invites: invites there are hidden from it. */
let limited: { uid: string; token: string };

beforeAll(async () => {
  ({ api, org } = await startInOrg());
  folder = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "f" })).body.uid;
  identity = (
    await api.post(`/iam/v2beta1/identities/${folder}`, {
      name: "holder",
      claimMatch: { issuer: "https://i.example.com", subject: "s" },
    })
  ).body.uid;
  const janitor = (
    await api.post(`/iam/v2beta1/roles/${org}`, {
      name: "janitor",
      capabilities: ["CAP_IAM_ROLES_LIST", "CAP_IAM_ROLES_DELETE", "CAP_IAM_ROLE_BINDINGS_LIST"],
    })
  ).body.uid;
  limited = api.emulator.createUser("janitor");
  await api.post(`/iam/v2beta1/roleBindings/${folder}`, { identityUid: limited.uid, roleUid: janitor });
});
afterAll(() => api.emulator.close());

describe("property 8: a role in use by invites or identity providers is not deleted; its bindings go with it", () => {
  test(`${INTEGRITY_RUNS} generated reference sets`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 2 }),
        fc.nat({ max: 2 }),
        fc.boolean(),
        fc.boolean(),
        async (bindings, invites, withIdp, byLimited) => {
          // The limited caller only reaches the folder; the owner deletes roles anywhere.
          const home = byLimited ? folder : org;
          const role = (
            await api.post(`/iam/v2beta1/roles/${home}`, { name: "in use", capabilities: ["CAP_REPO_LIST"] })
          ).body.uid as string;
          const bindingUids: string[] = [];
          for (let i = 0; i < bindings; i++)
            bindingUids.push(
              (
                await api.post(`/iam/v2beta1/roleBindings/${folder}`, {
                  identityUid: identity,
                  roleUid: role,
                })
              ).body.uid,
            );
          const referrers: string[] = [];
          for (let i = 0; i < invites; i++)
            referrers.push(
              (await api.post(`/iam/v2beta1/groupInvites/${folder}`, { roleUid: role, ttl: "600s" })).body
                .uid,
            );
          let idp: string | undefined;
          if (withIdp && !byLimited) {
            idp = (
              await api.post(`/iam/v2beta1/identityProviders/${org}`, {
                name: "sso",
                defaultRole: role,
                oidc: { issuer: "https://sso.example.com", clientId: "c" },
              })
            ).body.uid;
            referrers.push(idp!);
          }
          const answer = await api.del(`/iam/v2beta1/roles/${role}`, byLimited ? limited.token : undefined);
          const still = await api.get(`/iam/v2beta1/roleBindings?role=${role}`);
          if (referrers.length > 0) {
            expect([answer.status, answer.body.code]).toEqual([400, 9]);
            const violations = details(answer.body).violations as { type: string; subject?: string }[];
            expect(violations.every((v) => v.type === "RESOURCE_IN_USE")).toBe(true);
            if (byLimited) {
              // Invites are hidden from this caller: the refusal says so without naming them.
              for (const uid of referrers) expect(answer.text).not.toContain(uid);
              expect(answer.body.message).toContain("objects you cannot list");
            } else {
              expect(violations.map((v) => v.subject).sort()).toEqual([...referrers].sort());
            }
            expect((await api.get(`/iam/v2beta1/roles/${role}`)).status).toBe(200);
            expect(still.body.roleBindings.map((b: { uid: string }) => b.uid).sort()).toEqual(
              bindingUids.sort(),
            );
            // Clean up so the role can go: then it takes its bindings.
            for (const uid of referrers)
              expect(
                (await api.del(`/iam/v2beta1/${uid === idp ? "identityProviders" : "groupInvites"}/${uid}`))
                  .status,
              ).toBe(200);
            expect((await api.del(`/iam/v2beta1/roles/${role}`)).status).toBe(200);
          } else {
            expect(answer.status).toBe(200);
          }
          expect((await api.get(`/iam/v2beta1/roles/${role}`)).status).toBe(404);
          expect((await api.get(`/iam/v2beta1/roleBindings?role=${role}`)).body.totalCount).toBe("0");
        },
      ),
      { seed: 12_08, numRuns: INTEGRITY_RUNS },
    );
  }, 60_000);
});
