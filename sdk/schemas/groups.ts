/**
 * Groups: organizations (root groups) and folders. Spec section 2 "Group"; the shapes are OpenAPI
 * platform.iam.v2beta1.Group (./openapi.generated), the name rule and the members a client may not set ../rules.
 */
import { z } from "zod";
import { GroupName, NOT_CLIENT_SETTABLE } from "../rules";
import { listEnvelope } from "./common";
import { pick, without } from "./derive";
import * as wire from "./openapi.generated";

export { GroupName };

/** On create and update: one of the OpenAPI's OrgKind values. Read back as a plain string (the enum may grow). */
export const OrgKind = z.enum(wire.OrgKindValues, {
  error: `kind must be one of ${wire.OrgKindValues.join(", ")}`,
});

// The OpenAPI document says a group's name "must be 3-63 characters"; the spec (which wins) gives the pattern.
export const Group = wire.Group.required({ uid: true, name: true }).extend({
  name: z.string().describe("Human-readable name of the group; it matches ^[a-z0-9 ._-]{1,}$."),
});
export type Group = z.infer<typeof Group>;

/** Fields a PATCH may change; also the valid updateMask paths. */
export const GROUP_UPDATE_FIELDS = without(wire.GroupWritable, NOT_CLIENT_SETTABLE.Group);

/** POST /iam/v2beta1/groups/{parent_group_uid} (or /groups/ for an organization) body. */
export const GroupCreate = pick(wire.Group, GROUP_UPDATE_FIELDS).extend({
  name: GroupName,
  /** Organizations only: a subgroup inherits its organization's kind and cannot set one (OpenAPI Group.kind). */
  kind: OrgKind.optional(),
});
export type GroupCreate = z.infer<typeof GroupCreate>;

export const GroupUpdate = GroupCreate.partial();
export type GroupUpdate = z.infer<typeof GroupUpdate>;

export const GroupList = listEnvelope("groups", Group);
