/**
 * platform.registry.getRepos, implementation (loaded by ./get-repos on the first call): the registry repositories under an organization, with an
 * optional exact-name filter and server-side ordering, paged through 200 at a time.
 */
import { z } from "zod";
import { Repo, Uidp } from "../../sdk/schemas";
import { ProfileArgsSchema, listDataSource, type DataSourceFunction } from "../core/data-source";
import type { GetReposArgs, GetReposResult } from "../types.generated";

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

const repos = listDataSource({
  token: "platform:registry:getRepos",
  summary: "The registry repositories under an organization, with an optional name filter and ordering.",
  args: GetReposArgsSchema,
  key: "repos",
  item: Repo,
  doc: "Every matching repository.",
  list: (client, { organizationUid, uids, ...filters }, page) =>
    client.repos.list({ ...filters, ids: uids, descendantsOf: organizationUid, ...page }),
});

/** @internal */
export const GetReposResultSchema = repos.result;

/** platform:registry:getRepos, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = repos.declaration;

export const getRepos: DataSourceFunction<GetReposArgs | undefined, GetReposResult> = repos.run;
