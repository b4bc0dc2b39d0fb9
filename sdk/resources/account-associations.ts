/**
 * Account associations: at most one per group; its uid is the group's uid, so every verb takes the group uid.
 *
 *   GET    /iam/v2beta1/accountAssociations                list
 *   GET    /iam/v2beta1/accountAssociations/{group_uid}    get
 *   POST   /iam/v2beta1/accountAssociations/{group_uid}    create
 *   PATCH  /iam/v2beta1/accountAssociations/{group_uid}    update (updateMask = the fields passed)
 *   DELETE /iam/v2beta1/accountAssociations/{group_uid}    delete
 */
import { resourcePath, updateMaskFor, type ListQuery } from "../core";
import type { PagePromise } from "../pagination";
import {
  AccountAssociation,
  AccountAssociationList,
  type AccountAssociationCreate,
  type AccountAssociationUpdate,
} from "../schemas/account-associations";
import { APIResource } from "./resource";

export type {
  AccountAssociation,
  AccountAssociationCreate,
  AccountAssociationUpdate,
} from "../schemas/account-associations";
export type AccountAssociationListQuery = ListQuery;

const COLLECTION = "/iam/v2beta1/accountAssociations";

export class AccountAssociations extends APIResource {
  list(query: AccountAssociationListQuery = {}): PagePromise<AccountAssociation> {
    return this.core.list("accountAssociations.list", COLLECTION, { ...query }, AccountAssociationList);
  }

  async get(groupUid: string): Promise<AccountAssociation> {
    return this.core.request({
      method: "GET",
      path: resourcePath(COLLECTION, groupUid),
      schema: AccountAssociation,
    });
  }

  async create(groupUid: string, body: AccountAssociationCreate): Promise<AccountAssociation> {
    return this.core.request({
      method: "POST",
      path: resourcePath(COLLECTION, groupUid),
      body,
      schema: AccountAssociation,
    });
  }

  async update(groupUid: string, patch: AccountAssociationUpdate): Promise<AccountAssociation> {
    const { body, updateMask } = updateMaskFor("accountAssociations.update", patch);
    return this.core.request({
      method: "PATCH",
      idempotent: true,
      path: resourcePath(COLLECTION, groupUid),
      query: { updateMask },
      body,
      schema: AccountAssociation,
    });
  }

  async delete(groupUid: string): Promise<void> {
    return this.core.request({
      method: "DELETE",
      path: resourcePath(COLLECTION, groupUid),
      schema: undefined,
    });
  }
}
