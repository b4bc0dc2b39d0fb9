/**
 * Account associations: at most one per group; its uid is the group's uid, so every verb takes the group uid.
 *
 *   GET    /iam/v2beta1/accountAssociations                list
 *   GET    /iam/v2beta1/accountAssociations/{group_uid}    get
 *   POST   /iam/v2beta1/accountAssociations/{group_uid}    create
 *   PATCH  /iam/v2beta1/accountAssociations/{group_uid}    update (updateMask = the fields passed)
 *   DELETE /iam/v2beta1/accountAssociations/{group_uid}    delete
 */
import { COLLECTIONS } from "../collections";
import type { ListQuery } from "../core";
import {
  AccountAssociation,
  AccountAssociationList,
  type AccountAssociationCreate,
  type AccountAssociationUpdate,
} from "../schemas/account-associations";
import { UpdatableResource, type ResourceCollection } from "./resource";

export type {
  AccountAssociation,
  AccountAssociationCreate,
  AccountAssociationUpdate,
} from "../schemas/account-associations";
export type AccountAssociationListQuery = ListQuery;

export class AccountAssociations extends UpdatableResource<
  AccountAssociation,
  AccountAssociationListQuery,
  AccountAssociationCreate,
  AccountAssociationUpdate
> {
  protected readonly collection: ResourceCollection<AccountAssociation> = {
    name: "accountAssociations",
    path: COLLECTIONS.accountAssociations.path,
    item: AccountAssociation,
    page: AccountAssociationList,
  };
}
