/** parentOf, the one uid-parent helper every layer uses: a uid's parent is all of it before the last "/". */
import fc from "fast-check";
import { parentOf } from "../../sdk";

const segment = fc.stringMatching(/^[0-9a-f]{16}$/);

describe("parentOf", () => {
  it("gives a child's parent and undefined for a root uid", () => {
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), (segments) => {
        const uid = segments.join("/");
        expect(parentOf(uid)).toBe(segments.length === 1 ? undefined : segments.slice(0, -1).join("/"));
      }),
      { seed: 26, numRuns: 200 },
    );
  });

  it("reads the examples the API documents", () => {
    expect(parentOf("0123456789abcdef0123456789abcdef01234567")).toBeUndefined();
    expect(parentOf("org/aaaaaaaaaaaaaaaa/bbbbbbbbbbbbbbbb")).toBe("org/aaaaaaaaaaaaaaaa");
  });
});
