/**
 * GroupAccess and IdentityAccess write their bindings in batches (roleBindings:batchCreate, at most 25 per group)
 * and recover every transient failure within the same call, without duplicates: a batch whose answer was lost is
 * looked up (the group listed) before anything is sent again, and only what is missing is sent; a delete whose
 * answer was lost and whose binding is gone is success. A write that still cannot finish fails with the state to
 * record (`id`, `properties`: the bindings that exist), so what was created is never lost.
 *
 * Faults as the resilience e2e injects them (20% answered 503, 5% dropped, 5% applied then dropped), on every
 * role-binding request, over several fixed seeds.
 */
import groupAccess = require("../../provider/iam/group-access.provider");
import identityAccess = require("../../provider/iam/identity-access.provider");
import { startEmulator, type Emulator } from "../../emulator";
import { BUILTIN_ROLES } from "../../emulator/access";
import { batchesOf, createBatch, keyOf, resetClaims, type Binding } from "../../provider/iam/access";
import { closeClients, configureFromLookup } from "../../provider/core/client";
import { DEFAULT_CREATE_POLICY } from "../../provider/core/create";
import { PlatformClient } from "../../sdk";

jest.setTimeout(120_000);
// The SDK's own retries of GETs and DELETEs after a dropped connection, without long waits (a 503 of the faults
// asks for Retry-After 0 anyway).
process.env.PLATFORM_RETRY_BASE_DELAY_MS = "5";

const role = (name: string) => BUILTIN_ROLES.find((r) => r.name === name)!.uid;
const VIEWER = role("viewer");
const EDITOR = role("editor");

/** The resilience e2e's shares of all role-binding requests; rules fire in order, so later rates are scaled. */
const RATES = { status503: 0.2, drop: 0.05 / 0.8, applyThenDrop: 0.05 / 0.75 };
const BINDING_PATH = "^/iam/v2beta1/roleBindings";

function faultsOn(emulator: Emulator): void {
  emulator.faults.add({ path: BINDING_PATH, action: "status", status: 503, rate: RATES.status503 });
  emulator.faults.add({ path: BINDING_PATH, action: "drop", rate: RATES.drop });
  emulator.faults.add({ path: BINDING_PATH, action: "applyThenDrop", rate: RATES.applyThenDrop });
}

let emulator: Emulator;

async function useEmulator(faultSeed: number): Promise<void> {
  await closeClients();
  await emulator?.close();
  emulator = await startEmulator({ faultSeed });
  await configureFromLookup(
    (key) => ({ "platform:apiUrl": emulator.url, "platform:token": emulator.token })[key],
  );
  resetClaims();
}

afterAll(async () => {
  await closeClients();
  await emulator?.close();
});

async function identities(count: number, under = emulator.orgUid): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++)
    out.push(
      (
        await emulator.client.identities.create(under, {
          name: `member-${i}`,
          claimMatch: { issuer: "https://issuer.example", subject: `member-${i}` },
        })
      ).uid,
    );
  return out;
}

/** A folder and `count` identities, each a viewer of it in a GroupAccess's checked inputs. */
async function viewersOfFolder(count: number) {
  const folder = await emulator.client.groups.create(emulator.orgUid, { name: "folder" });
  const declared = (await identities(count)).map((identityUid) => ({ identityUid, roleUid: VIEWER }));
  const inputs = (await groupAccess.check!({}, { groupUid: folder.uid, bindings: declared })).inputs;
  return { folder, declared, inputs };
}

/** Every binding under the organization, as keys, read with faults off; duplicates kept. */
async function everyBinding(): Promise<string[]> {
  const all = await emulator.client.roleBindings
    .list({ descendantsOf: emulator.orgUid, pageSize: 200 })
    .all();
  const root = await emulator.client.roleBindings.list({ group: emulator.orgUid, pageSize: 200 }).all();
  return [...all, ...root]
    .filter((b) => b.identity?.uid !== undefined && b.identity.uid.startsWith(emulator.orgUid))
    .map((b) => keyOf({ groupUid: b.group!.uid, identityUid: b.identity!.uid, roleUid: b.role!.uid }))
    .sort();
}

const injected = () => emulator.requestLog().filter((r) => r.status === 503).length;

describe.each([20261122, 1, 2])("under the resilience faults (seed %i)", (seed) => {
  it("a GroupAccess of 200 converges in one create, then in one update removing half: no duplicate", async () => {
    await useEmulator(seed);
    const folder = await emulator.client.groups.create(emulator.orgUid, { name: "folder" });
    const members = await identities(100);
    const declared = members.flatMap((identityUid) => [
      { identityUid, roleUid: VIEWER },
      { identityUid, roleUid: EDITOR },
    ]);
    const inputs = { groupUid: folder.uid, bindings: declared };
    const checked = (await groupAccess.check!({}, inputs)).inputs;
    faultsOn(emulator);
    const { id, outs } = await groupAccess.create(checked);
    const keys = (bindings: { identityUid: string; roleUid: string }[]) =>
      bindings.map((b) => keyOf({ groupUid: folder.uid, ...b })).sort();
    expect(await everyBinding()).toEqual(keys(declared));
    const half = { groupUid: folder.uid, bindings: declared.filter((_, i) => i % 2 === 0) };
    const halfChecked = (await groupAccess.check!(outs, half)).inputs;
    await groupAccess.update!(id, outs, halfChecked);
    emulator.faults.clear();
    expect(await everyBinding()).toEqual(keys(half.bindings));
    expect(injected()).toBeGreaterThan(10);
    // A refresh then finds what the state says: no change.
    const read = await groupAccess.read!(id, outs);
    expect((await groupAccess.diff!(id, read.props!, halfChecked)).changes).toBe(false);
  });

  it("an IdentityAccess of 50 converges in one create, then in one update removing half", async () => {
    await useEmulator(seed);
    const [ci] = await identities(1);
    const groups: string[] = [];
    for (let i = 0; i < 25; i++)
      groups.push((await emulator.client.groups.create(emulator.orgUid, { name: `g${i}` })).uid);
    const declared = groups.flatMap((groupUid) => [
      { groupUid, roleUid: VIEWER },
      { groupUid, roleUid: EDITOR },
    ]);
    const checked = (await identityAccess.check!({}, { identityUid: ci!, bindings: declared })).inputs;
    faultsOn(emulator);
    const { id, outs } = await identityAccess.create(checked);
    const keys = (bindings: { groupUid: string; roleUid: string }[]) =>
      bindings.map((b) => keyOf({ identityUid: ci!, ...b })).sort();
    expect(await everyBinding()).toEqual(keys(declared));
    const half = { identityUid: ci!, bindings: declared.filter((_, i) => i % 2 === 1) };
    const halfChecked = (await identityAccess.check!(outs, half)).inputs;
    await identityAccess.update!(id, outs, halfChecked);
    emulator.faults.clear();
    expect(await everyBinding()).toEqual(keys(half.bindings));
  });
});

describe("batches", () => {
  it("1,000 bindings of one group: one list and 40 batches of 25", async () => {
    await useEmulator(1);
    const folder = await emulator.client.groups.create(emulator.orgUid, { name: "folder" });
    const members = await identities(1000);
    const checked = (
      await groupAccess.check!(
        {},
        { groupUid: folder.uid, bindings: members.map((identityUid) => ({ identityUid, roleUid: VIEWER })) },
      )
    ).inputs;
    const mark = emulator.requestLog().length;
    await groupAccess.create(checked);
    const calls = emulator
      .requestLog()
      .slice(mark)
      .map((r) => `${r.method} ${r.path}`);
    expect(calls.filter((c) => c.startsWith("POST"))).toEqual(
      Array(40).fill("POST /iam/v2beta1/roleBindings:batchCreate"),
    );
    expect(calls.length).toBe(41);
    expect(new Set(await everyBinding()).size).toBe(1000);
  });

  it("are per group, at most 25, a role's bindings together", () => {
    const adds: Binding[] = [];
    for (let g = 0; g < 3; g++)
      for (let i = 0; i < 30; i++)
        adds.push({ groupUid: `g${g}`, identityUid: `i${i}`, roleUid: i % 3 === 0 ? EDITOR : VIEWER });
    const batches = batchesOf(adds);
    expect(batches.map((b) => b.length)).toEqual([25, 5, 25, 5, 25, 5]);
    for (const batch of batches) expect(new Set(batch.map((b) => b.groupUid)).size).toBe(1);
    expect(batches.flat().map(keyOf).sort()).toEqual(adds.map(keyOf).sort());
  });
});

describe("one batch, recovered (createBatch)", () => {
  const sleeps: number[] = [];
  const policy = { ...DEFAULT_CREATE_POLICY, sleep: async (ms: number) => void sleeps.push(ms) };
  let client: PlatformClient;
  let folder: string;
  let members: string[];
  beforeAll(async () => {
    await useEmulator(7);
    client = new PlatformClient({ apiUrl: emulator.url, token: emulator.token, retryBaseDelayMs: 0 });
    folder = (await emulator.client.groups.create(emulator.orgUid, { name: "folder" })).uid;
    members = await identities(10);
  });
  afterAll(() => client.close());
  beforeEach(async () => {
    emulator.faults.clear();
    sleeps.length = 0;
    for (const b of await emulator.client.roleBindings.list({ group: folder }).all())
      await emulator.client.roleBindings.delete(b.uid);
  });
  const batch = (): Binding[] =>
    members.map((identityUid) => ({ groupUid: folder, identityUid, roleUid: VIEWER }));
  const run = async () => {
    const made: string[] = [];
    await createBatch(client, batch(), (b) => made.push(keyOf(b)), policy);
    return made.sort();
  };
  /** Batches sent (a dropped one never reaches the emulator's log, so they are counted at the client). */
  let sent = 0;
  const posts = () => sent;
  beforeAll(() => {
    const send = client.roleBindings.batchCreate.bind(client.roleBindings);
    client.roleBindings.batchCreate = (...args) => {
      sent++;
      return send(...args);
    };
  });

  it("an answer lost after the batch was applied: found by listing the group, never sent again", async () => {
    emulator.faults.add({ path: "batchCreate$", action: "applyThenDrop", times: 1 });
    const before = posts();
    expect(await run()).toEqual(batch().map(keyOf).sort());
    expect(posts() - before).toBe(1);
    expect((await everyBinding()).length).toBe(10);
  });

  it("a 503, a 429 or a dropped request: not applied, so sent again after the lookup, once", async () => {
    for (const rule of [
      { action: "status", status: 503 },
      { action: "status", status: 429 },
      { action: "drop" },
    ] as const) {
      emulator.faults.clear();
      for (const b of await emulator.client.roleBindings.list({ group: folder }).all())
        await emulator.client.roleBindings.delete(b.uid);
      emulator.faults.add({ path: "batchCreate$", ...rule, times: 1 });
      const before = posts();
      expect(await run()).toEqual(batch().map(keyOf).sort());
      expect([rule.action, posts() - before]).toEqual([rule.action, 2]);
      expect((await everyBinding()).length).toBe(10);
    }
  });

  it("only what is missing is sent again: a binding made meanwhile is taken, not duplicated", async () => {
    emulator.faults.add({ path: "batchCreate$", action: "status", status: 503, times: 1 });
    // Made by someone else between the failure and the lookup (here: before it; the lookup sees it the same way).
    await emulator.client.roleBindings.create(folder, { identityUid: members[0]!, roleUid: VIEWER });
    expect(await run()).toEqual(batch().map(keyOf).sort());
    expect((await everyBinding()).length).toBe(10);
  });

  it("a refusal that is not transient fails at once, with nothing created", async () => {
    emulator.faults.add({ path: "batchCreate$", action: "status", status: 403, times: 1 });
    await expect(run()).rejects.toThrow(/403/);
    expect(await everyBinding()).toEqual([]);
  });

  it("gives up when the time budget is spent, reporting the write's failure", async () => {
    emulator.faults.add({ path: "batchCreate$", action: "status", status: 503 });
    let clock = 0;
    const spent = { ...policy, now: () => (clock += 5_000) };
    await expect(createBatch(client, batch(), () => undefined, spent)).rejects.toThrow(/503/);
    expect(await everyBinding()).toEqual([]);
  });
});

describe("deletes", () => {
  it("a delete whose answer was lost is repeated, finds the binding gone, and that is success", async () => {
    await useEmulator(5);
    const { folder, declared: all, inputs } = await viewersOfFolder(3);
    const { id, outs } = await groupAccess.create(inputs);
    const fewer = (await groupAccess.check!(outs, { groupUid: folder.uid, bindings: all.slice(0, 1) }))
      .inputs;
    emulator.faults.add({ method: "DELETE", path: BINDING_PATH, action: "applyThenDrop", times: 2 });
    await groupAccess.update!(id, outs, fewer);
    emulator.faults.clear();
    expect(await everyBinding()).toEqual([keyOf({ groupUid: folder.uid, ...all[0]! })]);
    // Both deletes were applied, their answers lost, and each repeat answered 404.
    expect(
      emulator
        .requestLog()
        .filter((r) => r.method === "DELETE")
        .map((r) => r.status),
    ).toEqual([404, 404]);
  });
});

describe("a write that cannot finish records what exists", () => {
  it("a create stopped part-way fails with the id and the bindings that exist; the next update finishes", async () => {
    await useEmulator(3);
    const { folder, declared, inputs } = await viewersOfFolder(100);
    // Half of the batches refused outright (not transient): the others are created.
    emulator.faults.add({ path: "batchCreate$", action: "status", status: 403, rate: 0.5 });
    const error = (await groupAccess
      .create({ ...inputs, __provider: "serialized" })
      .catch((e: unknown) => e)) as Error & { id?: string; properties?: Record<string, unknown> };
    emulator.faults.clear();
    expect(error).toBeInstanceOf(Error);
    expect(error.id).toBe(folder.uid);
    const recorded = error.properties!;
    const exists = await everyBinding();
    expect(exists.length).toBeGreaterThan(0);
    expect(exists.length).toBeLessThan(100);
    expect((recorded.bindings as Binding[]).map((b) => keyOf({ ...b, groupUid: folder.uid })).sort()).toEqual(
      exists,
    );
    // The dynamic-provider host records the properties as they are: its provider reference goes with them.
    expect(recorded.__provider).toBe("serialized");
    // The next run: the engine updates a resource with initErrors from what it recorded.
    const { __provider: _ignored, ...state } = recorded;
    expect((await groupAccess.diff!(folder.uid, state, inputs)).changes).toBe(true);
    await groupAccess.update!(folder.uid, state, inputs);
    expect(await everyBinding()).toEqual(declared.map((b) => keyOf({ ...b, groupUid: folder.uid })).sort());
  });

  it("an update stopped part-way records the bindings that exist, deletes done included", async () => {
    await useEmulator(4);
    const folder = await emulator.client.groups.create(emulator.orgUid, { name: "folder" });
    const members = await identities(60);
    const first = members.slice(0, 30).map((identityUid) => ({ identityUid, roleUid: VIEWER }));
    const second = members.slice(30).map((identityUid) => ({ identityUid, roleUid: VIEWER }));
    const a = (await groupAccess.check!({}, { groupUid: folder.uid, bindings: first })).inputs;
    const { id, outs } = await groupAccess.create(a);
    const b = (await groupAccess.check!(outs, { groupUid: folder.uid, bindings: second })).inputs;
    emulator.faults.add({ path: "batchCreate$", action: "status", status: 403, times: 1 });
    const error = (await groupAccess.update!(id, outs, b).catch((e: unknown) => e)) as Error & {
      properties?: Record<string, unknown>;
    };
    emulator.faults.clear();
    expect(
      (error.properties!.bindings as Binding[]).map((x) => keyOf({ ...x, groupUid: folder.uid })).sort(),
    ).toEqual(await everyBinding());
    await groupAccess.update!(id, error.properties!, b);
    expect(await everyBinding()).toEqual(second.map((x) => keyOf({ ...x, groupUid: folder.uid })).sort());
  });
});
