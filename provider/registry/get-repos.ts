/**
 * platform.registry.getRepos / getReposOutput: the registry repositories under an organization, with an
 * optional exact-name filter and server-side ordering, paged through 200 at a time.
 *
 * May import: @pulumi/pulumi, ../core/program-client, ../../sdk.
 */
import * as pulumi from "@pulumi/pulumi";
import type { Repo } from "../../sdk";
import { DATA_SOURCE_PAGE_SIZE, ProfileArgs, collect, outputForm, withProgramClient } from "../core/program-client";

export interface GetReposArgs extends ProfileArgs {
  /** Only repos anywhere below this group, usually the organization (uidp.descendants_of). */
  organizationUid?: string;
  /** Only repos directly in this group (uidp.children_of). */
  childrenOf?: string;
  /** Only repos with exactly this name. */
  name?: string;
  /** Server-side order, e.g. "name", "name desc", "created_at desc". */
  orderBy?: string;
}

export interface GetReposResult {
  repos: Repo[];
}

export function getRepos(args: GetReposArgs = {}, _opts?: pulumi.InvokeOptions): Promise<GetReposResult> {
  return withProgramClient(args.profile, { action: "list", type: "platform:registry:getRepos" }, async (client) => ({
    repos: await collect(
      client.repos.list({
        descendantsOf: args.organizationUid,
        childrenOf: args.childrenOf,
        name: args.name,
        orderBy: args.orderBy,
        pageSize: DATA_SOURCE_PAGE_SIZE,
      }),
    ),
  }));
}

export const getReposOutput = outputForm(getRepos);
