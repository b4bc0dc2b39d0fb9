/**
 * platform.iam.IdentityAccess, declared once (../core/declaration): every role one identity holds anywhere in the
 * organization, and nothing else. Nothing replaces: another identity is taken over in place.
 */
import { z } from "zod";
import { RoleUid, Uidp } from "../../sdk/schemas";
import { declareResource, input, output } from "../core/declaration";
import { keyOf } from "./access";

export const IdentityAccessBinding = z.object({
  groupUid: Uidp.describe("The group the role is held on."),
  roleUid: RoleUid.describe("The role: a custom role's uid or a built-in role's 40-hex uid (see getRole)."),
});

export const IDENTITY_ACCESS = declareResource({
  token: "platform:iam:IdentityAccess",
  stem: "identity-access",
  summary:
    "Every role one identity holds, on any group: bindings of the identity made outside the stack show as drift and the next update removes them.",
  importId: "the identity's uid",
  inputs: {
    identityUid: input(Uidp, {
      doc: "The identity whose bindings this resource declares. Changing it moves the authority in place: the new identity's bindings are made to match, and the bindings declared for the old one are removed.",
    }),
    bindings: input(z.array(IdentityAccessBinding).optional(), {
      doc: "Every binding the identity holds, and nothing else: an update creates the missing ones first, then deletes the ones not listed. The order does not matter; unset or empty, the scope holds no binding.",
      compare: "object",
      default: [],
    }),
    onDelete: input(z.enum(["remove", "keep"]).optional(), {
      doc: "What deleting this resource does to its bindings: `remove` deletes the bindings it declares, `keep` leaves every binding in place.",
      default: "remove",
    }),
    allowRemovingOwnAccess: input(z.boolean().optional(), {
      doc: "Allow a change that removes a binding of the identity the provider runs as (when this resource governs that identity). Without it such a change fails at preview, naming the binding.",
      default: false,
    }),
  },
  outputs: {
    uid: output(
      z.string(),
      "The resource's id: the uid of the identity it governed when it was created (or imported).",
    ),
  },
  refine(inputs, ctx) {
    if (!Array.isArray(inputs.bindings)) return;
    const seen = new Map<string, number>();
    inputs.bindings.forEach((binding, index) => {
      const key = keyOf({
        groupUid: binding.groupUid,
        identityUid: inputs.identityUid,
        roleUid: binding.roleUid,
      });
      const first = seen.get(key);
      if (first !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["bindings", index],
          message: `repeats bindings[${first}]: each (group, role) is listed once`,
        });
      } else seen.set(key, index);
    });
  },
});

export const IdentityAccessInputSchema = IDENTITY_ACCESS.inputSchema;
export type IdentityAccessInputs = z.infer<typeof IdentityAccessInputSchema>;
