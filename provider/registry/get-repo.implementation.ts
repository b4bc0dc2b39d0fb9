/**
 * platform.registry.getRepo, implementation (loaded by ./get-repo on the first call): one repository by uid, or by exact name in an organization.
 *
 * May import: @pulumi/pulumi, zod, ../core/program-client, ../../sdk.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { declareDataSource } from "../core/declaration";
import { Repo, Uidp } from "../../sdk/schemas";
import {
  DATA_SOURCE_PAGE_SIZE,
  ProfileArgsSchema,
  collect,
  parseArgs,
  theOnlyMatch,
  withProgramClient,
} from "../core/program-client";
import type { GetRepoArgs, GetRepoResult } from "../types";

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

/** platform:registry:getRepo, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = declareDataSource({
  token: "platform:registry:getRepo",
  summary: "One registry repository by uid, or by exact name in an organization.",
  args: GetRepoArgsSchema,
  result: GetRepoResultSchema,
  invoke: (args) => getRepo(args as GetRepoArgs),
});

const TOKEN = declaration.token;

export async function getRepo(args: GetRepoArgs, _opts?: pulumi.InvokeOptions): Promise<GetRepoResult> {
  const { uid, name, organizationUid, profile } = parseArgs(TOKEN, GetRepoArgsSchema, args);
  return withProgramClient(profile, { action: "look up", type: TOKEN, name, uid }, async (client) => {
    if (uid !== undefined) return client.repos.get(uid);
    const listed = await collect(
      client.repos.list({ descendantsOf: organizationUid, name, pageSize: DATA_SOURCE_PAGE_SIZE }),
    );
    const matches = listed.filter((r) => r.name === name);
    return theOnlyMatch(TOKEN, matches, {
      kind: "repo",
      kinds: "repos",
      name,
      where: `in ${organizationUid}`,
    });
  });
}
