/**
 * platform.iam.getIdentity / getIdentityOutput: one identity by uid, or by name below a group.
 *
 * May import: @pulumi/pulumi, zod, ../core, ../../sdk.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { Identity, Uidp } from "../../sdk/schemas";
import { parentOf } from "../core/create";
import {
  DATA_SOURCE_PAGE_SIZE,
  ProfileArgsSchema,
  collect,
  parseArgs,
  theOnlyMatch,
  withProgramClient,
} from "../core/program-client";
import { outputForm } from "../core/output-form";
import type { GetIdentityArgs, GetIdentityResult } from "../types";

export type { GetIdentityArgs, GetIdentityResult };

/** @internal */
export const GetIdentityArgsSchema = z
  .object({
    uid: Uidp.optional().describe("The identity's uid."),
    name: z.string().min(1).optional().describe("The identity's exact name; needs parentUid."),
    parentUid: Uidp.optional().describe(
      "The group to search below (uidp.descendants_of), e.g. the organization.",
    ),
    ...ProfileArgsSchema.shape,
  })
  .refine((a) => a.uid !== undefined || (a.name !== undefined && a.parentUid !== undefined), {
    message: "pass uid, or name with parentUid",
    path: ["uid"],
  });

/** @internal */
export const GetIdentityResultSchema = Identity.extend({
  parentUid: z.string().optional().describe("The uid of the group the identity lives in."),
});

const TOKEN = "platform:iam:getIdentity";

export async function getIdentity(
  args: GetIdentityArgs,
  _opts?: pulumi.InvokeOptions,
): Promise<GetIdentityResult> {
  const { uid, name, parentUid, profile } = parseArgs(TOKEN, GetIdentityArgsSchema, args);
  return withProgramClient(profile, { action: "look up", type: TOKEN, name, uid }, async (client) => {
    let identity: Identity;
    if (uid !== undefined) {
      identity = await client.identities.get(uid);
    } else {
      const listed = await collect(
        client.identities.list({ descendantsOf: parentUid, name, pageSize: DATA_SOURCE_PAGE_SIZE }),
      );
      const matches = listed.filter((i) => i.name === name);
      identity = theOnlyMatch(TOKEN, matches, {
        kind: "identity",
        kinds: "identities",
        name,
        where: `below ${parentUid}`,
      });
    }
    return { ...identity, parentUid: parentOf(identity.uid) };
  });
}

export const getIdentityOutput = outputForm(getIdentity);
