/** Property-based tests (fast-check) for the pure pieces: the path helper, query encoding, Retry-After, backoff. */
import fc from "fast-check";
import { backoffDelay, encodeQuery, parseRetryAfter, resourcePath, redact, wireQueryName } from "../../sdk";

const segment = fc
  .string({ minLength: 1, maxLength: 12 })
  .filter((s) => !s.includes("/") && s !== "." && s !== "..");

describe("properties", () => {
  it("resourcePath keeps one path segment per uid segment and decodes back to the uid", () => {
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), (segments) => {
        const uid = segments.join("/");
        const path = resourcePath("/iam/v2beta1/groups", uid);
        const parts = path.split("/").slice(4);
        expect(parts).toHaveLength(segments.length);
        expect(parts.map(decodeURIComponent)).toEqual(segments);
        expect(path).not.toMatch(/[?#\s]/);
      }),
    );
  });

  it("encodeQuery round-trips every defined value under its wire name", () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean());
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.stringMatching(/^[a-z][a-zA-Z]{0,10}$/).filter((k) => k !== "updateMask"),
          fc.option(value, { nil: undefined }),
        ),
        (query) => {
          const text = encodeQuery(query);
          const params = new URLSearchParams(text.slice(1));
          for (const [key, v] of Object.entries(query)) {
            const wire = wireQueryName(key);
            expect(wire).toMatch(/^[a-z_.]+$/); // snake_case (uidp.* for the scoping filters), never camelCase

            if (v === undefined) expect(params.has(wire)).toBe(false);
            else expect(params.getAll(wire)).toContain(String(v));
          }
          expect(text).not.toContain("+");
        },
      ),
    );
  });

  it("parseRetryAfter: delta-seconds are read exactly; dates never give a negative wait", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 86_400 }), (seconds) => {
        expect(parseRetryAfter(String(seconds), 0)).toBe(seconds * 1000);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), (offsetMs) => {
        const now = 1_800_000_000_000;
        const header = new Date(now + offsetMs).toUTCString();
        const ms = parseRetryAfter(header, now);
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(Math.abs((ms ?? 0) - Math.max(0, offsetMs))).toBeLessThan(1000); // HTTP dates have 1 s resolution
      }),
    );
  });

  it("backoffDelay stays within [d/2, d] of the capped exponential", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (retry, base, r) => {
          const cap = 60_000;
          const d = Math.min(cap, base * 2 ** (retry - 1));
          const delay = backoffDelay(retry, base, cap, () => r);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(d / 2));
          expect(delay).toBeLessThanOrEqual(Math.ceil(d));
        },
      ),
    );
  });

  it("redact removes every occurrence of every secret", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 4, maxLength: 20 }),
        fc.array(fc.string(), { maxLength: 5 }),
        (secret, parts) => {
          // A secret made of the marker's own characters could re-form next to it; tokens never are.
          fc.pre(![...secret].some((c) => "[redacted]".includes(c)));
          const text = parts.join(secret);
          expect(redact(text, [secret])).not.toContain(secret);
        },
      ),
    );
  });
});
