/**
 * Groups: organizations (root groups) and folders. Spec section 4 "Groups".
 *
 *   GET    /iam/v2beta1/groups                      list
 *   GET    /iam/v2beta1/groups/{group_uid}          get
 *   POST   /iam/v2beta1/groups/{parent_group_uid}   create (POST /iam/v2beta1/groups for a new organization)
 *   PATCH  /iam/v2beta1/groups/{group_uid}          update (updateMask = the fields passed)
 *   DELETE /iam/v2beta1/groups/{group_uid}          delete
 */
import { resourcePath, updateMaskFor, type ListQuery } from "../core";
import type { PagePromise } from "../pagination";
import { Group, GroupList, type GroupCreate, type GroupUpdate } from "../schemas/groups";
import { APIResource } from "./resource";

export type { Group, GroupCreate, GroupUpdate } from "../schemas/groups";
export type GroupListQuery = ListQuery;

const COLLECTION = "/iam/v2beta1/groups";

export class Groups extends APIResource {
  list(query: GroupListQuery = {}): PagePromise<Group> {
    return this.core.list("groups.list", COLLECTION, { ...query }, GroupList);
  }

  async get(uid: string): Promise<Group> {
    return this.core.request({ method: "GET", path: resourcePath(COLLECTION, uid), schema: Group });
  }

  /** Create a folder under `parentUid`, or a new organization when `parentUid` is undefined. */
  async create(parentUid: string | undefined, body: GroupCreate): Promise<Group> {
    return this.core.request({
      method: "POST",
      path: resourcePath(COLLECTION, parentUid),
      body,
      schema: Group,
    });
  }

  /** Change exactly the fields of `patch` whose value is not undefined; returns the group after the update. */
  async update(uid: string, patch: GroupUpdate): Promise<Group> {
    const { body, updateMask } = updateMaskFor("groups.update", patch);
    return this.core.request({
      method: "PATCH",
      idempotent: true,
      path: resourcePath(COLLECTION, uid),
      query: { updateMask },
      body,
      schema: Group,
    });
  }

  async delete(uid: string): Promise<void> {
    return this.core.request({ method: "DELETE", path: resourcePath(COLLECTION, uid), schema: undefined });
  }
}
