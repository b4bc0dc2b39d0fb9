/**
 * The access model's rules, one test each (sdk/access-model.ts, docs/access-model.md), with fast-check (fixed seeds)
 * where a rule quantifies over trees: inheritance down the uid tree, union over bindings, visibility, operations'
 * needs (with no-escalation grants), the access diff and the privileged set.
 */
import fc from "fast-check";
import {
  AccessModel,
  COLLECTION_ACCESS,
  PRIVILEGED_CAPABILITIES,
  accessDiff,
  ancestorsOrSelf,
  capabilitiesOn,
  capabilityFor,
  grantRoots,
  grantsOn,
  isAtOrBelow,
  isPrivileged,
  missingOn,
  needsOf,
  sees,
  underAny,
  unmetNeeds,
  type BindingFacts,
  type RoleFacts,
} from "../../sdk/access-model";
import { CAPABILITY_SET } from "../../sdk/schemas/capabilities";

const ORG = "0123456789abcdef0123456789abcdef01234567";
const A = `${ORG}/aaaaaaaaaaaaaaaa`;
const AB = `${A}/bbbbbbbbbbbbbbbb`;
const C = `${ORG}/cccccccccccccccc`;
/** A sibling whose uid starts with A's: "below" is read segment by segment, never as a string prefix. */
const A_TWIN = `${ORG}/aaaaaaaaaaaaaaaa0`;

const role = (uid: string, ...capabilities: string[]): RoleFacts => ({ uid, name: uid, capabilities });
const bind = (uid: string, group: string, identity: string, roleUid: string): BindingFacts => ({
  uid,
  group,
  identity,
  role: roleUid,
});

const READER = role("reader", "CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST");
const MAKER = role("maker", "CAP_IAM_GROUPS_LIST", "CAP_IAM_GROUPS_CREATE");

describe("rule 1: a binding grants on its group and every group below it", () => {
  const model = new AccessModel({ roles: [READER], bindings: [bind("b1", A, "ada", "reader")] });

  test("on the group, below it, not above it, not beside it", () => {
    expect([...capabilitiesOn(model, "ada", A)].sort()).toEqual(["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"]);
    expect(capabilitiesOn(model, "ada", AB).has("CAP_REPO_LIST")).toBe(true);
    expect(capabilitiesOn(model, "ada", ORG).size).toBe(0);
    expect(capabilitiesOn(model, "ada", C).size).toBe(0);
    expect(capabilitiesOn(model, "ada", A_TWIN).size).toBe(0);
    expect(capabilitiesOn(model, "ada", "").size).toBe(0);
  });

  test("an unknown role grants nothing; another identity holds nothing", () => {
    const unknown = new AccessModel({ roles: [], bindings: [bind("b1", A, "ada", "nope")] });
    expect(capabilitiesOn(unknown, "ada", A).size).toBe(0);
    expect(capabilitiesOn(model, "bob", A).size).toBe(0);
  });

  test("grantRoots: where the bindings granting a capability are; underAny reads below them", () => {
    expect(grantRoots(model, "ada", "CAP_REPO_LIST")).toEqual(new Set([A]));
    expect(grantRoots(model, "ada", "CAP_REPO_DELETE")).toEqual(new Set());
    const roots = grantRoots(model, "ada", "CAP_REPO_LIST");
    expect([A, AB].map((g) => underAny(g, roots))).toEqual([true, true]);
    expect([ORG, C, A_TWIN].map((g) => underAny(g, roots))).toEqual([false, false, false]);
  });

  test("ancestorsOrSelf and isAtOrBelow agree on random uid paths", () => {
    const segment = fc.stringMatching(/^[0-9a-f]{1,4}$/);
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 1, maxLength: 6 }),
        fc.array(segment, { maxLength: 6 }),
        (p, q) => {
          const uid = p.join("/");
          const other = q.length === 0 ? uid : [...p.slice(0, q.length % (p.length + 1)), ...q].join("/");
          const ancestors = ancestorsOrSelf(other);
          expect(isAtOrBelow(other, uid)).toBe(ancestors.includes(uid));
          expect(underAny(other, new Set([uid]))).toBe(ancestors.includes(uid));
        },
      ),
      { seed: 3301, numRuns: 300 },
    );
  });
});

describe("rule 2: what an identity holds is the union over its bindings here and above", () => {
  test("two bindings, each granting part; grantsOn names every binding behind a capability", () => {
    const model = new AccessModel({
      roles: [READER, MAKER],
      bindings: [bind("b1", ORG, "ada", "reader"), bind("b2", A, "ada", "maker")],
    });
    expect([...capabilitiesOn(model, "ada", AB)].sort()).toEqual([
      "CAP_IAM_GROUPS_CREATE",
      "CAP_IAM_GROUPS_LIST",
      "CAP_REPO_LIST",
    ]);
    const grants = grantsOn(model, "ada", AB);
    expect(
      grants
        .get("CAP_IAM_GROUPS_LIST")!
        .map((b) => b.uid)
        .sort(),
    ).toEqual(["b1", "b2"]);
    expect(grants.get("CAP_IAM_GROUPS_CREATE")!.map((b) => b.uid)).toEqual(["b2"]);
    // On C only the organization-wide binding applies.
    expect([...capabilitiesOn(model, "ada", C)].sort()).toEqual(["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"]);
  });

  test("on random bindings, capabilitiesOn is exactly the union of the roles bound at the group's ancestors", () => {
    const groups = [ORG, A, AB, C, A_TWIN];
    const caps = ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", "CAP_TAG_LIST", "CAP_IAM_ROLES_CREATE"];
    fc.assert(
      fc.property(
        fc.array(fc.subarray(caps), { minLength: 1, maxLength: 4 }),
        fc.array(fc.record({ group: fc.nat({ max: 4 }), who: fc.nat({ max: 2 }), role: fc.nat({ max: 3 }) })),
        fc.nat({ max: 4 }),
        fc.nat({ max: 2 }),
        (roleCaps, picks, at, who) => {
          const roles = roleCaps.map((c, i) => role(`r${i}`, ...c));
          const bindings = picks.map((p, i) =>
            bind(`b${i}`, groups[p.group]!, `id${p.who}`, `r${p.role % roles.length}`),
          );
          const model = new AccessModel({ roles, bindings });
          const group = groups[at]!;
          const expected = new Set(
            bindings
              .filter((b) => b.identity === `id${who}` && ancestorsOrSelf(group).includes(b.group))
              .flatMap((b) => roles.find((r) => r.uid === b.role)!.capabilities),
          );
          expect(capabilitiesOn(model, `id${who}`, group)).toEqual(expected);
          expect(new Set(grantsOn(model, `id${who}`, group).keys())).toEqual(expected);
          expect(missingOn(model, `id${who}`, group, caps)).toEqual(
            caps.filter((c) => !expected.has(c)).sort(),
          );
        },
      ),
      { seed: 3302, numRuns: 300 },
    );
  });
});

describe("rule 3: a position is visible exactly where the identity holds a binding, there or above", () => {
  test("even a binding of a role granting nothing makes the position visible", () => {
    const model = new AccessModel({ roles: [role("empty")], bindings: [bind("b1", A, "ada", "empty")] });
    expect(sees(model, "ada", A)).toBe(true);
    expect(sees(model, "ada", AB)).toBe(true);
    expect(capabilitiesOn(model, "ada", AB).size).toBe(0);
    expect([ORG, C, A_TWIN, ""].map((g) => sees(model, "ada", g))).toEqual([false, false, false, false]);
  });
});

describe("rule 4: each operation needs one capability at one position", () => {
  test("the capability is the collection's stem and the verb, and a known capability of the API", () => {
    expect(capabilityFor("roleBindings", "CREATE")).toBe("CAP_IAM_ROLE_BINDINGS_CREATE");
    expect(capabilityFor("identities", "LIST")).toBe("CAP_IAM_IDENTITY_LIST");
    for (const collection of Object.keys(COLLECTION_ACCESS) as (keyof typeof COLLECTION_ACCESS)[])
      expect(CAPABILITY_SET.has(capabilityFor(collection, "LIST"))).toBe(true);
  });

  test("positions: a group and an account association by their own uid, a tag by its repo's group, else the parent", () => {
    expect(COLLECTION_ACCESS.groups.position(AB)).toBe(AB);
    expect(COLLECTION_ACCESS.accountAssociations.position(A)).toBe(A);
    expect(COLLECTION_ACCESS.tags.position(`${A}/1111111111111111/2222222222222222`)).toBe(A);
    expect(COLLECTION_ACCESS.roleBindings.position(`${A}/1111111111111111`)).toBe(A);
    expect(COLLECTION_ACCESS.identities.position("0123456789abcdef0123456789abcdef01234567")).toBe("");
  });

  test("needsOf: a read before any change, on the object's position; a create on its parent", () => {
    const binding = `${A}/1111111111111111`;
    expect(needsOf({ verb: "DELETE", collection: "roleBindings", uid: binding })).toEqual([
      { capability: "CAP_IAM_ROLE_BINDINGS_LIST", group: A, reason: `read ${binding}` },
      { capability: "CAP_IAM_ROLE_BINDINGS_DELETE", group: A, reason: `delete ${binding}` },
    ]);
    expect(needsOf({ verb: "LIST", collection: "groups", uid: AB })).toEqual([
      { capability: "CAP_IAM_GROUPS_LIST", group: AB, reason: `read ${AB}` },
    ]);
    expect(needsOf({ verb: "CREATE", collection: "groups", parent: A })).toEqual([
      { capability: "CAP_IAM_GROUPS_CREATE", group: A, reason: `create under ${A}` },
    ]);
  });
});

describe("rule 5: no escalation — what an operation grants is needed too", () => {
  const model = new AccessModel({
    roles: [MAKER, role("binder", "CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_IAM_GROUPS_LIST")],
    bindings: [bind("b1", A, "ada", "binder")],
  });

  test("granting a role whose capabilities the caller holds needs nothing more", () => {
    const operation = {
      verb: "CREATE" as const,
      collection: "roleBindings" as const,
      parent: AB,
      grants: ["CAP_IAM_GROUPS_LIST"],
      grantsWhat: "role viewer-ish",
    };
    expect(needsOf(operation).map((n) => n.capability)).toEqual([
      "CAP_IAM_ROLE_BINDINGS_CREATE",
      "CAP_IAM_GROUPS_LIST",
    ]);
    expect(needsOf(operation)[1]!.reason).toBe("grant role viewer-ish (no escalation)");
    expect(unmetNeeds(model, "ada", operation)).toEqual([]);
  });

  test("granting a capability the caller lacks there is an unmet need, on that group", () => {
    const operation = {
      verb: "CREATE" as const,
      collection: "roleBindings" as const,
      parent: AB,
      grants: MAKER.capabilities,
    };
    expect(unmetNeeds(model, "ada", operation)).toEqual([
      {
        capability: "CAP_IAM_GROUPS_CREATE",
        group: AB,
        reason: "grant CAP_IAM_GROUPS_CREATE (no escalation)",
      },
    ]);
    // An update's grants are needed on the object's position.
    const repoint = {
      verb: "UPDATE" as const,
      collection: "roleBindings" as const,
      uid: `${A}/1111111111111111`,
      grants: ["CAP_REPO_LIST"],
    };
    expect(needsOf(repoint).map((n) => [n.capability, n.group])).toEqual([
      ["CAP_IAM_ROLE_BINDINGS_LIST", A],
      ["CAP_IAM_ROLE_BINDINGS_UPDATE", A],
      ["CAP_REPO_LIST", A],
    ]);
  });
});

describe("accessDiff: effective access gained and lost between two models", () => {
  test("a binding moved from A to the organization gains on C, loses nothing on A", () => {
    const before = new AccessModel({ roles: [READER], bindings: [bind("b1", A, "ada", "reader")] });
    const after = new AccessModel({ roles: [READER], bindings: [bind("b1", ORG, "ada", "reader")] });
    expect(accessDiff(before, after, [A, C, ORG])).toEqual(
      [
        { identity: "ada", group: ORG, gained: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"], lost: [] },
        { identity: "ada", group: C, gained: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"], lost: [] },
      ].sort((x, y) => (x.group < y.group ? -1 : 1)),
    );
    expect(accessDiff(after, before, [C])).toEqual([
      { identity: "ada", group: C, gained: [], lost: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"] },
    ]);
  });

  test("a role's capabilities changing shows for every identity bound to it; no change, no line", () => {
    const before = new AccessModel({
      roles: [READER],
      bindings: [bind("b1", A, "ada", "reader"), bind("b2", A, "bob", "reader")],
    });
    const after = new AccessModel({
      roles: [role("reader", "CAP_IAM_GROUPS_LIST", "CAP_TAG_LIST")],
      bindings: [bind("b1", A, "ada", "reader"), bind("b2", A, "bob", "reader")],
    });
    expect(accessDiff(before, after, [AB])).toEqual([
      { identity: "ada", group: AB, gained: ["CAP_TAG_LIST"], lost: ["CAP_REPO_LIST"] },
      { identity: "bob", group: AB, gained: ["CAP_TAG_LIST"], lost: ["CAP_REPO_LIST"] },
    ]);
    expect(accessDiff(before, before, [ORG, A, AB, C])).toEqual([]);
  });
});

describe("the privileged set", () => {
  test("every privileged capability is a known capability, and grants access: binding, role or identity changes", () => {
    for (const capability of PRIVILEGED_CAPABILITIES) {
      expect(CAPABILITY_SET.has(capability)).toBe(true);
      expect(capability).toMatch(/^CAP_IAM_(ROLE_BINDINGS|ROLES|IDENTITY|GROUP_INVITES|IDENTITY_PROVIDERS)_/);
    }
    expect(isPrivileged("CAP_IAM_ROLE_BINDINGS_CREATE")).toBe(true);
    expect(isPrivileged("CAP_IAM_ROLES_UPDATE")).toBe(true);
    // Reading and deleting grant nothing.
    expect(isPrivileged("CAP_IAM_ROLE_BINDINGS_LIST")).toBe(false);
    expect(isPrivileged("CAP_IAM_ROLE_BINDINGS_DELETE")).toBe(false);
    expect(isPrivileged("CAP_REPO_CREATE")).toBe(false);
  });
});
