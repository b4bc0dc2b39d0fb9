/**
 * Fuzzing fault schedules: the Identity provider's create against an emulator that answers 30% of requests with
 * 503, drops 10% of connections and, for another 15%, applies the request and then drops the connection. The
 * fast-check value is the emulator's fault seed, so each run meets a different, repeatable schedule.
 *
 * What Pulumi does on failure is what the test does: a create that throws leaves nothing in the state, and the
 * next `up` calls create again. Property: after at most two creates (one re-run), exactly ONE identity with the
 * name exists when a create succeeded (and it is the returned one), and never more than one in any case.
 */
import fc from "fast-check";

import { startEmulator } from "../../emulator";
import identityProvider = require("../../provider/iam/identity.provider");
import { closeClients, configureFromLookup } from "../../provider/core/client";

/** Shares of all requests; harsher than the e2e mix (20/5/5) so the rare schedules turn up in a few runs. */
const SHARE = { status503: 0.3, drop: 0.1, applyThenDrop: 0.15 };
const RATES = {
  status503: SHARE.status503,
  drop: SHARE.drop / (1 - SHARE.status503),
  applyThenDrop: SHARE.applyThenDrop / (1 - SHARE.status503 - SHARE.drop),
};

afterAll(() => closeClients());

test("create, and one re-run after a failure, never leave a duplicate or an orphan", async () => {
  const tally = { runs: 0, firstTry: 0, afterRerun: 0, failedTwice: 0 };
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (faultSeed) => {
      const emulator = await startEmulator({ faultSeed });
      try {
        await configureFromLookup(
          (key) => ({ "platform:apiUrl": emulator.url, "platform:token": emulator.token })[key],
        );
        const inputs = {
          parentUid: emulator.orgUid,
          name: "deployer",
          claimMatch: { issuer: "https://ci.example.com", subject: "main" },
        };
        emulator.faults.add({ action: "status", status: 503, rate: RATES.status503 });
        emulator.faults.add({ action: "drop", rate: RATES.drop });
        emulator.faults.add({ action: "applyThenDrop", rate: RATES.applyThenDrop });

        let created: string | undefined;
        let attempts = 0;
        while (created === undefined && attempts < 2) {
          attempts++;
          created = await identityProvider.create!(inputs).then(
            (result) => result.id,
            () => undefined,
          );
        }
        emulator.faults.clear();
        tally.runs++;
        if (created === undefined) tally.failedTwice++;
        else if (attempts === 1) tally.firstTry++;
        else tally.afterRerun++;

        const found = await emulator.client.identities
          .list({ childrenOf: emulator.orgUid, name: "deployer", pageSize: 200 })
          .all();
        const uids = found.map((i) => i.uid);
        if (created !== undefined) expect(uids).toEqual([created]);
        else expect(uids.length).toBeLessThanOrEqual(1);
      } finally {
        await emulator.close();
      }
    }),
    // A fixed number of runs, never a time limit: fast-check abandons the run in flight when the limit strikes, and
    // that run then touches the emulator after the test has ended (jest exits 1 although every test passed).
    { seed: 20261122, numRuns: 30 },
  );
  process.stdout.write(
    `create under faults: ${tally.runs} schedules; created first try ${tally.firstTry}, ` +
      `after one re-run ${tally.afterRerun}, failed twice ${tally.failedTwice}\n`,
  );
}, 120_000);
