/**
 * The inputs of platform.iam.Identity as one zod schema (check, schema.json).
 *
 * May import: zod, ../../sdk/schemas, ../core.
 */
import { z } from "zod";
import { Uidp } from "../../sdk/schemas";
import type { FieldSpec } from "../core/diff";
import { CommonInputSchema } from "../core/common-schema";

const text = (what: string) => z.string().min(1, `${what} must not be empty`);

/** How a presented OIDC token is matched; exact values or regular expressions. */
export const ClaimMatchInputSchema = z
  .object({
    issuer: text("issuer").optional().describe("The exact issuer (iss) URL of accepted tokens."),
    issuerPattern: text("issuerPattern").optional().describe("A regular expression the issuer must match."),
    subject: text("subject").optional().describe("The exact subject (sub) claim of accepted tokens."),
    subjectPattern: text("subjectPattern")
      .optional()
      .describe("A regular expression the subject must match."),
    audience: text("audience").optional().describe("The exact audience (aud) claim."),
    audiencePattern: text("audiencePattern")
      .optional()
      .describe("A regular expression the audience must match."),
    claims: z
      .record(z.string(), z.string())
      .optional()
      .describe("Other claims that must equal these values."),
    claimPatterns: z
      .record(z.string(), z.string())
      .optional()
      .describe("Other claims that must match these regular expressions."),
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
      try {
        new RegExp(pattern);
      } catch {
        ctx.addIssue({ code: "custom", path: [key], message: `${key} is not a valid regular expression` });
      }
    }
  });

export const IdentityInputSchema = z.object({
  parentUid: Uidp.describe("The uid of the group the identity lives in. Changing it replaces the identity."),
  name: text("name").describe("The identity's name."),
  description: z.string().optional().describe("A description; absent is the same as empty."),
  claimMatch: ClaimMatchInputSchema.describe(
    "Which OIDC tokens may assume this identity: an issuer or issuerPattern, and a subject or subjectPattern.",
  ),
  ...CommonInputSchema.shape,
});
export type IdentityInputs = z.infer<typeof IdentityInputSchema>;

export const IDENTITY_FIELDS: readonly FieldSpec[] = [
  { key: "name", kind: "string" },
  { key: "description", kind: "string" },
  { key: "claimMatch", kind: "object" },
  { key: "parentUid", kind: "string", replaces: true },
];

export const IdentityOutputSchema = z.object({
  uid: z.string().describe("The identity's uid, assigned by the service."),
  lastSeenTime: z.string().optional().describe("When a token last assumed this identity (RFC 3339)."),
  createTime: z.string().describe("When the identity was created (RFC 3339)."),
  updateTime: z.string().describe("When the identity was last updated (RFC 3339)."),
});
