/**
 * Identity providers: an organization's OIDC login. `oidc.clientSecret` is write-only.
 *
 *   GET    /iam/v2beta1/identityProviders                      list
 *   GET    /iam/v2beta1/identityProviders/{idp_uid}            get
 *   POST   /iam/v2beta1/identityProviders/{parent_group_uid}   create
 *   PATCH  /iam/v2beta1/identityProviders/{idp_uid}            update (updateMask = the fields passed)
 *   DELETE /iam/v2beta1/identityProviders/{idp_uid}            delete
 */
import { resourcePath, updateMaskFor, type ListQuery } from "../core";
import type { PagePromise } from "../pagination";
import {
  IdentityProvider,
  IdentityProviderList,
  type IdentityProviderCreate,
  type IdentityProviderUpdate,
} from "../schemas/identity-providers";
import { APIResource } from "./resource";

export type {
  IdentityProvider,
  IdentityProviderCreate,
  IdentityProviderUpdate,
} from "../schemas/identity-providers";
export type IdentityProviderListQuery = ListQuery;

const COLLECTION = "/iam/v2beta1/identityProviders";

export class IdentityProviders extends APIResource {
  list(query: IdentityProviderListQuery = {}): PagePromise<IdentityProvider> {
    return this.core.list("identityProviders.list", COLLECTION, { ...query }, IdentityProviderList);
  }

  async get(uid: string): Promise<IdentityProvider> {
    return this.core.request({
      method: "GET",
      path: resourcePath(COLLECTION, uid),
      schema: IdentityProvider,
    });
  }

  async create(parentUid: string, body: IdentityProviderCreate): Promise<IdentityProvider> {
    return this.core.request({
      method: "POST",
      path: resourcePath(COLLECTION, parentUid),
      body,
      schema: IdentityProvider,
    });
  }

  async update(uid: string, patch: IdentityProviderUpdate): Promise<IdentityProvider> {
    const { body, updateMask } = updateMaskFor("identityProviders.update", patch);
    return this.core.request({
      method: "PATCH",
      idempotent: true,
      path: resourcePath(COLLECTION, uid),
      query: { updateMask },
      body,
      schema: IdentityProvider,
    });
  }

  async delete(uid: string): Promise<void> {
    return this.core.request({ method: "DELETE", path: resourcePath(COLLECTION, uid), schema: undefined });
  }
}
