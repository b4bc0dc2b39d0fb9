/**
 * platform.iam.Group, declared once: its fields, their docs and flags. Everything else about the resource's shape
 * (check, diff, schema.json, the classes' types, the docs) is derived from this (../core/declaration).
 */
import { z } from "zod";
import { GroupName, Uidp } from "../../sdk/schemas";
import { adoptInput, declareResource, input, output } from "../core/declaration";

export const GROUP = declareResource({
  token: "platform:iam:Group",
  stem: "group",
  summary: "An organization (a root group, when parentUid is omitted) or a folder under another group.",
  importId: "the group's uid",
  inputs: {
    name: input(GroupName, { doc: "The group's name; must match ^[a-z0-9 ._-]{1,}$." }),
    description: input(z.string().optional(), {
      doc: "A description; absent is the same as empty.",
      default: "",
    }),
    parentUid: input(Uidp.optional(), {
      doc: "The parent group's uid. Omit to create an organization (a root group). Changing it replaces the group.",
      replaces: true,
      inPath: true,
    }),
    adopt: adoptInput(),
  },
  outputs: {
    uid: output(z.string(), "The group's uid, assigned by the service."),
    verified: output(z.boolean(), "Whether the organization is verified; false for new groups."),
    createTime: output(z.string(), "When the group was created (RFC 3339)."),
  },
});

export const GroupInputSchema = GROUP.inputSchema;
export type GroupInputs = z.infer<typeof GroupInputSchema>;
