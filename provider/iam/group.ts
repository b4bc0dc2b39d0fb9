/**
 * platform.iam.Group: an organization (root group, no parentUid) or a folder under another group. Its Args, outputs and the properties it registers are derived from its
 * declaration (./group.declaration, through the generated ../types); this class only binds them to its provider.
 *
 * May import: @pulumi/pulumi, ./group.provider, ../core/resource-class, ../types (types and the properties table).
 */
import * as pulumi from "@pulumi/pulumi";
import provider = require("./group.provider");
import { dynamicResource, uidOf, type ArgsOf, type OutputsOf } from "../core/resource-class";
import type { GroupInputs, GroupState } from "../types";

export type GroupArgs = ArgsOf<GroupInputs>;

// The outputs are declared by merging this interface into the class (the engine sets them at run time).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface Group extends OutputsOf<GroupState> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Group extends pulumi.CustomResource {
  /** The uid the service assigned: the resource's id (see uidOf). */
  public readonly uid: pulumi.Output<string>;

  constructor(name: string, args: GroupArgs, opts?: pulumi.CustomResourceOptions) {
    super(...dynamicResource("Group", name, provider, args, opts));
    this.uid = uidOf(this);
  }

  /** Reads an existing group by uid into the program (calls the provider's `read`). */
  public static get(
    name: string,
    uid: pulumi.Input<string>,
    opts?: pulumi.CustomResourceOptions,
    state?: { profile?: pulumi.Input<string> },
  ): Group {
    return new Group(name, { profile: state?.profile } as GroupArgs, { ...opts, id: uid });
  }
}
