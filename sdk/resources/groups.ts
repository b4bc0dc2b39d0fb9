/**
 * Groups: organizations (root groups) and folders. Spec section 4 "Groups".
 *
 *   GET    /iam/v2beta1/groups                      list
 *   GET    /iam/v2beta1/groups/{group_uid}          get
 *   POST   /iam/v2beta1/groups/{parent_group_uid}   create a folder (POST /iam/v2beta1/groups, parent undefined:
 *                                                   a new organization)
 *   PATCH  /iam/v2beta1/groups/{group_uid}          update (updateMask = the fields passed)
 *   DELETE /iam/v2beta1/groups/{group_uid}          delete
 */
import { COLLECTIONS } from "../collections";
import type { ListQuery } from "../core";
import { Group, GroupList, type GroupCreate, type GroupUpdate } from "../schemas/groups";
import { UpdatableResource, type ResourceCollection } from "./resource";

export type { Group, GroupCreate, GroupUpdate } from "../schemas/groups";
export type GroupListQuery = ListQuery;

export class Groups extends UpdatableResource<
  Group,
  GroupListQuery,
  GroupCreate,
  GroupUpdate,
  string | undefined
> {
  protected readonly collection: ResourceCollection<Group> = {
    name: "groups",
    path: COLLECTIONS.groups.path,
    item: Group,
    page: GroupList,
  };
}
