/**
 * The gRPC face's reading of the emulator's own Timestamps (emulator/grpc/timestamp.ts) against Date: the text
 * Date#toISOString writes of any instant from 1970 on is that instant, read or met again (kept); any other text
 * (an earlier year, one character changed to anything, a date that does not exist) is NaN or the instant Date
 * reads from the same text in the same form. Fixed seeds.
 */
import fc from "fast-check";
import { isoMillis } from "../../emulator/grpc/timestamp";

const SEEDS = [20261129, 11, 5150];

const instant = fc.date({
  min: new Date("0001-01-01T00:00:00Z"),
  max: new Date("9999-12-31T23:59:59.999Z"),
  noInvalidDate: true,
});

/** What the text is, read by Date when it has exactly toISOString's form: its own text again. */
function byDate(text: string): number {
  const ms = Date.parse(text);
  return Number.isNaN(ms) || ms < 0 || new Date(ms).toISOString() !== text ? NaN : ms;
}

describe("the emulator's Timestamps", () => {
  test.each(SEEDS)("toISOString's text of any instant, read and met again (seed %d)", (seed) => {
    fc.assert(
      fc.property(instant, (date) => {
        const text = date.toISOString();
        const want = date.getTime() >= 0 ? date.getTime() : NaN;
        expect(isoMillis(text)).toBe(want);
        expect(isoMillis(text)).toBe(want);
      }),
      { seed, numRuns: 2000 },
    );
  });

  test.each(SEEDS)("any other text is NaN or what Date reads in it (seed %d)", (seed) => {
    const changed = fc
      .tuple(
        instant,
        fc.nat({ max: 23 }),
        fc.oneof(fc.string({ unit: "binary", maxLength: 2 }), fc.constantFrom("0", "9", "3", "2")),
      )
      .map(([date, at, put]) => {
        const text = date.toISOString();
        return text.slice(0, at) + put + text.slice(at + 1);
      });
    const other = fc.oneof(
      changed,
      fc.constantFrom(
        "2021-02-29T00:00:00.000Z",
        "2020-02-30T00:00:00.000Z",
        "2020-13-01T00:00:00.000Z",
        "2020-02-29T24:00:00.000Z",
        "2020-02-29T23:60:00.000Z",
        "2020-02-29T23:59:60.000Z",
        "1969-12-31T23:59:59.999Z",
        "+02020-01-01T00:00:00.000Z",
        "2020-01-01T00:00:00.000+00:00",
        "2020-01-01T00:00:00Z",
        "２020-01-01T00:00:00.000Z",
      ),
      fc.string({ unit: "binary", maxLength: 30 }),
    );
    fc.assert(
      fc.property(other, (text) => {
        expect([text, isoMillis(text)]).toEqual([text, byDate(text)]);
        expect([text, isoMillis(text)]).toEqual([text, byDate(text)]);
      }),
      { seed, numRuns: 2000 },
    );
  });
});
