/**
 * The Output form of a data source (pulumi-awsx's getX / getXOutput pair). Kept apart from ./program-client so the
 * public declarations of the data sources reach @pulumi/pulumi only, never zod (see scripts/generate-types.js).
 */
import * as pulumi from "@pulumi/pulumi";

/** The Output form's arguments: every member may be an Input. */
export type InputArgs<A> = { [K in keyof A]: pulumi.Input<A[K]> };

/** Wraps a Promise data source into its Output form (pulumi-awsx's getX / getXOutput pair). */
export function outputForm<A, R>(
  fn: (args: A, opts?: pulumi.InvokeOptions) => Promise<R>,
): (args: InputArgs<A>, opts?: pulumi.InvokeOptions) => pulumi.Output<R> {
  return (args, opts) => {
    const resolved = pulumi.output(args) as unknown as pulumi.Output<A>;
    return resolved.apply((plain) => fn(plain, opts)) as unknown as pulumi.Output<R>;
  };
}
