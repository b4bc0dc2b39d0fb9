/**
 * `platform-access least-privilege` over random stacks (fast-check, fixed seed), against the access model: the
 * roles it proposes are enough for the stack's whole life (every create of `pulumi up` from empty, every read of
 * `pulumi refresh`, every delete of `pulumi destroy`, and what the data sources read); each capability of each role
 * is needed (with it taken out, the model refuses some step); and the roles are bound where they can be, on groups
 * the stack does not create. The stacks mix every kind the command counts, in group trees the stack partly creates
 * itself, custom roles of random capabilities, and bindings, invites and identity providers granting the stack's
 * roles or built-in ones. The model is what the emulator enforces (test/emulator/access-model.property.test.ts);
 * the real engine's run under a proposed role, and without one of its capabilities, is
 * test/e2e/access-least-privilege.e2e.test.ts.
 */
import fc from "fast-check";
import { COLLECTION_ACCESS, type Need, type Verb } from "../../sdk/access-model";
import { leastPrivilege, type StackObject } from "../../commands/access/least-privilege";
import { lifecycleOperations, refusedOverLifecycle } from "./stack-lifecycle-model";

const VERBS: Verb[] = ["CREATE", "UPDATE", "LIST", "DELETE"];
const CAPABILITIES = Object.values(COLLECTION_ACCESS).flatMap((c) =>
  VERBS.map((v) => `${c.capability}_${v}`),
);

/** Built-in roles, as the API would describe them to least-privilege (the model never names one). */
const BUILT_IN = new Map([
  ["built-in-viewer", ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", "CAP_ADVISORIES_LIST"]],
  ["built-in-binder", ["CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_IAM_ROLE_BINDINGS_LIST"]],
]);

interface RandomStack {
  objects: StackObject[];
  extra: Need[];
}

const segment = fc.stringMatching(/^[0-9a-f]{16}$/);

/**
 * A random stack: groups that exist already (a small tree under the organization), groups the stack creates (under
 * either), then objects of every kind placed in any of them, granting the stack's roles or built-in ones.
 */
const randomStack: fc.Arbitrary<RandomStack> = fc
  .record({
    org: fc.stringMatching(/^[0-9a-f]{40}$/),
    existing: fc.array(fc.tuple(fc.nat(), segment), { maxLength: 3 }),
    created: fc.array(fc.tuple(fc.nat(), segment), { maxLength: 4 }),
    others: fc.array(
      fc.record({
        kind: fc.constantFrom(
          "identity" as const,
          "role" as const,
          "roleBinding" as const,
          "identityProvider" as const,
          "groupInvite" as const,
          "accountAssociation" as const,
        ),
        where: fc.nat(),
        id: segment,
        capabilities: fc.uniqueArray(fc.constantFrom(...CAPABILITIES), { maxLength: 5 }),
        grants: fc.nat(),
      }),
      { maxLength: 8 },
    ),
    extra: fc.array(fc.tuple(fc.constantFrom(...CAPABILITIES), fc.nat()), { maxLength: 2 }),
  })
  .map(({ org, existing, created, others, extra }) => {
    const groups = [org];
    for (const [at, id] of existing) groups.push(`${groups[at % groups.length]!}/${id}`);
    const objects: StackObject[] = [];
    for (const [at, id] of created) {
      const uid = `${groups[at % groups.length]!}/${id}`;
      groups.push(uid);
      objects.push({
        kind: "group",
        uid,
        urn: `urn:group:${uid}`,
        parent: uid.slice(0, uid.lastIndexOf("/")),
      });
    }
    const roleUids: string[] = [...BUILT_IN.keys()];
    for (const o of others) {
      // Identity providers live only on the organization; an account association's uid is its group's.
      const parent = o.kind === "identityProvider" ? org : groups[o.where % groups.length]!;
      const uid = o.kind === "accountAssociation" ? parent : `${parent}/${o.id}`;
      const object: StackObject = { kind: o.kind, uid, urn: `urn:${o.kind}:${uid}`, parent };
      if (o.kind === "role") {
        object.capabilities = o.capabilities;
        roleUids.push(uid);
      }
      if (o.kind === "roleBinding" || o.kind === "groupInvite" || o.kind === "identityProvider")
        object.grantsRole = roleUids[o.grants % roleUids.length]!;
      objects.push(object);
    }
    const needs = extra.map(([capability, at]) => ({
      capability,
      group: groups[at % groups.length]!,
      reason: "a data source",
    }));
    return { objects, extra: needs };
  });

const roleCapabilities = (uid: string) => BUILT_IN.get(uid);

describe("least-privilege against the access model", () => {
  it("the proposed roles are enough for the stack's whole life, and each of their capabilities is needed", () => {
    let capabilitiesChecked = 0;
    fc.assert(
      fc.property(randomStack, ({ objects, extra }) => {
        const lp = leastPrivilege(objects, { roleCapabilities, extra });
        const operations = lifecycleOperations(objects, roleCapabilities);

        // Bound where a binding can be made before `up` and survives `destroy`: on groups the stack does not create.
        const created = new Set(objects.filter((o) => o.kind === "group").map((o) => o.uid));
        expect(lp.roles.flatMap((r) => [r.parentUid, ...r.bindOn]).filter((g) => created.has(g))).toEqual([]);
        expect(refusedOverLifecycle(lp, operations, extra)).toEqual([]);
        for (const role of lp.roles) {
          for (const capability of role.capabilities) {
            capabilitiesChecked++;
            const refused = refusedOverLifecycle(lp, operations, extra, { role: role.name, capability });
            expect({ without: capability, refused: refused.map((r) => r.need.capability) }).toEqual({
              without: capability,
              refused: expect.arrayContaining([capability]),
            });
          }
        }
      }),
      { seed: 20260509, numRuns: 300 },
    );
    // The property ran over real proposals, not empty ones.
    expect(capabilitiesChecked).toBeGreaterThan(1000);
  });
});
