/**
 * An identity's claimMatch: validated when an identity is created or updated, and evaluated at token exchange.
 *
 * The real service evaluates patterns with RE2, so the emulator does too (re2js: linear time, RE2 syntax, no
 * backreferences or lookaround): a pattern cannot stall the emulator whatever the subject. Each pattern is compiled
 * on its own first, so one with unbalanced groups (`only-x)|(.*`) is refused instead of escaping its anchors once
 * wrapped; it then matches the whole claim value (RE2 `matches`, i.e. implicitly `^(?:p)$`).
 *
 * Rules (emulator/README.md, "Token exchange"): an identity needs a non-empty issuer rule (`issuer` or
 * `issuerPattern`) and a non-empty subject rule (`subject` or `subjectPattern`); a rule member given as "" is
 * refused rather than read as "anything"; a missing claim never matches.
 */
import { invalidArgument } from "./errors";
import {
  CLAIM_MATCH_PATTERN_MEMBERS,
  CLAIM_MATCH_RULE_PAIRS,
  IDENTITY_KINDS,
  compileRe2,
} from "../sdk/rules";
import type { FieldViolation } from "../sdk/schemas/common";

type Rules = Record<string, unknown>;

/** The compiled pattern, or a description of why RE2 refuses it (the rule itself is sdk/rules.ts). */
export const compilePattern = compileRe2;

/** Identity kinds that do not need a claimMatch. */
const OTHER_IDENTITY_KINDS = IDENTITY_KINDS.filter((kind) => kind !== "claimMatch");

/**
 * Every rule a claimMatch breaks, one violation per field (`claimMatch.subject`...). `identity` is the rest of the
 * identity (another identity kind needs no claimMatch). Members of the wrong type are left to the schema.
 */
export function claimMatchViolations(claimMatch: unknown, identity: Rules = {}): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const add = (field: string, description: string): void => {
    if (!violations.some((v) => v.field === field)) violations.push({ field, description });
  };
  if (claimMatch === undefined) {
    if (!OTHER_IDENTITY_KINDS.some((kind) => identity[kind] !== undefined))
      add(
        "claimMatch",
        "claimMatch is required: an issuer or issuerPattern, and a subject or subjectPattern",
      );
    return violations;
  }
  if (claimMatch === null || typeof claimMatch !== "object" || Array.isArray(claimMatch)) return violations;
  const rules = claimMatch as Rules;
  for (const key of ["issuer", "issuerPattern", "subject", "subjectPattern", "audience", "audiencePattern"]) {
    if (rules[key] === "")
      add(`claimMatch.${key}`, `claimMatch.${key} must not be empty (leave it out instead)`);
  }
  for (const [exact, pattern] of CLAIM_MATCH_RULE_PAIRS) {
    if (rules[exact] === undefined && rules[pattern] === undefined) {
      add(
        `claimMatch.${exact}`,
        `claimMatch needs a non-empty ${exact} or ${pattern}: without one any ${exact} would match`,
      );
    }
  }
  const claimPatterns = rules.claimPatterns;
  const patterns: [string, unknown][] = [
    ...CLAIM_MATCH_PATTERN_MEMBERS.map((key): [string, unknown] => [`claimMatch.${key}`, rules[key]]),
    ...(claimPatterns !== null && typeof claimPatterns === "object" && !Array.isArray(claimPatterns)
      ? Object.entries(claimPatterns as Rules).map(([name, p]): [string, unknown] => [
          `claimMatch.claimPatterns.${name}`,
          p,
        ])
      : []),
  ];
  for (const [field, pattern] of patterns) {
    if (typeof pattern !== "string") continue;
    if (pattern === "") add(field, `${field} must not be empty (leave it out instead)`);
    const result = compilePattern(pattern);
    if (typeof result === "string") add(field, `${field} ${result}`);
  }
  return violations;
}

/** Throws code 3 naming every failing field (the identity as it will be stored, e.g. after a PATCH). */
export function validateClaimMatch(claimMatch: unknown, identity: Rules = {}): void {
  const violations = claimMatchViolations(claimMatch, identity);
  if (violations.length > 0)
    throw invalidArgument(violations.map((v) => v.description).join("; "), violations);
}

/** The values of a claim as strings; a missing (or structured) claim has none, so it never matches. */
function claimValues(value: unknown): string[] {
  const one = (v: unknown): string[] =>
    typeof v === "string" ? [v] : typeof v === "number" || typeof v === "boolean" ? [String(v)] : [];
  return Array.isArray(value) ? value.flatMap(one) : one(value);
}

/** Does one claim satisfy an exact value and/or a pattern (each only when set)? */
function claimMatches(value: unknown, exact: unknown, pattern: unknown): boolean {
  const values = claimValues(value);
  if (typeof exact === "string" && !values.includes(exact)) return false;
  if (typeof pattern === "string") {
    const regex = compilePattern(pattern);
    if (typeof regex === "string") return false;
    if (!values.some((v) => regex.matches(v))) return false;
  }
  return true;
}

/**
 * Is a verified ID token's payload accepted by this claimMatch? Issuer and subject rules are required (an
 * identity stored before these rules, without them, is not assumable); extra claims are checked when set. The
 * audience always is: against `audience` / `audiencePattern` when the identity names one, else one of the token's
 * `aud` values must be the service's own (`isServiceAudience`), so a token minted for another service cannot be
 * replayed here.
 */
export function claimMatchAccepts(
  claimMatch: Rules | undefined,
  payload: Rules,
  isServiceAudience: (aud: string) => boolean,
): boolean {
  if (claimMatch === undefined) return false;
  const has = (key: string): boolean => typeof claimMatch[key] === "string" && claimMatch[key] !== "";
  if (!(has("issuer") || has("issuerPattern")) || !(has("subject") || has("subjectPattern"))) return false;
  if (!claimMatches(payload.iss, claimMatch.issuer, claimMatch.issuerPattern)) return false;
  if (!claimMatches(payload.sub, claimMatch.subject, claimMatch.subjectPattern)) return false;
  if (has("audience") || has("audiencePattern")) {
    if (!claimMatches(payload.aud, claimMatch.audience, claimMatch.audiencePattern)) return false;
  } else if (!claimValues(payload.aud).some(isServiceAudience)) return false;
  // A claim's name is data: `constructor` is the token's claim of that name or none, never a member of ours.
  const claim = (name: string): unknown => (Object.hasOwn(payload, name) ? payload[name] : undefined);
  for (const [name, expected] of Object.entries((claimMatch.claims as Rules | undefined) ?? {}))
    if (!claimMatches(claim(name), expected, undefined)) return false;
  for (const [name, pattern] of Object.entries((claimMatch.claimPatterns as Rules | undefined) ?? {}))
    if (!claimMatches(claim(name), undefined, pattern)) return false;
  return true;
}
