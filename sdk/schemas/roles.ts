/**
 * Roles: built-in (40-hex uid, e.g. `viewer`) and custom roles with capabilities. The shapes are OpenAPI
 * platform.iam.v2beta1.Role (./openapi.generated).
 */
import { z } from "zod";
import { listEnvelope, ObjectName, ObjectNameUpdate } from "./common";
import { pick } from "./derive";
import * as wire from "./openapi.generated";

/**
 * How a capability name is written, e.g. CAP_IAM_GROUPS_LIST (enum platform.capabilities.Capability): a lenient
 * shape, as the service may know capabilities newer than our spec. The capabilities our own code names are the
 * `Capability` type (./capabilities).
 */
export const CapabilityName = z
  .string()
  .regex(/^CAP_[A-Z0-9_]+$/, "capability must look like CAP_IAM_GROUPS_LIST");

export const Role = wire.Role.required({ uid: true, name: true });
export type Role = z.infer<typeof Role>;

export const RoleCreate = pick(wire.Role, wire.RoleWritable).extend({
  name: ObjectName,
  capabilities: z.array(CapabilityName).min(1, "capabilities must list at least one capability"),
});
export type RoleCreate = z.infer<typeof RoleCreate>;

export const ROLE_UPDATE_FIELDS = wire.RoleWritable;
export const RoleUpdate = RoleCreate.partial().extend({ name: ObjectNameUpdate });
export type RoleUpdate = z.infer<typeof RoleUpdate>;

export const RoleList = listEnvelope("roles", Role);
