/**
 * The subject rule's judgement (policy/pattern-breadth.ts) against the RE2 matcher itself, over generated
 * claim-match patterns for GitHub Actions subjects (`repo:<owner>/<name>:<rest>`): a pattern flagged as too broad
 * matches, by RE2, the subjects of two different repositories (its witnesses); a pattern passed matches, by RE2,
 * the subjects of at most one repository among every subject over a small alphabet. The same for issuerPattern and
 * hosts. Fixed seeds.
 */
import fc from "fast-check";
import { RE2JS } from "re2js";
import { ISSUER_SHAPE, subjectOf } from "../../policy/claim-shapes";
import { breadthOf } from "../../policy/pattern-breadth";

const github = subjectOf("https://token.actions.githubusercontent.com");

/**
 * breadthOf against RE2 over generated `patterns`: a pattern flagged as broad matches both its witnesses, which
 * lie in two different units (`unitOf`: a repository, a host); a pattern passed matches, among `universe`, the
 * values of at most one unit. The generator exercises both answers, each more than `eachAnswer` times.
 */
function judgedByRe2(
  patterns: fc.Arbitrary<string>,
  shape: Parameters<typeof breadthOf>[1],
  universe: readonly string[],
  unitOf: (value: string) => string | undefined,
  run: { seed: number; numRuns: number; eachAnswer: number },
): void {
  let flagged = 0;
  let passed = 0;
  fc.assert(
    fc.property(patterns, (p) => {
      const breadth = breadthOf(p, shape);
      const re = RE2JS.compile(p);
      if (breadth.kind === "broad") {
        flagged++;
        const [first, second] = breadth.witnesses;
        expect(re.matches(first) && re.matches(second)).toBe(true);
        expect(unitOf(first)).toBeDefined();
        expect(unitOf(second)).toBeDefined();
        expect(unitOf(first)).not.toBe(unitOf(second));
      } else {
        expect(breadth.kind).toBe("single");
        passed++;
        expect(new Set(universe.filter((value) => re.matches(value)).map(unitOf)).size).toBeLessThanOrEqual(
          1,
        );
      }
    }),
    { seed: run.seed, numRuns: run.numRuns },
  );
  expect(flagged).toBeGreaterThan(run.eachAnswer);
  expect(passed).toBeGreaterThan(run.eachAnswer);
}

/** The repository a GitHub subject names (case-insensitive), or undefined for another shape. */
function repositoryOf(subject: string): string | undefined {
  const match = /^repo:([a-z0-9-]+\/[a-z0-9._-]+):/i.exec(subject);
  return match?.[1]?.toLowerCase();
}

/** Every string over {a, B, b} of length 1 to 2: owners and names; the universe of subjects is built from them. */
const WORDS = ["a", "b", "B", "aa", "ab", "ba", "bb", "aB"];
const RESTS = ["", "a", "ref:refs/heads/main"];
const UNIVERSE = WORDS.flatMap((owner) =>
  WORDS.flatMap((name) => RESTS.map((rest) => `repo:${owner}/${name}:${rest}`)),
);

/** Pieces a pattern is made of: literals, classes, repetition, alternation, case folding. */
const piece: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("a", "b", "ab", "B"),
  fc.constantFrom(
    "[ab]",
    "[a-z]",
    "[a-z]+",
    "[^/:]+",
    ".",
    ".*",
    ".+",
    "a?",
    "b*",
    "(a|b)",
    "(?:ab)*",
    "a{1,2}",
    "(?i:b)",
    "\\w",
  ),
);
const segment = fc.array(piece, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(""));
const pattern: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(segment, segment, fc.constantFrom("", ".*", "a", "ref:refs/heads/main", "[a-z]*"))
      .map(([o, n, r]) => `repo:${o}/${n}:${r}`),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(segment, fc.constantFrom(".*", ":.*", "/.*:.*")).map(([o, r]) => `repo:${o}${r}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      ".*",
      "repo:.*",
      "repo:a/.*",
      "repo:(a|b)/a:.*",
      "(?i)repo:a/b:.*",
      "^repo:a/b:.*$",
    ),
  },
);

test("a pattern flagged as broad matches two repositories' subjects; one passed matches at most one", () => {
  judgedByRe2(pattern, github.shape, UNIVERSE, repositoryOf, {
    seed: 20261125,
    numRuns: 400,
    eachAnswer: 50,
  });
});

/** The host of an https issuer URL, lowercased, or undefined. */
function hostOf(issuer: string): string | undefined {
  return /^https:\/\/([a-z0-9.:-]+)(?:\/|$)/i.exec(issuer)?.[1]?.toLowerCase();
}

const HOSTS = ["a.com", "b.com", "ab.com", "a.b.com", "aa.com", "a.co"];
const PATHS = ["", "/", "/a", "/org/1"];
const ISSUERS = HOSTS.flatMap((host) => PATHS.map((p) => `https://${host}${p}`));

const hostPiece = fc.constantFrom(
  "a",
  "b",
  "ab",
  "\\.",
  ".",
  "[ab]",
  "[a-z]+",
  ".*",
  "a?",
  "(a|b)",
  "(?:\\.b)?",
  "co",
  "com",
);
const issuerPattern = fc
  .tuple(
    fc.array(hostPiece, { minLength: 1, maxLength: 4 }),
    fc.constantFrom("", "/.*", "(/.*)?", "/org/[0-9]+", "/a"),
  )
  .map(([host, rest]) => `https://${host.join("")}${rest}`);

test("an issuerPattern flagged as broad matches two hosts' issuers; one passed matches at most one host", () => {
  judgedByRe2(issuerPattern, ISSUER_SHAPE, ISSUERS, hostOf, { seed: 29, numRuns: 300, eachAnswer: 30 });
});
