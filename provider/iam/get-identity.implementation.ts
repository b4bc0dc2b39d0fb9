/**
 * platform.iam.getIdentity, implementation (loaded by ./get-identity on the first call): one identity by uid, by name below a group, or by the issuer and
 * subject of its tokens (the service's lookup).
 *
 * May import: @pulumi/pulumi, zod, ../core, ../../sdk.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { declareDataSource } from "../core/declaration";
import { NotFoundError, PermissionDeniedError } from "../../sdk";
import { Identity, Uidp } from "../../sdk/schemas";
import { parentOf } from "../../sdk/uidp";
import {
  DATA_SOURCE_PAGE_SIZE,
  ProfileArgsSchema,
  collect,
  parseArgs,
  theOnlyMatch,
  withProgramClient,
} from "../core/program-client";
import type { GetIdentityArgs, GetIdentityResult } from "../types";

/** @internal */
export const GetIdentityArgsSchema = z
  .object({
    uid: Uidp.optional().describe("The identity's uid."),
    name: z.string().min(1).optional().describe("The identity's exact name; needs parentUid."),
    parentUid: Uidp.optional().describe(
      "The group to search below (uidp.descendants_of), e.g. the organization.",
    ),
    issuer: z
      .string()
      .min(1)
      .optional()
      .describe("The issuer (iss) of the identity's tokens; needs subject."),
    subject: z
      .string()
      .min(1)
      .optional()
      .describe("The subject (sub) of the identity's tokens; needs issuer."),
    ...ProfileArgsSchema.shape,
  })
  .refine(
    (a) =>
      a.uid !== undefined ||
      (a.name !== undefined && a.parentUid !== undefined) ||
      (a.issuer !== undefined && a.subject !== undefined),
    { message: "pass uid, or name with parentUid, or issuer with subject", path: ["uid"] },
  );

/** @internal */
export const GetIdentityResultSchema = Identity.extend({
  name: z
    .string()
    .optional()
    .describe(
      "The identity's name; absent when found by issuer and subject but not readable by the caller (e.g. a person's root-level identity).",
    ),
  parentUid: z.string().optional().describe("The uid of the group the identity lives in."),
  lastSeenTime: z
    .string()
    .optional()
    .describe(
      "When a token exchange last assumed the identity (its last federation, or login); until one has, the identity's creation time (createTime): an identity whose lastSeenTime is not after its createTime was never used.",
    ),
});

/** platform:iam:getIdentity, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = declareDataSource({
  token: "platform:iam:getIdentity",
  summary: "One identity by uid, or by name below a group.",
  args: GetIdentityArgsSchema,
  result: GetIdentityResultSchema,
  invoke: (args) => getIdentity(args as GetIdentityArgs),
});

const TOKEN = declaration.token;

export async function getIdentity(
  args: GetIdentityArgs,
  _opts?: pulumi.InvokeOptions,
): Promise<GetIdentityResult> {
  const { uid, name, parentUid, issuer, subject, profile } = parseArgs(TOKEN, GetIdentityArgsSchema, args);
  return withProgramClient(profile, { action: "look up", type: TOKEN, name, uid }, async (client) => {
    let identity: Identity;
    if (uid !== undefined) {
      identity = await client.identities.get(uid);
    } else if (name === undefined || parentUid === undefined) {
      // The service's lookup answers a uid for any issuer and subject (the one a person would get on
      // registration when nobody has it yet); the identity itself only when the caller may read it.
      const found = await client.identities.lookup({ issuer: issuer!, subject: subject! });
      try {
        identity = await client.identities.get(found.uid);
      } catch (error) {
        if (!NotFoundError.isInstance(error) && !PermissionDeniedError.isInstance(error)) throw error;
        return { uid: found.uid, parentUid: parentOf(found.uid) };
      }
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
