/**
 * platform.registry.getTags / getTagsOutput: the tags of one registry repository, with an optional
 * exact-name filter and server-side ordering, paged through 200 at a time.
 *
 * The implementation, ./get-tags.implementation (zod, the SDK, undici), loads on the first call, so a program that
 * does not call it never loads them.
 *
 * May import: @pulumi/pulumi (types), ../core/output-form, ../types.
 */
import type * as pulumi from "@pulumi/pulumi";
import { outputForm } from "../core/output-form";
import type { GetTagsArgs, GetTagsResult } from "../types";

export type { GetTagsArgs, GetTagsResult };

export async function getTags(args: GetTagsArgs, opts?: pulumi.InvokeOptions): Promise<GetTagsResult> {
  const implementation = require("./get-tags.implementation") as typeof import("./get-tags.implementation");
  return implementation.getTags(args, opts);
}

export const getTagsOutput = outputForm(getTags);
