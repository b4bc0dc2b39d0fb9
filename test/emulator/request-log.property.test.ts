/**
 * The request log keeps the latest `capacity` entries, oldest first, whatever the number added and however often
 * it is read or cleared between adds.
 */
import fc from "fast-check";
import { RequestLog } from "../../emulator/request-log";

const SEED = 4_917;

test("the log holds the latest entries in order, through any adds, reads and clears", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 12 }),
      fc.array(fc.oneof(fc.constant("read" as const), fc.constant("clear" as const), fc.nat({ max: 40 })), {
        maxLength: 60,
      }),
      (capacity, steps) => {
        const log = new RequestLog<number>(capacity);
        let added: number[] = [];
        let next = 0;
        for (const step of steps) {
          if (step === "clear") {
            log.clear();
            added = [];
          } else if (step === "read") {
            expect(log.entries()).toEqual(added.slice(-capacity));
          } else {
            for (let i = 0; i < step; i++) {
              log.add(next);
              added.push(next++);
            }
          }
        }
        expect(log.entries()).toEqual(added.slice(-capacity));
      },
    ),
    { seed: SEED, numRuns: 300 },
  );
});

test("a log of no room is refused", () => {
  expect(() => new RequestLog(0)).toThrow(/at least one/);
});
