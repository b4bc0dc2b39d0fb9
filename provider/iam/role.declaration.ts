/**
 * platform.iam.Role (a custom role), declared once (../core/declaration).
 */
import { z } from "zod";
import { Uidp } from "../../sdk/schemas";
import { CAPABILITY_SET } from "../../sdk/schemas/capabilities";
import { adoptInput, declareResource, input, output } from "../core/declaration";

export const CapabilityName = z.string().refine((name) => CAPABILITY_SET.has(name), {
  error: (issue) => `unknown capability ${JSON.stringify(issue.input)}: use a name like CAP_IAM_GROUPS_LIST`,
});

export const ROLE = declareResource({
  token: "platform:iam:Role",
  stem: "role",
  summary: "A custom role: a named set of capabilities defined in a group.",
  importId: "the role's uid",
  inputs: {
    parentUid: input(Uidp, {
      doc: "The uid of the group the role is defined in. Changing it replaces the role.",
      replaces: true,
      inPath: true,
    }),
    name: input(z.string().min(1, "name must not be empty"), { doc: "The role's name." }),
    description: input(z.string().optional(), {
      doc: "A description; absent is the same as empty.",
      default: "",
    }),
    capabilities: input(z.array(CapabilityName).min(1, "capabilities must list at least one capability"), {
      doc: "The capabilities the role grants, e.g. CAP_IAM_GROUPS_LIST. Order does not matter.",
    }),
    adopt: adoptInput(),
  },
  outputs: {
    uid: output(z.string(), "The role's uid, assigned by the service."),
    createTime: output(z.string(), "When the role was created (RFC 3339)."),
  },
});

export const RoleInputSchema = ROLE.inputSchema;
export type RoleInputs = z.infer<typeof RoleInputSchema>;
