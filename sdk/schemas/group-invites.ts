/**
 * Group invites: a code that grants a role on a group when accepted. No update: every change replaces.
 * `code` is returned only by create. The shapes are OpenAPI platform.iam.v2beta1.GroupInvite (./openapi.generated).
 */
import { z } from "zod";
import { PROTO_DURATION_PATTERN } from "../rules";
import { RoleUid, listEnvelope } from "./common";
import { describedAs, pick } from "./derive";
import * as wire from "./openapi.generated";

/** A protobuf Duration in JSON: seconds with an `s` suffix, e.g. "3600s" or "86400.5s". */
export const Duration = z
  .string()
  .regex(PROTO_DURATION_PATTERN, "ttl must be a duration in seconds such as 3600s");

export const GroupInviteRole = wire.GroupInviteRole.required({ uid: true });

export const GroupInvite = wire.GroupInvite.required({ uid: true }).extend({
  role: describedAs(GroupInviteRole, wire.GroupInvite, "role").optional(),
});
export type GroupInvite = z.infer<typeof GroupInvite>;

export const GroupInviteCreate = pick(wire.GroupInvite, wire.GroupInviteWritable).extend({
  roleUid: RoleUid,
  ttl: Duration,
  // Blank means anyone with the code may accept (OpenAPI GroupInvite.email): "" is valid, never stricter.
  email: z.union([z.literal(""), z.email()], { error: "email must be an email address or empty" }).optional(),
});
export type GroupInviteCreate = z.infer<typeof GroupInviteCreate>;

export const GroupInviteList = listEnvelope("groupInvites", GroupInvite);
