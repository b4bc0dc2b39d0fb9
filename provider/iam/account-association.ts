/**
 * platform.iam.AccountAssociation: a group's cloud accounts (AWS, Azure, Google Cloud, the platform's own
 * service bindings, GitHub App installations). One per group; its uid is the group's uid.
 *
 * May import: @pulumi/pulumi, ./account-association.provider, ../core/resource-class.
 */
import * as pulumi from "@pulumi/pulumi";
import provider = require("./account-association.provider");
import { dynamicProps, dynamicType, uidOf, withOutputKeys } from "../core/resource-class";

export interface AmazonArgs {
  /** The 12-digit AWS account id. */
  account: pulumi.Input<string>;
}
export interface AzureArgs {
  tenantId: pulumi.Input<string>;
  clientIds: pulumi.Input<Record<string, pulumi.Input<string>>>;
}
export interface GoogleArgs {
  projectId: pulumi.Input<string>;
  projectNumber: pulumi.Input<string>;
}
export interface ChainguardArgs {
  serviceBindings: pulumi.Input<Record<string, pulumi.Input<string>>>;
}
export interface GitHubInstallationArgs {
  installationId: pulumi.Input<string>;
  name?: pulumi.Input<string>;
}
export interface GitHubArgs {
  appInstallations?: pulumi.Input<
    Record<string, pulumi.Input<{ installations?: pulumi.Input<pulumi.Input<GitHubInstallationArgs>[]> }>>
  >;
}

export interface AccountAssociationArgs {
  /** The group; also the association's uid. Changing it replaces the association. */
  groupUid: pulumi.Input<string>;
  name: pulumi.Input<string>;
  description?: pulumi.Input<string>;
  amazon?: pulumi.Input<AmazonArgs>;
  azure?: pulumi.Input<AzureArgs>;
  google?: pulumi.Input<GoogleArgs>;
  chainguard?: pulumi.Input<ChainguardArgs>;
  github?: pulumi.Input<GitHubArgs>;
  /** Which credentials to use: a key of `platform:profiles`. */
  profile?: pulumi.Input<string>;
  /** Take over the group's existing association instead of failing. */
  adopt?: pulumi.Input<boolean>;
}

/** The resolved blocks, as outputs carry them. */
export interface AccountAssociationBlocks {
  amazon?: { account: string };
  azure?: { tenantId: string; clientIds: Record<string, string> };
  google?: { projectId: string; projectNumber: string };
  chainguard?: { serviceBindings: Record<string, string> };
  github?: {
    appInstallations?: Record<string, { installations?: { installationId: string; name?: string }[] }>;
  };
}

const OUTPUT_KEYS = [
  "groupUid",
  "name",
  "description",
  "amazon",
  "azure",
  "google",
  "chainguard",
  "github",
  "createTime",
] as const;

export class AccountAssociation extends pulumi.CustomResource {
  declare public readonly groupUid: pulumi.Output<string>;
  declare public readonly name: pulumi.Output<string>;
  declare public readonly description: pulumi.Output<string>;
  declare public readonly amazon: pulumi.Output<AccountAssociationBlocks["amazon"]>;
  declare public readonly azure: pulumi.Output<AccountAssociationBlocks["azure"]>;
  declare public readonly google: pulumi.Output<AccountAssociationBlocks["google"]>;
  declare public readonly chainguard: pulumi.Output<AccountAssociationBlocks["chainguard"]>;
  declare public readonly github: pulumi.Output<AccountAssociationBlocks["github"]>;
  /** The uid the service assigned: the resource's id (see uidOf). */
  public readonly uid: pulumi.Output<string>;
  declare public readonly createTime: pulumi.Output<string>;

  constructor(name: string, args: AccountAssociationArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      dynamicType("iam", "AccountAssociation"),
      name,
      dynamicProps(provider, withOutputKeys(args, OUTPUT_KEYS)),
      opts,
    );
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
