/**
 * platform.iam.Role: a custom role, a named set of capabilities defined in a group.
 *
 * May import: @pulumi/pulumi, ./role.provider, ../core/resource-class.
 */
import * as pulumi from "@pulumi/pulumi";
import provider = require("./role.provider");
import { dynamicProps, dynamicType, uidOf, withOutputKeys } from "../core/resource-class";

export interface RoleArgs {
  /** The uid of the group the role is defined in. Changing it replaces the role. */
  parentUid: pulumi.Input<string>;
  name: pulumi.Input<string>;
  description?: pulumi.Input<string>;
  /** Capability names such as CAP_IAM_GROUPS_LIST; order does not matter. */
  capabilities: pulumi.Input<pulumi.Input<string>[]>;
  /** Which credentials to use: a key of `platform:profiles`. */
  profile?: pulumi.Input<string>;
  /** Take over an existing role with this name under this parent instead of creating a duplicate. */
  adopt?: pulumi.Input<boolean>;
}

const OUTPUT_KEYS = ["parentUid", "name", "description", "capabilities", "createTime"] as const;

export class Role extends pulumi.CustomResource {
  declare public readonly parentUid: pulumi.Output<string>;
  declare public readonly name: pulumi.Output<string>;
  declare public readonly description: pulumi.Output<string>;
  declare public readonly capabilities: pulumi.Output<string[]>;
  /** The uid the service assigned: the resource's id (see uidOf). */
  public readonly uid: pulumi.Output<string>;
  declare public readonly createTime: pulumi.Output<string>;

  constructor(name: string, args: RoleArgs, opts?: pulumi.CustomResourceOptions) {
    super(dynamicType("iam", "Role"), name, dynamicProps(provider, withOutputKeys(args, OUTPUT_KEYS)), opts);
    this.uid = uidOf(this);
  }

  /** Reads an existing custom role by uid into the program (calls the provider's `read`). */
  public static get(
    name: string,
    uid: pulumi.Input<string>,
    opts?: pulumi.CustomResourceOptions,
    state?: { profile?: pulumi.Input<string> },
  ): Role {
    return new Role(name, { profile: state?.profile } as RoleArgs, { ...opts, id: uid });
  }
}
