/**
 * platform.iam.getGroup / getGroupOutput: one group by uid, or by name within an organization
 * (uidp.descendants_of + name; the organization itself matches too).
 *
 * May import: @pulumi/pulumi, ../core, ../../sdk.
 */
import * as pulumi from "@pulumi/pulumi";
import type { Group } from "../../sdk";
import { parentOf } from "../core/create";
import {
  DATA_SOURCE_PAGE_SIZE,
  ProfileArgs,
  argumentError,
  collect,
  outputForm,
  withProgramClient,
} from "../core/program-client";

export interface GetGroupArgs extends ProfileArgs {
  /** The group's uid. */
  uid?: string;
  /** The group's exact name; needs `organizationUid`. */
  name?: string;
  /** The organization (root group) to search in by name. */
  organizationUid?: string;
}

export type GetGroupResult = Group & { parentUid?: string | undefined };

export function getGroup(args: GetGroupArgs, _opts?: pulumi.InvokeOptions): Promise<GetGroupResult> {
  if (args.uid === undefined && (args.name === undefined || args.organizationUid === undefined)) {
    return Promise.reject(argumentError("platform:iam:getGroup", "pass `uid`, or `name` with `organizationUid`"));
  }
  const attempt = { action: "look up", type: "platform:iam:getGroup", name: args.name, uid: args.uid };
  return withProgramClient(args.profile, attempt, async (client) => {
    let group: Group | undefined;
    if (args.uid !== undefined) {
      group = await client.groups.get(args.uid);
    } else {
      const org = args.organizationUid as string;
      const below = await collect(
        client.groups.list({ descendantsOf: org, name: args.name, pageSize: DATA_SOURCE_PAGE_SIZE }),
      );
      const matches = below.filter((g) => g.name === args.name);
      if (matches.length === 0) {
        const root = await client.groups.get(org);
        if (root.name === args.name) matches.push(root);
      }
      if (matches.length > 1) {
        throw argumentError(
          "platform:iam:getGroup",
          `${matches.length} groups are named "${args.name}" in ${org} (${matches.map((g) => g.uid).join(", ")}): pass \`uid\``,
        );
      }
      group = matches[0];
      if (group === undefined) {
        throw argumentError("platform:iam:getGroup", `no group named "${args.name}" in organization ${org}`);
      }
    }
    return { ...group, parentUid: parentOf(group.uid) };
  });
}

export const getGroupOutput = outputForm(getGroup);
