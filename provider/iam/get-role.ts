/**
 * platform.iam.getRole / getRoleOutput: one role by uid, or by name. Names cover built-in roles (e.g.
 * `viewer`, 40-hex uid) and custom ones; `parentUid` narrows a name search to the custom roles below that
 * group, falling back to a built-in role of that name.
 *
 * The implementation, ./get-role.implementation (zod, the SDK, undici), loads on the first call, so a program that
 * does not call it never loads them.
 *
 * May import: @pulumi/pulumi (types), ../core/output-form, ../types.
 */
import type * as pulumi from "@pulumi/pulumi";
import { outputForm } from "../core/output-form";
import type { GetRoleArgs, GetRoleResult } from "../types";

export type { GetRoleArgs, GetRoleResult };

export async function getRole(args: GetRoleArgs, opts?: pulumi.InvokeOptions): Promise<GetRoleResult> {
  const implementation = require("./get-role.implementation") as typeof import("./get-role.implementation");
  return implementation.getRole(args, opts);
}

export const getRoleOutput = outputForm(getRole);
