/**
 * platform.iam.IdentityProvider: an organization's OIDC login (issuer, client id and secret, default role).
 *
 * `clientSecret` is always secret: the constructor wraps it with pulumi.secret() even when the program
 * passes a plain string, and `additionalSecretOutputs` keeps the output encrypted in state.
 *
 * May import: @pulumi/pulumi, ./identity-provider.provider, ../core/resource-class.
 */
import * as pulumi from "@pulumi/pulumi";
import provider = require("./identity-provider.provider");
import { dynamicProps, dynamicType, uidOf, withOutputKeys } from "../core/resource-class";

export interface IdentityProviderArgs {
  /** The organization (a root group uid); identity providers cannot live in folders. Changing it replaces. */
  parentUid: pulumi.Input<string>;
  name: pulumi.Input<string>;
  description?: pulumi.Input<string>;
  /** The role people who log in through this provider get: a custom role uid or a built-in 40-hex uid. */
  defaultRole: pulumi.Input<string>;
  /** The OIDC issuer URL (https). */
  issuer: pulumi.Input<string>;
  clientId: pulumi.Input<string>;
  /** Write-only in the API; kept secret in state, sent only when it changes. */
  clientSecret: pulumi.Input<string>;
  additionalScopes?: pulumi.Input<pulumi.Input<string>[]>;
  groupsClaim?: pulumi.Input<string>;
  /** Default false. */
  pkceEnabled?: pulumi.Input<boolean>;
  /** Which credentials to use: a key of `platform:profiles`. */
  profile?: pulumi.Input<string>;
  /** Take over an existing identity provider with this name in this organization. */
  adopt?: pulumi.Input<boolean>;
}

const OUTPUT_KEYS = [
  "parentUid",
  "name",
  "description",
  "defaultRole",
  "issuer",
  "clientId",
  "clientSecret",
  "additionalScopes",
  "groupsClaim",
  "pkceEnabled",
  "createTime",
] as const;

export class IdentityProvider extends pulumi.CustomResource {
  declare public readonly parentUid: pulumi.Output<string>;
  declare public readonly name: pulumi.Output<string>;
  declare public readonly description: pulumi.Output<string>;
  declare public readonly defaultRole: pulumi.Output<string>;
  declare public readonly issuer: pulumi.Output<string>;
  declare public readonly clientId: pulumi.Output<string>;
  /** Secret. */
  declare public readonly clientSecret: pulumi.Output<string | undefined>;
  declare public readonly additionalScopes: pulumi.Output<string[]>;
  declare public readonly groupsClaim: pulumi.Output<string>;
  declare public readonly pkceEnabled: pulumi.Output<boolean>;
  /** The uid the service assigned: the resource's id (see uidOf). */
  public readonly uid: pulumi.Output<string>;
  declare public readonly createTime: pulumi.Output<string>;

  constructor(name: string, args: IdentityProviderArgs, opts?: pulumi.CustomResourceOptions) {
    const props = withOutputKeys(args, OUTPUT_KEYS);
    // Secret even when the program passed a plain string (static get passes none).
    if (args.clientSecret !== undefined) props.clientSecret = pulumi.secret(args.clientSecret);
    super(
      dynamicType("iam", "IdentityProvider"),
      name,
      dynamicProps(provider, props),
      withSecretOutputs(opts),
    );
    this.uid = uidOf(this);
  }

  /** Reads an existing identity provider by uid (calls the provider's `read`); clientSecret stays unknown. */
  public static get(
    name: string,
    uid: pulumi.Input<string>,
    opts?: pulumi.CustomResourceOptions,
    state?: { profile?: pulumi.Input<string> },
  ): IdentityProvider {
    return new IdentityProvider(name, { profile: state?.profile } as IdentityProviderArgs, {
      ...opts,
      id: uid,
    });
  }
}

function withSecretOutputs(opts: pulumi.CustomResourceOptions | undefined): pulumi.CustomResourceOptions {
  const secrets = new Set([...(opts?.additionalSecretOutputs ?? []), "clientSecret"]);
  return { ...opts, additionalSecretOutputs: [...secrets] };
}
