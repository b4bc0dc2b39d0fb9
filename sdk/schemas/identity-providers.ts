/**
 * Identity providers: an organization's OIDC login. OpenAPI platform.iam.v2beta1.IdentityProvider.
 * `oidc.clientSecret` is write-only: the service never returns it.
 */
import { z } from "zod";
import { RoleUid, Timestamp, listEnvelope } from "./common";

/**
 * OpenAPI IdentityProvider.OIDC.CorrelationRule: how a login is matched to the SCIM user this provider
 * provisioned. A closed enum, sent by name.
 */
export const CORRELATION_RULES = [
  "CORRELATION_RULE_UNSPECIFIED",
  "CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID",
  "CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID",
] as const;

export const Oidc = z.object({
  issuer: z.string(),
  clientId: z.string(),
  clientSecret: z.string().optional(),
  additionalScopes: z.array(z.string()).optional(),
  groupsClaim: z.string().optional(),
  pkceEnabled: z.boolean().optional(),
  correlationRule: z.string().optional(),
});
export type Oidc = z.infer<typeof Oidc>;

export const IdentityProvider = z.object({
  uid: z.string(),
  name: z.string(),
  description: z.string().optional(),
  defaultRole: z.string().optional(),
  oidc: Oidc.partial().optional(),
  createTime: Timestamp.optional(),
  updateTime: Timestamp.optional(),
});
export type IdentityProvider = z.infer<typeof IdentityProvider>;

const OidcInput = z.object({
  issuer: z.url({ error: "oidc.issuer must be an https URL" }),
  clientId: z.string().min(1, "oidc.clientId must not be empty"),
  clientSecret: z.string().optional(),
  additionalScopes: z.array(z.string()).optional(),
  groupsClaim: z.string().optional(),
  pkceEnabled: z.boolean().optional(),
  correlationRule: z
    .enum(CORRELATION_RULES, { error: `oidc.correlationRule must be one of ${CORRELATION_RULES.join(", ")}` })
    .optional(),
});

export const IdentityProviderCreate = z.object({
  name: z.string({ error: "name is required" }).min(1, "name must not be empty"),
  description: z.string().optional(),
  defaultRole: RoleUid,
  oidc: OidcInput,
});
export type IdentityProviderCreate = z.infer<typeof IdentityProviderCreate>;

export const IDENTITY_PROVIDER_UPDATE_FIELDS = ["name", "description", "defaultRole", "oidc"] as const;
export const IdentityProviderUpdate = z.object({
  name: z.string().min(1, "name must not be empty").optional(),
  description: z.string().optional(),
  defaultRole: RoleUid.optional(),
  oidc: OidcInput.optional(),
});
export type IdentityProviderUpdate = z.infer<typeof IdentityProviderUpdate>;

export const IdentityProviderList = listEnvelope("identityProviders", IdentityProvider);
