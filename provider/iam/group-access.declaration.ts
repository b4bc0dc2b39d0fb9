/**
 * platform.iam.GroupAccess, declared once (../core/declaration): the complete set of role bindings on one group,
 * or on the group and every group under it. Nothing replaces: a new group or scope is taken over in place, so no
 * binding that stays is ever deleted and re-created.
 */
import { z } from "zod";
import { RoleUid, Uidp } from "../../sdk/schemas";
import { declareResource, input, output } from "../core/declaration";
import { isAtOrBelow, keyOf } from "./access";

export const GroupAccessBinding = z.object({
  identityUid: Uidp.describe("The identity that holds the role."),
  roleUid: RoleUid.describe("The role: a custom role's uid or a built-in role's 40-hex uid (see getRole)."),
  groupUid: Uidp.optional().describe(
    "The group the role is held on: the resource's group when unset; with scope `subtree`, that group or any group under it.",
  ),
});

export const GROUP_ACCESS = declareResource({
  token: "platform:iam:GroupAccess",
  stem: "group-access",
  summary:
    "The complete set of role bindings on a group (or on a group and every group under it): bindings made outside the stack show as drift and the next update removes them.",
  importId: "the group's uid; append `/**` to govern the group and every group under it",
  inputs: {
    groupUid: input(Uidp, {
      doc: "The group whose bindings this resource declares. Changing it moves the authority in place: the new group's bindings are made to match, and the bindings declared on the old one are removed.",
    }),
    scope: input(z.enum(["group", "subtree"]).optional(), {
      doc: "`group`: the bindings directly on the group. `subtree`: the bindings on the group and on every group under it (each binding names its group).",
      default: "group",
    }),
    bindings: input(z.array(GroupAccessBinding).optional(), {
      doc: "Every binding the scope holds, and nothing else: an update creates the missing ones first, then deletes the ones not listed. The order does not matter; unset or empty, the scope holds no binding.",
      compare: "object",
      default: [],
    }),
    onDelete: input(z.enum(["remove", "keep"]).optional(), {
      doc: "What deleting this resource does to its bindings: `remove` deletes the bindings it declares (the provider's own identity's last), `keep` leaves every binding in place.",
      default: "remove",
    }),
    allowRemovingOwnAccess: input(z.boolean().optional(), {
      doc: "Allow a change that removes a binding of the identity the provider runs as. Without it such a change fails at preview, naming the binding.",
      default: false,
    }),
  },
  outputs: {
    uid: output(
      z.string(),
      "The resource's id: the uid of the group it governed when it was created (or imported).",
    ),
  },
  refine(inputs, ctx) {
    if (!Array.isArray(inputs.bindings)) return;
    const subtree = inputs.scope === "subtree";
    const seen = new Map<string, number>();
    inputs.bindings.forEach((binding, index) => {
      const groupUid = binding.groupUid ?? inputs.groupUid;
      if (
        binding.groupUid !== undefined &&
        !(subtree ? isAtOrBelow(groupUid, inputs.groupUid) : groupUid === inputs.groupUid)
      ) {
        ctx.addIssue({
          code: "custom",
          path: ["bindings", index, "groupUid"],
          message: subtree
            ? `must be the resource's group ${inputs.groupUid} or a group under it (scope subtree)`
            : `must be the resource's group ${inputs.groupUid} or unset (scope group; use scope subtree to declare bindings on groups under it)`,
        });
      }
      const key = keyOf({ groupUid, identityUid: binding.identityUid, roleUid: binding.roleUid });
      const first = seen.get(key);
      if (first !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["bindings", index],
          message: `repeats bindings[${first}]: each (group, identity, role) is listed once`,
        });
      } else seen.set(key, index);
    });
  },
});

export const GroupAccessInputSchema = GROUP_ACCESS.inputSchema;
export type GroupAccessInputs = z.infer<typeof GroupAccessInputSchema>;
