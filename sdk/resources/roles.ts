/**
 * Roles: built-in roles (40-hex uid, e.g. viewer) and custom roles with capabilities.
 *
 *   GET    /iam/v2beta1/roles                      list
 *   GET    /iam/v2beta1/roles/{role_uid}           get
 *   POST   /iam/v2beta1/roles/{parent_group_uid}   create
 *   PATCH  /iam/v2beta1/roles/{role_uid}           update (updateMask = the fields passed)
 *   DELETE /iam/v2beta1/roles/{role_uid}           delete
 */
import { resourcePath, updateMaskFor, type ListQuery } from "../core";
import type { PagePromise } from "../pagination";
import { Role, RoleList, type RoleCreate, type RoleUpdate } from "../schemas/roles";
import { APIResource } from "./resource";

export type { Role, RoleCreate, RoleUpdate } from "../schemas/roles";
export type RoleListQuery = ListQuery;

const COLLECTION = "/iam/v2beta1/roles";

export class Roles extends APIResource {
  list(query: RoleListQuery = {}): PagePromise<Role> {
    return this.core.list("roles.list", COLLECTION, { ...query }, RoleList);
  }

  async get(uid: string): Promise<Role> {
    return this.core.request({ method: "GET", path: resourcePath(COLLECTION, uid), schema: Role });
  }

  async create(parentUid: string, body: RoleCreate): Promise<Role> {
    return this.core.request({
      method: "POST",
      path: resourcePath(COLLECTION, parentUid),
      body,
      schema: Role,
    });
  }

  async update(uid: string, patch: RoleUpdate): Promise<Role> {
    const { body, updateMask } = updateMaskFor("roles.update", patch);
    return this.core.request({
      method: "PATCH",
      idempotent: true,
      path: resourcePath(COLLECTION, uid),
      query: { updateMask },
      body,
      schema: Role,
    });
  }

  async delete(uid: string): Promise<void> {
    return this.core.request({ method: "DELETE", path: resourcePath(COLLECTION, uid), schema: undefined });
  }
}
