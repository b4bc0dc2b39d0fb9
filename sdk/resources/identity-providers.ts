/**
 * Identity providers: an organization's OIDC login. `oidc.clientSecret` is write-only.
 *
 *   GET    /iam/v2beta1/identityProviders                      list
 *   GET    /iam/v2beta1/identityProviders/{idp_uid}            get
 *   POST   /iam/v2beta1/identityProviders/{parent_group_uid}   create
 *   PATCH  /iam/v2beta1/identityProviders/{idp_uid}            update (updateMask = the fields passed)
 *   DELETE /iam/v2beta1/identityProviders/{idp_uid}            delete
 */
import { COLLECTIONS } from "../collections";
import type { ListQuery } from "../core";
import {
  IdentityProvider,
  IdentityProviderList,
  type IdentityProviderCreate,
  type IdentityProviderUpdate,
} from "../schemas/identity-providers";
import { UpdatableResource, type ResourceCollection } from "./resource";

export type {
  IdentityProvider,
  IdentityProviderCreate,
  IdentityProviderUpdate,
} from "../schemas/identity-providers";
export type IdentityProviderListQuery = ListQuery;

export class IdentityProviders extends UpdatableResource<
  IdentityProvider,
  IdentityProviderListQuery,
  IdentityProviderCreate,
  IdentityProviderUpdate
> {
  protected readonly collection: ResourceCollection<IdentityProvider> = {
    name: "identityProviders",
    path: COLLECTIONS.identityProviders.path,
    item: IdentityProvider,
    page: IdentityProviderList,
  };
}
