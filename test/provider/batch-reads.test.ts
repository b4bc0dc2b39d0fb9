/**
 * What the list filters the emulator honours save a program: reading N objects by uid through one
 * getRoles / getRepos call with `uids` (uidp.ids) instead of N getRole / getRepo calls, and a tag sync that asks
 * only for what changed (`updatedSince`). Request counts are measured from the emulator's request log.
 */
import type { Emulator } from "../../emulator";
import * as platform from "../../provider";
import { useProgramEmulator } from "./harness";

let emulator: Emulator;
useProgramEmulator((started) => (emulator = started));

/** API requests (not control calls) made while `run` runs. */
async function requestsDuring(run: () => Promise<unknown>): Promise<number> {
  const mark = emulator.requestLog().length;
  await run();
  return emulator
    .requestLog()
    .slice(mark)
    .filter((r) => !r.path.startsWith("/_emulator")).length;
}

const N = 25;

describe("batch reads by uid (uidp.ids)", () => {
  it(`getRoles({ uids }) reads ${N} roles in 1 request where getRole takes ${N}`, async () => {
    const uids: string[] = [];
    for (let i = 0; i < N; i++)
      uids.push(
        (
          await emulator.client.roles.create(emulator.orgUid, {
            name: `role-${i}`,
            capabilities: ["CAP_IAM_GROUPS_LIST"],
          })
        ).uid,
      );
    const one: string[] = [];
    const oneByOne = await requestsDuring(async () => {
      for (const uid of uids) one.push((await platform.iam.getRole({ uid })).name);
    });
    let batch: string[] = [];
    const batched = await requestsDuring(async () => {
      batch = (await platform.iam.getRoles({ uids })).roles.map((r) => r.name);
    });
    expect([oneByOne, batched]).toEqual([N, 1]);
    expect(batch.sort()).toEqual(one.sort());
    expect((await platform.iam.getRoles({ uids: [uids[3]!] })).roles.map((r) => r.uid)).toEqual([uids[3]]);
    expect(await requestsDuring(() => platform.iam.getRoles({ uids: [] }))).toBe(0);
  });

  it(`getRepos({ uids }) reads ${N} repos in 1 request where getRepo takes ${N}`, async () => {
    emulator.seed({ repos: Array.from({ length: N + 10 }, (_, i) => ({ name: `repo-${i}` })) });
    const all = (await platform.registry.getRepos({ organizationUid: emulator.orgUid })).repos;
    const uids = all.slice(0, N).map((r) => r.uid);
    const oneByOne = await requestsDuring(async () => {
      for (const uid of uids) await platform.registry.getRepo({ uid });
    });
    let batch: string[] = [];
    const batched = await requestsDuring(async () => {
      batch = (await platform.registry.getRepos({ uids })).repos.map((r) => r.uid);
    });
    expect([oneByOne, batched]).toEqual([N, 1]);
    expect(batch.sort()).toEqual([...uids].sort());
  });
});

describe("getTags({ updatedSince })", () => {
  it("a sync with nothing changed reads 1 page instead of every page", async () => {
    emulator.seed({
      repos: [
        {
          name: "app",
          tags: Array.from({ length: 450 }, (_, i) => ({ name: `1.${i}`, digest: "sha256:a" })),
        },
      ],
    });
    const repoUid = (await platform.registry.getRepo({ name: "app", organizationUid: emulator.orgUid })).uid;
    const lastSync = emulator.clock.now().toISOString();
    emulator.clock.advance(60_000);
    let everything = 0;
    const full = await requestsDuring(async () => {
      everything = (await platform.registry.getTags({ repoUid })).tags.length;
    });
    let changed = -1;
    const delta = await requestsDuring(async () => {
      changed = (await platform.registry.getTags({ repoUid, updatedSince: lastSync })).tags.length;
    });
    expect([everything, full, changed, delta]).toEqual([450, 3, 0, 1]);
  });

  it("refuses a malformed timestamp before any request, naming the argument", async () => {
    await expect(platform.registry.getTags({ repoUid: "x", updatedSince: "yesterday" })).rejects.toThrow(
      /updatedSince/,
    );
  });
});
