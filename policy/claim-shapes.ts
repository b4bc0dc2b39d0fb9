/**
 * The public multi-tenant OIDC issuers the pack knows, and the shape of their subject claims: which part names the
 * repository or project (../docs/policy-pack.md lists them). An issuer added through configuration without a known
 * shape is judged by its whole subject: a pattern that matches two different subjects is too broad.
 */
import type { ClaimShape } from "./pattern-breadth";

const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const HEX = "0123456789abcdef";

/** The default list of public issuers; an entry ending in "/" stands for every issuer under it. */
export const DEFAULT_PUBLIC_ISSUERS = [
  "https://token.actions.githubusercontent.com",
  "https://gitlab.com",
  "https://accounts.google.com",
  "https://agent.buildkite.com",
  "https://oidc.circleci.com/org/",
];

interface IssuerSubject {
  /** What one unit is called in messages. */
  unitName: string;
  shape: ClaimShape;
  /** An exact subject to suggest, for the unit given. */
  example(unit: string): string;
}

const SUBJECTS: Record<string, IssuerSubject> = {
  "token.actions.githubusercontent.com": {
    unitName: "repository",
    shape: {
      prefix: "repo:",
      unit: [{ chars: LOWER + DIGITS + "-" }, { literal: "/" }, { chars: LOWER + DIGITS + "-._" }],
      after: { separators: ":", end: false },
    },
    example: (unit) => `repo:${unit}:ref:refs/heads/main`,
  },
  "gitlab.com": {
    unitName: "project",
    shape: {
      prefix: "project_path:",
      unit: [{ chars: LOWER + DIGITS + "-._" }, { literal: "/" }, { chars: LOWER + DIGITS + "-._/" }],
      after: { separators: ":", end: false },
    },
    example: (unit) => `project_path:${unit}:ref_type:branch:ref:main`,
  },
  "accounts.google.com": {
    unitName: "account",
    shape: { prefix: "", unit: [{ chars: DIGITS }], after: { separators: "", end: true } },
    example: (unit) => unit,
  },
  "agent.buildkite.com": {
    unitName: "pipeline",
    shape: {
      prefix: "organization:",
      unit: [{ chars: LOWER + DIGITS + "-" }, { literal: ":pipeline:" }, { chars: LOWER + DIGITS + "-" }],
      after: { separators: ":", end: false },
    },
    example: (unit) => `organization:${unit}:ref:refs/heads/main`,
  },
  "oidc.circleci.com": {
    unitName: "project",
    shape: {
      prefix: "org/",
      unit: [{ chars: HEX + "-" }, { literal: "/project/" }, { chars: HEX + "-" }],
      after: { separators: "/", end: true },
    },
    example: (unit) => `org/${unit}/user/<user-id>`,
  },
};

const PRINTABLE = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join("");

const ANY_SUBJECT: IssuerSubject = {
  unitName: "subject",
  shape: { prefix: "", unit: [{ chars: PRINTABLE }], after: { separators: "", end: true } },
  example: (unit) => unit,
};

/** The shape of an issuer's subjects, from its host. */
export function subjectOf(issuer: string): IssuerSubject {
  return SUBJECTS[hostOf(issuer) ?? ""] ?? ANY_SUBJECT;
}

export function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}

/** An issuer URL's shape for the issuerPattern rule: the unit is the host. */
export const ISSUER_SHAPE: ClaimShape = {
  prefix: "https://",
  unit: [{ chars: LOWER + DIGITS + "-.:" }],
  after: { separators: "/", end: true },
};
