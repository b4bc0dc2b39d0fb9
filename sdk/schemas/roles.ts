/** Roles: built-in (40-hex uid, e.g. `viewer`) and custom roles with capabilities. OpenAPI platform.iam.v2beta1.Role. */
import { z } from "zod";
import { Timestamp, listEnvelope } from "./common";

/** A capability name, e.g. CAP_IAM_GROUPS_LIST (enum platform.capabilities.Capability). */
export const Capability = z
  .string()
  .regex(/^CAP_[A-Z0-9_]+$/, "capability must look like CAP_IAM_GROUPS_LIST");

export const Role = z.object({
  uid: z.string(),
  name: z.string(),
  description: z.string().optional(),
  capabilities: z.array(z.string()).optional(),
  createTime: Timestamp.optional(),
  updateTime: Timestamp.optional(),
});
export type Role = z.infer<typeof Role>;

export const RoleCreate = z.object({
  name: z.string({ error: "name is required" }).min(1, "name must not be empty"),
  description: z.string().optional(),
  capabilities: z.array(Capability).min(1, "capabilities must list at least one capability"),
});
export type RoleCreate = z.infer<typeof RoleCreate>;

export const ROLE_UPDATE_FIELDS = ["name", "description", "capabilities"] as const;
export const RoleUpdate = z.object({
  name: z.string().min(1, "name must not be empty").optional(),
  description: z.string().optional(),
  capabilities: z.array(Capability).min(1, "capabilities must list at least one capability").optional(),
});
export type RoleUpdate = z.infer<typeof RoleUpdate>;

export const RoleList = listEnvelope("roles", Role);
