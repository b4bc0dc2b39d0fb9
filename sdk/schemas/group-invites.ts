/**
 * Group invites: a code that grants a role on a group when accepted. No update: every change replaces.
 * `code` is returned only by create. OpenAPI platform.iam.v2beta1.GroupInvite.
 */
import { z } from "zod";
import { RoleUid, Timestamp, listEnvelope } from "./common";

/** A protobuf Duration in JSON: seconds with an `s` suffix, e.g. "3600s" or "86400.5s". */
export const Duration = z
  .string()
  .regex(/^\d+(\.\d{1,9})?s$/, "ttl must be a duration in seconds such as 3600s");

export const GroupInviteRole = z.object({
  uid: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  capabilities: z.array(z.string()).optional(),
});

export const GroupInvite = z.object({
  uid: z.string(),
  roleUid: z.string().optional(),
  role: GroupInviteRole.optional(),
  email: z.string().optional(),
  singleUse: z.boolean().optional(),
  keyId: z.string().optional(),
  code: z.string().optional(),
  expirationTime: Timestamp.optional(),
  createTime: Timestamp.optional(),
});
export type GroupInvite = z.infer<typeof GroupInvite>;

export const GroupInviteCreate = z.object({
  roleUid: RoleUid,
  ttl: Duration,
  // Blank means anyone with the code may accept (OpenAPI GroupInvite.email): "" is valid, never stricter.
  email: z.union([z.literal(""), z.email()], { error: "email must be an email address or empty" }).optional(),
  singleUse: z.boolean().optional(),
});
export type GroupInviteCreate = z.infer<typeof GroupInviteCreate>;

export const GroupInviteList = listEnvelope("groupInvites", GroupInvite);
