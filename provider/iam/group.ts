/**
 * platform.iam.Group: an organization (root group, no parentUid) or a folder under another group.
 *
 * May import: @pulumi/pulumi, ./group.provider, ./group-schema.
 */
import * as pulumi from "@pulumi/pulumi";
import provider = require("./group.provider");
import { dynamicProps, dynamicType, uidOf, withOutputKeys } from "../core/resource-class";

export interface GroupArgs {
  /** The name; must match ^[a-z0-9 ._-]{1,}$. */
  name: pulumi.Input<string>;
  /** A description; absent is the same as "". */
  description?: pulumi.Input<string>;
  /** The parent group's uid; omit to create an organization. Changing it replaces the group. */
  parentUid?: pulumi.Input<string>;
  /** Which credentials to use: a key of `platform:profiles`. Default: the stack's credentials. */
  profile?: pulumi.Input<string>;
  /** Take over an existing group with this name under this parent instead of creating a duplicate. */
  adopt?: pulumi.Input<boolean>;
}

/** Every property the class exposes: the inputs and what the service assigns. */
const OUTPUT_KEYS = ["name", "description", "parentUid", "verified", "createTime"] as const;

export class Group extends pulumi.CustomResource {
  declare public readonly name: pulumi.Output<string>;
  declare public readonly description: pulumi.Output<string>;
  declare public readonly parentUid: pulumi.Output<string | undefined>;
  /** The uid the service assigned: the resource's id (see uidOf). */
  public readonly uid: pulumi.Output<string>;
  declare public readonly verified: pulumi.Output<boolean>;
  declare public readonly createTime: pulumi.Output<string>;

  constructor(name: string, args: GroupArgs, opts?: pulumi.CustomResourceOptions) {
    super(dynamicType("iam", "Group"), name, dynamicProps(provider, withOutputKeys(args, OUTPUT_KEYS)), opts);
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
