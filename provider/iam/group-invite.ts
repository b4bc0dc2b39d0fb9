/**
 * platform.iam.GroupInvite: a code that grants a role on a group when accepted; code is a secret output, returned only at creation. Its Args, outputs and the properties it registers are derived from its
 * declaration (./group-invite.declaration, through the generated ../types); this class only binds them to its provider.
 *
 * May import: @pulumi/pulumi, ./group-invite.provider, ../core/resource-class, ../types (types and the properties table).
 */
import * as pulumi from "@pulumi/pulumi";
import provider = require("./group-invite.provider");
import { dynamicResource, uidOf, type ArgsOf, type OutputsOf } from "../core/resource-class";
import type { GroupInviteInputs, GroupInviteState } from "../types";

export type GroupInviteArgs = ArgsOf<GroupInviteInputs>;

// The outputs are declared by merging this interface into the class (the engine sets them at run time).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface GroupInvite extends OutputsOf<GroupInviteState> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class GroupInvite extends pulumi.CustomResource {
  /** The uid the service assigned: the resource's id (see uidOf). */
  public readonly uid: pulumi.Output<string>;

  constructor(name: string, args: GroupInviteArgs, opts?: pulumi.CustomResourceOptions) {
    super(...dynamicResource("GroupInvite", name, provider, args, opts));
    this.uid = uidOf(this);
  }

  /** Reads an existing invite by uid (calls the provider's `read`); its code cannot be read back. */
  public static get(
    name: string,
    uid: pulumi.Input<string>,
    opts?: pulumi.CustomResourceOptions,
    state?: { profile?: pulumi.Input<string> },
  ): GroupInvite {
    return new GroupInvite(name, { profile: state?.profile } as GroupInviteArgs, { ...opts, id: uid });
  }
}
