/**
 * platform.registry.getRepos, implementation (loaded by ./get-repos on the first call): the registry repositories under an organization, with an
 * optional exact-name filter and server-side ordering, paged through 200 at a time.
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
  withProgramClient,
} from "../core/program-client";
import type { GetReposArgs, GetReposResult } from "../types";

/** @internal */
export const GetReposArgsSchema = z.object({
  organizationUid: Uidp.optional().describe(
    "Only repos anywhere below this group, usually the organization.",
  ),
  childrenOf: Uidp.optional().describe("Only repos directly in this group (uidp.children_of)."),
  name: z.string().optional().describe("Only repos with exactly this name."),
  uids: z
    .array(z.string().min(1))
    .optional()
    .describe(
      "Only the repos with these uids (uidp.ids): many repos in one request rather than a getRepo each.",
    ),
  orderBy: z.string().optional().describe('Server-side order, e.g. "name", "name desc", "created_at desc".'),
  ...ProfileArgsSchema.shape,
});

/** @internal */
export const GetReposResultSchema = z.object({ repos: z.array(Repo).describe("Every matching repository.") });

/** platform:registry:getRepos, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = declareDataSource({
  token: "platform:registry:getRepos",
  summary: "The registry repositories under an organization, with an optional name filter and ordering.",
  args: GetReposArgsSchema,
  result: GetReposResultSchema,
  invoke: (args) => getRepos(args as GetReposArgs),
});

const TOKEN = declaration.token;

export async function getRepos(
  args: GetReposArgs = {},
  _opts?: pulumi.InvokeOptions,
): Promise<GetReposResult> {
  const { profile, organizationUid, uids, ...filters } = parseArgs(TOKEN, GetReposArgsSchema, args);
  // An empty uids list asks for no repo: no request.
  if (uids !== undefined && uids.length === 0) return { repos: [] };
  return withProgramClient(profile, { action: "list", type: TOKEN }, async (client) => ({
    repos: await collect(
      client.repos.list({
        ...filters,
        ids: uids,
        descendantsOf: organizationUid,
        pageSize: DATA_SOURCE_PAGE_SIZE,
      }),
    ),
  }));
}
