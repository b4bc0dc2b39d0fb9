/**
 * platform.vulnerabilities.getAdvisories / getAdvisoriesOutput: vulnerability advisories with the filters
 * the API offers (OpenAPI ListAdvisories), paged through 200 at a time.
 *
 * The implementation, ./get-advisories.implementation (zod, the SDK, undici), loads on the first call, so a program that
 * does not call it never loads them.
 *
 * May import: @pulumi/pulumi (types), ../core/output-form, ../types.
 */
import type * as pulumi from "@pulumi/pulumi";
import { outputForm } from "../core/output-form";
import type { GetAdvisoriesArgs, GetAdvisoriesResult } from "../types";

export type { GetAdvisoriesArgs, GetAdvisoriesResult };

export async function getAdvisories(
  args: GetAdvisoriesArgs,
  opts?: pulumi.InvokeOptions,
): Promise<GetAdvisoriesResult> {
  const implementation =
    require("./get-advisories.implementation") as typeof import("./get-advisories.implementation");
  return implementation.getAdvisories(args, opts);
}

export const getAdvisoriesOutput = outputForm(getAdvisories);
