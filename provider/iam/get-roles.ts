/**
 * platform.iam.getRoles / getRolesOutput: every role visible to the credentials (built-in and custom),
 * optionally scoped and filtered, paged through 200 at a time.
 *
 * The implementation, ./get-roles.implementation (zod, the SDK, undici), loads on the first call, so a program that
 * does not call it never loads them.
 *
 * May import: @pulumi/pulumi (types), ../core/output-form, ../types.
 */
import type * as pulumi from "@pulumi/pulumi";
import { outputForm } from "../core/output-form";
import type { GetRolesArgs, GetRolesResult } from "../types";

export type { GetRolesArgs, GetRolesResult };

export async function getRoles(
  args: GetRolesArgs = {},
  opts?: pulumi.InvokeOptions,
): Promise<GetRolesResult> {
  const implementation = require("./get-roles.implementation") as typeof import("./get-roles.implementation");
  return implementation.getRoles(args, opts);
}

export const getRolesOutput = outputForm(getRoles);
