/**
 * Every collection's spec (./crud `CollectionSpec`), by its kind: one per row of the table of collections
 * (../../sdk/collections), which the compiler checks (a row without a spec does not type-check here).
 */
import { COLLECTION_NAMES } from "../../sdk/collections";
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

/** By kind, in the order of the route files' names (`specsInOrder` gives them in the table's). */
export const COLLECTION_SPECS: Readonly<Record<Kind, CollectionSpec>> = {
  accountAssociations,
  advisories,
  groupInvites,
  groups,
  identities,
  identityProviders,
  repos,
  roleBindings,
  roles,
  tags,
};

/** Every spec, in the order of the table of collections. */
export const specsInOrder = (): CollectionSpec[] => COLLECTION_NAMES.map((kind) => COLLECTION_SPECS[kind]);
