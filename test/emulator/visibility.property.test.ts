/**
 * Visibility (AIP-211: the same answer for forbidden and missing), fast-check with fixed seeds:
 *
 *   5. For every resource kind, every caller level around an object (outsider, sibling, child, and a viewer that
 *      sees it but may not change it) and GET / PATCH / DELETE, the answer for the existing object and for a
 *      missing uid at the same position is the same (status, code, message and details, uid aside) and names
 *      nothing of the object.
 *   1. Every reference in a body or query (identityUid, roleUid, defaultRole, service bindings, list filters) to
 *      an object the caller cannot see gets exactly the answer of a reference to a uid that does not exist.
 */
import fc from "fast-check";
import { start, type Api } from "./helpers";
import { buildTree, missingTwin, normalized, type Caller, type Tree } from "./tree";

export const FORBIDDEN_RUNS = 300;
export const REFERENCE_RUNS = 300;

let api: Api;
let tree: Tree;

beforeAll(async () => {
  api = await start();
  tree = await buildTree(api);
}, 30_000);
afterAll(() => api.emulator.close());

const segment = fc.stringMatching(/^[0-9a-f]{16}$/);

/** Groups and account associations are governed by their own uid; their missing twin sits below it. */
function twinOf(kind: string, uid: string, random: string): string {
  return kind === "groups" || kind === "accountAssociations" ? `${uid}/${random}` : missingTwin(uid, random);
}

function expectNoSecrets(text: string, secrets: string[]): void {
  for (const secret of secrets) expect(text).not.toContain(secret);
}

describe("property 5: forbidden == missing at every level, for get, update and delete", () => {
  test(`${FORBIDDEN_RUNS} generated cases`, async () => {
    const before = (await api.get(`/iam/v2beta1/groups?uidp.descendants_of=${tree.org}&page_size=200`)).text;
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: tree.callers.length - 1 }),
        fc.nat({ max: tree.targets.length - 1 }),
        fc.constantFrom("GET", "PATCH", "DELETE"),
        segment,
        async (callerIndex, targetIndex, method, random) => {
          const caller = tree.callers[callerIndex]!;
          let target = tree.targets[targetIndex]!;
          // The viewer sees A; for it the group target is A's child (A itself it may list), the question is update.
          if (caller.level === "viewer" && target.kind === "groups") target = { ...target, uid: tree.child };
          if (caller.level === "viewer" && method === "GET") return; // it may read: no secret to keep
          const twin = twinOf(target.kind, target.uid, random);
          const send = (uid: string) =>
            api.call(method, `${target.prefix}/${uid}`, {
              token: caller.token,
              ...(method === "PATCH" ? { body: target.patch ?? { description: "changed" } } : {}),
            });
          const existing = await send(target.uid);
          const missing = await send(twin);
          expect(normalized(existing, target.uid)).toEqual(normalized(missing, twin));
          expect(existing.status).toBeGreaterThanOrEqual(400);
          expect(existing.status).toBeLessThan(500);
          expectNoSecrets(existing.text, target.secrets);
        },
      ),
      { seed: 12_05, numRuns: FORBIDDEN_RUNS },
    );
    // Nothing was changed by any of those requests.
    expect((await api.get(`/iam/v2beta1/groups?uidp.descendants_of=${tree.org}&page_size=200`)).text).toBe(
      before,
    );
  }, 60_000);
});

interface Reference {
  name: string;
  /** Which target the reference names: an identity, a role, or a group. */
  names: "identity" | "role" | "group";
  applies: (caller: Caller) => boolean;
  send: (caller: Caller, uid: string) => ReturnType<Api["call"]>;
}

const references: Reference[] = [
  {
    name: "roleBindings create identityUid",
    names: "identity",
    applies: () => true,
    send: (c, uid) =>
      api.call("POST", `/iam/v2beta1/roleBindings/${c.ownGroup}`, {
        token: c.token,
        body: { identityUid: uid, roleUid: tree.viewerRole },
      }),
  },
  {
    name: "roleBindings create roleUid",
    names: "role",
    applies: () => true,
    send: (c, uid) =>
      api.call("POST", `/iam/v2beta1/roleBindings/${c.ownGroup}`, {
        token: c.token,
        body: { identityUid: c.ownIdentity, roleUid: uid },
      }),
  },
  {
    name: "roleBindings update identityUid",
    names: "identity",
    applies: () => true,
    send: (c, uid) =>
      api.call("PATCH", `/iam/v2beta1/roleBindings/${c.ownBinding}`, {
        token: c.token,
        body: { identityUid: uid },
      }),
  },
  {
    name: "roleBindings update roleUid",
    names: "role",
    applies: () => true,
    send: (c, uid) =>
      api.call("PATCH", `/iam/v2beta1/roleBindings/${c.ownBinding}`, {
        token: c.token,
        body: { roleUid: uid },
      }),
  },
  {
    name: "groupInvites create roleUid",
    names: "role",
    applies: () => true,
    send: (c, uid) =>
      api.call("POST", `/iam/v2beta1/groupInvites/${c.ownGroup}`, {
        token: c.token,
        body: { roleUid: uid, ttl: "3600s" },
      }),
  },
  {
    name: "identityProviders create defaultRole",
    names: "role",
    applies: (c) => c.ownsOrganization,
    send: (c, uid) =>
      api.call("POST", `/iam/v2beta1/identityProviders/${c.ownGroup}`, {
        token: c.token,
        body: { name: "sso", defaultRole: uid, oidc: { issuer: "https://sso.example.net", clientId: "c" } },
      }),
  },
  {
    name: "accountAssociations create chainguard.serviceBindings",
    names: "identity",
    applies: () => true,
    send: (c, uid) =>
      api.call("POST", `/iam/v2beta1/accountAssociations/${c.ownGroup}`, {
        token: c.token,
        body: { name: "assoc", chainguard: { serviceBindings: { INGESTER: uid } } },
      }),
  },
  ...(
    [
      ["roleBindings?identity=", "identity"],
      ["roleBindings?role=", "role"],
      ["groups?uidp.descendants_of=", "group"],
      ["groups?uidp.children_of=", "group"],
      ["identities?uidp.children_of=", "group"],
      ["roles?uidp.descendants_of=", "group"],
      ["groupInvites?uidp.descendants_of=", "group"],
      ["roleBindings?group=", "group"],
    ] as const
  ).map(([query, names]): Reference => ({
    name: `list filter ${query}`,
    names,
    applies: () => true,
    send: (c, uid) => api.call("GET", `/iam/v2beta1/${query}${encodeURIComponent(uid)}`, { token: c.token }),
  })),
];

describe("property 1: a reference to what the caller cannot see reads exactly like one to nothing", () => {
  test(`${REFERENCE_RUNS} generated cases`, async () => {
    const referers = tree.callers.filter((c) => c.ownGroup !== undefined);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...referers),
        fc.constantFrom(...references),
        fc.boolean(),
        segment,
        async (caller, reference, useOrgRole, random) => {
          if (!reference.applies(caller)) return;
          const target =
            reference.names === "identity"
              ? tree.identityA
              : reference.names === "role"
                ? useOrgRole
                  ? tree.orgRole
                  : tree.roleA
                : caller.level === "child"
                  ? tree.folderB // A holds the child caller's own group, which it may list
                  : tree.folderA;
          const twin = missingTwin(target, random);
          const existing = await reference.send(caller, target);
          const missing = await reference.send(caller, twin);
          expect(normalized(existing, target)).toEqual(normalized(missing, twin));
          expectNoSecrets(existing.text, [
            "identity-a",
            "secret-subject",
            "secret-role-a",
            "secret-org-role",
            "folder-a",
          ]);
          if (reference.name.startsWith("list")) {
            // Nothing at or below the target comes back (built-in roles, listed everywhere, may).
            expect(existing.status).toBe(200);
            expect(existing.text).not.toContain(target);
          } else {
            expect(existing.body.code).toBe(3);
          }
        },
      ),
      { seed: 12_01, numRuns: REFERENCE_RUNS },
    );
  }, 60_000);
});
