/**
 * platform.iam.getIdentity / getIdentityOutput: one identity by uid, or by name below a group.
 *
 * May import: @pulumi/pulumi, ../core, ../../sdk.
 */
import * as pulumi from "@pulumi/pulumi";
import type { Identity } from "../../sdk";
import { parentOf } from "../core/create";
import {
  DATA_SOURCE_PAGE_SIZE,
  ProfileArgs,
  argumentError,
  collect,
  outputForm,
  withProgramClient,
} from "../core/program-client";

export interface GetIdentityArgs extends ProfileArgs {
  /** The identity's uid. */
  uid?: string;
  /** The identity's exact name; needs `parentUid`. */
  name?: string;
  /** The group to search below (uidp.descendants_of), e.g. the organization. */
  parentUid?: string;
}

export type GetIdentityResult = Identity & { parentUid?: string | undefined };

export function getIdentity(args: GetIdentityArgs, _opts?: pulumi.InvokeOptions): Promise<GetIdentityResult> {
  if (args.uid === undefined && (args.name === undefined || args.parentUid === undefined)) {
    return Promise.reject(argumentError("platform:iam:getIdentity", "pass `uid`, or `name` with `parentUid`"));
  }
  const attempt = { action: "look up", type: "platform:iam:getIdentity", name: args.name, uid: args.uid };
  return withProgramClient(args.profile, attempt, async (client) => {
    let identity: Identity | undefined;
    if (args.uid !== undefined) {
      identity = await client.identities.get(args.uid);
    } else {
      const matches = (
        await collect(
          client.identities.list({ descendantsOf: args.parentUid, name: args.name, pageSize: DATA_SOURCE_PAGE_SIZE }),
        )
      ).filter((i) => i.name === args.name);
      if (matches.length > 1) {
        throw argumentError(
          "platform:iam:getIdentity",
          `${matches.length} identities are named "${args.name}" below ${args.parentUid} (${matches.map((i) => i.uid).join(", ")}): pass \`uid\``,
        );
      }
      identity = matches[0];
      if (identity === undefined) {
        throw argumentError("platform:iam:getIdentity", `no identity named "${args.name}" below ${args.parentUid}`);
      }
    }
    return { ...identity, parentUid: parentOf(identity.uid) };
  });
}

export const getIdentityOutput = outputForm(getIdentity);
