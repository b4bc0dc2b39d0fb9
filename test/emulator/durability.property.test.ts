/**
 * State survives a restart whole (fast-check, fixed seed): a generated sequence of changes
 * (groups, clock advances, exchanged tokens, identity deletions, seeds that fail halfway, restarts on the same data
 * file) leaves, after every restart, the same objects, a clock that has not gone back (an advance is kept),
 * createTime that never decreases, tokens exactly as valid as before (expired stays expired, a deleted identity's
 * token stays revoked), and no trace of a failed seed, in memory or on disk.
 */
import fc from "fast-check";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { start, type Api } from "./helpers";

export const DURABILITY_RUNS = 10;

type Op =
  | { op: "group" }
  | { op: "advance"; ms: number }
  | { op: "exchange" }
  | { op: "deleteIdentity" }
  | { op: "badSeed"; good: number }
  | { op: "restart" };

const ops = fc.array(
  fc.oneof(
    fc.constant<Op>({ op: "group" }),
    fc.integer({ min: 0, max: 2 * 3_600_000 }).map((ms): Op => ({ op: "advance", ms })),
    fc.constant<Op>({ op: "exchange" }),
    fc.constant<Op>({ op: "deleteIdentity" }),
    fc.integer({ min: 0, max: 3 }).map((good): Op => ({ op: "badSeed", good })),
    fc.constant<Op>({ op: "restart" }),
  ),
  { minLength: 1, maxLength: 10 },
);

interface Token {
  token: string;
  identityUid: string;
  expiresAt: number;
}

describe("property 6: a restart keeps everything, the clock included; a failed request keeps nothing", () => {
  test(`${DURABILITY_RUNS} generated histories`, async () => {
    await fc.assert(
      fc.asyncProperty(ops, async (history) => {
        const dir = mkdtempSync(join(tmpdir(), "emulator-durability-"));
        const dataFile = join(dir, "state.json");
        let api: Api = await start({ dataFile });
        const tokens: Token[] = [];
        const deleted = new Set<string>();
        const refusedNames: string[] = [];
        let maxCreateTime = "";
        let lastNow = api.emulator.clock.now().getTime();
        const org = api.emulator.orgUid;
        const ownerRole = (await api.get("/iam/v2beta1/roles?name=owner")).body.roles[0].uid;
        let counter = 0;

        const snapshot = async (): Promise<string> =>
          (await api.get(`/iam/v2beta1/groups?uidp.descendants_of=${org}&page_size=200&order_by=uid`)).text;
        const checkInvariants = async (): Promise<void> => {
          const now = api.emulator.clock.now().getTime();
          expect(now).toBeGreaterThanOrEqual(lastNow);
          lastNow = now;
          const probe = await api.post(`/iam/v2beta1/groups/${org}`, { name: `probe-${counter++}` });
          expect(probe.body.createTime >= maxCreateTime).toBe(true);
          maxCreateTime = probe.body.createTime;
          for (const t of tokens) {
            const valid =
              !deleted.has(t.identityUid) && t.expiresAt > api.emulator.clock.now().getTime() + 1000;
            const expired = t.expiresAt <= now;
            const answer = await api.get(`/iam/v2beta1/groups/${org}`, t.token);
            if (valid) expect(answer.status).toBe(200);
            if (expired || deleted.has(t.identityUid)) expect(answer.status).toBe(401);
          }
          for (const name of refusedNames)
            expect(
              (await api.get(`/iam/v2beta1/groups?name=${encodeURIComponent(name)}`)).body.totalCount,
            ).toBe("0");
        };

        try {
          for (const step of history) {
            if (step.op === "group") {
              const created = await api.post(`/iam/v2beta1/groups/${org}`, { name: `g-${counter++}` });
              expect(created.body.createTime >= maxCreateTime).toBe(true);
              maxCreateTime = created.body.createTime;
            } else if (step.op === "advance") {
              expect((await api.post("/_emulator/clock/advance", { ms: step.ms }, null)).status).toBe(200);
            } else if (step.op === "exchange") {
              const identity = await api.post(`/iam/v2beta1/identities/${org}`, {
                name: "wl",
                claimMatch: { issuer: `${api.emulator.url}/oidc`, subject: "ci" },
              });
              await api.post(`/iam/v2beta1/roleBindings/${org}`, {
                identityUid: identity.body.uid,
                roleUid: ownerRole,
              });
              const idToken = await api.emulator.mintIdToken({ subject: "ci" });
              const exchanged = await api.get(
                `/sts/exchange?identity=${encodeURIComponent(identity.body.uid)}`,
                idToken,
              );
              expect(exchanged.status).toBe(200);
              tokens.push({
                token: exchanged.body.token,
                identityUid: identity.body.uid,
                expiresAt: Date.parse(exchanged.body.expiry),
              });
            } else if (step.op === "deleteIdentity") {
              const victim = tokens.find((t) => !deleted.has(t.identityUid));
              if (victim === undefined) continue;
              expect((await api.del(`/iam/v2beta1/identities/${victim.identityUid}`)).status).toBe(200);
              deleted.add(victim.identityUid);
            } else if (step.op === "badSeed") {
              const good = Array.from({ length: step.good }, () => `seeded-${counter++}`);
              const before = await snapshot();
              const answer = await api.post(
                "/_emulator/seed",
                { groups: [...good.map((name) => ({ name })), { name: "NOT VALID" }] },
                null,
              );
              expect(answer.body.code).toBe(3);
              expect(await snapshot()).toBe(before);
              refusedNames.push(...good);
            } else {
              const before = await snapshot();
              await api.emulator.close();
              api = await start({ dataFile });
              expect(await snapshot()).toBe(before);
              await checkInvariants();
            }
          }
          const before = await snapshot();
          await api.emulator.close();
          api = await start({ dataFile });
          expect(await snapshot()).toBe(before);
          await checkInvariants();
        } finally {
          await api.emulator.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { seed: 12_06, numRuns: DURABILITY_RUNS },
    );
  }, 120_000);

  test("the issue's example: an advance survives a restart, so an expired token does not work again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "emulator-durability-"));
    const dataFile = join(dir, "state.json");
    let api = await start({ dataFile });
    try {
      const org = api.emulator.orgUid;
      const owner = (await api.get("/iam/v2beta1/roles?name=owner")).body.roles[0].uid;
      const identity = await api.post(`/iam/v2beta1/identities/${org}`, {
        name: "wl",
        claimMatch: { issuer: `${api.emulator.url}/oidc`, subject: "ci" },
      });
      await api.post(`/iam/v2beta1/roleBindings/${org}`, { identityUid: identity.body.uid, roleUid: owner });
      const idToken = await api.emulator.mintIdToken({ subject: "ci" });
      const token = (
        await api.get(`/sts/exchange?identity=${encodeURIComponent(identity.body.uid)}`, idToken)
      ).body.token;
      const firstCreate = identity.body.createTime as string;
      await api.post("/_emulator/clock/advance", { ms: 2 * 3_600_000 }, null);
      expect((await api.get(`/iam/v2beta1/groups/${org}`, token)).status).toBe(401);
      await api.emulator.close();
      api = await start({ dataFile });
      expect((await api.get(`/iam/v2beta1/groups/${org}`, token)).status).toBe(401);
      const later = await api.post(`/iam/v2beta1/groups/${org}`, { name: "after restart" });
      expect(Date.parse(later.body.createTime) - Date.parse(firstCreate)).toBeGreaterThanOrEqual(
        2 * 3_600_000,
      );
    } finally {
      await api.emulator.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
