/**
 * platform.iam.getIdentity / getIdentityOutput: one identity by uid, by name below a group, or by the issuer and
 * subject of its tokens (the service's lookup).
 *
 * The implementation, ./get-identity.implementation (zod, the SDK, undici), loads on the first call, so a program that
 * does not call it never loads them.
 *
 * May import: @pulumi/pulumi (types), ../core/output-form, ../types.
 */
import type * as pulumi from "@pulumi/pulumi";
import { outputForm } from "../core/output-form";
import type { GetIdentityArgs, GetIdentityResult } from "../types";

export type { GetIdentityArgs, GetIdentityResult };

export async function getIdentity(
  args: GetIdentityArgs,
  opts?: pulumi.InvokeOptions,
): Promise<GetIdentityResult> {
  const implementation =
    require("./get-identity.implementation") as typeof import("./get-identity.implementation");
  return implementation.getIdentity(args, opts);
}

export const getIdentityOutput = outputForm(getIdentity);
