/**
 * Role bindings: an identity holds a role on a group. Responses hydrate identity, group and role.
 *
 *   GET    /iam/v2beta1/roleBindings                  list (uidp filters, identity, group, role)
 *   GET    /iam/v2beta1/roleBindings/{binding_uid}    get
 *   POST   /iam/v2beta1/roleBindings/{group_uid}      create; body { identityUid, roleUid }
 *   PATCH  /iam/v2beta1/roleBindings/{binding_uid}    update (updateMask = the fields passed)
 *   DELETE /iam/v2beta1/roleBindings/{binding_uid}    delete
 */
import { resourcePath, updateMaskFor, type PageQuery, type UidpFilters } from "../core";
import type { PagePromise } from "../pagination";
import {
  RoleBinding,
  RoleBindingList,
  type RoleBindingCreate,
  type RoleBindingUpdate,
} from "../schemas/role-bindings";
import { APIResource } from "./resource";

export type { RoleBinding, RoleBindingCreate, RoleBindingUpdate } from "../schemas/role-bindings";

export interface RoleBindingListQuery extends PageQuery, UidpFilters {
  /** `identity`: bindings of this identity uid. */
  identity?: string;
  /** `group`: bindings on this group uid. */
  group?: string;
  /** `role`: bindings of this role uid. */
  role?: string;
}

const COLLECTION = "/iam/v2beta1/roleBindings";

export class RoleBindings extends APIResource {
  list(query: RoleBindingListQuery = {}): PagePromise<RoleBinding> {
    return this.core.list("roleBindings.list", COLLECTION, { ...query }, RoleBindingList);
  }

  async get(uid: string): Promise<RoleBinding> {
    return this.core.request({ method: "GET", path: resourcePath(COLLECTION, uid), schema: RoleBinding });
  }

  /** Bind on `groupUid` (from the path); the body carries identityUid and roleUid only. */
  async create(groupUid: string, body: RoleBindingCreate): Promise<RoleBinding> {
    return this.core.request({
      method: "POST",
      path: resourcePath(COLLECTION, groupUid),
      body,
      schema: RoleBinding,
    });
  }

  async update(uid: string, patch: RoleBindingUpdate): Promise<RoleBinding> {
    const { body, updateMask } = updateMaskFor("roleBindings.update", patch);
    return this.core.request({
      method: "PATCH",
      idempotent: true,
      path: resourcePath(COLLECTION, uid),
      query: { updateMask },
      body,
      schema: RoleBinding,
    });
  }

  async delete(uid: string): Promise<void> {
    return this.core.request({ method: "DELETE", path: resourcePath(COLLECTION, uid), schema: undefined });
  }
}
