/**
 * Role bindings: an identity holds a role on a group. Responses hydrate identity, group and role. The shapes are
 * OpenAPI platform.iam.v2beta1.RoleBinding (./openapi.generated).
 */
import { z } from "zod";
import { RoleUid, Uidp, listEnvelope } from "./common";
import { describedAs, pick } from "./derive";
import * as wire from "./openapi.generated";

export const RoleBindingIdentity = wire.RoleBindingIdentity.required({ uid: true });
export const RoleBindingGroup = wire.RoleBindingGroup.required({ uid: true });
export const RoleBindingRole = wire.RoleBindingRole.required({ uid: true });

export const RoleBinding = wire.RoleBinding.required({ uid: true }).extend({
  identity: describedAs(RoleBindingIdentity, wire.RoleBinding, "identity").optional(),
  group: describedAs(RoleBindingGroup, wire.RoleBinding, "group").optional(),
  role: describedAs(RoleBindingRole, wire.RoleBinding, "role").optional(),
});
export type RoleBinding = z.infer<typeof RoleBinding>;

/** POST /iam/v2beta1/roleBindings/{group_uid} body: the group comes from the path. */
export const RoleBindingCreate = pick(wire.RoleBinding, wire.RoleBindingWritable).extend({
  identityUid: Uidp,
  roleUid: RoleUid,
});
export type RoleBindingCreate = z.infer<typeof RoleBindingCreate>;

export const ROLE_BINDING_UPDATE_FIELDS = wire.RoleBindingWritable;
export const RoleBindingUpdate = RoleBindingCreate.partial();
export type RoleBindingUpdate = z.infer<typeof RoleBindingUpdate>;

export const RoleBindingList = listEnvelope("roleBindings", RoleBinding);

/** The most creates one `roleBindings:batchCreate` takes (OpenAPI BatchCreateRoleBindingsRequest.requests). */
export const ROLE_BINDING_BATCH_MAX = 25;

/**
 * POST /iam/v2beta1/roleBindings:batchCreate body (OpenAPI BatchCreateRoleBindingsRequest): up to 25 creates under
 * one parent group, all or none. A sub-request may leave `parent` empty (it is the batch's) and, when the batch
 * names a `roleUid`, its own `roleUid` (inherited; a different one is refused: AIP-233).
 */
export const RoleBindingBatchCreate = z.object({
  parent: Uidp,
  roleUid: RoleUid.optional(),
  requests: z
    .array(
      z.object({
        parent: Uidp.optional(),
        roleBinding: z.object({ identityUid: Uidp, roleUid: RoleUid.optional() }),
      }),
    )
    .min(1)
    .max(ROLE_BINDING_BATCH_MAX),
});
export type RoleBindingBatchCreate = z.infer<typeof RoleBindingBatchCreate>;

/** Its answer: the bindings made, in the order of the requests. */
export const RoleBindingBatchCreated = z.object({ roleBindings: z.array(RoleBinding).default([]) });
export type RoleBindingBatchCreated = z.infer<typeof RoleBindingBatchCreated>;
