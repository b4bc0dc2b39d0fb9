/**
 * The inputs of platform.iam.Group as one zod schema: check validates with it, provider/schema.ts derives
 * schema.json from it. Shared by the resource class and its provider without pulling either into the other.
 *
 * May import: zod, ../../sdk/schemas, ../core/diff (types).
 */
import { z } from "zod";
import { GroupName, Uidp } from "../../sdk/schemas";
import type { FieldSpec } from "../core/diff";
import { CommonInputSchema } from "../core/common-schema";

export const GroupInputSchema = z.object({
  name: GroupName.describe("The group's name; must match ^[a-z0-9 ._-]{1,}$."),
  description: z.string().optional().describe("A description; absent is the same as empty."),
  parentUid: Uidp.optional().describe(
    "The parent group's uid. Omit to create an organization (a root group). Changing it replaces the group.",
  ),
  ...CommonInputSchema.shape,
});
export type GroupInputs = z.infer<typeof GroupInputSchema>;

export const GROUP_FIELDS: readonly FieldSpec[] = [
  { key: "name", kind: "string" },
  { key: "description", kind: "string" },
  { key: "parentUid", kind: "string", replaces: true },
];

export const GroupOutputSchema = z.object({
  uid: z.string().describe("The group's uid, assigned by the service."),
  verified: z.boolean().describe("Whether the organization is verified; false for new groups."),
  createTime: z.string().describe("When the group was created (RFC 3339)."),
});
