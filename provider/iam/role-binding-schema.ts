/**
 * The inputs of platform.iam.RoleBinding as one zod schema (check, schema.json). Every field replaces:
 * a binding has no useful update.
 *
 * May import: zod, ../../sdk/schemas, ../core.
 */
import { z } from "zod";
import { RoleUid, Uidp } from "../../sdk/schemas";
import type { FieldSpec } from "../core/diff";
import { CommonInputSchema } from "../core/common-schema";

export const RoleBindingInputSchema = z.object({
  groupUid: Uidp.describe("The group the role is granted on. Changing it replaces the binding."),
  identityUid: Uidp.describe("The identity that receives the role. Changing it replaces the binding."),
  roleUid: RoleUid.describe(
    "The role: a custom role's uid or a built-in role's 40-hex uid (see getRole). Changing it replaces the binding.",
  ),
  ...CommonInputSchema.shape,
});
export type RoleBindingInputs = z.infer<typeof RoleBindingInputSchema>;

export const ROLE_BINDING_FIELDS: readonly FieldSpec[] = [
  { key: "groupUid", kind: "string", replaces: true },
  { key: "identityUid", kind: "string", replaces: true },
  { key: "roleUid", kind: "string", replaces: true },
];

export const RoleBindingOutputSchema = z.object({
  uid: z.string().describe("The binding's uid, assigned by the service."),
  createTime: z.string().describe("When the binding was created (RFC 3339)."),
});
