/**
 * platform.iam.getIdentity, implementation (loaded by ./get-identity on the first call): one identity by uid, by name below a group, or by the issuer and
 * subject of its tokens (the service's lookup).
 */
import { z } from "zod";
import { NotFoundError, PermissionDeniedError, type PlatformClient } from "../../sdk";
import { Identity, Uidp } from "../../sdk/schemas";
import { parentOf } from "../../sdk/uidp";
import {
  ProfileArgsSchema,
  lookupDataSource,
  named,
  type Candidates,
  type DataSourceFunction,
} from "../core/data-source";
import type { GetIdentityArgs, GetIdentityResult } from "../types.generated";

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

/**
 * The identity the service's lookup names for an issuer and subject. It answers a uid for any of them (the one a
 * person would get on registration when nobody has it yet); the identity itself only when the caller may read it,
 * else just that uid.
 */
async function identityOfTokens(
  client: PlatformClient,
  issuer: string,
  subject: string,
): Promise<Candidates<Identity | { uid: string }>> {
  const where = "for that issuer and subject";
  const found = await client.identities.lookup({ issuer, subject });
  try {
    return { matches: [await client.identities.get(found.uid)], where };
  } catch (error) {
    if (!NotFoundError.isInstance(error) && !PermissionDeniedError.isInstance(error)) throw error;
    return { matches: [{ uid: found.uid }], where };
  }
}

const identity = lookupDataSource({
  token: "platform:iam:getIdentity",
  summary: "One identity by uid, or by name below a group.",
  args: GetIdentityArgsSchema,
  result: GetIdentityResultSchema,
  kind: "identity",
  kinds: "identities",
  get: (client, uid): Promise<Identity | { uid: string }> => client.identities.get(uid),
  find: async (client, { name, parentUid, issuer, subject }, page) => {
    if (name === undefined || parentUid === undefined) return identityOfTokens(client, issuer!, subject!);
    return {
      matches: await named(name, client.identities.list({ descendantsOf: parentUid, name, ...page })),
      where: `below ${parentUid}`,
    };
  },
  answer: (found) => ({ ...found, parentUid: parentOf(found.uid) }),
});

/** platform:iam:getIdentity, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = identity.declaration;

export const getIdentity: DataSourceFunction<GetIdentityArgs, GetIdentityResult> = identity.run;
