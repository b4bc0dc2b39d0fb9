/**
 * platform.registry.getRepo / getRepoOutput: one repository by uid, or by exact name in an organization.
 *
 * The implementation, ./get-repo.implementation (zod, the SDK, undici), loads on the first call, so a program that
 * does not call it never loads them.
 *
 * May import: @pulumi/pulumi (types), ../core/output-form, ../types.
 */
import type * as pulumi from "@pulumi/pulumi";
import { outputForm } from "../core/output-form";
import type { GetRepoArgs, GetRepoResult } from "../types";

export type { GetRepoArgs, GetRepoResult };

export async function getRepo(args: GetRepoArgs, opts?: pulumi.InvokeOptions): Promise<GetRepoResult> {
  const implementation = require("./get-repo.implementation") as typeof import("./get-repo.implementation");
  return implementation.getRepo(args, opts);
}

export const getRepoOutput = outputForm(getRepo);
