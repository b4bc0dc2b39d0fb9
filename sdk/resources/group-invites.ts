/**
 * Group invites: a code that grants a role on a group when accepted. The API has no update.
 * `code` is returned by create only.
 *
 *   GET    /iam/v2beta1/groupInvites                 list (uidp filters, key_id)
 *   GET    /iam/v2beta1/groupInvites/{invite_uid}    get
 *   POST   /iam/v2beta1/groupInvites/{group_uid}     create
 *   DELETE /iam/v2beta1/groupInvites/{invite_uid}    delete
 */
import { resourcePath, type PageQuery, type UidpFilters } from "../core";
import type { PagePromise } from "../pagination";
import { GroupInvite, GroupInviteList, type GroupInviteCreate } from "../schemas/group-invites";
import { APIResource } from "./resource";

export type { GroupInvite, GroupInviteCreate } from "../schemas/group-invites";

export interface GroupInviteListQuery extends PageQuery, UidpFilters {
  /** `key_id`: the invite with this key id. */
  keyId?: string;
}

const COLLECTION = "/iam/v2beta1/groupInvites";

export class GroupInvites extends APIResource {
  list(query: GroupInviteListQuery = {}): PagePromise<GroupInvite> {
    return this.core.list("groupInvites.list", COLLECTION, { ...query }, GroupInviteList);
  }

  async get(uid: string): Promise<GroupInvite> {
    return this.core.request({ method: "GET", path: resourcePath(COLLECTION, uid), schema: GroupInvite });
  }

  async create(groupUid: string, body: GroupInviteCreate): Promise<GroupInvite> {
    return this.core.request({
      method: "POST",
      path: resourcePath(COLLECTION, groupUid),
      body,
      schema: GroupInvite,
    });
  }

  async delete(uid: string): Promise<void> {
    return this.core.request({ method: "DELETE", path: resourcePath(COLLECTION, uid), schema: undefined });
  }
}
