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

/**
 * Pre-registered verification keys, for token issuers without an online discovery document
 * (OpenAPI platform.iam.v2beta1.Identity.StaticKeys). The keys expire (at most 365 days after they are set).
 */
export const StaticKeys = z.object({
  issuer: z.string({ error: "issuer is required" }).min(1, "issuer must not be empty"),
  subject: z.string({ error: "subject is required" }).min(1, "subject must not be empty"),
  /**
   * The public keys as a JWKS document (JSON text), e.g. `{"keys":[{"kty":"RSA",...}]}`. Stored as given; the
   * keys are checked when a token is exchanged.
   */
  issuerKeys: z.string({ error: "issuerKeys is required" }).min(1, "issuerKeys must not be empty"),
  /** RFC 3339; defaults to (and may be at most) 365 days after the keys are set. */
  expirationTime: Timestamp.optional(),
  /** Accepted `aud` values; the service supports exactly one today. */
  audiences: z.array(z.string()).optional(),
});
export type StaticKeys = z.infer<typeof StaticKeys>;

/** AWS IAM users and roles (OpenAPI platform.iam.v2beta1.Identity.AWSIdentity). */
export const AwsIdentity = z.object({
  awsAccount: z.string({ error: "awsAccount is required" }).regex(/^\d{12}$/, "awsAccount must be 12 digits"),
  arn: z.string().optional(),
  arnPattern: z.string().optional(),
  userId: z.string().optional(),
  userIdPattern: z.string().optional(),
});
export type AwsIdentity = z.infer<typeof AwsIdentity>;

/**
 * A Chainguard service that may assume the identity (OpenAPI platform.iam.v2beta1.ServicePrincipal, an enum sent
 * by name). Token exchange never assumes one: the service's own workloads do, not a presented OIDC token.
 */
export const SERVICE_PRINCIPALS = [
  "SERVICE_PRINCIPAL_UNSPECIFIED",
  "SERVICE_PRINCIPAL_COSIGNED",
  "SERVICE_PRINCIPAL_INGESTER",
  "SERVICE_PRINCIPAL_CATALOG_SYNCER",
  "SERVICE_PRINCIPAL_APKO_BUILDER",
  "SERVICE_PRINCIPAL_ENTITLEMENT_SYNCER",
  "SERVICE_PRINCIPAL_TENANT_SCANNER",
  "SERVICE_PRINCIPAL_SEDIMENTOLOGY",
  "SERVICE_PRINCIPAL_SKILLUP",
  "SERVICE_PRINCIPAL_MATERIALIZER",
  "SERVICE_PRINCIPAL_MICROFLOW",
  "SERVICE_PRINCIPAL_GUARDENER",
  "SERVICE_PRINCIPAL_MICROVM",
  "SERVICE_PRINCIPAL_SKILLS",
] as const;
/** On create and update: one of SERVICE_PRINCIPALS. Read back as a plain string (the enum may grow). */
export const ServicePrincipal = z.enum(SERVICE_PRINCIPALS, {
  error: `servicePrincipal must be one of ${SERVICE_PRINCIPALS.join(", ")}`,
});

/** The members that say how an identity is assumed: at most one of them is set (a oneof in the API). */
export const IDENTITY_RELATIONSHIPS = [
  "claimMatch",
  "staticKeys",
  "awsIdentity",
  "servicePrincipal",
] as const;

export const Identity = z.object({
  uid: z.string(),
  name: z.string(),
  description: z.string().optional(),
  company: z.string().optional(),
  claimMatch: ClaimMatch.optional(),
  staticKeys: StaticKeys.partial().optional(),
  awsIdentity: AwsIdentity.partial().optional(),
  servicePrincipal: z.string().optional(),
  email: z.string().optional(),
  emailUnverified: z.string().optional(),
  lastSeenTime: Timestamp.optional(),
  createTime: Timestamp.optional(),
  updateTime: Timestamp.optional(),
});
export type Identity = z.infer<typeof Identity>;

export const IdentityCreate = z.object({
  name: z.string({ error: "name is required" }).min(1, "name must not be empty"),
  description: z.string().optional(),
  company: z.string().optional(),
  claimMatch: ClaimMatch.optional(),
  staticKeys: StaticKeys.optional(),
  awsIdentity: AwsIdentity.optional(),
  servicePrincipal: ServicePrincipal.optional(),
});
export type IdentityCreate = z.infer<typeof IdentityCreate>;

/** What an update may change: the descriptive fields and each way of being assumed. */
export const IDENTITY_UPDATE_FIELDS = ["name", "description", "company", ...IDENTITY_RELATIONSHIPS] as const;
export const IdentityUpdate = z.object({
  name: z.string().min(1, "name must not be empty").optional(),
  description: z.string().optional(),
  company: z.string().optional(),
  claimMatch: ClaimMatch.optional(),
  staticKeys: StaticKeys.optional(),
  awsIdentity: AwsIdentity.optional(),
  servicePrincipal: ServicePrincipal.optional(),
});
export type IdentityUpdate = z.infer<typeof IdentityUpdate>;

/** GET /iam/v2beta1/identities:lookupIdentity: the uid for an issuer and subject. */
export const LookupIdentityResponse = z.object({ uid: z.string() });
export type LookupIdentityResponse = z.infer<typeof LookupIdentityResponse>;

export const IdentityList = listEnvelope("identities", Identity);
