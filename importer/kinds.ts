/**
 * The one table from the API's kinds (and the Terraform provider's resource types) to this provider's type tokens.
 * Everything else in importer/ reads it; when the provider's catalogue of resources can say the same, derive this
 * table from it.
 *
 * May import: nothing.
 */

export const KINDS = {
  group: { token: "platform:iam:Group", label: "group", terraform: "chainguard_group" },
  identity: { token: "platform:iam:Identity", label: "identity", terraform: "chainguard_identity" },
  role: { token: "platform:iam:Role", label: "role", terraform: "chainguard_role" },
  roleBinding: {
    token: "platform:iam:RoleBinding",
    label: "role binding",
    terraform: "chainguard_rolebinding",
  },
  identityProvider: {
    token: "platform:iam:IdentityProvider",
    label: "identity provider",
    terraform: "chainguard_identity_provider",
  },
  groupInvite: { token: "platform:iam:GroupInvite", label: "invite", terraform: "chainguard_group_invite" },
  accountAssociation: {
    token: "platform:iam:AccountAssociation",
    label: "account association",
    terraform: "chainguard_account_associations",
  },
} as const;

export type Kind = keyof typeof KINDS;

/** The kinds in the order the document lists them: containers before what they contain. */
export const KIND_ORDER = Object.keys(KINDS) as Kind[];

/** The kind a Terraform resource type maps to, if any. */
export function kindOfTerraformType(type: string): Kind | undefined {
  return KIND_ORDER.find((kind) => KINDS[kind].terraform === type);
}
