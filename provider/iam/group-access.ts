/**
 * platform.iam.GroupAccess: governs the complete set of role bindings on a group (or a subtree). Its Args, outputs and the properties it registers are derived from its
 * declaration (./group-access.declaration, through the generated ../types); this class only binds them to its provider.
 *
 * May import: @pulumi/pulumi, ./group-access.provider, ../core/resource-class, ../types (types and the properties table).
 */
import * as pulumi from "@pulumi/pulumi";
import provider = require("./group-access.provider");
import { dynamicResource, uidOf, type ArgsOf, type OutputsOf } from "../core/resource-class";
import type { GroupAccessInputs, GroupAccessState } from "../types";

export type GroupAccessArgs = ArgsOf<GroupAccessInputs>;

// The outputs are declared by merging this interface into the class (the engine sets them at run time).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface GroupAccess extends OutputsOf<GroupAccessState> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class GroupAccess extends pulumi.CustomResource {
  /** The resource's id: the uid of the group it governs (see uidOf). */
  public readonly uid: pulumi.Output<string>;

  constructor(name: string, args: GroupAccessArgs, opts?: pulumi.CustomResourceOptions) {
    super(...dynamicResource("GroupAccess", name, provider, args, opts));
    this.uid = uidOf(this);
  }

  /** Reads the bindings of a scope by the group's uid (`<uid>/**` for the subtree) into the program (calls the provider's `read`). */
  public static get(
    name: string,
    uid: pulumi.Input<string>,
    opts?: pulumi.CustomResourceOptions,
    state?: { profile?: pulumi.Input<string> },
  ): GroupAccess {
    return new GroupAccess(name, { profile: state?.profile } as GroupAccessArgs, { ...opts, id: uid });
  }
}
