/**
 * platform.registry.getRepos / getReposOutput: the registry repositories under an organization, with an
 * optional exact-name filter and server-side ordering, paged through 200 at a time.
 *
 * The implementation, ./get-repos.implementation (zod, the SDK, undici), loads on the first call, so a program that
 * does not call it never loads them.
 *
 * May import: @pulumi/pulumi (types), ../core/output-form, ../types.
 */
import type * as pulumi from "@pulumi/pulumi";
import { outputForm } from "../core/output-form";
import type { GetReposArgs, GetReposResult } from "../types";

export type { GetReposArgs, GetReposResult };

export async function getRepos(
  args: GetReposArgs = {},
  opts?: pulumi.InvokeOptions,
): Promise<GetReposResult> {
  const implementation = require("./get-repos.implementation") as typeof import("./get-repos.implementation");
  return implementation.getRepos(args, opts);
}

export const getReposOutput = outputForm(getRepos);
