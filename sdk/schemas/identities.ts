/**
 * Identities: workload identities assumable through token exchange. The shapes are OpenAPI
 * platform.iam.v2beta1.Identity (./openapi.generated); what the spec adds (required members, 12-digit accounts, the
 * oneof of how an identity is assumed) comes from ../rules.
 */
import { z } from "zod";
import { AWS_ACCOUNT_PATTERN, IDENTITY_KINDS } from "../rules";
import { listEnvelope, ObjectName, ObjectNameUpdate } from "./common";
import { pick } from "./derive";
import * as wire from "./openapi.generated";

/** How a presented OIDC token is matched; exact values or regular-expression patterns. */
export const ClaimMatch = wire.IdentityClaimMatch;
export type ClaimMatch = z.infer<typeof ClaimMatch>;

/**
 * Pre-registered verification keys, for token issuers without an online discovery document
 * (OpenAPI platform.iam.v2beta1.Identity.StaticKeys). The keys expire (at most 365 days after they are set).
 * `issuerKeys` is a JWKS document (JSON text), stored as given; the keys are checked when a token is exchanged.
 */
export const StaticKeys = wire.IdentityStaticKeys.extend({
  issuer: z.string({ error: "issuer is required" }).min(1, "issuer must not be empty"),
  subject: z.string({ error: "subject is required" }).min(1, "subject must not be empty"),
  issuerKeys: z.string({ error: "issuerKeys is required" }).min(1, "issuerKeys must not be empty"),
});
export type StaticKeys = z.infer<typeof StaticKeys>;

/** AWS IAM users and roles (OpenAPI platform.iam.v2beta1.Identity.AWSIdentity). */
export const AwsIdentity = wire.IdentityAWSIdentity.extend({
  awsAccount: z
    .string({ error: "awsAccount is required" })
    .regex(AWS_ACCOUNT_PATTERN, "awsAccount must be 12 digits"),
});
export type AwsIdentity = z.infer<typeof AwsIdentity>;

/**
 * A Chainguard service that may assume the identity (OpenAPI platform.iam.v2beta1.ServicePrincipal, an enum sent
 * by name). Token exchange never assumes one: the service's own workloads do, not a presented OIDC token.
 */
export const SERVICE_PRINCIPALS = wire.ServicePrincipalValues;
/** On create and update: one of SERVICE_PRINCIPALS. Read back as a plain string (the enum may grow). */
export const ServicePrincipal = z.enum(SERVICE_PRINCIPALS, {
  error: `servicePrincipal must be one of ${SERVICE_PRINCIPALS.join(", ")}`,
});

/** The members that say how an identity is assumed: at most one of them is set (a oneof in the API). */
export const IDENTITY_RELATIONSHIPS = IDENTITY_KINDS;

export const Identity = wire.Identity.required({ uid: true, name: true });
export type Identity = z.infer<typeof Identity>;

export const IdentityCreate = pick(wire.Identity, wire.IdentityWritable).extend({
  name: ObjectName,
  staticKeys: StaticKeys.optional(),
  awsIdentity: AwsIdentity.optional(),
  servicePrincipal: ServicePrincipal.optional(),
});
export type IdentityCreate = z.infer<typeof IdentityCreate>;

/** What an update may change: every member a client may send (the descriptive ones and each way of being assumed). */
export const IDENTITY_UPDATE_FIELDS = wire.IdentityWritable;
export const IdentityUpdate = IdentityCreate.partial().extend({ name: ObjectNameUpdate });
export type IdentityUpdate = z.infer<typeof IdentityUpdate>;

/** GET /iam/v2beta1/identities:lookupIdentity: the uid for an issuer and subject. */
export const LookupIdentityResponse = wire.LookupIdentityResponse.required({ uid: true });
export type LookupIdentityResponse = z.infer<typeof LookupIdentityResponse>;

export const IdentityList = listEnvelope("identities", Identity);
