/**
 * platform.iam.Identity, declared once (../core/declaration), with the shapes of its three kinds.
 *
 * May import: zod, re2js, ../../sdk/schemas, ../core/declaration.
 */
import { RE2JS } from "re2js";
import { z } from "zod";
import { MAX_PATTERN_LENGTH } from "../../sdk/schemas/bounds";
import { Uidp } from "../../sdk/schemas";
import { ServicePrincipal } from "../../sdk/schemas/identities";
import { declareResource, input, output } from "../core/declaration";

const text = (what: string) => z.string().min(1, `${what} must not be empty`);

/**
 * Why the service would refuse `pattern`, or undefined: it evaluates patterns with RE2 (no backreferences or
 * lookaround), each compiled on its own before it is anchored, so an unbalanced group is refused too.
 */
export function re2Problem(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters`;
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (error) {
    return `is not a valid RE2 regular expression (${(error as Error).message})`;
  }
}

/** How a presented OIDC token is matched; exact values or regular expressions. */
export const ClaimMatchInputSchema = z
  .object({
    issuer: text("issuer").optional().describe("The exact issuer (iss) URL of accepted tokens."),
    issuerPattern: text("issuerPattern")
      .optional()
      .describe("An RE2 regular expression the whole issuer must match."),
    subject: text("subject").optional().describe("The exact subject (sub) claim of accepted tokens."),
    subjectPattern: text("subjectPattern")
      .optional()
      .describe("An RE2 regular expression the whole subject must match."),
    audience: text("audience").optional().describe("The exact audience (aud) claim."),
    audiencePattern: text("audiencePattern")
      .optional()
      .describe("An RE2 regular expression the whole audience must match."),
    claims: z
      .record(z.string(), z.string())
      .optional()
      .describe("Other claims that must equal these values."),
    claimPatterns: z
      .record(z.string(), z.string())
      .optional()
      .describe("Other claims that must match these RE2 regular expressions."),
  })
  .superRefine((match, ctx) => {
    if (match.issuer === undefined && match.issuerPattern === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["issuer"],
        message: "claimMatch needs an issuer or an issuerPattern",
      });
    }
    if (match.subject === undefined && match.subjectPattern === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["subject"],
        message: "claimMatch needs a subject or a subjectPattern",
      });
    }
    for (const [key, pattern] of [
      ["issuerPattern", match.issuerPattern],
      ["subjectPattern", match.subjectPattern],
      ["audiencePattern", match.audiencePattern],
    ] as const) {
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
 * Why `issuerKeys` must not be stored, or undefined. The service takes the keys as given (its own clients send keys
 * that are not JSON) and checks them when a token is exchanged, so a preview refuses only what must never be sent:
 * a private key, in a JWKS document that holds one.
 */
function issuerKeysProblem(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const keys = (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) return undefined;
  for (const [i, key] of keys.entries()) {
    if (typeof key === "object" && key !== null && "d" in key)
      return `issuerKeys: keys[${i}] is a private key; give only the public key`;
  }
  return undefined;
}

/** Pre-registered public keys, for token issuers without an online discovery document. */
export const StaticKeysInputSchema = z
  .object({
    issuer: text("issuer").describe("The exact issuer (iss) of accepted tokens."),
    subject: text("subject").describe("The exact subject (sub) of accepted tokens."),
    issuerKeys: text("issuerKeys").describe(
      'The public keys that sign accepted tokens, usually a JWKS document (JSON text, e.g. {"keys":[...]}); the service checks them when a token is exchanged. Never a private key.',
    ),
    expirationTime: z
      .string()
      .refine((t) => Number.isFinite(Date.parse(t)), "expirationTime must be an RFC 3339 timestamp")
      .describe(
        "When the keys stop being accepted (RFC 3339), at most 365 days ahead. Required here, so the service's default never shows as drift.",
      ),
    audiences: z
      .array(text("audience"))
      .max(1, "audiences takes one value (the service supports exactly one today)")
      .optional()
      .describe("The accepted aud value (one); without it the service's own address."),
  })
  .superRefine((keys, ctx) => {
    const problem = issuerKeysProblem(keys.issuerKeys);
    if (problem !== undefined) ctx.addIssue({ code: "custom", path: ["issuerKeys"], message: problem });
  });

/** AWS IAM users and roles. */
export const AwsIdentityInputSchema = z
  .object({
    awsAccount: z
      .string()
      .regex(/^\d{12}$/, "awsAccount must be 12 digits")
      .describe("The AWS account id (12 digits)."),
    arn: text("arn").optional().describe("The exact ARN to match."),
    arnPattern: text("arnPattern").optional().describe("An RE2 regular expression the whole ARN must match."),
    userId: text("userId").optional().describe("The exact user id to match."),
    userIdPattern: text("userIdPattern")
      .optional()
      .describe("An RE2 regular expression the whole user id must match."),
  })
  .superRefine((aws, ctx) => {
    for (const [key, pattern] of [
      ["arnPattern", aws.arnPattern],
      ["userIdPattern", aws.userIdPattern],
    ] as const) {
      if (pattern === undefined) continue;
      const problem = re2Problem(pattern);
      if (problem) ctx.addIssue({ code: "custom", path: [key], message: `${key} ${problem}` });
    }
  });

/** How an identity is assumed: exactly one of these (a oneof in the API). */
export const IDENTITY_KINDS = ["claimMatch", "staticKeys", "awsIdentity", "servicePrincipal"] as const;

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
