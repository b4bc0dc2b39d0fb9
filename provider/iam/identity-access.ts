/**
 * platform.iam.IdentityAccess: governs every role one identity holds. Its Args, outputs and the properties it registers are derived from its
 * declaration (./identity-access.declaration, through the generated ../types); this class only binds them to its provider.
 *
 * May import: @pulumi/pulumi, ./identity-access.provider, ../core/resource-class, ../types (types and the properties table).
 */
import * as pulumi from "@pulumi/pulumi";
import provider = require("./identity-access.provider");
import { dynamicResource, uidOf, type ArgsOf, type OutputsOf } from "../core/resource-class";
import type { IdentityAccessInputs, IdentityAccessState } from "../types";

export type IdentityAccessArgs = ArgsOf<IdentityAccessInputs>;

// The outputs are declared by merging this interface into the class (the engine sets them at run time).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface IdentityAccess extends OutputsOf<IdentityAccessState> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class IdentityAccess extends pulumi.CustomResource {
  /** The resource's id: the uid of the identity it governs (see uidOf). */
  public readonly uid: pulumi.Output<string>;

  constructor(name: string, args: IdentityAccessArgs, opts?: pulumi.CustomResourceOptions) {
    super(...dynamicResource("IdentityAccess", name, provider, args, opts));
    this.uid = uidOf(this);
  }

  /** Reads the bindings of a scope by the identity's uid into the program (calls the provider's `read`). */
  public static get(
    name: string,
    uid: pulumi.Input<string>,
    opts?: pulumi.CustomResourceOptions,
    state?: { profile?: pulumi.Input<string> },
  ): IdentityAccess {
    return new IdentityAccess(name, { profile: state?.profile } as IdentityAccessArgs, { ...opts, id: uid });
  }
}
