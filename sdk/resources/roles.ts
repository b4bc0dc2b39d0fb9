/**
 * Roles: built-in roles (40-hex uid, e.g. viewer) and custom roles with capabilities.
 *
 *   GET    /iam/v2beta1/roles                      list
 *   GET    /iam/v2beta1/roles/{role_uid}           get
 *   POST   /iam/v2beta1/roles/{parent_group_uid}   create
 *   PATCH  /iam/v2beta1/roles/{role_uid}           update (updateMask = the fields passed)
 *   DELETE /iam/v2beta1/roles/{role_uid}           delete
 */
import { COLLECTIONS } from "../collections";
import type { ListQuery } from "../core";
import { Role, RoleList, type RoleCreate, type RoleUpdate } from "../schemas/roles";
import { UpdatableResource, type ResourceCollection } from "./resource";

export type { Role, RoleCreate, RoleUpdate } from "../schemas/roles";
export type RoleListQuery = ListQuery;

export class Roles extends UpdatableResource<Role, RoleListQuery, RoleCreate, RoleUpdate> {
  protected readonly collection: ResourceCollection<Role> = {
    name: "roles",
    path: COLLECTIONS.roles.path,
    item: Role,
    page: RoleList,
  };
}
