/**
 * Role bindings: an identity holds a role on a group. Responses hydrate identity, group and role.
 *
 *   GET    /iam/v2beta1/roleBindings                  list (uidp filters, identity, group, role)
 *   GET    /iam/v2beta1/roleBindings/{binding_uid}    get
 *   POST   /iam/v2beta1/roleBindings/{group_uid}      create on the group; body { identityUid, roleUid } only
 *   POST   /iam/v2beta1/roleBindings:batchCreate      up to 25 creates on one group, all or none (AIP-233)
 *   PATCH  /iam/v2beta1/roleBindings/{binding_uid}    update (updateMask = the fields passed)
 *   DELETE /iam/v2beta1/roleBindings/{binding_uid}    delete
 */
import { COLLECTIONS } from "../collections";
import type { PageQuery, UidpFilters } from "../core";
import {
  RoleBinding,
  RoleBindingBatchCreated,
  RoleBindingList,
  type RoleBindingBatchCreate,
  type RoleBindingCreate,
  type RoleBindingUpdate,
} from "../schemas/role-bindings";
import { UpdatableResource, type ResourceCollection } from "./resource";

export type { RoleBinding, RoleBindingCreate, RoleBindingUpdate } from "../schemas/role-bindings";
export { ROLE_BINDING_BATCH_MAX } from "../schemas/role-bindings";

/** One binding of a batch: its identity, and its role unless the batch names one for all. */
export interface RoleBindingBatchEntry {
  identityUid: string;
  roleUid?: string;
}

export interface RoleBindingListQuery extends PageQuery, UidpFilters {
  /** `identity`: bindings of this identity uid. */
  identity?: string;
  /** `group`: bindings on this group uid. */
  group?: string;
  /** `role`: bindings of this role uid. */
  role?: string;
}

const COLLECTION = COLLECTIONS.roleBindings.path;

export class RoleBindings extends UpdatableResource<
  RoleBinding,
  RoleBindingListQuery,
  RoleBindingCreate,
  RoleBindingUpdate
> {
  protected readonly collection: ResourceCollection<RoleBinding> = {
    name: "roleBindings",
    path: COLLECTION,
    item: RoleBinding,
    page: RoleBindingList,
  };

  /**
   * Binds up to ROLE_BINDING_BATCH_MAX (25) identities on `groupUid` in one call, all or none; `roleUid` is the
   * role of every entry that names none (AIP-233: an entry naming another is refused). Answers the bindings in the
   * order given. A write like `create`: never retried blindly, since a 503 or a dropped answer does not tell
   * whether it was applied; a caller that must recover lists the group's bindings, then sends what is missing.
   */
  async batchCreate(
    groupUid: string,
    entries: readonly RoleBindingBatchEntry[],
    options: { roleUid?: string } = {},
  ): Promise<RoleBinding[]> {
    const body: RoleBindingBatchCreate = {
      parent: groupUid,
      ...(options.roleUid !== undefined ? { roleUid: options.roleUid } : {}),
      requests: entries.map((entry) => ({
        roleBinding: {
          identityUid: entry.identityUid,
          ...(entry.roleUid !== undefined ? { roleUid: entry.roleUid } : {}),
        },
      })),
    };
    const answer = await this.core.request({
      method: "POST",
      path: `${COLLECTION}:batchCreate`,
      body,
      schema: RoleBindingBatchCreated,
    });
    return answer.roleBindings;
  }
}
