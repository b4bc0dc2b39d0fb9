/**
 * The access plan's summary is the access model's difference between the organization before and after the plan,
 * applied for real. Random organizations (nested folders, workload identities, custom roles, bindings of custom and
 * built-in roles) and random plans over them (creates of folders, identities, roles and bindings, updates of a
 * role's capabilities, deletes of bindings), with hostile names; the plan goes through `pulumi preview --json`'s
 * shape (./plan-fixtures) and the organization is read as `platform-access plan` reads it; then the plan is applied
 * against the in-process emulator and the organization read again. The summary's gains and losses, per identity and
 * group (a change said once for a folder and the groups under it counts for each), equal `accessDiff` of the two
 * reads. Fixed seed.
 */
import fc from "fast-check";
import { AccessModel, accessDiff } from "../../sdk/access-model";
import { planAccess, type Named } from "../../commands/access/plan";
import { organizationsOf, planOfPreview } from "../../commands/access/preview-json";
import { readPlanOrganizations } from "../../commands/access/plan-command";
import { bindingFacts, readAccess } from "../../commands/access/read";
import { TEST_ISSUER, useOrganization } from "../organization";
import { capture } from "./fixtures";
import { previewJson, ref, type FixtureResource } from "./plan-fixtures";

jest.setTimeout(300_000);

const org = useOrganization();

const CAPS = [
  "CAP_REPO_LIST",
  "CAP_TAG_LIST",
  "CAP_IAM_GROUPS_LIST",
  "CAP_IAM_GROUPS_CREATE",
  "CAP_IAM_ROLE_BINDINGS_CREATE",
  "CAP_IAM_IDENTITY_LIST",
];
const NAMES = [
  "bot",
  "a|b",
  "x y|z",
  "`t`",
  "<b>i</b>",
  "o'n",
  "@team",
  "__proto__",
  "toString",
  "[l](u)",
  "r\u202ez",
];

interface Shape {
  groups: Array<{ parent: number; isNew: boolean }>;
  identities: Array<{ group: number; isNew: boolean; name: string }>;
  roles: Array<{ group: number; isNew: boolean; name: string; caps: string[]; newCaps: string[] | null }>;
  /** role < 0: a built-in role (-1 viewer, -2 editor). */
  bindings: Array<{ identity: number; role: number; group: number; isNew: boolean; deleted: boolean }>;
}

const shapes: fc.Arbitrary<Shape> = fc
  .record({
    groups: fc.array(
      fc.record({ parent: fc.integer({ min: -1, max: 4 }), isNew: fc.constantFrom(true, false, false) }),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
    identities: fc.array(
      fc.record({
        group: fc.integer({ min: -1, max: 3 }),
        isNew: fc.constantFrom(true, false, false),
        name: fc.constantFrom(...NAMES),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    roles: fc.array(
      fc.record({
        group: fc.integer({ min: -1, max: 3 }),
        isNew: fc.constantFrom(true, false, false),
        name: fc.constantFrom(...NAMES),
        caps: fc.subarray(CAPS, { minLength: 1 }),
        newCaps: fc.option(fc.subarray(CAPS, { minLength: 1 })),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    bindings: fc.array(
      fc.record({
        identity: fc.nat(),
        role: fc.integer({ min: -2, max: 5 }),
        group: fc.integer({ min: -1, max: 3 }),
        isNew: fc.constantFrom(true, false, false),
        deleted: fc.constantFrom(true, true, false),
      }),
      { minLength: 1, maxLength: 7 },
    ),
  })
  .map(normalise);

/** Makes the shape possible: what lives in a new folder is new, a custom role binds at its group or below. */
function normalise(shape: Shape): Shape {
  const groups = shape.groups.map((g, i) => ({ ...g, parent: g.parent < i ? g.parent : -1 }));
  groups.forEach((g) => {
    if (g.parent >= 0 && groups[g.parent]!.isNew) g.isNew = true;
  });
  const inNew = (group: number) => group >= 0 && groups[group % groups.length]!.isNew;
  const at = (group: number) => (group < 0 ? -1 : group % groups.length);
  const identities = shape.identities.map((x) => ({
    ...x,
    group: at(x.group),
    isNew: x.isNew || inNew(x.group),
  }));
  const roles = shape.roles.map((r) => {
    const isNew = r.isNew || inNew(r.group);
    return { ...r, group: at(r.group), isNew, newCaps: isNew ? null : r.newCaps };
  });
  const ancestors = (g: number): number[] => (g < 0 ? [-1] : [g, ...ancestors(groups[g]!.parent)]);
  const seen = new Set<string>();
  const bindings = shape.bindings
    .map((b) => {
      const identity = b.identity % identities.length;
      const role = b.role < 0 ? b.role : b.role % roles.length;
      const group = at(b.group);
      const isNew =
        b.isNew || identities[identity]!.isNew || (role >= 0 && roles[role]!.isNew) || inNew(group);
      return { identity, role, group, isNew, deleted: !isNew && b.deleted };
    })
    .filter((b) => b.role < 0 || ancestors(b.group).includes(roles[b.role]!.group))
    .filter((b) => {
      const key = `${b.identity} ${b.role} ${b.group}`;
      return !seen.has(key) && seen.add(key);
    });
  return { groups, identities, roles, bindings };
}

const BUILTIN: Record<number, string> = { [-1]: "viewer", [-2]: "editor" };

test("the summary's gains and losses are the model's difference before and after the plan", async () => {
  let run = 0;
  const seen = { gains: 0, losses: 0, nested: 0 };
  await fc.assert(
    fc.asyncProperty(shapes, async (shape) => {
      const client = org.client;
      const base = (await client.groups.create(org.uid, { name: `run ${run++}` })).uid;
      const uids = new Map<string, string>();
      const uidOf = (name: string) => uids.get(name)!;
      const groupRef = (g: number) => (g < 0 ? base : ref(`g${g}`));
      const roleUid = (r: number) => (r < 0 ? org.role(BUILTIN[r]!) : undefined);

      const claim = (i: number) => ({ issuer: TEST_ISSUER, subject: `s${i}` });
      const identityName = (i: number) => `${shape.identities[i]!.name}${i}`;
      const at = (g: number) => (g < 0 ? base : uidOf(`g${g}`));
      /** Makes the folders, identities and roles that exist before the update (or, `byUpdate`, those it makes). */
      const make = async (byUpdate: boolean) => {
        for (const [i, g] of shape.groups.entries())
          if (g.isNew === byUpdate)
            uids.set(`g${i}`, (await client.groups.create(at(g.parent), { name: `g${i}` })).uid);
        for (const [i, x] of shape.identities.entries())
          if (x.isNew === byUpdate) {
            const identity = await client.identities.create(at(x.group), {
              name: identityName(i),
              claimMatch: claim(i),
            });
            uids.set(`i${i}`, identity.uid);
          }
        for (const [i, r] of shape.roles.entries())
          if (r.isNew === byUpdate) {
            const role = await client.roles.create(at(r.group), { name: r.name, capabilities: r.caps });
            uids.set(`r${i}`, role.uid);
          }
      };
      /** Makes a binding of the shape. */
      const bind = async (b: Shape["bindings"][number]) =>
        (
          await client.roleBindings.create(at(b.group), {
            identityUid: uidOf(`i${b.identity}`),
            roleUid: roleUid(b.role) ?? uidOf(`r${b.role}`),
          })
        ).uid;

      // The organization before the update.
      await make(false);
      for (const [i, b] of shape.bindings.entries()) if (!b.isNew) uids.set(`b${i}`, await bind(b));

      // The plan, as pulumi preview --json prints it.
      const plan: FixtureResource[] = [];
      const existing = (name: string) => ({ op: "same" as const, uid: uidOf(name) });
      for (const [i, g] of shape.groups.entries()) {
        const inputs = { parentUid: groupRef(g.parent), name: `g${i}` };
        plan.push(
          g.isNew
            ? { kind: "Group", name: `g${i}`, op: "create", inputs }
            : {
                kind: "Group",
                name: `g${i}`,
                ...existing(`g${i}`),
                olds: { ...inputs, parentUid: g.parent < 0 ? base : uidOf(`g${g.parent}`) },
              },
        );
      }
      for (const [i, x] of shape.identities.entries()) {
        const inputs = { parentUid: groupRef(x.group), name: identityName(i), claimMatch: claim(i) };
        plan.push(
          x.isNew
            ? { kind: "Identity", name: `i${i}`, op: "create", inputs }
            : { kind: "Identity", name: `i${i}`, ...existing(`i${i}`), olds: { name: identityName(i) } },
        );
      }
      for (const [i, r] of shape.roles.entries()) {
        const inputs = { parentUid: groupRef(r.group), name: r.name, capabilities: r.newCaps ?? r.caps };
        const olds = { name: r.name, capabilities: r.caps };
        plan.push(
          r.isNew
            ? { kind: "Role", name: `r${i}`, op: "create", inputs }
            : r.newCaps !== null
              ? { kind: "Role", name: `r${i}`, op: "update", uid: uidOf(`r${i}`), olds, inputs }
              : { kind: "Role", name: `r${i}`, ...existing(`r${i}`), olds },
        );
      }
      for (const [i, b] of shape.bindings.entries()) {
        const inputs = {
          groupUid: groupRef(b.group),
          identityUid: ref(`i${b.identity}`),
          roleUid: roleUid(b.role) ?? ref(`r${b.role}`),
        };
        const name = `b${i}`;
        if (b.isNew) plan.push({ kind: "RoleBinding", name, op: "create", inputs });
        else {
          const olds = {
            groupUid: b.group < 0 ? base : uidOf(`g${b.group}`),
            identityUid: uidOf(`i${b.identity}`),
            roleUid: roleUid(b.role) ?? uidOf(`r${b.role}`),
          };
          plan.push({ kind: "RoleBinding", name, op: b.deleted ? "delete" : "same", uid: uidOf(name), olds });
        }
      }
      const planned = planOfPreview(previewJson(plan, "native"), "plan");
      const io = capture({});
      const summary = planAccess(planned, await readPlanOrganizations(client, organizationsOf(planned), io));
      expect(summary.notes).toEqual([]);

      // The plan applied, in dependency order; the organization read before and after.
      const model = async () => {
        const data = await readAccess(client, org.uid);
        const facts = {
          roles: data.roles.map((r) => ({ uid: r.uid, capabilities: r.capabilities ?? [] })),
          bindings: data.bindings.map(bindingFacts),
        };
        return { model: new AccessModel(facts), groups: data.groups.map((g) => g.uid) };
      };
      const before = await model();
      await make(true);
      for (const [i, r] of shape.roles.entries())
        if (!r.isNew && r.newCaps !== null)
          await client.roles.update(uidOf(`r${i}`), { capabilities: r.newCaps });
      for (const [i, b] of shape.bindings.entries()) {
        if (b.isNew) await bind(b);
        else if (b.deleted) await client.roleBindings.delete(uidOf(`b${i}`));
      }
      const after = await model();

      const expected = accessDiff(before.model, after.model, [...before.groups, ...after.groups]).map(
        (c) => `${c.identity} ${c.group} +${c.gained.join(",")} -${c.lost.join(",")}`,
      );
      // A new object's stand-in is the real uid of the resource that makes it.
      const real = (n: Named) => (n.uid.includes("~") ? uidOf(n.resource!.name) : n.uid);
      const actual = summary.changes.flatMap((c) =>
        [c.group, ...c.alsoUnder].map(
          (g) => `${real(c.identity)} ${real(g)} +${c.gained.join(",")} -${c.lost.join(",")}`,
        ),
      );
      expect(actual.sort()).toEqual(expected.sort());
      seen.gains += summary.changes.some((c) => c.gained.length > 0) ? 1 : 0;
      seen.losses += summary.changes.some((c) => c.lost.length > 0) ? 1 : 0;
      seen.nested += summary.changes.some((c) => c.alsoUnder.length > 0) ? 1 : 0;
    }),
    { seed: 20261127, numRuns: 60 },
  );
  // Not vacuous: the runs grant, revoke, and fold changes of the groups under a folder into it.
  console.log(`access plan property: runs with gains, losses, nested folds: ${JSON.stringify(seen)}`);
  expect(seen.gains).toBeGreaterThan(20);
  expect(seen.losses).toBeGreaterThan(15);
  expect(seen.nested).toBeGreaterThan(5);
});
