/**
 * Identity providers: an organization's OIDC login. The shapes are OpenAPI platform.iam.v2beta1.IdentityProvider
 * (./openapi.generated). `oidc.clientSecret` is write-only: the service never returns it.
 */
import { z } from "zod";
import { listEnvelope, ObjectName, ObjectNameUpdate, RoleUid } from "./common";
import { describedAs, pick } from "./derive";
import * as wire from "./openapi.generated";

/**
 * The OIDC settings, as the OpenAPI gives them. `correlationRule` (how a login is matched to the SCIM user this
 * provider provisioned) is a closed enum sent by name, set on create only; `scim` below is left out of this kit.
 */
const OidcWire = wire.IdentityProviderOIDC;

export const Oidc = OidcWire.required({ issuer: true, clientId: true });
export type Oidc = z.infer<typeof Oidc>;

export const IdentityProvider = wire.IdentityProvider.omit({ scim: true })
  .required({ uid: true, name: true })
  .extend({ oidc: describedAs(OidcWire, wire.IdentityProvider, "oidc").optional() });
export type IdentityProvider = z.infer<typeof IdentityProvider>;

const OidcInput = OidcWire.extend({
  issuer: z.url({ error: "oidc.issuer must be an https URL" }),
  clientId: z.string().min(1, "oidc.clientId must not be empty"),
  correlationRule: z
    .enum(wire.IdentityProviderOIDCCorrelationRuleValues, {
      error: `oidc.correlationRule must be one of ${wire.IdentityProviderOIDCCorrelationRuleValues.join(", ")}`,
    })
    .optional(),
});

export const IdentityProviderCreate = pick(wire.IdentityProvider, wire.IdentityProviderWritable).extend({
  name: ObjectName,
  defaultRole: RoleUid,
  oidc: OidcInput,
});
export type IdentityProviderCreate = z.infer<typeof IdentityProviderCreate>;

export const IDENTITY_PROVIDER_UPDATE_FIELDS = wire.IdentityProviderWritable;
export const IdentityProviderUpdate = IdentityProviderCreate.partial().extend({ name: ObjectNameUpdate });
export type IdentityProviderUpdate = z.infer<typeof IdentityProviderUpdate>;

export const IdentityProviderList = listEnvelope("identityProviders", IdentityProvider);
