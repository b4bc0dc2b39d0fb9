/**
 * Strict token exchange (fast-check, fixed seeds):
 *
 *   3a. Generated patterns: RE2 accepts a pattern or refuses it at validation (code 3 naming the field); an
 *       accepted one matches a subject exactly when the whole subject matches it (JavaScript's `^(?:p)$` as the
 *       oracle, on the syntax both share); a pattern that does not compile on its own (`x)|(.*`) is refused, so it
 *       cannot break out of its anchors.
 *   3b. Time bound: every accepted pattern, nested quantifiers included, decides a long subject within a fixed
 *       bound (RE2 is linear; `(a+)+b` on 25 characters used to take hundreds of milliseconds).
 *   3c. Through HTTP: an identity is created only with a non-empty issuer rule and a non-empty subject rule and
 *       valid patterns (else code 3 naming the field), and a token is exchanged exactly when its issuer and subject
 *       match; a missing claim never matches.
 */
import fc from "fast-check";
import { claimMatchAccepts, claimMatchViolations, compilePattern } from "../../emulator/claim-match";
import { details, type Api, useInOrg } from "./helpers";

export const PATTERN_RUNS = 2000;
export const BREAKOUT_RUNS = 200;
export const TIME_RUNS = 300;
export const EXCHANGE_RUNS = 120;
/**
 * Per decision on a subject of up to 5,000 characters (best of three, so a busy machine's pauses do not count;
 * backtracking would take longer than the universe's age here, so the bound still separates linear from not).
 */
const TIME_BOUND_MS = 100;

const ISSUER = "https://issuer.example.com";

/** Pattern pieces whose meaning RE2 and JavaScript share (on subjects over "abx1"). */
const token = fc.constantFrom(
  "a",
  "b",
  "x",
  "1",
  ".",
  "*",
  "+",
  "?",
  "|",
  "(",
  ")",
  "(?:",
  "[ab]",
  "[^a]",
  "\\d",
);
const pattern = fc.array(token, { maxLength: 8 }).map((t) => t.join(""));
const subject = fc.stringMatching(/^[abx1]{0,8}$/);

function jsFullMatch(p: string): RegExp | undefined {
  try {
    return new RegExp(`^(?:${p})$`);
  } catch {
    return undefined;
  }
}

function compilesAlone(p: string): boolean {
  try {
    new RegExp(p);
    return true;
  } catch {
    return false;
  }
}

/** The service's own audience: the rules below name none, so the token must carry this one. */
const SERVICE = "https://api.example.com";
const isService = (aud: string): boolean => aud === SERVICE;
const rules = (subjectPattern: string) => ({ issuer: ISSUER, subjectPattern });
const payload = (sub: string) => ({ iss: ISSUER, sub, aud: SERVICE });

describe("property 3a: RE2 patterns, compiled alone, matched against the whole value", () => {
  test(`${PATTERN_RUNS} generated patterns and subjects`, () => {
    fc.assert(
      fc.property(pattern, subject, (p, s) => {
        const violations = claimMatchViolations(rules(p));
        if (violations.length > 0) {
          expect(violations.map((v) => v.field)).toEqual(["claimMatch.subjectPattern"]);
          expect(claimMatchAccepts(rules(p), payload(s), isService)).toBe(false);
          return;
        }
        // RE2 accepted it; where JavaScript reads the same syntax (it refuses a few RE2 forms such as "(?)"),
        // both decide the whole-value match alike.
        const oracle = compilesAlone(p) ? jsFullMatch(p) : undefined;
        if (oracle !== undefined)
          expect(claimMatchAccepts(rules(p), payload(s), isService)).toBe(oracle.test(s));
      }),
      { seed: 12_03, numRuns: PATTERN_RUNS },
    );
  });

  test(`${BREAKOUT_RUNS} break-out attempts (A)|(B) with balanced A and B are refused`, () => {
    const balanced = fc.constantFrom("only-x", "a", "(a)", "[ab]+", "x*");
    fc.assert(
      fc.property(balanced, balanced, fc.constantFrom(")|(", ")|", "|("), (a, b, glue) => {
        const p = `${a}${glue}${b}`;
        const fields = claimMatchViolations(rules(p)).map((v) => v.field);
        expect(fields).toEqual(["claimMatch.subjectPattern"]);
        expect(claimMatchAccepts(rules(p), payload("anybody"), isService)).toBe(false);
      }),
      { seed: 12_31, numRuns: BREAKOUT_RUNS },
    );
  });
});

describe("property 3b: every accepted pattern decides a long subject in bounded time", () => {
  const nested = fc.constantFrom(
    "(a+)+b",
    "(a|a)*b",
    "(a*)*b",
    "(x+x+)+y",
    "(.*a){12}",
    "((a+)*)+c",
    "(a|aa)+$",
  );
  test(`${TIME_RUNS} generated patterns against subjects of up to 5,000 characters`, () => {
    fc.assert(
      fc.property(
        fc.oneof(nested, pattern),
        fc.integer({ min: 1, max: 5000 }),
        fc.constantFrom("", "!", "b", "c"),
        (p, length, tail) => {
          if (claimMatchViolations(rules(p)).length > 0) return;
          const s = `${"a".repeat(length)}${tail}`;
          let accepted = false;
          let ms = Infinity;
          for (let attempt = 0; attempt < 3; attempt++) {
            const begin = process.hrtime.bigint();
            accepted = claimMatchAccepts(rules(p), payload(s), isService);
            ms = Math.min(ms, Number(process.hrtime.bigint() - begin) / 1e6);
          }
          expect(ms).toBeLessThan(TIME_BOUND_MS);
          if (p === "(a+)+b") expect(accepted).toBe(tail === "b");
        },
      ),
      { seed: 12_33, numRuns: TIME_RUNS },
    );
  });
});

describe("property 3c: through HTTP, identity rules and exchange answers", () => {
  let api: Api;
  let org: string;
  let ownerRole: string;
  useInOrg((started) => ({ api, org, ownerRole } = started));

  /** One side of a claimMatch: no rule, an empty rule, an exact value, or a (possibly invalid) pattern. */
  const rule = (exactValues: fc.Arbitrary<string>) =>
    fc.oneof(
      { weight: 1, arbitrary: fc.constant({ kind: "none" as const }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom("exact", "pattern").map((k) => ({ kind: "empty" as const, k })),
      },
      { weight: 4, arbitrary: exactValues.map((value) => ({ kind: "exact" as const, value })) },
      {
        weight: 4,
        // Patterns on which RE2 and the JavaScript oracle agree about validity.
        arbitrary: pattern
          .filter(
            (p) =>
              (typeof compilePattern(p) !== "string") === (compilesAlone(p) && jsFullMatch(p) !== undefined),
          )
          .map((value) => ({ kind: "pattern" as const, value })),
      },
    );

  test(`${EXCHANGE_RUNS} generated identities and tokens`, async () => {
    const issuer = `${api.emulator.url}/oidc`;
    await fc.assert(
      fc.asyncProperty(
        rule(fc.constantFrom(issuer, "https://other.example.com")),
        rule(subject.filter((s) => s !== "")),
        subject.filter((s) => s !== ""),
        async (issuerRule, subjectRule, sub) => {
          const claimMatch: Record<string, string> = {};
          const expectedFields: string[] = [];
          for (const [name, r] of [
            ["issuer", issuerRule],
            ["subject", subjectRule],
          ] as const) {
            if (r.kind === "none") expectedFields.push(`claimMatch.${name}`);
            if (r.kind === "empty") {
              const field = r.k === "exact" ? name : `${name}Pattern`;
              claimMatch[field] = "";
              expectedFields.push(`claimMatch.${field}`);
            }
            if (r.kind === "exact") claimMatch[name] = r.value;
            if (r.kind === "pattern") {
              claimMatch[`${name}Pattern`] = r.value;
              if (r.value === "" || jsFullMatch(r.value) === undefined || !compilesAlone(r.value))
                expectedFields.push(`claimMatch.${name}Pattern`);
            }
          }
          const created = await api.post(`/iam/v2beta1/identities/${org}`, { name: "wl", claimMatch });
          if (expectedFields.length > 0) {
            expect([created.status, created.body.code]).toEqual([400, 3]);
            const named = details(created.body).fieldViolations.map((v) => v.field);
            for (const field of expectedFields) expect(named).toContain(field);
            return;
          }
          expect(created.status).toBe(200);
          await api.post(`/iam/v2beta1/roleBindings/${org}`, {
            identityUid: created.body.uid,
            roleUid: ownerRole,
          });
          const sides = [
            [issuerRule, issuer],
            [subjectRule, sub],
          ] as const;
          const expected = sides.every(([r, value]) =>
            r.kind === "exact" ? r.value === value : jsFullMatch((r as { value: string }).value)!.test(value),
          );
          const idToken = await api.emulator.mintIdToken({ subject: sub });
          const exchanged = await api.get(
            `/sts/exchange?aud=${encodeURIComponent(api.emulator.url)}&identity=${encodeURIComponent(created.body.uid)}`,
            idToken,
          );
          expect(exchanged.status).toBe(expected ? 200 : 403);
          await api.del(`/iam/v2beta1/identities/${created.body.uid}`);
        },
      ),
      { seed: 12_34, numRuns: EXCHANGE_RUNS },
    );
  }, 60_000);

  test("a missing claim never matches, not even the string 'undefined' or a pattern matching anything", async () => {
    const issuer = `${api.emulator.url}/oidc`;
    for (const extra of [{ claims: { team: "undefined" } }, { claimPatterns: { team: ".*" } }]) {
      const created = await api.post(`/iam/v2beta1/identities/${org}`, {
        name: "wl",
        claimMatch: { issuer, subject: "ci", ...extra },
      });
      expect(created.status).toBe(200);
      await api.post(`/iam/v2beta1/roleBindings/${org}`, {
        identityUid: created.body.uid,
        roleUid: ownerRole,
      });
      const without = await api.emulator.mintIdToken({ subject: "ci" });
      const url = `/sts/exchange?identity=${encodeURIComponent(created.body.uid)}`;
      expect((await api.get(url, without)).body.code).toBe(7);
      const withClaim = await api.emulator.mintIdToken({ subject: "ci", claims: { team: "undefined" } });
      expect((await api.get(url, withClaim)).status).toBe(200);
    }
  });
});
