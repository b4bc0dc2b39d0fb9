/**
 * The store's index of role bindings by identity (`Store.byField`, asked by `Access.bindingsOf` on every
 * authorized request) is kept by each write instead of rebuilt after any change, so it must stay exactly what a
 * fresh scan of the store says on every path that changes objects (fast-check, fixed seeds):
 *
 *   - in the store, random sequences of binding puts (new, or replacing one with another identity, group or role)
 *     and deletes, writes of other kinds (custom roles, objects of other kinds holding an `identityUid` field),
 *     resets (`clear`), transactions that commit or throw halfway (with a reset inside, and the index asked in the
 *     middle, as a batch of bindings asks it between its inserts), flushes and reloads from the data file, from its
 *     snapshot after a clean close or from its journal as after a kill. After every step, and inside transactions
 *     after every write, `Access.bindingsOf` of every identity (hostile uids included) is the scan's, `byField` of
 *     other kinds and fields too, and every decision (capabilities on, sees, grant roots) is the access model's
 *     over the scan;
 *   - through the API, on an emulator with a data file: bindings made one by one (by the owner or by a user, whom
 *     the escalation rule may refuse), batches refused at a random sub-request after inserting the ones before it
 *     (which change nothing), bindings moved to another identity, deleted, custom roles made and deleted with their
 *     bindings, workload identities bound and deleted with their bindings, resets and restarts. After every step
 *     no binding names a deleted identity or role, and each user's answers (a GET of every group: 200, 403 or 404,
 *     and the list of groups) are the access model's over a fresh scan of the stored objects.
 */
import fc from "fast-check";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Access, BUILTIN_ROLES } from "../../emulator/access";
import { MemoryStore, type StoredObject } from "../../emulator/store";
import type { Capability } from "../../sdk/schemas/capabilities";
import {
  AccessModel,
  capabilitiesOn,
  grantRoots,
  sees,
  underAny,
  type BindingFacts,
  type RoleFacts,
} from "../../sdk/access-model";
import { start, type Api } from "./helpers";

export const STORE_RUNS = 300;
export const API_RUNS = 12;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "emulator-binding-index-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const byUid = <T extends { uid: string }>(items: readonly T[]): T[] =>
  [...items].sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));

const factsOf = (binding: StoredObject): BindingFacts => ({
  uid: binding.uid,
  group: binding.parent,
  identity: binding.fields.identityUid as string,
  role: binding.fields.roleUid as string,
});

/** The access model over a fresh scan of stored bindings and custom roles, the built-in roles beside them. */
function scannedModel(bindings: Iterable<StoredObject>, roles: Iterable<StoredObject>): AccessModel {
  const custom: RoleFacts[] = [...roles].map((r) => ({
    uid: r.uid,
    capabilities: (r.fields.capabilities as string[] | undefined) ?? [],
  }));
  return new AccessModel({ roles: [...BUILTIN_ROLES, ...custom], bindings: [...bindings].map(factsOf) });
}

// ---------------------------------------------------------------------------------------------------------------
// The store and Access, directly.

const IDENTITIES = ["u0", "u1", "u2", "__proto__", "constructor", "toString"];
const GROUPS = ["o", "o/a", "o/a/b", "o/c"];
const CUSTOM_ROLES = ["o/r0", "o/a/r1"];
const ROLES = [...BUILTIN_ROLES.map((r) => r.uid), ...CUSTOM_ROLES];
const CAPABILITIES: Capability[] = [
  "CAP_IAM_GROUPS_LIST",
  "CAP_IAM_GROUPS_CREATE",
  "CAP_IAM_ROLE_BINDINGS_CREATE",
  "CAP_REPO_LIST",
];
const SLOTS = 6;

type Write =
  | { op: "bind"; slot: number; identity: string; group: string; role: string }
  | { op: "unbind"; slot: number }
  | { op: "role"; role: string; capabilities: string[] }
  | { op: "dropRole"; role: string }
  | { op: "other"; kind: "identities" | "groupInvites"; slot: number; identity: string; remove: boolean }
  | { op: "clear" };
type Step =
  | Write
  | { op: "transaction"; writes: Write[]; fail: boolean; askInside: boolean }
  | { op: "flush" }
  | { op: "reload"; kill: boolean };

const write: fc.Arbitrary<Write> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant("bind" as const),
      slot: fc.nat(SLOTS - 1),
      identity: fc.constantFrom(...IDENTITIES),
      group: fc.constantFrom(...GROUPS),
      role: fc.constantFrom(...ROLES),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("unbind" as const), slot: fc.nat(SLOTS - 1) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("role" as const),
      role: fc.constantFrom(...CUSTOM_ROLES),
      capabilities: fc.subarray(CAPABILITIES),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("dropRole" as const), role: fc.constantFrom(...CUSTOM_ROLES) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("other" as const),
      kind: fc.constantFrom("identities" as const, "groupInvites" as const),
      slot: fc.nat(2),
      identity: fc.constantFrom(...IDENTITIES),
      remove: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: "clear" as const }) },
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: write },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("transaction" as const),
      writes: fc.array(write, { minLength: 1, maxLength: 6 }),
      fail: fc.boolean(),
      askInside: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: "flush" as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("reload" as const), kill: fc.boolean() }) },
);

function apply(store: MemoryStore, w: Write): void {
  const object = (uid: string, parent: string, fields: Record<string, unknown>): StoredObject => ({
    uid,
    parent,
    fields,
    createTime: "2026-01-01T00:00:00.000Z",
  });
  if (w.op === "bind")
    store.put("roleBindings", object(`b${w.slot}`, w.group, { identityUid: w.identity, roleUid: w.role }));
  else if (w.op === "unbind") store.delete("roleBindings", `b${w.slot}`);
  else if (w.op === "role")
    store.put(
      "roles",
      object(w.role, w.role.slice(0, w.role.lastIndexOf("/")), { capabilities: w.capabilities }),
    );
  else if (w.op === "dropRole") store.delete("roles", w.role);
  else if (w.op === "other") {
    // Another kind with an identityUid field: never one of the identity's bindings.
    const uid = `o/${w.kind}-${w.slot}`;
    if (w.remove) store.delete(w.kind, uid);
    else store.put(w.kind, object(uid, "o", { identityUid: w.identity, roleUid: ROLES[0] }));
  } else store.clear();
}

/** Everything the facts say for every identity: its bindings and each decision on every group. */
function picture(
  bindingsOf: (identity: string) => readonly BindingFacts[],
  decide: {
    capabilitiesOn(identity: string, group: string): Set<string>;
    sees(identity: string, group: string): boolean;
    grantRoots(identity: string, capability: Capability): Set<string>;
  },
): unknown[] {
  return IDENTITIES.map((identity) => ({
    identity,
    bindings: byUid(bindingsOf(identity)),
    on: GROUPS.map((group) => ({
      group,
      capabilities: [...decide.capabilitiesOn(identity, group)].sort(),
      sees: decide.sees(identity, group),
    })),
    grantRoots: CAPABILITIES.map((capability) => [
      capability,
      [...decide.grantRoots(identity, capability)].sort(),
    ]),
  }));
}

/** What the index and every decision say, against a fresh scan of the store. */
function expectIndexIsScan(store: MemoryStore, access: Access): void {
  const model = scannedModel(store.all("roleBindings"), store.all("roles"));
  const indexed = picture((identity) => access.bindingsOf(identity), {
    capabilitiesOn: (identity, group) => access.capabilitiesOn({ identityUid: identity }, group),
    sees: (identity, group) => access.sees({ identityUid: identity }, group),
    grantRoots: (identity, capability) => access.grantRoots({ identityUid: identity }, capability),
  });
  const scanned = picture((identity) => model.bindingsOf(identity), {
    capabilitiesOn: (identity, group) => capabilitiesOn(model, identity, group),
    sees: (identity, group) => sees(model, identity, group),
    grantRoots: (identity, capability) => grantRoots(model, identity, capability),
  });
  // The index is the store's, for any kind and field: other ones asked for are kept as well.
  const lookups = [
    ["roleBindings", "roleUid", ROLES],
    ["identities", "identityUid", IDENTITIES],
    ["groupInvites", "identityUid", IDENTITIES],
  ] as const;
  const found = lookups.flatMap(([kind, field, values]) =>
    values.map((value) => [kind, field, value, byUid(store.byField(kind, field, value))]),
  );
  const filtered = lookups.flatMap(([kind, field, values]) =>
    values.map((value) => [
      kind,
      field,
      value,
      byUid([...store.all(kind)].filter((o) => o.fields[field] === value)),
    ]),
  );
  expect({ access: indexed, byField: found }).toEqual({ access: scanned, byField: filtered });
}

/** A copy of the data file and its journal as they are on disk now: what a killed process leaves. */
function copyAsKilled(dataFile: string, copy: string): void {
  copyFileSync(dataFile, copy);
  if (existsSync(`${dataFile}.journal`)) copyFileSync(`${dataFile}.journal`, `${copy}.journal`);
}

class Refused extends Error {}

describe("the index of role bindings by identity is what a scan of the store says", () => {
  test(`${STORE_RUNS} generated histories of writes, undone transactions, resets and reloads`, () => {
    let run = 0;
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 25 }), (steps) => {
        const runDir = join(dir, `store-${run++}`);
        let files = 0;
        let dataFile = join(runDir, `state-${files++}.json`);
        mkdirSync(runDir);
        let store = new MemoryStore(dataFile);
        let access = new Access(store);
        try {
          expectIndexIsScan(store, access);
          for (const s of steps) {
            if (s.op === "transaction") {
              try {
                store.transaction(() => {
                  for (const w of s.writes) {
                    apply(store, w);
                    if (s.askInside) expectIndexIsScan(store, access);
                  }
                  if (s.fail) throw new Refused("refused halfway");
                });
              } catch (error) {
                if (!(error instanceof Refused)) throw error;
              }
            } else if (s.op === "flush") store.flush();
            else if (s.op === "reload") {
              store.flush();
              if (s.kill) {
                // The killed process's files, loaded by a new one: the journal is replayed.
                const copy = join(runDir, `state-${files++}.json`);
                copyAsKilled(dataFile, copy);
                store.close();
                dataFile = copy;
              } else store.close();
              store = new MemoryStore(dataFile);
              access = new Access(store);
            } else apply(store, s);
            expectIndexIsScan(store, access);
          }
        } finally {
          store.close();
          rmSync(runDir, { recursive: true, force: true });
        }
      }),
      { seed: 20261127, numRuns: STORE_RUNS },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Through the API.

const BUILTIN_UIDS = BUILTIN_ROLES.map((r) => r.uid);
/** A well-formed root identity uid that names nobody: a batch sub-request naming it is refused at its insert. */
const NOBODY = "0".repeat(40);

type ApiStep =
  | { op: "group"; parent: number }
  | { op: "bind"; user: number; group: number; role: number; actor: number | "owner" }
  | { op: "batch"; users: number[]; group: number; role: number; refusedAt: number | undefined }
  | { op: "rebind"; binding: number; user: number }
  | { op: "unbind"; binding: number }
  | { op: "customRole"; group: number; capabilities: string[] }
  | { op: "deleteRole"; role: number }
  | { op: "workload"; group: number; role: number }
  | { op: "deleteWorkload"; identity: number }
  | { op: "reset" }
  | { op: "restart" };

const USERS = 3;
const pick = fc.nat(50);
const apiStep: fc.Arbitrary<ApiStep> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ op: fc.constant("group" as const), parent: pick }) },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("bind" as const),
      user: fc.nat(USERS - 1),
      group: pick,
      role: pick,
      actor: fc.oneof(fc.constant("owner" as const), fc.nat(USERS - 1)),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("batch" as const),
      users: fc.array(fc.nat(USERS - 1), { minLength: 1, maxLength: 4 }),
      group: pick,
      role: pick,
      refusedAt: fc.option(fc.nat(4), { nil: undefined }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("rebind" as const), binding: pick, user: fc.nat(USERS - 1) }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("unbind" as const), binding: pick }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("customRole" as const),
      group: pick,
      capabilities: fc.subarray(CAPABILITIES, { minLength: 1 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("deleteRole" as const), role: pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("workload" as const), group: pick, role: pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("deleteWorkload" as const), identity: pick }) },
  { weight: 1, arbitrary: fc.constant({ op: "reset" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "restart" as const }) },
);

interface User {
  uid: string;
  token: string;
}

const at = <T>(items: readonly T[], i: number): T => items[i % items.length]!;

/** Every user's answers against the model over a fresh scan of what is stored. */
async function expectAnswersAreScan(api: Api, users: readonly User[]): Promise<void> {
  const stored = api.emulator.snapshot();
  // A deleted identity or role takes its bindings with it.
  const identities = new Set(stored.identities.map((i) => i.uid));
  const roles = new Set([...BUILTIN_UIDS, ...stored.roles.map((r) => r.uid)]);
  expect(stored.roleBindings.filter((b) => !identities.has(b.fields.identityUid as string))).toEqual([]);
  expect(stored.roleBindings.filter((b) => !roles.has(b.fields.roleUid as string))).toEqual([]);
  const model = scannedModel(stored.roleBindings, stored.roles);
  const groups = stored.groups.map((g) => g.uid);
  for (const user of users) {
    for (const group of groups) {
      const expected = !sees(model, user.uid, group)
        ? 404
        : capabilitiesOn(model, user.uid, group).has("CAP_IAM_GROUPS_LIST")
          ? 200
          : 403;
      const answer = await api.get(`/iam/v2beta1/groups/${group}`, user.token);
      expect([user.uid, group, answer.status]).toEqual([user.uid, group, expected]);
    }
    const roots = grantRoots(model, user.uid, "CAP_IAM_GROUPS_LIST");
    const listed = await api.get("/iam/v2beta1/groups?page_size=200", user.token);
    expect(listed.status).toBe(200);
    expect([user.uid, ((listed.body.groups ?? []) as { uid: string }[]).map((g) => g.uid).sort()]).toEqual([
      user.uid,
      groups.filter((g) => underAny(g, roots)).sort(),
    ]);
  }
}

async function sendApiStep(api: Api, users: User[], s: ApiStep): Promise<void> {
  const stored = api.emulator.snapshot();
  const groups = stored.groups.map((g) => g.uid);
  const roles = [...BUILTIN_UIDS, ...stored.roles.map((r) => r.uid)];
  // The bootstrap user keeps its owner binding, so the owner's requests stay possible.
  const bindings = stored.roleBindings
    .filter((b) => b.fields.identityUid !== api.emulator.userUid)
    .map((b) => b.uid);
  if (s.op === "group") {
    await api.post(`/iam/v2beta1/groups/${at(groups, s.parent)}`, { name: `g${groups.length}` });
  } else if (s.op === "bind") {
    const token = s.actor === "owner" ? undefined : at(users, s.actor).token;
    await api.post(
      `/iam/v2beta1/roleBindings/${at(groups, s.group)}`,
      { identityUid: at(users, s.user).uid, roleUid: at(roles, s.role) },
      token,
    );
  } else if (s.op === "batch") {
    const parent = at(groups, s.group);
    const identities = s.users.map((u) => at(users, u).uid);
    const refusedAt = s.refusedAt === undefined ? undefined : s.refusedAt % (identities.length + 1);
    if (refusedAt !== undefined) identities.splice(refusedAt, 0, NOBODY);
    const answer = await api.post("/iam/v2beta1/roleBindings:batchCreate", {
      parent,
      roleUid: at(roles, s.role),
      requests: identities.map((identityUid) => ({ parent, roleBinding: { identityUid } })),
    });
    // Refused after inserting the sub-requests before it: all of them undone.
    if (refusedAt !== undefined) {
      expect(answer.status).toBe(400);
      expect(api.emulator.snapshot()).toEqual(stored);
    }
  } else if (s.op === "rebind") {
    if (bindings.length === 0) return;
    await api.patch(`/iam/v2beta1/roleBindings/${at(bindings, s.binding)}`, {
      identityUid: at(users, s.user).uid,
    });
  } else if (s.op === "unbind") {
    if (bindings.length === 0) return;
    await api.del(`/iam/v2beta1/roleBindings/${at(bindings, s.binding)}`);
  } else if (s.op === "customRole") {
    await api.post(`/iam/v2beta1/roles/${at(groups, s.group)}`, {
      name: `r${stored.roles.length}`,
      capabilities: s.capabilities,
    });
  } else if (s.op === "deleteRole") {
    // Its bindings are deleted with it.
    if (stored.roles.length > 0) await api.del(`/iam/v2beta1/roles/${at(stored.roles, s.role).uid}`);
  } else if (s.op === "workload") {
    const group = at(groups, s.group);
    const identity = await api.post(`/iam/v2beta1/identities/${group}`, {
      name: `w${stored.identities.length}`,
      claimMatch: { issuer: "https://issuer.example.com", subject: `w${stored.identities.length}` },
    });
    expect(identity.status).toBe(200);
    await api.post(`/iam/v2beta1/roleBindings/${group}`, {
      identityUid: identity.body.uid,
      roleUid: at(roles, s.role),
    });
  } else if (s.op === "deleteWorkload") {
    // Its bindings are deleted with it.
    const workloads = stored.identities.filter((i) => i.parent !== "");
    if (workloads.length > 0) await api.del(`/iam/v2beta1/identities/${at(workloads, s.identity).uid}`);
  }
}

const newUsers = (api: Api): User[] =>
  Array.from({ length: USERS }, (_, i) => api.emulator.createUser(`user-${i}`));

describe("through the API, every user's answers are what a scan of the store says", () => {
  test(`${API_RUNS} generated histories of bindings, refused batches, resets and restarts`, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(apiStep, { minLength: 1, maxLength: 12 }), async (steps) => {
        const dataFile = join(dir, `api-${run++}.json`);
        let api = await start({ dataFile });
        try {
          let users = newUsers(api);
          // Each user starts with a viewer binding somewhere, so decisions differ from the first step.
          await api.post(`/iam/v2beta1/roleBindings/${api.emulator.orgUid}`, {
            identityUid: users[0]!.uid,
            roleUid: BUILTIN_ROLES.find((r) => r.name === "viewer")!.uid,
          });
          await expectAnswersAreScan(api, users);
          for (const s of steps) {
            if (s.op === "reset") {
              api.emulator.reset();
              users = newUsers(api); // a reset drops every user but the bootstrap one
            } else if (s.op === "restart") {
              await api.emulator.close();
              api = await start({ dataFile });
            } else await sendApiStep(api, users, s);
            await expectAnswersAreScan(api, users);
          }
        } finally {
          await api.emulator.close();
          rmSync(dataFile, { force: true });
          rmSync(`${dataFile}.journal`, { force: true });
        }
      }),
      { seed: 20261128, numRuns: API_RUNS },
    );
  }, 120_000);
});
