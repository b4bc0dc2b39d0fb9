/**
 * No escalation (fast-check, fixed seed): a caller bound on a folder with any role (built-in
 * or custom, random capabilities) tries to grant a role (bind someone or itself, re-point a binding, invite) or to
 * put capabilities into a custom role (create, or add to one). The answer is 200 exactly when the preconditions hold
 * (the verb's capability, the references visible) and everything granted is held by the caller on that folder;
 * when something is not held, the answer is code 7 naming it, and nothing is created.
 */
import fc from "fast-check";
import { BUILTIN_ROLES } from "../../emulator";
import { start, type Api } from "./helpers";

export const ESCALATION_RUNS = 150;

let api: Api;
let folder: string;
let grantee: string;
const builtin = Object.fromEntries(BUILTIN_ROLES.map((r) => [r.name, r]));

/** A small pool, so generated roles overlap often: IAM verbs on bindings, roles, invites, identities, and reads. */
const POOL = [
  "CAP_IAM_ROLE_BINDINGS_CREATE",
  "CAP_IAM_ROLE_BINDINGS_UPDATE",
  "CAP_IAM_ROLE_BINDINGS_LIST",
  "CAP_IAM_ROLES_CREATE",
  "CAP_IAM_ROLES_UPDATE",
  "CAP_IAM_ROLES_LIST",
  "CAP_IAM_GROUP_INVITES_CREATE",
  "CAP_IAM_GROUP_INVITES_LIST",
  "CAP_IAM_IDENTITY_LIST",
  "CAP_IAM_GROUPS_LIST",
  "CAP_REPO_LIST",
  "CAP_TAG_LIST",
  "CAP_IAM_IDENTITY_PROVIDERS_CREATE",
];

beforeAll(async () => {
  api = await start();
  folder = (await api.post(`/iam/v2beta1/groups/${api.emulator.orgUid}`, { name: "a" })).body.uid;
  grantee = (
    await api.post(`/iam/v2beta1/identities/${folder}`, {
      name: "grantee",
      claimMatch: { issuer: "https://i.example.com", subject: "g" },
    })
  ).body.uid;
});
afterAll(() => api.emulator.close());

const roleSpec: fc.Arbitrary<{ builtin?: string; custom?: string[] }> = fc.oneof(
  fc.constantFrom("owner", "editor", "viewer", "registry.pull").map((name) => ({ builtin: name })),
  fc.subarray(POOL, { minLength: 1 }).map((caps) => ({ custom: caps })),
);

async function makeRole(spec: {
  builtin?: string;
  custom?: string[];
}): Promise<{ uid: string; caps: string[] }> {
  if (spec.builtin !== undefined)
    return { uid: builtin[spec.builtin]!.uid, caps: builtin[spec.builtin]!.capabilities };
  const created = await api.post(`/iam/v2beta1/roles/${folder}`, {
    name: "generated",
    capabilities: spec.custom,
  });
  expect(created.status).toBe(200); // the bootstrap owner holds every pool capability
  return { uid: created.body.uid, caps: spec.custom! };
}

const actions = [
  "bind another",
  "bind itself",
  "re-point a binding",
  "invite",
  "create role",
  "add to role",
] as const;

describe("property 2: a caller grants only capabilities it holds on that group", () => {
  test(`${ESCALATION_RUNS} generated cases`, async () => {
    await fc.assert(
      fc.asyncProperty(
        roleSpec,
        roleSpec,
        fc.constantFrom(...actions),
        fc.subarray(POOL, { minLength: 1 }),
        async (grantorSpec, grantedSpec, action, extraCaps) => {
          const grantorRole = await makeRole(grantorSpec);
          const grantor = api.emulator.createUser("grantor");
          expect(
            (
              await api.post(`/iam/v2beta1/roleBindings/${folder}`, {
                identityUid: grantor.uid,
                roleUid: grantorRole.uid,
              })
            ).status,
          ).toBe(200);
          const held = new Set(grantorRole.caps);
          const granted = await makeRole(grantedSpec);
          const seesRole = grantedSpec.builtin !== undefined || held.has("CAP_IAM_ROLES_LIST");

          let response: Awaited<ReturnType<Api["call"]>>;
          let precondition: boolean;
          let grants: string[];
          switch (action) {
            case "bind another":
            case "bind itself":
              precondition =
                held.has("CAP_IAM_ROLE_BINDINGS_CREATE") &&
                seesRole &&
                (action === "bind itself" || held.has("CAP_IAM_IDENTITY_LIST"));
              grants = granted.caps;
              response = await api.post(
                `/iam/v2beta1/roleBindings/${folder}`,
                { identityUid: action === "bind itself" ? grantor.uid : grantee, roleUid: granted.uid },
                grantor.token,
              );
              break;
            case "re-point a binding": {
              const binding = (
                await api.post(`/iam/v2beta1/roleBindings/${folder}`, {
                  identityUid: grantee,
                  roleUid: builtin["registry.pull"]!.uid,
                })
              ).body.uid;
              precondition =
                held.has("CAP_IAM_ROLE_BINDINGS_LIST") &&
                held.has("CAP_IAM_ROLE_BINDINGS_UPDATE") &&
                seesRole;
              grants = granted.caps;
              response = await api.patch(
                `/iam/v2beta1/roleBindings/${binding}`,
                { roleUid: granted.uid },
                grantor.token,
              );
              break;
            }
            case "invite":
              precondition = held.has("CAP_IAM_GROUP_INVITES_CREATE") && seesRole;
              grants = granted.caps;
              response = await api.post(
                `/iam/v2beta1/groupInvites/${folder}`,
                { roleUid: granted.uid, ttl: "3600s" },
                grantor.token,
              );
              break;
            case "create role":
              precondition = held.has("CAP_IAM_ROLES_CREATE");
              grants = extraCaps;
              response = await api.post(
                `/iam/v2beta1/roles/${folder}`,
                { name: "by grantor", capabilities: extraCaps },
                grantor.token,
              );
              break;
            case "add to role": {
              const existing = await makeRole({ custom: ["CAP_REPO_LIST"] });
              precondition = held.has("CAP_IAM_ROLES_LIST") && held.has("CAP_IAM_ROLES_UPDATE");
              const capabilities = [...new Set([...existing.caps, ...extraCaps])];
              grants = capabilities.filter((c) => !existing.caps.includes(c)); // only what is added is granted
              response = await api.patch(
                `/iam/v2beta1/roles/${existing.uid}`,
                { capabilities },
                grantor.token,
              );
              break;
            }
          }
          const missing = grants.filter((c) => !held.has(c));
          if (response.status === 200) expect(missing).toEqual([]);
          if (precondition && missing.length === 0) expect(response.status).toBe(200);
          if (precondition && missing.length > 0) {
            expect(response.body.code).toBe(7);
            for (const capability of missing) expect(response.body.message).toContain(capability);
          }
        },
      ),
      { seed: 12_02, numRuns: ESCALATION_RUNS },
    );
  }, 60_000);

  test("the issue's example: an editor cannot bind itself to owner", async () => {
    const editor = api.emulator.createUser("editor");
    await api.post(`/iam/v2beta1/roleBindings/${folder}`, {
      identityUid: editor.uid,
      roleUid: builtin.editor!.uid,
    });
    const escalated = await api.post(
      `/iam/v2beta1/roleBindings/${folder}`,
      { identityUid: editor.uid, roleUid: builtin.owner!.uid },
      editor.token,
    );
    expect([escalated.status, escalated.body.code]).toEqual([403, 7]);
    expect(escalated.body.message).toContain("CAP_IAM_IDENTITY_PROVIDERS_CREATE");
    const bindings = await api.get(`/iam/v2beta1/roleBindings?identity=${editor.uid}`);
    expect(bindings.body.roleBindings.map((b: { role: { name: string } }) => b.role.name)).toEqual([
      "editor",
    ]);
  });
});
