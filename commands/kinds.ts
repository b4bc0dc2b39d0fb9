/**
 * The one table from the API's kinds (and the Terraform provider's resource types) to this provider's resources.
 * Each kind names its resource's declaration (provider/iam/*.declaration, the same object the catalogue's
 * implementation carries: test/commands/cli.test.ts checks each is in the catalogue, so a kind cannot name a type the
 * plugin does not serve), whose type token it takes. Everything else in importer/ reads it.
 *
 * Declarations only, not the catalogue: the catalogue loads every implementation and the Pulumi SDK, which the
 * command-line tools load only for the commands that need them.
 */
import type { ResourceDeclaration } from "../provider/core/declaration";
import { COLLECTIONS, type CollectionName } from "../sdk/collections";
import { ACCOUNT_ASSOCIATION } from "../provider/iam/account-association.declaration";
import { GROUP_ACCESS } from "../provider/iam/group-access.declaration";
import { GROUP_INVITE } from "../provider/iam/group-invite.declaration";
import { GROUP } from "../provider/iam/group.declaration";
import { IDENTITY_ACCESS } from "../provider/iam/identity-access.declaration";
import { IDENTITY_PROVIDER } from "../provider/iam/identity-provider.declaration";
import { IDENTITY } from "../provider/iam/identity.declaration";
import { ROLE_BINDING } from "../provider/iam/role-binding.declaration";
import { ROLE } from "../provider/iam/role.declaration";

/** A kind of the service: its collection (../sdk/collections) and its label, the API's word unless given. */
function listed(
  declaration: ResourceDeclaration,
  collection: CollectionName,
  terraform: string,
  label: string = COLLECTIONS[collection].singular,
) {
  return { token: declaration.token, declaration, label, terraform, collection };
}

/** A resource that is no kind of the service: one holding many role bindings (platform-import --bindings). */
function bindingSet(declaration: ResourceDeclaration, label: string) {
  return { token: declaration.token, declaration, label, terraform: undefined, collection: undefined };
}

export const IMPORT_KINDS = {
  group: listed(GROUP, "groups", "chainguard_group"),
  identity: listed(IDENTITY, "identities", "chainguard_identity"),
  role: listed(ROLE, "roles", "chainguard_role"),
  roleBinding: listed(ROLE_BINDING, "roleBindings", "chainguard_rolebinding"),
  groupAccess: bindingSet(GROUP_ACCESS, "group access"),
  identityAccess: bindingSet(IDENTITY_ACCESS, "identity access"),
  identityProvider: listed(IDENTITY_PROVIDER, "identityProviders", "chainguard_identity_provider"),
  groupInvite: listed(
    GROUP_INVITE,
    "groupInvites",
    "chainguard_group_invite",
    COLLECTIONS.groupInvites.noun.under,
  ),
  accountAssociation: listed(ACCOUNT_ASSOCIATION, "accountAssociations", "chainguard_account_associations"),
};

export type ImportKind = keyof typeof IMPORT_KINDS;

/** The kinds in the order the document lists them: containers before what they contain. */
export const KIND_ORDER = Object.keys(IMPORT_KINDS) as ImportKind[];

/** The resources that hold the role bindings of a scope instead of one binding each. */
export const ACCESS_KINDS = ["groupAccess", "identityAccess"] as const;

/** The kinds of the service's objects, each one resource: what a walk lists and a report covers. */
export type ListedKind = Exclude<ImportKind, (typeof ACCESS_KINDS)[number]>;
export const LISTED_KINDS = KIND_ORDER.filter(
  (k): k is ListedKind => !(ACCESS_KINDS as readonly ImportKind[]).includes(k),
);

/** The kind a Terraform resource type maps to, if any. */
export function kindOfTerraformType(type: string): ListedKind | undefined {
  return LISTED_KINDS.find((kind) => IMPORT_KINDS[kind].terraform === type);
}
