/** Identities: workload identities assumable through token exchange. OpenAPI platform.iam.v2beta1.Identity. */
import { z } from "zod";
import { Timestamp, listEnvelope } from "./common";

/** How a presented OIDC token is matched; exact values or regular-expression patterns. */
export const ClaimMatch = z.object({
  issuer: z.string().optional(),
  issuerPattern: z.string().optional(),
  subject: z.string().optional(),
  subjectPattern: z.string().optional(),
  audience: z.string().optional(),
  audiencePattern: z.string().optional(),
  claims: z.record(z.string(), z.string()).optional(),
  claimPatterns: z.record(z.string(), z.string()).optional(),
});
export type ClaimMatch = z.infer<typeof ClaimMatch>;

export const Identity = z.object({
  uid: z.string(),
  name: z.string(),
  description: z.string().optional(),
  claimMatch: ClaimMatch.optional(),
  email: z.string().optional(),
  lastSeenTime: Timestamp.optional(),
  createTime: Timestamp.optional(),
  updateTime: Timestamp.optional(),
});
export type Identity = z.infer<typeof Identity>;

export const IdentityCreate = z.object({
  name: z.string({ error: "name is required" }).min(1, "name must not be empty"),
  description: z.string().optional(),
  claimMatch: ClaimMatch.optional(),
});
export type IdentityCreate = z.infer<typeof IdentityCreate>;

export const IDENTITY_UPDATE_FIELDS = ["name", "description", "claimMatch"] as const;
export const IdentityUpdate = z.object({
  name: z.string().min(1, "name must not be empty").optional(),
  description: z.string().optional(),
  claimMatch: ClaimMatch.optional(),
});
export type IdentityUpdate = z.infer<typeof IdentityUpdate>;

export const IdentityList = listEnvelope("identities", Identity);
