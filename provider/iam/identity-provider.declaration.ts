/**
 * platform.iam.IdentityProvider (an organization's OIDC login), declared once (../core/declaration). The OIDC
 * settings are flat inputs (`issuer`, `clientId`, `clientSecret`, ...) rather than an `oidc` block, so
 * `clientSecret` is a top-level property that Pulumi can keep secret on its own (`additionalSecretOutputs` names
 * top-level properties only); the implementation nests them for the API.
 */
import { z } from "zod";
import { RoleUid, Uidp } from "../../sdk/schemas";
import { adoptInput, declareResource, input, output } from "../core/declaration";
import { isRoot } from "../../sdk/uidp";

const text = (what: string) => z.string().min(1, `${what} must not be empty`);

export const IDENTITY_PROVIDER = declareResource({
  token: "platform:iam:IdentityProvider",
  stem: "identity-provider",
  summary:
    "An organization's OIDC login. clientSecret is write-only in the API: kept secret in state and sent only when it changes.",
  importId: "the identity provider's uid",
  inputs: {
    parentUid: input(
      Uidp.refine((uid) => isRoot(uid), {
        error:
          "parentUid must be an organization (a root group uid): identity providers cannot live in a folder",
      }),
      {
        doc: "The uid of the organization the identity provider belongs to. Changing it replaces it.",
        replaces: true,
        inPath: true,
      },
    ),
    name: input(text("name"), { doc: "The identity provider's name." }),
    description: input(z.string().optional(), {
      doc: "A description; absent is the same as empty.",
      default: "",
    }),
    defaultRole: input(RoleUid, {
      doc: "The role (uid) people who log in through this provider get by default; a custom role's uid or a built-in 40-hex uid.",
    }),
    issuer: input(z.url({ protocol: /^https$/, error: "issuer must be an https URL" }), {
      doc: "The OIDC issuer URL (https).",
    }),
    clientId: input(text("clientId"), { doc: "The OIDC client id." }),
    clientSecret: input(text("clientSecret"), {
      doc: "The OIDC client secret. Write-only in the API: the provider keeps the program's value (as a secret) and sends it only when it changes.",
      secret: true,
      writeOnly: true,
    }),
    additionalScopes: input(z.array(text("additionalScopes[]")).optional(), {
      doc: "Scopes requested besides openid. Order does not matter.",
      default: [],
    }),
    groupsClaim: input(z.string().optional(), {
      doc: "The token claim that lists the user's groups.",
      default: "",
    }),
    pkceEnabled: input(z.boolean().optional(), {
      doc: "Use PKCE in the login flow. Default false.",
      default: false,
    }),
    adopt: adoptInput(),
  },
  outputs: {
    uid: output(z.string(), "The identity provider's uid, assigned by the service."),
    createTime: output(z.string(), "When the identity provider was created (RFC 3339)."),
  },
});

export const IdentityProviderInputSchema = IDENTITY_PROVIDER.inputSchema;
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
