/**
 * platform.iam.RoleBinding: grants an identity a role on a group. Changing any reference replaces it.
 *
 * May import: @pulumi/pulumi, ./role-binding.provider, ../core/resource-class.
 */
import * as pulumi from "@pulumi/pulumi";
import provider = require("./role-binding.provider");
import { dynamicProps, dynamicType, uidOf, withOutputKeys } from "../core/resource-class";

export interface RoleBindingArgs {
  /** The group the role is granted on. */
  groupUid: pulumi.Input<string>;
  /** The identity that receives the role. */
  identityUid: pulumi.Input<string>;
  /** A custom role's uid or a built-in role's 40-hex uid (look it up with getRole). */
  roleUid: pulumi.Input<string>;
  /** Which credentials to use: a key of `platform:profiles`. */
  profile?: pulumi.Input<string>;
  /** Take over an existing identical binding instead of creating a duplicate. */
  adopt?: pulumi.Input<boolean>;
}

const OUTPUT_KEYS = ["groupUid", "identityUid", "roleUid", "createTime"] as const;

export class RoleBinding extends pulumi.CustomResource {
  declare public readonly groupUid: pulumi.Output<string>;
  declare public readonly identityUid: pulumi.Output<string>;
  declare public readonly roleUid: pulumi.Output<string>;
  /** The uid the service assigned: the resource's id (see uidOf). */
  public readonly uid: pulumi.Output<string>;
  declare public readonly createTime: pulumi.Output<string>;

  constructor(name: string, args: RoleBindingArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      dynamicType("iam", "RoleBinding"),
      name,
      dynamicProps(provider, withOutputKeys(args, OUTPUT_KEYS)),
      opts,
    );
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
