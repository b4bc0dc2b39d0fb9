/**
 * Group invites: a code that grants a role on a group when accepted. The API has no update.
 * `code` is returned by create only.
 *
 *   GET    /iam/v2beta1/groupInvites                 list (uidp filters, key_id)
 *   GET    /iam/v2beta1/groupInvites/{invite_uid}    get
 *   POST   /iam/v2beta1/groupInvites/{group_uid}     create
 *   DELETE /iam/v2beta1/groupInvites/{invite_uid}    delete
 */
import { COLLECTIONS } from "../collections";
import type { PageQuery, UidpFilters } from "../core";
import { GroupInvite, GroupInviteList, type GroupInviteCreate } from "../schemas/group-invites";
import { WritableResource, type ResourceCollection } from "./resource";

export type { GroupInvite, GroupInviteCreate } from "../schemas/group-invites";

export interface GroupInviteListQuery extends PageQuery, UidpFilters {
  /** `key_id`: the invite with this key id. */
  keyId?: string;
}

export class GroupInvites extends WritableResource<GroupInvite, GroupInviteListQuery, GroupInviteCreate> {
  protected readonly collection: ResourceCollection<GroupInvite> = {
    name: "groupInvites",
    path: COLLECTIONS.groupInvites.path,
    item: GroupInvite,
    page: GroupInviteList,
  };
}
