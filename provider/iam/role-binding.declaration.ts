/**
 * platform.iam.RoleBinding, declared once (../core/declaration). Every field replaces: a binding has no useful
 * update.
 */
import { z } from "zod";
import { RoleUid, Uidp } from "../../sdk/schemas";
import { adoptInput, declareResource, input, output } from "../core/declaration";

export const ROLE_BINDING = declareResource({
  token: "platform:iam:RoleBinding",
  stem: "role-binding",
  summary: "Grants an identity a role on a group. Changing any reference replaces the binding.",
  importId: "the binding's uid",
  inputs: {
    groupUid: input(Uidp, {
      doc: "The group the role is granted on. Changing it replaces the binding.",
      replaces: true,
      inPath: true,
    }),
    identityUid: input(Uidp, {
      doc: "The identity that receives the role. Changing it replaces the binding.",
      replaces: true,
    }),
    roleUid: input(RoleUid, {
      doc: "The role: a custom role's uid or a built-in role's 40-hex uid (see getRole). Changing it replaces the binding.",
      replaces: true,
    }),
    adopt: adoptInput(
      "Take over an existing binding of the same identity and role on the same group instead of creating a duplicate.",
    ),
  },
  outputs: {
    uid: output(z.string(), "The binding's uid, assigned by the service."),
    createTime: output(z.string(), "When the binding was created (RFC 3339)."),
  },
});

export const RoleBindingInputSchema = ROLE_BINDING.inputSchema;
export type RoleBindingInputs = z.infer<typeof RoleBindingInputSchema>;
