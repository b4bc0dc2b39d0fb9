/**
 * The inputs of platform.iam.Role (a custom role) as one zod schema (check, schema.json).
 *
 * May import: zod, ../../sdk/schemas, ../core, ./capabilities.
 */
import { z } from "zod";
import { Uidp } from "../../sdk/schemas";
import type { FieldSpec } from "../core/diff";
import { CommonInputSchema } from "../core/common-schema";
import { CAPABILITY_SET } from "../../sdk/schemas/capabilities";

export const CapabilityName = z.string().refine((name) => CAPABILITY_SET.has(name), {
  error: (issue) => `unknown capability ${JSON.stringify(issue.input)}: use a name like CAP_IAM_GROUPS_LIST`,
});

export const RoleInputSchema = z.object({
  parentUid: Uidp.describe("The uid of the group the role is defined in. Changing it replaces the role."),
  name: z.string().min(1, "name must not be empty").describe("The role's name."),
  description: z.string().optional().describe("A description; absent is the same as empty."),
  capabilities: z
    .array(CapabilityName)
    .min(1, "capabilities must list at least one capability")
    .describe("The capabilities the role grants, e.g. CAP_IAM_GROUPS_LIST. Order does not matter."),
  ...CommonInputSchema.shape,
});
export type RoleInputs = z.infer<typeof RoleInputSchema>;

export const ROLE_FIELDS: readonly FieldSpec[] = [
  { key: "name", kind: "string" },
  { key: "description", kind: "string" },
  { key: "capabilities", kind: "stringSet" },
  { key: "parentUid", kind: "string", replaces: true },
];

export const RoleOutputSchema = z.object({
  uid: z.string().describe("The role's uid, assigned by the service."),
  createTime: z.string().describe("When the role was created (RFC 3339)."),
});
