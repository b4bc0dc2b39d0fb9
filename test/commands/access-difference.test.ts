/**
 * commands/access/difference.ts works out the access model's difference only where a change can reach it; over random
 * pairs of organizations (bindings added, removed and kept, roles whose capabilities change, roles gone, bindings on
 * groups listed in neither state), it must be exactly `accessDiff` over the whole models, in the same order.
 */
import fc from "fast-check";
import { accessDifference } from "../../commands/access/difference";
import { AccessModel, accessDiff, type BindingFacts, type RoleFacts } from "../../sdk/access-model";
import { CAP_POOL } from "./access-fixtures";

const GROUPS = ["o", "o/a", "o/a/b", "o/a/b/c", "o/d", "o/d/e", "p", "p/q"];
const IDENTITIES = ["u1", "u2", "o/w1", "o/a/w2"];
const ROLES = ["viewer", "o/r1", "o/r2", "p/r3"];

const capabilities = fc.uniqueArray(fc.constantFrom(...CAP_POOL), { maxLength: 4 });
const roles = fc.record(Object.fromEntries(ROLES.map((r) => [r, fc.option(capabilities)]))) as fc.Arbitrary<
  Record<string, string[] | null>
>;
const binding = fc.record({
  n: fc.nat(5),
  group: fc.constantFrom(...GROUPS),
  identity: fc.constantFrom(...IDENTITIES),
  role: fc.constantFrom(...ROLES),
});
/** Bindings in both states, only before, only after. */
const bindings = fc.record({
  kept: fc.array(binding, { maxLength: 6 }),
  gone: fc.array(binding, { maxLength: 4 }),
  added: fc.array(binding, { maxLength: 4 }),
});

const roleFacts = (r: Record<string, string[] | null>): RoleFacts[] =>
  Object.entries(r).flatMap(([uid, caps]) => (caps === null ? [] : [{ uid, capabilities: caps }]));
const facts = (list: { n: number; group: string; identity: string; role: string }[], prefix: string) =>
  list.map((b, i): BindingFacts => ({ uid: `${b.group}/${prefix}${i}-${b.n}`, ...b }));

describe("the access difference where a change can reach", () => {
  it("is accessDiff over the whole models, in the same order", () => {
    fc.assert(
      fc.property(
        roles,
        roles,
        bindings,
        fc.subarray(GROUPS),
        fc.boolean(),
        (rolesBefore, rolesAfter, b, groups, sameRoles) => {
          const kept = facts(b.kept, "k");
          const before = {
            roles: roleFacts(rolesBefore),
            bindings: [...kept, ...facts(b.gone, "g")],
          };
          const after = {
            roles: roleFacts(sameRoles ? rolesBefore : rolesAfter),
            bindings: [...kept, ...facts(b.added, "a")],
          };
          const full = accessDiff(new AccessModel(before), new AccessModel(after), groups);
          const found = accessDifference(before, after, groups);
          expect(found.changes).toEqual(full);
          // The models it returns grant the changed identities what the whole models do.
          for (const c of found.changes)
            for (const [mine, whole] of [
              [found.before, new AccessModel(before)],
              [found.after, new AccessModel(after)],
            ] as const)
              expect(mine.bindingsOf(c.identity)).toEqual(whole.bindingsOf(c.identity));
        },
      ),
      { numRuns: 1000, seed: 38 },
    );
  });

  it("compares nothing when nothing changed", () => {
    const state = {
      roles: [{ uid: "viewer", capabilities: ["CAP_REPO_LIST"] }],
      bindings: [{ uid: "o/1", group: "o", identity: "u1", role: "viewer" }],
    };
    const found = accessDifference(state, state, GROUPS);
    expect(found.changes).toEqual([]);
    expect(found.before.identities()).toEqual([]);
  });
});
