/**
 * sdk/uidp.ts, the one place a uid is taken apart (lint refuses it elsewhere: test/lint-rules.test.ts): a uid's
 * parent is all of it before the last "/", and a root uid (an organization, a root-level user) has none, the one
 * answer every layer gives. Each helper is checked against uids built from their segments (fast-check, fixed seeds).
 */
import fc from "fast-check";
import { parentOf } from "../../sdk";
import {
  ancestorsOf,
  ancestorsOrSelf,
  commonAncestorOf,
  depthOf,
  isAtOrBelow,
  isBelow,
  isRoot,
  rootOf,
  segmentsOf,
  underAny,
} from "../../sdk/uidp";

const segment = fc.stringMatching(/^[0-9a-f]{1,16}$/);
const segmentsArb = fc.array(segment, { minLength: 1, maxLength: 6 });
const uidOf = (segments: readonly string[]) => segments.join("/");

describe("parentOf", () => {
  it("gives a child's parent and undefined for a root uid", () => {
    fc.assert(
      fc.property(segmentsArb, (segments) => {
        const uid = uidOf(segments);
        expect(parentOf(uid)).toBe(segments.length === 1 ? undefined : uidOf(segments.slice(0, -1)));
      }),
      { seed: 26, numRuns: 200 },
    );
  });

  it("reads the examples the API documents", () => {
    expect(parentOf("0123456789abcdef0123456789abcdef01234567")).toBeUndefined();
    expect(parentOf("org/aaaaaaaaaaaaaaaa/bbbbbbbbbbbbbbbb")).toBe("org/aaaaaaaaaaaaaaaa");
  });
});

describe("the uid helpers", () => {
  it("agree with the uid's segments", () => {
    fc.assert(
      fc.property(segmentsArb, (segments) => {
        const uid = uidOf(segments);
        const above = segments.slice(0, -1).map((_, i) => uidOf(segments.slice(0, i + 1)));
        expect(segmentsOf(uid)).toEqual(segments);
        expect(rootOf(uid)).toBe(segments[0]);
        expect(isRoot(uid)).toBe(segments.length === 1);
        expect(depthOf(uid)).toBe(segments.length - 1);
        expect(ancestorsOrSelf(uid)).toEqual([...above, uid]);
        expect(ancestorsOf(uid)).toEqual([...above].reverse());
      }),
      { seed: 27, numRuns: 200 },
    );
  });

  it("say what is below what, a sibling sharing a prefix included", () => {
    fc.assert(
      fc.property(segmentsArb, segmentsArb, (a, b) => {
        const ancestor = uidOf(a);
        const uid = uidOf(b);
        const below = b.length > a.length && a.every((s, i) => b[i] === s);
        expect(isBelow(uid, ancestor)).toBe(below);
        expect(isAtOrBelow(uid, ancestor)).toBe(below || uid === ancestor);
        expect(isBelow(`${ancestor}0/x`, ancestor)).toBe(false);
        expect(underAny(uid, new Set([ancestor]))).toBe(below || uid === ancestor);
        expect(underAny(uid, new Set())).toBe(false);
      }),
      { seed: 28, numRuns: 300 },
    );
  });

  it("find the longest uid at or above every one", () => {
    fc.assert(
      fc.property(fc.array(segmentsArb, { minLength: 1, maxLength: 4 }), (all) => {
        const common = commonAncestorOf(all.map(uidOf));
        for (const s of all) expect(common === "" || isAtOrBelow(uidOf(s), common)).toBe(true);
        const longer = all[0]!.slice(0, common === "" ? 1 : depthOf(common) + 2);
        if (longer.length > (common === "" ? 0 : depthOf(common) + 1))
          expect(all.every((s) => isAtOrBelow(uidOf(s), uidOf(longer)))).toBe(false);
      }),
      { seed: 29, numRuns: 200 },
    );
  });
});
