/**
 * platform.registry.getRepo / getRepoOutput: one repository by uid, or by exact name in an organization.
 *
 * May import: @pulumi/pulumi, ../core/program-client, ../../sdk.
 */
import * as pulumi from "@pulumi/pulumi";
import type { Repo } from "../../sdk";
import {
  DATA_SOURCE_PAGE_SIZE,
  ProfileArgs,
  argumentError,
  collect,
  outputForm,
  withProgramClient,
} from "../core/program-client";

export interface GetRepoArgs extends ProfileArgs {
  /** The repo's uid. */
  uid?: string;
  /** The repo's exact name; needs `organizationUid`. */
  name?: string;
  /** The organization to search in (uidp.descendants_of). */
  organizationUid?: string;
}

export function getRepo(args: GetRepoArgs, _opts?: pulumi.InvokeOptions): Promise<Repo> {
  if (args.uid === undefined && (args.name === undefined || args.organizationUid === undefined)) {
    return Promise.reject(argumentError("platform:registry:getRepo", "pass `uid`, or `name` with `organizationUid`"));
  }
  const attempt = { action: "look up", type: "platform:registry:getRepo", name: args.name, uid: args.uid };
  return withProgramClient(args.profile, attempt, async (client) => {
    if (args.uid !== undefined) return client.repos.get(args.uid);
    const matches = (
      await collect(
        client.repos.list({ descendantsOf: args.organizationUid, name: args.name, pageSize: DATA_SOURCE_PAGE_SIZE }),
      )
    ).filter((r) => r.name === args.name);
    const [first, ...rest] = matches;
    if (first === undefined) {
      throw argumentError("platform:registry:getRepo", `no repo named "${args.name}" in ${args.organizationUid}`);
    }
    if (rest.length > 0) {
      throw argumentError(
        "platform:registry:getRepo",
        `${matches.length} repos are named "${args.name}" (${matches.map((r) => r.uid).join(", ")}): pass \`uid\``,
      );
    }
    return first;
  });
}

export const getRepoOutput = outputForm(getRepo);
