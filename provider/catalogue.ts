/**
 * The one list of what this package serves: every resource (its implementation, which carries its declaration)
 * and every data source (its declaration). schema.json (./schema), the plugin's tables (plugin/), the generated
 * types and the docs (scripts/) all read it; a test checks that the program-side modules export each entry.
 *
 * Loaded in the provider process, the plugin and the generators; never by a program (the classes and functions a
 * program imports stay light and use ./types, which is generated from this).
 */
import * as group from "./iam/group.implementation";
import * as identity from "./iam/identity.implementation";
import * as role from "./iam/role.implementation";
import * as roleBinding from "./iam/role-binding.implementation";
import * as groupAccess from "./iam/group-access.implementation";
import * as identityAccess from "./iam/identity-access.implementation";
import * as identityProvider from "./iam/identity-provider.implementation";
import * as groupInvite from "./iam/group-invite.implementation";
import * as accountAssociation from "./iam/account-association.implementation";
import * as getRoles from "./iam/get-roles.implementation";
import * as getRole from "./iam/get-role.implementation";
import * as getGroup from "./iam/get-group.implementation";
import * as getIdentity from "./iam/get-identity.implementation";
import * as getRepos from "./registry/get-repos.implementation";
import * as getRepo from "./registry/get-repo.implementation";
import * as getTags from "./registry/get-tags.implementation";
import * as getIdentityProviders from "./iam/get-identity-providers.implementation";
import * as getAdvisories from "./vulnerabilities/get-advisories.implementation";
import * as getEffectiveAccess from "./iam/get-effective-access.implementation";
import type * as pulumi from "@pulumi/pulumi";
import type { DataSourceDeclaration, ResourceDeclaration } from "./core/declaration";
import type { ResourceDescription, ResourceOperations } from "./core/resource-provider";
import type { AccessDescription } from "./iam/access-provider";

/**
 * A resource as the catalogue holds it: its shared description (with its declaration), its operations (what the
 * plugin drives) and the dynamic provider object made of them.
 */
export interface CatalogueResource {
  declaration: ResourceDeclaration;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- every resource's own input and object types
  description: ResourceDescription<any, any> | AccessDescription;
  operations: ResourceOperations;
  provider: pulumi.dynamic.ResourceProvider;
}

function entry(module: {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  description: ResourceDescription<any, any> | AccessDescription;
  resource: ResourceOperations;
  provider: pulumi.dynamic.ResourceProvider;
}): CatalogueResource {
  return {
    declaration: module.description.declaration,
    description: module.description,
    operations: module.resource,
    provider: module.provider,
  };
}

/** In the order schema.json, the docs and the README show them. */
export const RESOURCES: readonly CatalogueResource[] = [
  group,
  identity,
  role,
  roleBinding,
  groupAccess,
  identityAccess,
  identityProvider,
  groupInvite,
  accountAssociation,
].map(entry);

/** A resource built on the kit's field mapping: its description maps each declared field to the wire. */
export type FieldMappedResource = CatalogueResource & {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  description: ResourceDescription<any, any>;
};

/**
 * Every resource but the authoritative ones (GroupAccess, IdentityAccess), whose inputs are a scope and a SET of
 * bindings (./iam/access-provider), not fields of one API object. The round trip of every declared field
 * (test/provider/declared-fields.test.ts) runs over these with the object read back, and over the access resources
 * with the set their scope holds listed instead.
 */
export const FIELD_MAPPED_RESOURCES: readonly FieldMappedResource[] = RESOURCES.filter(
  (resource): resource is FieldMappedResource => "get" in resource.description,
);

export const DATA_SOURCES: readonly DataSourceDeclaration[] = [
  getRoles,
  getRole,
  getGroup,
  getIdentity,
  getRepos,
  getRepo,
  getTags,
  getIdentityProviders,
  getAdvisories,
  getEffectiveAccess,
].map((module) => module.declaration);
