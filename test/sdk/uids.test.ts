/**
 * The uid schema accepts every uid the real service can produce (a 40- or 16-hex root, then 16-hex segments) and
 * nothing else: real organization uids are 40 hex, like the built-in roles' uids.
 */
import fc from "fast-check";
import { RoleUid, UIDP_PATTERN, Uidp } from "../../sdk/schemas/common";

const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`));
const root = fc.oneof(hex(40), hex(16));
const realUid = fc
  .tuple(root, fc.array(hex(16), { maxLength: 4 }))
  .map(([r, segments]) => [r, ...segments].join("/"));

describe("uids", () => {
  it("accepts a 40- or 16-hex root followed by any number of 16-hex segments", () => {
    fc.assert(
      fc.property(realUid, (uid) => {
        expect(Uidp.safeParse(uid).success).toBe(true);
        expect(RoleUid.safeParse(uid).success).toBe(true);
      }),
      { seed: 11, numRuns: 300 },
    );
  });

  it("refuses roots of other lengths, non-hex, uppercase, empty or misplaced segments", () => {
    const badRoot = fc
      .integer({ min: 1, max: 48 })
      .filter((n) => n !== 16 && n !== 40)
      .chain((n) => hex(n));
    const bad = fc.oneof(
      badRoot,
      fc.tuple(root, hex(40)).map(([r, s]) => `${r}/${s}`), // a child segment is 16 hex, never 40
      root.map((r) => `${r}/`),
      root.map((r) => `/${r}`),
      root.map((r) => r.toUpperCase()).filter((r) => /[A-F]/.test(r)),
      fc.tuple(root, hex(15)).map(([r, s]) => `${r}/${s}`),
      fc.string({ maxLength: 50 }).filter((s) => !UIDP_PATTERN.test(s)),
    );
    fc.assert(
      fc.property(bad, (uid) => {
        const result = Uidp.safeParse(uid);
        expect(result.success).toBe(false);
        expect(result.error?.issues[0]?.message).toMatch(/40 \(or 16\) hex/);
      }),
      { seed: 12, numRuns: 300 },
    );
  });
});
