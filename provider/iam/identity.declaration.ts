/**
 * platform.iam.Identity, declared once (../core/declaration), with the shapes of its three kinds.
 *
 * The rules beyond the OpenAPI (RE2 patterns, the private-key refusal, the oneof of kinds, 12-digit accounts) are
 * the spec's, shared with the SDK and the emulator (../../sdk/rules).
 */
import { z } from "zod";
import {
  AWS_IDENTITY_PATTERN_MEMBERS,
  CLAIM_MATCH_PATTERN_MEMBERS,
  CLAIM_MATCH_RULE_PAIRS,
  IDENTITY_KINDS,
  STATIC_KEYS_MAX_AUDIENCES,
  privateKeyProblem,
  re2Problem,
} from "../../sdk/rules";
import { Uidp } from "../../sdk/schemas";
import { AwsIdentity, ClaimMatch, ServicePrincipal, StaticKeys } from "../../sdk/schemas/identities";
import { adoptInput, declareResource, input, nestedInput, output } from "../core/declaration";

export { IDENTITY_KINDS, re2Problem };

const text = (what: string) => z.string().min(1, `${what} must not be empty`);

const RULE_NEEDED = {
  issuer: "claimMatch needs an issuer or an issuerPattern",
  subject: "claimMatch needs a subject or a subjectPattern",
} as const;

/** A string member that must not be empty, on the wire's string. */
const nonEmpty =
  (what: string) =>
  (wire: z.ZodString): z.ZodString =>
    wire.min(1, `${what} must not be empty`);

/**
 * How a presented OIDC token is matched; exact values or regular expressions. The members are the wire's
 * (../../sdk/schemas ClaimMatch, from the OpenAPI); the docs and the RE2 and non-empty rules are the declaration's.
 */
export const ClaimMatchInputSchema = nestedInput(ClaimMatch, {
  issuer: { doc: "The exact issuer (iss) URL of accepted tokens.", rule: nonEmpty("issuer") },
  issuerPattern: {
    doc: "An RE2 regular expression the whole issuer must match.",
    rule: nonEmpty("issuerPattern"),
  },
  subject: { doc: "The exact subject (sub) claim of accepted tokens.", rule: nonEmpty("subject") },
  subjectPattern: {
    doc: "An RE2 regular expression the whole subject must match.",
    rule: nonEmpty("subjectPattern"),
  },
  audience: { doc: "The exact audience (aud) claim.", rule: nonEmpty("audience") },
  audiencePattern: {
    doc: "An RE2 regular expression the whole audience must match.",
    rule: nonEmpty("audiencePattern"),
  },
  claims: { doc: "Other claims that must equal these values." },
  claimPatterns: { doc: "Other claims that must match these RE2 regular expressions." },
}).superRefine((match, ctx) => {
  for (const [exact, pattern] of CLAIM_MATCH_RULE_PAIRS) {
    if (match[exact] === undefined && match[pattern] === undefined) {
      ctx.addIssue({
        code: "custom",
        path: [exact],
        message: RULE_NEEDED[exact],
      });
    }
  }
  for (const key of CLAIM_MATCH_PATTERN_MEMBERS) {
    const pattern = match[key];
    if (pattern === undefined) continue;
    const problem = re2Problem(pattern);
    if (problem) ctx.addIssue({ code: "custom", path: [key], message: `${key} ${problem}` });
  }
  for (const [claim, pattern] of Object.entries(match.claimPatterns ?? {})) {
    const problem = re2Problem(pattern);
    if (problem)
      ctx.addIssue({ code: "custom", path: ["claimPatterns", claim], message: `${claim} ${problem}` });
  }
});

/**
 * Pre-registered public keys, for token issuers without an online discovery document. The members are the wire's
 * (../../sdk/schemas StaticKeys: issuer, subject and issuerKeys required and non-empty, as the spec says).
 */
export const StaticKeysInputSchema = nestedInput(StaticKeys, {
  issuer: { doc: "The exact issuer (iss) of accepted tokens.", required: true },
  subject: { doc: "The exact subject (sub) of accepted tokens.", required: true },
  issuerKeys: {
    doc: 'The public keys that sign accepted tokens, usually a JWKS document (JSON text, e.g. {"keys":[...]}); the service checks them when a token is exchanged. Never a private key.',
    required: true,
  },
  expirationTime: {
    doc: "When the keys stop being accepted (RFC 3339), at most 365 days ahead. Required here, so the service's default never shows as drift.",
    required: true,
    rule: (wire) =>
      wire.refine((t) => Number.isFinite(Date.parse(t)), "expirationTime must be an RFC 3339 timestamp"),
  },
  audiences: {
    doc: "The accepted aud value (one); without it the service's own address.",
    rule: () =>
      z
        .array(text("audience"))
        .max(STATIC_KEYS_MAX_AUDIENCES, "audiences takes one value (the service supports exactly one today)"),
  },
}).superRefine((keys, ctx) => {
  // The keys are taken as given and checked at token exchange; a preview refuses only a private key.
  const problem = privateKeyProblem(keys.issuerKeys ?? "", "issuerKeys");
  if (problem !== undefined) ctx.addIssue({ code: "custom", path: ["issuerKeys"], message: problem });
});

/** AWS IAM users and roles. The members are the wire's (../../sdk/schemas AwsIdentity: a 12-digit awsAccount). */
export const AwsIdentityInputSchema = nestedInput(AwsIdentity, {
  awsAccount: { doc: "The AWS account id (12 digits).", required: true },
  arn: { doc: "The exact ARN to match.", rule: nonEmpty("arn") },
  arnPattern: { doc: "An RE2 regular expression the whole ARN must match.", rule: nonEmpty("arnPattern") },
  userId: { doc: "The exact user id to match.", rule: nonEmpty("userId") },
  userIdPattern: {
    doc: "An RE2 regular expression the whole user id must match.",
    rule: nonEmpty("userIdPattern"),
  },
}).superRefine((aws, ctx) => {
  for (const key of AWS_IDENTITY_PATTERN_MEMBERS) {
    const pattern = aws[key];
    if (pattern === undefined) continue;
    const problem = re2Problem(pattern);
    if (problem) ctx.addIssue({ code: "custom", path: [key], message: `${key} ${problem}` });
  }
});

const ONE_KIND = `Exactly one of ${IDENTITY_KINDS.join(", ")}.`;

export const IDENTITY = declareResource({
  token: "platform:iam:Identity",
  stem: "identity",
  summary:
    "A workload identity that a token can assume through token exchange: an OIDC token matching claimMatch, a token signed by one of its staticKeys, or an AWS IAM principal matching awsIdentity; or a platform service acting as servicePrincipal (exactly one of the four).",
  importId: "the identity's uid",
  inputs: {
    parentUid: input(Uidp, {
      doc: "The uid of the group the identity lives in. Changing it replaces the identity.",
      replaces: true,
      inPath: true,
    }),
    name: input(text("name"), { doc: "The identity's name." }),
    description: input(z.string().optional(), {
      doc: "A description; absent is the same as empty.",
      default: "",
    }),
    claimMatch: input(ClaimMatchInputSchema.optional(), {
      doc: `Which OIDC tokens may assume this identity: an issuer or issuerPattern, and a subject or subjectPattern. ${ONE_KIND}`,
    }),
    staticKeys: input(StaticKeysInputSchema.optional(), {
      doc: `Tokens signed by these public keys, with this issuer and subject, may assume the identity. ${ONE_KIND}`,
    }),
    awsIdentity: input(AwsIdentityInputSchema.optional(), {
      doc: `AWS IAM users and roles that may assume the identity. ${ONE_KIND}`,
    }),
    servicePrincipal: input(ServicePrincipal.optional(), {
      doc: `A platform service (SERVICE_PRINCIPAL_INGESTER, ...) that acts as this identity; no token exchange assumes it. ${ONE_KIND}`,
    }),
    adopt: adoptInput(),
  },
  outputs: {
    uid: output(z.string(), "The identity's uid, assigned by the service."),
    createTime: output(z.string(), "When the identity was created (RFC 3339)."),
  },
  refine(inputs, ctx) {
    const set = IDENTITY_KINDS.filter((k) => inputs[k] !== undefined);
    if (set.length === 1) return;
    ctx.addIssue({
      code: "custom",
      path: [set[1] ?? "claimMatch"],
      message:
        set.length === 0
          ? `set exactly one of ${IDENTITY_KINDS.join(", ")}`
          : `set exactly one of ${IDENTITY_KINDS.join(", ")} (got ${set.join(" and ")})`,
    });
  },
});

export const IdentityInputSchema = IDENTITY.inputSchema;
export type IdentityInputs = z.infer<typeof IdentityInputSchema>;
