/**
 * platform.iam.Role: a custom role: a named set of capabilities defined in a group. Its Args, outputs and the properties it registers are derived from its
 * declaration (./role.declaration, through the generated ../types); this class only binds them to its provider.
 *
 * May import: @pulumi/pulumi, ./role.provider, ../core/resource-class, ../types (types and the properties table).
 */
import * as pulumi from "@pulumi/pulumi";
import provider = require("./role.provider");
import { dynamicResource, uidOf, type ArgsOf, type OutputsOf } from "../core/resource-class";
import type { RoleInputs, RoleState } from "../types";

export type RoleArgs = ArgsOf<RoleInputs>;

// The outputs are declared by merging this interface into the class (the engine sets them at run time).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface Role extends OutputsOf<RoleState> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Role extends pulumi.CustomResource {
  /** The uid the service assigned: the resource's id (see uidOf). */
  public readonly uid: pulumi.Output<string>;

  constructor(name: string, args: RoleArgs, opts?: pulumi.CustomResourceOptions) {
    super(...dynamicResource("Role", name, provider, args, opts));
    this.uid = uidOf(this);
  }

  /** Reads an existing role by uid into the program (calls the provider's `read`). */
  public static get(
    name: string,
    uid: pulumi.Input<string>,
    opts?: pulumi.CustomResourceOptions,
    state?: { profile?: pulumi.Input<string> },
  ): Role {
    return new Role(name, { profile: state?.profile } as RoleArgs, { ...opts, id: uid });
  }
}
