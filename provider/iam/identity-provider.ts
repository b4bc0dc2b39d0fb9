/**
 * platform.iam.IdentityProvider: an organization's OIDC login; clientSecret is always secret, even when given in plain. Its Args, outputs and the properties it registers are derived from its
 * declaration (./identity-provider.declaration, through the generated ../types); this class only binds them to its provider.
 *
 * May import: @pulumi/pulumi, ./identity-provider.provider, ../core/resource-class, ../types (types and the properties table).
 */
import * as pulumi from "@pulumi/pulumi";
import provider = require("./identity-provider.provider");
import { dynamicResource, uidOf, type ArgsOf, type OutputsOf } from "../core/resource-class";
import type { IdentityProviderInputs, IdentityProviderState } from "../types";

export type IdentityProviderArgs = ArgsOf<IdentityProviderInputs>;

// The outputs are declared by merging this interface into the class (the engine sets them at run time).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface IdentityProvider extends OutputsOf<IdentityProviderState> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class IdentityProvider extends pulumi.CustomResource {
  /** The uid the service assigned: the resource's id (see uidOf). */
  public readonly uid: pulumi.Output<string>;

  constructor(name: string, args: IdentityProviderArgs, opts?: pulumi.CustomResourceOptions) {
    super(...dynamicResource("IdentityProvider", name, provider, args, opts));
    this.uid = uidOf(this);
  }

  /** Reads an existing identity provider by uid (calls the provider's `read`); clientSecret stays unknown. */
  public static get(
    name: string,
    uid: pulumi.Input<string>,
    opts?: pulumi.CustomResourceOptions,
    state?: { profile?: pulumi.Input<string> },
  ): IdentityProvider {
    return new IdentityProvider(name, { profile: state?.profile } as IdentityProviderArgs, {
      ...opts,
      id: uid,
    });
  }
}
