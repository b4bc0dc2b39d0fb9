/**
 * platform.iam.Identity: a workload identity that a token can assume (claimMatch, staticKeys or awsIdentity). Its Args, outputs and the properties it registers are derived from its
 * declaration (./identity.declaration, through the generated ../types); this class only binds them to its provider.
 *
 * May import: @pulumi/pulumi, ./identity.provider, ../core/resource-class, ../types (types and the properties table).
 */
import * as pulumi from "@pulumi/pulumi";
import provider = require("./identity.provider");
import { dynamicResource, uidOf, type ArgsOf, type OutputsOf } from "../core/resource-class";
import type {
  ClaimMatch,
  IdentityAwsIdentity,
  IdentityInputs,
  IdentityStaticKeys,
  IdentityState,
} from "../types";

export type { ClaimMatch };
/** How a presented OIDC token is matched: an issuer or issuerPattern, and a subject or subjectPattern. */
export type ClaimMatchArgs = ArgsOf<ClaimMatch>;
/** Pre-registered public keys, for token issuers without an online discovery document. */
export type StaticKeys = IdentityStaticKeys;
export type StaticKeysArgs = ArgsOf<StaticKeys>;
/** AWS IAM users and roles that may assume the identity. */
export type AwsIdentity = IdentityAwsIdentity;
export type AwsIdentityArgs = ArgsOf<AwsIdentity>;

export type IdentityArgs = ArgsOf<IdentityInputs>;

// The outputs are declared by merging this interface into the class (the engine sets them at run time).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface Identity extends OutputsOf<IdentityState> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Identity extends pulumi.CustomResource {
  /** The uid the service assigned: the resource's id (see uidOf). */
  public readonly uid: pulumi.Output<string>;

  constructor(name: string, args: IdentityArgs, opts?: pulumi.CustomResourceOptions) {
    super(...dynamicResource("Identity", name, provider, args, opts));
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
