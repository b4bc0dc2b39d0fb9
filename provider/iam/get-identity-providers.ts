/**
 * platform.iam.getIdentityProviders / getIdentityProvidersOutput: the identity providers of an
 * organization, with an optional exact-name filter and ordering, paged through 200 at a time. The
 * results carry no client secret (the API never returns it).
 *
 * The implementation, ./get-identity-providers.implementation (zod, the SDK, undici), loads on the first call, so a program that
 * does not call it never loads them.
 *
 * May import: @pulumi/pulumi (types), ../core/output-form, ../types.
 */
import type * as pulumi from "@pulumi/pulumi";
import { outputForm } from "../core/output-form";
import type { GetIdentityProvidersArgs, GetIdentityProvidersResult } from "../types";

export type { GetIdentityProvidersArgs, GetIdentityProvidersResult };

export async function getIdentityProviders(
  args: GetIdentityProvidersArgs,
  opts?: pulumi.InvokeOptions,
): Promise<GetIdentityProvidersResult> {
  const implementation =
    require("./get-identity-providers.implementation") as typeof import("./get-identity-providers.implementation");
  return implementation.getIdentityProviders(args, opts);
}

export const getIdentityProvidersOutput = outputForm(getIdentityProviders);
