/**
 * platform.iam.getRoles / getRolesOutput: every role visible to the credentials (built-in and custom),
 * optionally scoped and filtered, paged through 200 at a time.
 *
 * May import: @pulumi/pulumi, ../core/program-client, ../../sdk.
 */
import * as pulumi from "@pulumi/pulumi";
import type { Role } from "../../sdk";
import { DATA_SOURCE_PAGE_SIZE, ProfileArgs, collect, outputForm, withProgramClient } from "../core/program-client";

export interface GetRolesArgs extends ProfileArgs {
  /** Only roles anywhere below this group (uidp.descendants_of). */
  descendantsOf?: string;
  /** Only roles defined directly in this group (uidp.children_of). */
  childrenOf?: string;
  /** Only roles with exactly this name. */
  name?: string;
  /** Server-side order, e.g. "name" or "created_at desc". */
  orderBy?: string;
}

export interface GetRolesResult {
  roles: Role[];
}

export function getRoles(args: GetRolesArgs = {}, _opts?: pulumi.InvokeOptions): Promise<GetRolesResult> {
  return withProgramClient(args.profile, { action: "list", type: "platform:iam:getRoles" }, async (client) => ({
    roles: await collect(
      client.roles.list({
        descendantsOf: args.descendantsOf,
        childrenOf: args.childrenOf,
        name: args.name,
        orderBy: args.orderBy,
        pageSize: DATA_SOURCE_PAGE_SIZE,
      }),
    ),
  }));
}

export const getRolesOutput = outputForm(getRoles);
