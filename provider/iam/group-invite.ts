/**
 * platform.iam.GroupInvite: a code that grants a role on a group when accepted. Every change replaces it
 * (the API has no update). `code` is a secret output, returned by the service only at creation. The expiry
 * is a `ttl` or an `expirationTime`.
 *
 * May import: @pulumi/pulumi, ./group-invite.provider, ../core/resource-class.
 */
import * as pulumi from "@pulumi/pulumi";
import provider = require("./group-invite.provider");
import { dynamicProps, dynamicType, uidOf, withOutputKeys } from "../core/resource-class";

export interface GroupInviteArgs {
  /** The group the invite grants a role on. */
  groupUid: pulumi.Input<string>;
  /** The granted role: a custom role uid or a built-in 40-hex uid (see getRole). */
  roleUid: pulumi.Input<string>;
  /** How long the invite is valid from creation: "72h", "90m", "1h30m", "3600s" (units d, h, m, s). */
  ttl?: pulumi.Input<string>;
  /** Instead of a ttl: when the invite expires (RFC 3339); sent as the time left at creation. */
  expirationTime?: pulumi.Input<string>;
  /** Only this email address may accept it. */
  email?: pulumi.Input<string>;
  /** The invite works once. Default false. */
  singleUse?: pulumi.Input<boolean>;
  /** Which credentials to use: a key of `platform:profiles`. */
  profile?: pulumi.Input<string>;
}

const OUTPUT_KEYS = [
  "groupUid",
  "roleUid",
  "ttl",
  "email",
  "singleUse",
  "code",
  "expirationTime",
  "keyId",
  "createTime",
] as const;

export class GroupInvite extends pulumi.CustomResource {
  declare public readonly groupUid: pulumi.Output<string>;
  declare public readonly roleUid: pulumi.Output<string>;
  declare public readonly ttl: pulumi.Output<string | undefined>;
  declare public readonly email: pulumi.Output<string>;
  declare public readonly singleUse: pulumi.Output<boolean>;
  /** The uid the service assigned: the resource's id (see uidOf). */
  public readonly uid: pulumi.Output<string>;
  /** Secret: the code to hand to the invitee. */
  declare public readonly code: pulumi.Output<string>;
  /** The service's expiry; with an expirationTime input, the program's value. */
  declare public readonly expirationTime: pulumi.Output<string>;
  declare public readonly keyId: pulumi.Output<string>;
  declare public readonly createTime: pulumi.Output<string>;

  constructor(name: string, args: GroupInviteArgs, opts?: pulumi.CustomResourceOptions) {
    const secrets = new Set([...(opts?.additionalSecretOutputs ?? []), "code"]);
    super(
      dynamicType("iam", "GroupInvite"),
      name,
      dynamicProps(provider, withOutputKeys(args, OUTPUT_KEYS)),
      { ...opts, additionalSecretOutputs: [...secrets] },
    );
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
