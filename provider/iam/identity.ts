/**
 * platform.iam.Identity: a workload identity that a token can assume: an OIDC token matching `claimMatch`, a token
 * signed by one of its `staticKeys`, or an AWS IAM principal matching `awsIdentity` (exactly one of the three).
 *
 * May import: @pulumi/pulumi, ./identity.provider, ../core/resource-class.
 */
import * as pulumi from "@pulumi/pulumi";
import provider = require("./identity.provider");
import { dynamicProps, dynamicType, uidOf, withOutputKeys } from "../core/resource-class";

/** How a presented OIDC token is matched: an issuer or issuerPattern, and a subject or subjectPattern. */
export interface ClaimMatchArgs {
  issuer?: pulumi.Input<string>;
  issuerPattern?: pulumi.Input<string>;
  subject?: pulumi.Input<string>;
  subjectPattern?: pulumi.Input<string>;
  audience?: pulumi.Input<string>;
  audiencePattern?: pulumi.Input<string>;
  claims?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  claimPatterns?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

/** The resolved claim match, as outputs carry it. */
export interface ClaimMatch {
  issuer?: string;
  issuerPattern?: string;
  subject?: string;
  subjectPattern?: string;
  audience?: string;
  audiencePattern?: string;
  claims?: Record<string, string>;
  claimPatterns?: Record<string, string>;
}

/** Pre-registered public keys, for token issuers without an online discovery document. */
export interface StaticKeysArgs {
  issuer: pulumi.Input<string>;
  subject: pulumi.Input<string>;
  /** The public keys as a JWKS document (JSON text). */
  issuerKeys: pulumi.Input<string>;
  /** RFC 3339, at most 365 days ahead. */
  expirationTime: pulumi.Input<string>;
  /** One accepted `aud` value. */
  audiences?: pulumi.Input<pulumi.Input<string>[]>;
}

/** The resolved static keys, as outputs carry them. */
export interface StaticKeys {
  issuer: string;
  subject: string;
  issuerKeys: string;
  expirationTime: string;
  audiences?: string[];
}

/** AWS IAM users and roles that may assume the identity. */
export interface AwsIdentityArgs {
  /** The AWS account id (12 digits). */
  awsAccount: pulumi.Input<string>;
  arn?: pulumi.Input<string>;
  arnPattern?: pulumi.Input<string>;
  userId?: pulumi.Input<string>;
  userIdPattern?: pulumi.Input<string>;
}

/** The resolved AWS identity, as outputs carry it. */
export interface AwsIdentity {
  awsAccount: string;
  arn?: string;
  arnPattern?: string;
  userId?: string;
  userIdPattern?: string;
}

export interface IdentityArgs {
  /** The uid of the group the identity lives in. Changing it replaces the identity. */
  parentUid: pulumi.Input<string>;
  name: pulumi.Input<string>;
  description?: pulumi.Input<string>;
  /** Exactly one of claimMatch, staticKeys, awsIdentity. */
  claimMatch?: pulumi.Input<ClaimMatchArgs>;
  staticKeys?: pulumi.Input<StaticKeysArgs>;
  awsIdentity?: pulumi.Input<AwsIdentityArgs>;
  /** Which credentials to use: a key of `platform:profiles`. */
  profile?: pulumi.Input<string>;
  /** Take over an existing identity with this name under this parent instead of creating a duplicate. */
  adopt?: pulumi.Input<boolean>;
}

const OUTPUT_KEYS = [
  "parentUid",
  "name",
  "description",
  "claimMatch",
  "staticKeys",
  "awsIdentity",
  "createTime",
] as const;

export class Identity extends pulumi.CustomResource {
  declare public readonly parentUid: pulumi.Output<string>;
  declare public readonly name: pulumi.Output<string>;
  declare public readonly description: pulumi.Output<string>;
  declare public readonly claimMatch: pulumi.Output<ClaimMatch | undefined>;
  declare public readonly staticKeys: pulumi.Output<StaticKeys | undefined>;
  declare public readonly awsIdentity: pulumi.Output<AwsIdentity | undefined>;
  /** The uid the service assigned: the resource's id (see uidOf). */
  public readonly uid: pulumi.Output<string>;
  declare public readonly createTime: pulumi.Output<string>;

  constructor(name: string, args: IdentityArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      dynamicType("iam", "Identity"),
      name,
      dynamicProps(provider, withOutputKeys(args, OUTPUT_KEYS)),
      opts,
    );
    this.uid = uidOf(this);
  }

  /** Reads an existing identity by uid into the program (calls the provider's `read`). */
  public static get(
    name: string,
    uid: pulumi.Input<string>,
    opts?: pulumi.CustomResourceOptions,
    state?: { profile?: pulumi.Input<string> },
  ): Identity {
    return new Identity(name, { profile: state?.profile } as IdentityArgs, { ...opts, id: uid });
  }
}
