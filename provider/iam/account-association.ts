/**
 * platform.iam.AccountAssociation: a group's cloud accounts; one per group, its uid is the group's uid. Its Args, outputs and the properties it registers are derived from its
 * declaration (./account-association.declaration, through the generated ../types); this class only binds them to its provider.
 *
 * May import: @pulumi/pulumi, ./account-association.provider, ../core/resource-class, ../types (types and the properties table).
 */
import * as pulumi from "@pulumi/pulumi";
import provider = require("./account-association.provider");
import { dynamicResource, uidOf, type ArgsOf, type OutputsOf } from "../core/resource-class";
import type {
  AccountAssociationInputs,
  AccountAssociationState,
  AccountAssociationAmazon,
  AccountAssociationAzure,
  AccountAssociationChainguard,
  AccountAssociationGithub,
  AccountAssociationGoogle,
  GitHubInstallation,
} from "../types";

export type AmazonArgs = ArgsOf<AccountAssociationAmazon>;
export type AzureArgs = ArgsOf<AccountAssociationAzure>;
export type GoogleArgs = ArgsOf<AccountAssociationGoogle>;
export type ChainguardArgs = ArgsOf<AccountAssociationChainguard>;
export type GitHubArgs = ArgsOf<AccountAssociationGithub>;
export type GitHubInstallationArgs = ArgsOf<GitHubInstallation>;
/** The resolved blocks, as outputs carry them. */
export type AccountAssociationBlocks = Pick<
  AccountAssociationState,
  "amazon" | "azure" | "google" | "chainguard" | "github"
>;

export type AccountAssociationArgs = ArgsOf<AccountAssociationInputs>;

// The outputs are declared by merging this interface into the class (the engine sets them at run time).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface AccountAssociation extends OutputsOf<AccountAssociationState> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class AccountAssociation extends pulumi.CustomResource {
  /** The uid the service assigned: the resource's id (see uidOf). */
  public readonly uid: pulumi.Output<string>;

  constructor(name: string, args: AccountAssociationArgs, opts?: pulumi.CustomResourceOptions) {
    super(...dynamicResource("AccountAssociation", name, provider, args, opts));
    this.uid = uidOf(this);
  }

  /** Reads a group's association by the group's uid (calls the provider's `read`). */
  public static get(
    name: string,
    groupUid: pulumi.Input<string>,
    opts?: pulumi.CustomResourceOptions,
    state?: { profile?: pulumi.Input<string> },
  ): AccountAssociation {
    return new AccountAssociation(name, { profile: state?.profile } as AccountAssociationArgs, {
      ...opts,
      id: groupUid,
    });
  }
}
