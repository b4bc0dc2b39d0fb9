/**
 * platform.registry.getRepo, implementation (loaded by ./get-repo on the first call): one repository by uid, or by exact name in an organization.
 */
import { z } from "zod";
import { Repo, Uidp } from "../../sdk/schemas";
import { ProfileArgsSchema, lookupDataSource, named, type DataSourceFunction } from "../core/data-source";
import type { GetRepoArgs, GetRepoResult } from "../types.generated";

/** @internal */
export const GetRepoArgsSchema = z
  .object({
    uid: Uidp.optional().describe("The repo's uid."),
    name: z.string().min(1).optional().describe("The repo's exact name; needs organizationUid."),
    organizationUid: Uidp.optional().describe("The organization to search in (uidp.descendants_of)."),
    ...ProfileArgsSchema.shape,
  })
  .refine((a) => a.uid !== undefined || (a.name !== undefined && a.organizationUid !== undefined), {
    message: "pass uid, or name with organizationUid",
    path: ["uid"],
  });
/** @internal */
export const GetRepoResultSchema = Repo;

const repo = lookupDataSource({
  token: "platform:registry:getRepo",
  summary: "One registry repository by uid, or by exact name in an organization.",
  args: GetRepoArgsSchema,
  result: GetRepoResultSchema,
  kind: "repo",
  kinds: "repos",
  get: (client, uid) => client.repos.get(uid),
  find: async (client, { name, organizationUid }, page) => ({
    matches: await named(name!, client.repos.list({ descendantsOf: organizationUid, name, ...page })),
    where: `in ${organizationUid}`,
  }),
  answer: (found) => found,
});

/** platform:registry:getRepo, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = repo.declaration;

export const getRepo: DataSourceFunction<GetRepoArgs, GetRepoResult> = repo.run;
