/**
 * platform.iam.RoleBinding: grants an identity a role on a group. Its Args, outputs and the properties it registers are derived from its
 * declaration (./role-binding.declaration, through the generated ../types); this class only binds them to its provider.
 *
 * May import: @pulumi/pulumi, ./role-binding.provider, ../core/resource-class, ../types (types and the properties table).
 */
import * as pulumi from "@pulumi/pulumi";
import provider = require("./role-binding.provider");
import { dynamicResource, uidOf, type ArgsOf, type OutputsOf } from "../core/resource-class";
import type { RoleBindingInputs, RoleBindingState } from "../types";

export type RoleBindingArgs = ArgsOf<RoleBindingInputs>;

// The outputs are declared by merging this interface into the class (the engine sets them at run time).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface RoleBinding extends OutputsOf<RoleBindingState> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class RoleBinding extends pulumi.CustomResource {
  /** The uid the service assigned: the resource's id (see uidOf). */
  public readonly uid: pulumi.Output<string>;

  constructor(name: string, args: RoleBindingArgs, opts?: pulumi.CustomResourceOptions) {
    super(...dynamicResource("RoleBinding", name, provider, args, opts));
    this.uid = uidOf(this);
  }

  /** Reads an existing binding by uid into the program (calls the provider's `read`). */
  public static get(
    name: string,
    uid: pulumi.Input<string>,
    opts?: pulumi.CustomResourceOptions,
    state?: { profile?: pulumi.Input<string> },
  ): RoleBinding {
    return new RoleBinding(name, { profile: state?.profile } as RoleBindingArgs, { ...opts, id: uid });
  }
}
