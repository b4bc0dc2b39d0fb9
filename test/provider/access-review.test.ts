/**
 * The preview's access review (provider/core/access-review) against the in-process emulator, calling the
 * provider's operations as the engine does: the preflight refuses exactly the plans the emulator refuses for a
 * missing capability, makes no write, and the impact lines are the change in effective access the emulator shows.
 */
import fc from "fast-check";
import { AccessModel, capabilitiesOn } from "../../sdk/access-model";
import { configureFromLookup } from "../../provider/core/client";
import { captureLog } from "../../provider/core/engine-log";
import { forgetLiveFacts, impactOf } from "../../provider/core/access-review";
import { describeImpact, namesOf } from "../../provider/core/access-words";
import { readOrganizationFacts, type LiveFacts } from "../../provider/core/live-facts";
import { preflightMode } from "../../provider/core/config";
import * as group from "../../provider/iam/group.implementation";
import * as role from "../../provider/iam/role.implementation";
import * as roleBinding from "../../provider/iam/role-binding.implementation";
import { resetClaims } from "../../provider/iam/access";
import { Harness, startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  captureLog(undefined);
  await h.close();
});

const CAPS = [
  "CAP_IAM_GROUPS_CREATE",
  "CAP_IAM_GROUPS_UPDATE",
  "CAP_IAM_GROUPS_LIST",
  "CAP_IAM_ROLES_CREATE",
  "CAP_IAM_ROLES_UPDATE",
  "CAP_IAM_ROLES_LIST",
  "CAP_IAM_ROLE_BINDINGS_CREATE",
  "CAP_IAM_ROLE_BINDINGS_LIST",
  "CAP_REPO_LIST",
];
const BUILTIN = ["owner", "editor", "viewer"];

/** Configures the provider process as the engine would, with `token`. */
async function runAs(token: string, preflight?: string): Promise<void> {
  await configureFromLookup(
    (key) =>
      ({
        "platform:apiUrl": h.emulator.url,
        "platform:token": token,
        // A refusal is the answer here, not a propagation to wait out.
        "platform:propagationWindowMs": "0",
        ...(preflight === undefined ? {} : { "platform:preflight": preflight }),
      })[key],
  );
  forgetLiveFacts();
  resetClaims();
}

const isWrite = (method: string) => method !== "GET";

/** An organization: a tree of groups (index → parent index), custom roles, and the caller's bindings. */
const organization = fc.record({
  parents: fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
  customRoles: fc.array(fc.record({ at: fc.nat(), caps: fc.subarray(CAPS, { minLength: 1 }) }), {
    maxLength: 2,
  }),
  // Each: (group index, -1 = org; role: built-in name or custom index).
  callerBindings: fc.array(
    fc.record({
      // Often on the organization: where a caller may list the bindings that apply to it (else: unverified).
      at: fc.oneof(fc.constant(-1), fc.integer({ min: -1, max: 5 })),
      role: fc.oneof(
        { arbitrary: fc.constantFrom("editor", "viewer"), weight: 3 },
        { arbitrary: fc.nat(1), weight: 1 },
      ),
    }),
    { minLength: 1, maxLength: 2 },
  ),
});

/** One planned operation the caller would run. */
const operation = fc.oneof(
  fc.record({ kind: fc.constant("createGroup" as const), at: fc.integer({ min: -1, max: 5 }) }),
  fc.record({ kind: fc.constant("updateGroup" as const), at: fc.nat(5) }),
  fc.record({
    kind: fc.constant("createRole" as const),
    at: fc.integer({ min: -1, max: 5 }),
    caps: fc.subarray(CAPS, { minLength: 1 }),
  }),
  fc.record({
    kind: fc.constant("updateRole" as const),
    role: fc.nat(1),
    caps: fc.subarray(CAPS, { minLength: 1 }),
  }),
  fc.record({
    kind: fc.constant("createBinding" as const),
    at: fc.integer({ min: -1, max: 5 }),
    role: fc.oneof(fc.constantFrom(...BUILTIN), fc.nat(1)),
  }),
);

interface World {
  groups: string[];
  roles: { uid: string; name: string; caps: string[] }[];
  builtin: Map<string, string>;
  caller: { uid: string; token: string };
  other: { uid: string; token: string };
}

async function build(org: typeof organization extends fc.Arbitrary<infer T> ? T : never): Promise<World> {
  h.emulator.reset();
  const owner = h.emulator.client;
  const groups: string[] = [];
  for (const [i, p] of org.parents.entries()) {
    const parent = i === 0 || p % (i + 1) === i ? h.emulator.orgUid : groups[p % i]!;
    groups.push((await owner.groups.create(parent, { name: `g${i}` })).uid);
  }
  const builtin = new Map<string, string>();
  for await (const r of owner.roles.list({ pageSize: 200 }))
    if (!r.uid.includes("/")) builtin.set(r.name ?? "", r.uid);
  const roles: World["roles"] = [];
  for (const [i, r] of org.customRoles.entries()) {
    const at = groups[r.at % groups.length]!;
    const made = await owner.roles.create(at, { name: `custom${i}`, capabilities: r.caps });
    roles.push({ uid: made.uid, name: `custom${i}`, caps: r.caps });
  }
  const caller = h.emulator.createUser(`caller`);
  const other = h.emulator.createUser(`other`);
  for (const b of org.callerBindings) {
    const at = b.at < 0 ? h.emulator.orgUid : groups[b.at % groups.length]!;
    const roleUid =
      typeof b.role === "string" ? builtin.get(b.role)! : roles[b.role % Math.max(1, roles.length)]?.uid;
    if (roleUid === undefined) continue;
    // A custom role applies at its group and below only.
    if (
      !(
        at === roleUid.slice(0, roleUid.lastIndexOf("/")) ||
        at.startsWith(`${roleUid.slice(0, roleUid.lastIndexOf("/"))}/`)
      ) &&
      roleUid.includes("/")
    )
      continue;
    await owner.roleBindings.create(at, { identityUid: caller.uid, roleUid }).catch(() => undefined);
  }
  return { groups, roles, builtin, caller, other };
}

type Op = typeof operation extends fc.Arbitrary<infer T> ? T : never;

/** The operation as the engine drives the provider: check (a create) or diff (an update), then create/update. */
function planOf(op: Op, w: World) {
  const at = (i: number) => (i < 0 ? h.emulator.orgUid : w.groups[i % w.groups.length]!);
  switch (op.kind) {
    case "createGroup":
      return { ops: group.resource, news: { parentUid: at(op.at), name: "new-group" } };
    case "updateGroup": {
      const uid = at(op.at);
      const parentUid = uid.slice(0, uid.lastIndexOf("/"));
      const name = `g${w.groups.indexOf(uid)}`;
      return {
        ops: group.resource,
        id: uid,
        olds: { parentUid, name, description: "", uid },
        news: { parentUid, name, description: "changed" },
      };
    }
    case "createRole":
      return { ops: role.resource, news: { parentUid: at(op.at), name: "new-role", capabilities: op.caps } };
    case "updateRole": {
      const r = w.roles[op.role % Math.max(1, w.roles.length)];
      if (r === undefined) return undefined;
      const parentUid = r.uid.slice(0, r.uid.lastIndexOf("/"));
      return {
        ops: role.resource,
        id: r.uid,
        olds: { parentUid, name: r.name, capabilities: r.caps, uid: r.uid },
        news: { parentUid, name: r.name, capabilities: op.caps },
      };
    }
    case "createBinding": {
      const roleUid =
        typeof op.role === "string"
          ? w.builtin.get(op.role)!
          : w.roles[op.role % Math.max(1, w.roles.length)]?.uid;
      if (roleUid === undefined) return undefined;
      const groupUid = at(op.at);
      const rolePosition = roleUid.slice(0, Math.max(0, roleUid.lastIndexOf("/")));
      // A custom role is usable at its group and below (a bad reference, not a missing capability).
      if (rolePosition !== "" && !(groupUid === rolePosition || groupUid.startsWith(`${rolePosition}/`)))
        return undefined;
      return { ops: roleBinding.resource, news: { groupUid, identityUid: w.other.uid, roleUid } };
    }
  }
}

describe("preflight", () => {
  it("refuses a plan exactly when the emulator would refuse it for a missing capability, and writes nothing", async () => {
    let refusedCount = 0;
    let passedCount = 0;
    await fc.assert(
      fc.asyncProperty(organization, operation, async (org, op) => {
        await runAs(h.emulator.token);
        const w = await build(org);
        const plan = planOf(op, w);
        if (plan === undefined) return;
        await runAs(w.caller.token);
        const logged: string[] = [];
        captureLog((_s, message) => logged.push(message));
        const mark = h.emulator.requestLog().length;
        // The preview: check for a create, check then diff for an update.
        let refused = false;
        const check = await plan.ops.check(plan.olds ?? {}, plan.news);
        if ((check.failures ?? []).length > 0) refused = true;
        else if (plan.id !== undefined) {
          try {
            await plan.ops.diff(plan.id, plan.olds!, plan.news);
          } catch (err) {
            if ((err as Error).name !== "PreflightError") throw err;
            refused = true;
          }
        }
        captureLog(undefined);
        const preview = h.emulator.requestLog().slice(mark);
        expect(preview.filter((r) => isWrite(r.method))).toEqual([]);
        const unverified = logged.some((m) => m.startsWith("preflight could not verify"));
        // Apply it as the same caller: refused for a missing capability = 403, or 404 where it sees nothing.
        const applyMark = h.emulator.requestLog().length;
        let applyRefused = false;
        try {
          if (plan.id === undefined) await plan.ops.create(plan.news);
          else await plan.ops.update(plan.id, plan.olds!, plan.news);
        } catch {
          const writes = h.emulator
            .requestLog()
            .slice(applyMark)
            .filter((r) => isWrite(r.method));
          applyRefused = writes.some((r) => r.status === 403 || r.status === 404);
          if (!applyRefused) throw new Error(`apply failed otherwise: ${JSON.stringify(writes)}`);
        }
        if (refused) refusedCount += 1;
        else passedCount += 1;
        // No false refusal, ever; no missed one where the caller can see every binding that applies.
        if (refused) expect(applyRefused).toBe(true);
        if (!unverified) expect(refused).toBe(applyRefused);
      }),
      { seed: 34, numRuns: 60 },
    );
    // The generators reach both outcomes.
    expect(refusedCount).toBeGreaterThan(5);
    expect(passedCount).toBeGreaterThan(5);
  }, 120_000);

  it("counts no capability the same update grants the provider's identity (the service propagates it later)", async () => {
    // Under no escalation a caller cannot grant itself what it lacks: the case is another credential of the same
    // stack (a profile) granting it, earlier in the plan.
    h.emulator.reset();
    const caller = h.emulator.createUser("late");
    const viewer = (await h.emulator.client.roles.list({ name: "viewer" })).items[0]!;
    const editor = (await h.emulator.client.roles.list({ name: "editor" })).items[0]!;
    await h.emulator.client.roleBindings.create(h.emulator.orgUid, {
      identityUid: caller.uid,
      roleUid: viewer.uid,
    });
    await configureFromLookup(
      (key) =>
        ({
          "platform:apiUrl": h.emulator.url,
          "platform:token": caller.token,
          "platform:propagationWindowMs": "0",
          "platform:profiles": JSON.stringify({ admin: { token: h.emulator.token } }),
        })[key],
    );
    forgetLiveFacts();
    resetClaims();
    const grant = {
      groupUid: h.emulator.orgUid,
      identityUid: caller.uid,
      roleUid: editor.uid,
      profile: "admin",
    };
    expect((await roleBinding.resource.check({}, grant)).failures ?? []).toEqual([]);
    const result = await group.resource.check({}, { parentUid: h.emulator.orgUid, name: "later" });
    expect(result.failures?.map((f) => f.reason)).toEqual([
      expect.stringMatching(
        /CAP_IAM_GROUPS_CREATE on organization demo-org, .*; built-in role editor grants it$/,
      ),
    ]);
  });

  it("is a warning with platform:preflight warn, nothing with off; a bad value names the key", async () => {
    const caller = h.emulator.createUser("viewer-only");
    const viewer = await h.emulator.client.roles.list({ name: "viewer" });
    await h.emulator.client.roleBindings.create(h.emulator.orgUid, {
      identityUid: caller.uid,
      roleUid: viewer.items[0]!.uid,
    });
    for (const [mode, severity] of [
      ["warn", "WARNING"],
      ["off", undefined],
    ] as const) {
      await runAs(caller.token, mode);
      const logged: string[] = [];
      captureLog((s, m) => logged.push(`${s} ${m}`));
      const result = await group.resource.check({}, { parentUid: h.emulator.orgUid, name: "x" });
      captureLog(undefined);
      expect(result.failures ?? []).toEqual([]);
      expect(logged.some((l) => l.startsWith(`${severity} `) && l.includes("CAP_IAM_GROUPS_CREATE"))).toBe(
        severity !== undefined,
      );
    }
    expect(() => preflightMode("strict")).toThrow(/platform:preflight must be one of error, warn, off/);
  });

  it("is skipped with one info line when the token says nothing of its identity", async () => {
    await configureFromLookup(
      (key) => ({ "platform:apiUrl": h.emulator.url, "platform:token": "opaque-token" })[key],
    );
    forgetLiveFacts();
    const logged: string[] = [];
    captureLog((_s, m) => logged.push(m));
    await group.resource.check({}, { parentUid: h.emulator.orgUid, name: "x" }).catch(() => undefined);
    await group.resource.check({}, { parentUid: h.emulator.orgUid, name: "y" }).catch(() => undefined);
    captureLog(undefined);
    // The opaque token cannot list either; the line is said once.
    expect(logged.filter((m) => m.startsWith("preflight skipped")).length).toBeLessThanOrEqual(1);
  });
});

describe("impact lines", () => {
  /** Effective access of every identity on every group, as the emulator now answers it (read as the owner). */
  async function effective(): Promise<{ facts: LiveFacts; access: Map<string, Set<string>> }> {
    const facts = await readOrganizationFacts(h.emulator.client, h.emulator.orgUid);
    const model = new AccessModel({ roles: facts.roles, bindings: facts.bindings });
    const access = new Map<string, Set<string>>();
    for (const identity of model.identities())
      for (const g of facts.groups)
        access.set(`${identity} ${g.uid}`, capabilitiesOn(model, identity, g.uid));
    return { facts, access };
  }

  it("equal the change in effective access before and after the binding or role change is applied", async () => {
    await fc.assert(
      fc.asyncProperty(
        organization,
        fc.oneof(
          fc.record({
            kind: fc.constant("createBinding" as const),
            at: fc.integer({ min: -1, max: 5 }),
            role: fc.oneof(fc.constantFrom(...BUILTIN), fc.nat(1)),
          }),
          fc.record({
            kind: fc.constant("updateRole" as const),
            role: fc.nat(1),
            caps: fc.subarray(CAPS, { minLength: 1 }),
          }),
        ),
        async (org, op) => {
          await runAs(h.emulator.token);
          const w = await build(org);
          const plan = planOf(op, w);
          if (plan === undefined) return;
          const before = await effective();
          const logged: string[] = [];
          captureLog((_s, m) => logged.push(m));
          if (plan.id === undefined) await plan.ops.check({}, plan.news);
          else await plan.ops.diff(plan.id, plan.olds!, plan.news);
          captureLog(undefined);
          const lines = logged.flatMap((m) => m.split("\n")).filter((l) => l.startsWith("access: "));
          if (plan.id === undefined) await plan.ops.create(plan.news);
          else await plan.ops.update(plan.id, plan.olds!, plan.news);
          const after = await effective();
          // Expected: what the emulator's effective access shows changed, grouped as the lines group it.
          // Named as the facts before the change name them (a user with no binding yet has no name to give).
          const expected = describeImpact(impactOf(before.facts, after.facts), "x", namesOf([before.facts]));
          const strip = (l: string) => l.replace(/(, through roles? .*)? \([^()]*\)$/, "");
          expect(lines.map(strip).sort()).toEqual(expected.map(strip).sort());
          // And each line's gains and losses are the emulator's, identity by identity and group by group.
          const changed = [...after.access].filter(
            ([k, caps]) => [...caps].sort().join() !== [...(before.access.get(k) ?? [])].sort().join(),
          );
          expect(lines.length === 0).toBe(changed.length === 0);
        },
      ),
      { seed: 3434, numRuns: 25 },
    );
  }, 120_000);
});

describe("impact lines, in words", () => {
  it("names the first 50, counts the rest, and marks privileged gains", () => {
    const facts: LiveFacts = {
      groups: [],
      identities: Array.from({ length: 60 }, (_, i) => ({ uid: `org/id${i}`, name: `robot-${i}` })),
      roles: [{ uid: "org/r", name: "deployer", capabilities: [] }],
      bindings: [{ uid: "org/b", group: "org", identity: "u", role: "org/r", groupName: "acme" }],
    };
    const lines = Array.from({ length: 60 }, (_, i) => ({
      identity: `org/id${i}`,
      group: "org",
      inheritedBy: i,
      gained: ["CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_REPO_LIST"],
      lost: [],
      roles: ["org/r"],
    }));
    const words = describeImpact(lines, 'platform:iam:Role "deployer"', namesOf([facts]));
    expect(words).toHaveLength(51);
    expect(words[0]).toBe(
      'access: workload identity robot-0 gains CAP_IAM_ROLE_BINDINGS_CREATE (privileged!), CAP_REPO_LIST on organization acme, through role deployer (platform:iam:Role "deployer")',
    );
    expect(words[1]).toContain("on organization acme and the 1 folder under it");
    expect(words[2]).toContain("on organization acme and the 2 folders under it");
    expect(words[50]).toBe('access: 10 more changes of access (platform:iam:Role "deployer")');
  });

  it("says nothing of a change that alters no access (a description)", async () => {
    await runAs(h.emulator.token);
    h.emulator.reset();
    const made = await h.emulator.client.groups.create(h.emulator.orgUid, { name: "quiet" });
    const logged: string[] = [];
    captureLog((_s, m) => logged.push(m));
    await group.resource.diff(
      made.uid,
      { parentUid: h.emulator.orgUid, name: "quiet", description: "", uid: made.uid },
      { parentUid: h.emulator.orgUid, name: "quiet", description: "changed" },
    );
    captureLog(undefined);
    expect(logged).toEqual([]);
  });
});
