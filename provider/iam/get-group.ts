/**
 * platform.iam.getGroup / getGroupOutput: one group by uid, or by name within an organization
 * (uidp.descendants_of + name; the organization itself matches too).
 *
 * The implementation, ./get-group.implementation (zod, the SDK, undici), loads on the first call, so a program that
 * does not call it never loads them.
 *
 * May import: @pulumi/pulumi (types), ../core/output-form, ../types.
 */
import type * as pulumi from "@pulumi/pulumi";
import { outputForm } from "../core/output-form";
import type { GetGroupArgs, GetGroupResult } from "../types";

export type { GetGroupArgs, GetGroupResult };

export async function getGroup(args: GetGroupArgs, opts?: pulumi.InvokeOptions): Promise<GetGroupResult> {
  const implementation = require("./get-group.implementation") as typeof import("./get-group.implementation");
  return implementation.getGroup(args, opts);
}

export const getGroupOutput = outputForm(getGroup);
