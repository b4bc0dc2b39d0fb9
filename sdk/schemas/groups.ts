/** Groups: organizations (root groups) and folders. Spec section 2 "Group"; OpenAPI platform.iam.v2beta1.Group. */
import { z } from "zod";
import { GROUP_NAME_PATTERN, Timestamp, listEnvelope } from "./common";

export const GroupName = z
  .string({ error: "name is required" })
  .regex(
    GROUP_NAME_PATTERN,
    "name must match ^[a-z0-9 ._-]{1,}$ (lowercase letters, digits, space, '.', '_', '-')",
  );

/** OpenAPI platform.iam.v2beta1.OrgKind: an organization's kind, sent by name. */
export const ORG_KINDS = [
  "ORG_KIND_UNSPECIFIED",
  "ORG_KIND_STARTER",
  "ORG_KIND_CUSTOMER",
  "ORG_KIND_DEV",
  "ORG_KIND_INFRA",
  "ORG_KIND_AWS_MARKETPLACE",
] as const;
/** On create and update: one of ORG_KINDS. Read back as a plain string (the enum may grow). */
export const OrgKind = z.enum(ORG_KINDS, { error: `kind must be one of ${ORG_KINDS.join(", ")}` });

export const Group = z.object({
  uid: z.string(),
  name: z.string(),
  description: z.string().optional(),
  resourceLimits: z.record(z.string(), z.number().int()).optional(),
  verified: z.boolean().optional(),
  kind: z.string().optional(),
  status: z.string().optional(),
  createTime: Timestamp.optional(),
  updateTime: Timestamp.optional(),
});
export type Group = z.infer<typeof Group>;

/** POST /iam/v2beta1/groups/{parent_group_uid} (or /groups/ for an organization) body. */
export const GroupCreate = z.object({
  name: GroupName,
  description: z.string().optional(),
  /** Organizations only: a subgroup inherits its organization's kind and cannot set one (OpenAPI Group.kind). */
  kind: OrgKind.optional(),
});
export type GroupCreate = z.infer<typeof GroupCreate>;

/** Fields a PATCH may change; also the valid updateMask paths. */
export const GROUP_UPDATE_FIELDS = ["name", "description", "kind"] as const;
export const GroupUpdate = z.object({
  name: GroupName.optional(),
  description: z.string().optional(),
  kind: OrgKind.optional(),
});
export type GroupUpdate = z.infer<typeof GroupUpdate>;

export const GroupList = listEnvelope("groups", Group);
