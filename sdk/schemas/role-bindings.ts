/** Role bindings: an identity holds a role on a group. Responses hydrate identity, group and role. */
import { z } from "zod";
import { RoleUid, Timestamp, Uidp, listEnvelope } from "./common";

export const RoleBindingIdentity = z.object({
  uid: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  email: z.string().optional(),
  issuer: z.string().optional(),
  subject: z.string().optional(),
});
export const RoleBindingGroup = z.object({
  uid: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
});
export const RoleBindingRole = z.object({
  uid: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
});

export const RoleBinding = z.object({
  uid: z.string(),
  identity: RoleBindingIdentity.optional(),
  group: RoleBindingGroup.optional(),
  role: RoleBindingRole.optional(),
  createTime: Timestamp.optional(),
});
export type RoleBinding = z.infer<typeof RoleBinding>;

/** POST /iam/v2beta1/roleBindings/{group_uid} body: the group comes from the path. */
export const RoleBindingCreate = z.object({
  identityUid: Uidp,
  roleUid: RoleUid,
});
export type RoleBindingCreate = z.infer<typeof RoleBindingCreate>;

export const ROLE_BINDING_UPDATE_FIELDS = ["identityUid", "roleUid"] as const;
export const RoleBindingUpdate = z.object({
  identityUid: Uidp.optional(),
  roleUid: RoleUid.optional(),
});
export type RoleBindingUpdate = z.infer<typeof RoleBindingUpdate>;

export const RoleBindingList = listEnvelope("roleBindings", RoleBinding);
