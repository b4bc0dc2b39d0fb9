/**
 * The inputs of platform.iam.IdentityProvider (an organization's OIDC login) as one zod schema (check,
 * schema.json). The OIDC settings are flat inputs (`issuer`, `clientId`, `clientSecret`, ...) rather than
 * an `oidc` block, so `clientSecret` is a top-level property that Pulumi can keep secret on its own
 * (`additionalSecretOutputs` names top-level properties only); the provider nests them for the API.
 *
 * May import: zod, ../../sdk/schemas, ../core.
 */
import { z } from "zod";
import { RoleUid, Uidp } from "../../sdk/schemas";
import type { FieldSpec } from "../core/diff";
import { CommonInputSchema } from "../core/common-schema";

const text = (what: string) => z.string().min(1, `${what} must not be empty`);

export const IdentityProviderInputSchema = z.object({
  parentUid: Uidp.refine((uid) => !uid.includes("/"), {
    error: "parentUid must be an organization (a root group uid): identity providers cannot live in a folder",
  }).describe("The uid of the organization the identity provider belongs to. Changing it replaces it."),
  name: text("name").describe("The identity provider's name."),
  description: z.string().optional().describe("A description; absent is the same as empty."),
  defaultRole: RoleUid.describe(
    "The role (uid) people who log in through this provider get by default; a custom role's uid or a built-in 40-hex uid.",
  ),
  issuer: z
    .url({ protocol: /^https$/, error: "issuer must be an https URL" })
    .describe("The OIDC issuer URL (https)."),
  clientId: text("clientId").describe("The OIDC client id."),
  clientSecret: text("clientSecret").describe(
    "The OIDC client secret. Write-only in the API: the provider keeps the program's value (as a secret) and sends it only when it changes.",
  ),
  additionalScopes: z
    .array(text("additionalScopes[]"))
    .optional()
    .describe("Scopes requested besides openid. Order does not matter."),
  groupsClaim: z.string().optional().describe("The token claim that lists the user's groups."),
  pkceEnabled: z.boolean().optional().describe("Use PKCE in the login flow. Default false."),
  ...CommonInputSchema.shape,
});
export type IdentityProviderInputs = z.infer<typeof IdentityProviderInputSchema>;

/** The inputs that make up the API's `oidc` block. */
export const OIDC_KEYS = [
  "issuer",
  "clientId",
  "clientSecret",
  "additionalScopes",
  "groupsClaim",
  "pkceEnabled",
] as const;

export const IDENTITY_PROVIDER_FIELDS: readonly FieldSpec[] = [
  { key: "name", kind: "string" },
  { key: "description", kind: "string" },
  { key: "defaultRole", kind: "string" },
  { key: "issuer", kind: "string" },
  { key: "clientId", kind: "string" },
  // Compared with the previous INPUT kept in state (the API never returns it), so refresh shows no diff.
  { key: "clientSecret", kind: "string" },
  { key: "additionalScopes", kind: "stringSet" },
  { key: "groupsClaim", kind: "string" },
  { key: "pkceEnabled", kind: "string" },
  { key: "parentUid", kind: "string", replaces: true },
];

/** Properties the resource class marks secret in state and in the program. */
export const IDENTITY_PROVIDER_SECRETS = ["clientSecret"] as const;

export const IdentityProviderOutputSchema = z.object({
  uid: z.string().describe("The identity provider's uid, assigned by the service."),
  createTime: z.string().describe("When the identity provider was created (RFC 3339)."),
});
