/**
 * Every collection's spec (./crud `CollectionSpec`), by its kind: one per row of the table of collections
 * (../../sdk/collections), which the compiler checks (a row without a spec does not type-check here).
 *
 * May import: ../store (types), ./crud (types), the collections' route files.
 */
import type { Kind } from "../store";
import type { CollectionSpec } from "./crud";
import { accountAssociations } from "./account-associations";
import { advisories } from "./advisories";
import { groupInvites } from "./group-invites";
import { groups } from "./groups";
import { identities } from "./identities";
import { identityProviders } from "./identity-providers";
import { repos } from "./repos";
import { roleBindings } from "./role-bindings";
import { roles } from "./roles";
import { tags } from "./tags";

export const COLLECTION_SPECS: Readonly<Record<Kind, CollectionSpec>> = {
  groups,
  identities,
  roles,
  roleBindings,
  identityProviders,
  groupInvites,
  accountAssociations,
  repos,
  tags,
  advisories,
};
