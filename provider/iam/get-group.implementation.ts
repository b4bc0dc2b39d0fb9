/**
 * platform.iam.getGroup, implementation (loaded by ./get-group on the first call): one group by uid, or by name within an organization
 * (uidp.descendants_of + name; the organization itself matches too). Of several groups with the name, the only
 * verified one is chosen; with none or several verified, the lookup fails naming every candidate's uid.
 *
 * May import: @pulumi/pulumi, zod, ../core, ../../sdk.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { declareDataSource } from "../core/declaration";
import { Group, Uidp } from "../../sdk/schemas";
import { parentOf } from "../../sdk/uidp";
import {
  DATA_SOURCE_PAGE_SIZE,
  ProfileArgsSchema,
  collect,
  parseArgs,
  theOnlyMatch,
  withProgramClient,
} from "../core/program-client";
import type { GetGroupArgs, GetGroupResult } from "../types";

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

/** platform:iam:getGroup, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = declareDataSource({
  token: "platform:iam:getGroup",
  summary: "One group by uid, or by name within an organization.",
  args: GetGroupArgsSchema,
  result: GetGroupResultSchema,
  invoke: (args) => getGroup(args as GetGroupArgs),
});

const TOKEN = declaration.token;

export async function getGroup(args: GetGroupArgs, _opts?: pulumi.InvokeOptions): Promise<GetGroupResult> {
  const { uid, name, organizationUid, profile } = parseArgs(TOKEN, GetGroupArgsSchema, args);
  return withProgramClient(profile, { action: "look up", type: TOKEN, name, uid }, async (client) => {
    let group: Group;
    if (uid !== undefined) {
      group = await client.groups.get(uid);
    } else {
      const org = organizationUid as string;
      const below = await collect(
        client.groups.list({ descendantsOf: org, name, pageSize: DATA_SOURCE_PAGE_SIZE }),
      );
      const matches = below.filter((g) => g.name === name);
      if (matches.length === 0) {
        const root = await client.groups.get(org);
        if (root.name === name) matches.push(root);
      }
      // Names are not unique: of several, the one the service verified is meant when it is the only verified one;
      // otherwise the lookup fails naming every candidate (never a silent pick).
      const verified = matches.filter((g) => g.verified === true);
      group = theOnlyMatch(TOKEN, matches.length > 1 && verified.length === 1 ? verified : matches, {
        kind: "group",
        kinds: "groups",
        name,
        where: `in organization ${org}`,
        hint: `${verified.length === 0 ? "none" : verified.length} of them verified; pass uid`,
      });
    }
    return { ...group, parentUid: parentOf(group.uid) };
  });
}
