/**
 * platform.iam.getGroup, implementation (loaded by ./get-group on the first call): one group by uid, or by name within an organization
 * (uidp.descendants_of + name; the organization itself matches too). Of several groups with the name, the only
 * verified one is chosen; with none or several verified, the lookup fails naming every candidate's uid.
 */
import { z } from "zod";
import { Group, Uidp } from "../../sdk/schemas";
import { parentOf } from "../../sdk/uidp";
import { ProfileArgsSchema, lookupDataSource, named, type DataSourceFunction } from "../core/data-source";
import type { GetGroupArgs, GetGroupResult } from "../types.generated";

/** @internal */
export const GetGroupArgsSchema = z
  .object({
    uid: Uidp.optional().describe("The group's uid."),
    name: z.string().min(1).optional().describe("The group's exact name; needs organizationUid."),
    organizationUid: Uidp.optional().describe("The organization (root group) to search by name."),
    ...ProfileArgsSchema.shape,
  })
  .refine((a) => a.uid !== undefined || (a.name !== undefined && a.organizationUid !== undefined), {
    message: "pass uid, or name with organizationUid",
    path: ["uid"],
  });

/** @internal */
export const GetGroupResultSchema = Group.extend({
  parentUid: z.string().optional().describe("The parent group's uid; absent for an organization."),
});

const group = lookupDataSource({
  token: "platform:iam:getGroup",
  summary: "One group by uid, or by name within an organization.",
  args: GetGroupArgsSchema,
  result: GetGroupResultSchema,
  kind: "group",
  kinds: "groups",
  get: (client, uid) => client.groups.get(uid),
  find: async (client, { name, organizationUid }, page) => {
    const org = organizationUid!;
    const matches = await named(name!, client.groups.list({ descendantsOf: org, name, ...page }));
    if (matches.length === 0) {
      const root = await client.groups.get(org);
      if (root.name === name) matches.push(root);
    }
    // Names are not unique: of several, the one the service verified is meant when it is the only verified one;
    // otherwise the lookup fails naming every candidate (never a silent pick).
    const verified = matches.filter((g) => g.verified === true);
    return {
      matches: matches.length > 1 && verified.length === 1 ? verified : matches,
      where: `in organization ${org}`,
      hint: `${verified.length === 0 ? "none" : verified.length} of them verified; pass uid`,
    };
  },
  answer: (found) => ({ ...found, parentUid: parentOf(found.uid) }),
});

/** platform:iam:getGroup, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = group.declaration;

export const getGroup: DataSourceFunction<GetGroupArgs, GetGroupResult> = group.run;
