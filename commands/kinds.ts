/**
 * The one table from the API's kinds (and the Terraform provider's resource types) to this provider's resources.
 * Each kind names its resource's stem; the type token and declaration come from the provider's catalogue, so a
 * kind cannot name a type the plugin does not serve. Everything else in importer/ reads it.
 *
 * May import: ../provider/catalogue, ../provider/core/declaration (types).
 */
import { RESOURCES } from "../provider/catalogue";
import type { ResourceDeclaration } from "../provider/core/declaration";

function kind<S extends string>(stem: S, label: string, terraform: string | undefined) {
  const declaration: ResourceDeclaration | undefined = RESOURCES.find(
    (r) => r.declaration.stem === stem,
  )?.declaration;
  if (declaration === undefined) throw new Error(`the catalogue has no resource ${stem}`);
  return { token: declaration.token, declaration, label, terraform };
}

export const KINDS = {
  group: kind("group", "group", "chainguard_group"),
  identity: kind("identity", "identity", "chainguard_identity"),
  role: kind("role", "role", "chainguard_role"),
  roleBinding: kind("role-binding", "role binding", "chainguard_rolebinding"),
  // Not kinds of the service: one resource holding many role bindings (platform-import --bindings).
  groupAccess: kind("group-access", "group access", undefined),
  identityAccess: kind("identity-access", "identity access", undefined),
  identityProvider: kind("identity-provider", "identity provider", "chainguard_identity_provider"),
  groupInvite: kind("group-invite", "invite", "chainguard_group_invite"),
  accountAssociation: kind("account-association", "account association", "chainguard_account_associations"),
};

export type Kind = keyof typeof KINDS;

/** The kinds in the order the document lists them: containers before what they contain. */
export const KIND_ORDER = Object.keys(KINDS) as Kind[];

/** The resources that hold the role bindings of a scope instead of one binding each. */
export const ACCESS_KINDS = ["groupAccess", "identityAccess"] as const;

/** The kinds of the service's objects, each one resource: what a walk lists and a report covers. */
export type ListedKind = Exclude<Kind, (typeof ACCESS_KINDS)[number]>;
export const LISTED_KINDS = KIND_ORDER.filter(
  (k): k is ListedKind => !(ACCESS_KINDS as readonly Kind[]).includes(k),
);

/** The kind a Terraform resource type maps to, if any. */
export function kindOfTerraformType(type: string): ListedKind | undefined {
  return LISTED_KINDS.find((kind) => KINDS[kind].terraform === type);
}
